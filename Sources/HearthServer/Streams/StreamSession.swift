import HearthGRPC

/// The events every stream session's mailbox carries from its call, whatever else it holds
/// (a Listen session also queues the engine's snapshots).
protocol StreamSessionEvent {
    static func request(_ message: [UInt8]) -> Self
    static var inputEnded: Self { get }
    static var cancelled: Self { get }
}

/// What the Listen and Write sessions share: the call's messages, its half-close and its
/// end become events in the session's mailbox, and however the call ends (a deadline, the
/// connection closing, a reset) the session hears it. Each session decides how its events
/// are scheduled (`enqueue`).
protocol StreamSession: GRPCInboundStream {
    associatedtype Event: StreamSessionEvent
    var call: any FirestoreStreamCall { get }
    func enqueue(_ event: Event)
}

extension StreamSession {
    func received(_ message: [UInt8]) { enqueue(.request(message)) }
    func inputEnded() { enqueue(.inputEnded) }
    func cancelled() { enqueue(.cancelled) }

    /// Makes the call's end reach the session; called once, by the session's `start`.
    /// Returns the session.
    func hearingItsEnd() -> Self {
        call.onEnded { [weak self] in self?.enqueue(.cancelled) }
        return self
    }
}

extension FirestoreStreamCall {
    /// Registers the stream in `state.streams` (the console's Listeners panel); the
    /// session closes the entry when it ends.
    func register(_ kind: OpenStreams.Stream.Kind, in state: EmulatorState) -> Int {
        state.streams.open(kind, transport: transport, caller: .init(authorization: authorization))
    }
}
