import HearthCore

/// The response side of a Listen or Write stream, whatever carries it: a gRPC call over
/// HTTP/2 (`FirestoreCall`, protobuf messages) or a WebChannel session over HTTP/1.1
/// (`WebChannelSession`, proto3 JSON messages). `ListenSession` and `WriteSession` speak
/// only to this and to their codec, so both transports share one implementation of each
/// protocol.
protocol FirestoreStreamCall: Sendable {
    /// The front end, for the request log and the open-streams list.
    var transport: RequestLogEntry.Transport { get }
    /// The `Authorization` header the stream was opened with, if any.
    var authorization: String? { get }
    /// Whether the stream has ended: finished, cancelled, expired, or its transport is gone.
    var hasEnded: Bool { get }
    /// Queues one response message, encoded by the stream's codec. May wait while the
    /// client is behind (back-pressure); throws CANCELLED once the stream has ended.
    func send(_ message: [UInt8]) throws(FirestoreError)
    /// Hands what was queued to the client.
    func flush()
    /// Ends the stream with a status (OK or an error); later ends are ignored.
    func finish(_ code: FirestoreError.Code, message: String)
    /// Runs the session's worker on its own thread.
    func runWorker(_ body: @escaping @Sendable () -> Void)
}

extension FirestoreStreamCall {
    /// Ends the stream with an error's code and message.
    func finish(_ error: FirestoreError) { finish(error.code, message: error.message) }
}
