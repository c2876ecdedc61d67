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
    /// Queues one response message, encoded by the stream's codec, without waiting;
    /// throws CANCELLED once the stream has ended.
    func send(_ message: [UInt8]) throws(FirestoreError)
    /// Hands what was queued to the client.
    func flush()
    /// Ends the stream with a status (OK or an error); later ends are ignored.
    func finish(_ code: FirestoreError.Code, message: String)
    /// Runs the session's next batches on a worker thread; false when none can take them
    /// (the stream is then ended).
    func runWorker(_ body: @escaping @Sendable () -> Void) -> Bool
    /// Runs `body` off the caller's thread, where the stream's own events are handled.
    func onEventLoop(_ body: @escaping @Sendable () -> Void)
    /// Runs `body` — short work that never blocks — off the caller's thread: on the
    /// stream's event loop (gRPC), or on a worker where there is none (WebChannel); false
    /// when it cannot be queued (the stream is then ended).
    func runNonBlocking(_ body: @escaping @Sendable () -> Void) -> Bool
    /// Whether the client has taken enough that more may be sent now.
    var isWritable: Bool { get }
    /// How many more message bytes may be sent before `isWritable` turns false (negative:
    /// it is false now). A call that cannot tell says 0 while writable: one message, then
    /// ask again.
    var writableRoom: Int { get }
    /// Calls `body` once the client has caught up (or the stream has ended).
    func whenWritable(_ body: @escaping @Sendable () -> Void)
    /// Calls `body` once the stream ends, however it ends.
    func onEnded(_ body: @escaping @Sendable () -> Void)
    /// Ends the stream as a dropped network would (an injected fault): gRPC closes the
    /// connection, WebChannel cuts its back channel and forgets the session.
    func abortConnection()
}

extension FirestoreStreamCall {
    var writableRoom: Int { isWritable ? 0 : -1 }

    /// Ends the stream with an error's code and message — or, for an injected reset or
    /// dropped answer, by cutting the connection.
    func finish(_ error: FirestoreError) {
        if error.closesConnection { abortConnection() } else { finish(error.code, message: error.message) }
    }
}
