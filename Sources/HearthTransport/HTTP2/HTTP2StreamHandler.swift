/// What the HTTP/2 server hands each request stream to: the application layer (gRPC).
///
/// `open` is called on the connection's event loop when a request's headers are complete;
/// it returns the receiver for the request body. The receiver's methods are called on that
/// loop, serially, in arrival order, and must not block (hand long work to the worker
/// pool). Responses go through the `HTTP2ServerStream`, from any thread.
public protocol HTTP2StreamHandler: Sendable {
    func open(_ stream: HTTP2ServerStream, request: HTTP2RequestHeaders, endStream: Bool) -> any HTTP2RequestBodyReceiver
}

/// Receives one request stream's body and its end.
public protocol HTTP2RequestBodyReceiver: AnyObject {
    /// Body bytes in order; `endStream` once the client has finished its side. The bytes
    /// count against the connection's buffer budget until the receiver gives them back
    /// with `HTTP2ServerStream.releaseInput` (once it has consumed or dropped them).
    func received(_ data: [UInt8], endStream: Bool)
    /// The stream was reset (by the client, a protocol error or the connection closing);
    /// nothing more can be sent on it.
    func reset(_ code: HTTP2ErrorCode)
}

/// The response side of one request stream.
public final class HTTP2ServerStream: Sendable {
    public let id: UInt32
    public let request: HTTP2RequestHeaders
    /// The whole request body (to its END_STREAM) came in the same read as the headers: it
    /// is handed to the receiver right after `open`, so nothing need wait for it (a gRPC
    /// call arms no timer against a trickled body, ~3,000 instructions and three
    /// allocations saved a call). False when the body is still to come — or is simply not
    /// known to have come, which only costs the wait's set-up.
    public let bodyFollowsHeaders: Bool
    private let connection: HTTP2Connection

    init(id: UInt32, request: HTTP2RequestHeaders, bodyFollowsHeaders: Bool = false, connection: HTTP2Connection) {
        self.id = id
        self.request = request
        self.bodyFollowsHeaders = bodyFollowsHeaders
        self.connection = connection
    }

    /// Sends the response headers (`endStream` for a headers-only / trailers-only response).
    public func sendHeaders(_ headers: [HTTP2Header], endStream: Bool = false) throws(HTTP2ConnectionState.SendError) {
        try connection.perform { (state: inout HTTP2ConnectionState) throws(HTTP2ConnectionState.SendError) in
            try state.sendHeaders(id, headers, endStream: endStream)
        }
    }

    /// Sends body bytes; they go out as flow control allows.
    public func sendData(_ bytes: [UInt8], endStream: Bool = false) throws(HTTP2ConnectionState.SendError) {
        try connection.perform { (state: inout HTTP2ConnectionState) throws(HTTP2ConnectionState.SendError) in
            try state.sendData(id, bytes, endStream: endStream)
        }
    }

    /// Sends response headers (when given), body bytes (when any) and trailers (when given,
    /// ending the stream) in one step, so they leave in one write to the socket.
    public func send(headers: [HTTP2Header]?, data: [UInt8], trailers: [HTTP2Header]?) throws(HTTP2ConnectionState.SendError) {
        try connection.perform { (state: inout HTTP2ConnectionState) throws(HTTP2ConnectionState.SendError) in
            // Queued together, written in one pass (also when a later part fails).
            defer { state.flush() }
            if let headers { try state.sendHeaders(id, headers, endStream: false, flush: false) }
            if !data.isEmpty { try state.sendData(id, data, endStream: false, flush: false) }
            if let trailers { try state.sendHeaders(id, trailers, endStream: true, flush: false) }
        }
    }

    /// Resets the stream.
    public func reset(_ code: HTTP2ErrorCode = .cancel) {
        connection.perform { (state: inout HTTP2ConnectionState) in state.reset(id, code) }
    }

    /// Closes the whole connection at once, without GOAWAY (an injected fault,
    /// docs/faults.md): every stream on it is cut, as when the network drops.
    public func closeConnection() {
        let connection = connection
        if connection.loop.inEventLoop { connection.connection.close() } else { connection.loop.execute { connection.connection.close() } }
    }

    /// Response bytes queued and not yet written (flow control), for back-pressure.
    public var queuedBytes: Int { connection.read { $0.queuedBytes(id) } }

    /// Whether responses can still be sent.
    public var isOpen: Bool { connection.read { $0.isOpen(id) } }

    /// Whether more may be given to send now: at most `threshold` bytes queued on this
    /// stream, and the connection's and the server's buffers within their budgets (or the
    /// stream has closed, and sending would fail at once).
    public func hasRoom(threshold: Int) -> Bool { connection.hasRoom(id, threshold: threshold) }

    /// The bytes that may still be given before `hasRoom(threshold:)` turns false (negative:
    /// it is false now; `Int.max`: the stream has closed).
    public func room(threshold: Int) -> Int { connection.room(id, threshold: threshold) }

    /// Calls `body` once the stream has room (`hasRoom`) or has closed: at once when that is
    /// already so, otherwise later on the connection's loop. `body` must not block.
    public func whenWritable(threshold: Int, _ body: @escaping @Sendable () -> Void) {
        connection.whenWritable(id, threshold: threshold, body)
    }

    /// Gives back `count` request body bytes the receiver was handed and no longer holds.
    public func releaseInput(_ count: Int) {
        if count > 0 { connection.releaseInput(id, count) }
    }

    /// The receiver holds a message in progress and needs `count` more bytes before it can
    /// consume any: the stream's window is widened to let them in (see
    /// `HTTP2ConnectionState.expectInput`).
    public func expectInput(_ count: Int) {
        if count > 0 { connection.expectInput(id, count) }
    }

    /// The event loop that owns the stream's connection (for timers; receivers run on it).
    public var eventLoop: EventLoop { connection.loop }

    /// The server's pool for handlers that may take long.
    public var workers: WorkerPool { connection.workers }

    /// The server's budgets (`maxStreamBuffer` is this stream's).
    public var limits: HTTPLimits { connection.limits }
}
