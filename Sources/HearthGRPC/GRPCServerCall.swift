import Dispatch
import HearthTransport
import HearthLock

/// The response side of one gRPC call, safe to use from any thread: response messages
/// (the response headers go out before the first), then exactly one end — trailers with
/// `grpc-status`, or a trailers-only response when nothing was sent. Once the call has
/// ended (finished, deadline passed, stream reset by the client) further sends throw
/// CANCELLED and further ends are ignored, so a handler still running never writes to a
/// dead stream.
///
/// Messages are buffered and leave together — when the buffer passes `flushThreshold`, on
/// `flush()`, and at the end — so a streamed result is a few large DATA frames and socket
/// writes rather than one per message, and a unary answer (headers, message, trailers) is
/// one write. Calls that answer over time (Listen, Write) flush after each batch of work.
///
/// Back-pressure: a call whose client is not reading has at most the stream's buffer
/// budget queued. Sessions check `isWritable` and come back through `whenWritable`; a
/// handler on a worker thread that sends past the budget waits (up to the send timeout)
/// for the client to read; a handler on the event loop never waits.
public final class GRPCServerCall: Sendable {
    public let stream: HTTP2ServerStream
    /// Request metadata (the HTTP/2 request headers).
    public let request: HTTP2RequestHeaders
    private let progress = HearthMutex(Progress())

    /// Buffered message bytes that are handed to the stream without waiting for a flush.
    static let flushThreshold = 32 << 10

    private struct Progress {
        var headersSent = false
        var ended = false
        /// Framed messages not yet handed to the stream.
        var buffer: [UInt8] = []
        /// The deadline timer, cancelled when the call ends first.
        var deadline: TimerHandle?
        /// Run once when the call ends, however it ends.
        var endHandlers: [@Sendable () -> Void] = []

        /// Marks the call ended; returns what must run once the lock is released.
        mutating func end() -> (TimerHandle?, [@Sendable () -> Void]) {
            ended = true
            defer {
                deadline = nil
                endHandlers = []
            }
            return (deadline, endHandlers)
        }
    }

    init(stream: HTTP2ServerStream, request: HTTP2RequestHeaders) {
        self.stream = stream
        self.request = request
    }

    /// Ends the call with DEADLINE_EXCEEDED when `duration` has passed, unless it has
    /// ended by then (a timer on the connection's event loop).
    func expire(after duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanos = seconds > 86_400 * 365 ? Int64.max / 4 : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let handle = stream.eventLoop.scheduleFromAnyThread(after: nanos) { [weak self] in
            self?.finish(.deadlineExceeded, message: "Deadline Exceeded")
        }
        let cancelNow = progress.withLock { p -> Bool in
            guard !p.ended else { return true }
            p.deadline = handle
            return false
        }
        if cancelNow { stream.eventLoop.cancel(handle) }
    }

    /// Runs `body` where `placement` says: at once (the caller is on the event loop), or
    /// on the server's worker pool. False (and the call ended RESOURCE_EXHAUSTED) when the
    /// pool's queue is full.
    @discardableResult
    public func run(_ placement: HandlerPlacement, _ body: @escaping @Sendable () -> Void) -> Bool {
        switch placement {
        case .inline:
            body()
            return true
        case .pool:
            if stream.workers.submit(body) { return true }
            finish(.resourceExhausted, message: "The server is busy: too many calls are waiting for a worker. Retry later.")
            return false
        }
    }

    /// Runs a stream session's next batch (Listen, Write) on the server's worker pool. A
    /// session has at most one batch queued (its mailbox), so it is queued past the pool's
    /// request bound rather than refused (`WorkerPool.submit(_:bounded:)`); false only when
    /// the pool is shutting down (the call is then ended RESOURCE_EXHAUSTED).
    @discardableResult
    public func runWorker(_ body: @escaping @Sendable () -> Void) -> Bool {
        if stream.workers.submit(body, bounded: false) { return true }
        finish(.resourceExhausted, message: "The server is busy: too many calls are waiting for a worker. Retry later.")
        return false
    }

    /// Whether the call has ended (answered, expired or reset).
    public var isEnded: Bool { progress.withLock { $0.ended } }

    /// Whether the client has read enough that more may be sent now (or the call ended:
    /// sending then fails at once, which is as good as an answer).
    public var isWritable: Bool {
        let buffered = progress.withLock { $0.ended ? 0 : $0.buffer.count }
        return stream.hasRoom(threshold: stream.limits.maxStreamBuffer - buffered)
    }

    /// How many more message bytes may be sent before `isWritable` turns false (negative:
    /// it is false now; `Int.max`: the call has ended). A session sending a batch of
    /// messages asks this once rather than `isWritable` before each (each ask takes the
    /// call's and its connection's locks).
    public var writableRoom: Int {
        let buffered = progress.withLock { $0.ended ? -1 : $0.buffer.count }
        guard buffered >= 0 else { return .max }
        return stream.room(threshold: stream.limits.maxStreamBuffer - buffered)
    }

    /// Calls `body` once the client has read half the stream's budget back (and the
    /// connection's and server's buffers are within theirs), or the call's stream has
    /// closed (at once when that is already so). `body` must not block.
    public func whenWritable(_ body: @escaping @Sendable () -> Void) {
        stream.whenWritable(threshold: stream.limits.maxStreamBuffer / 2, body)
    }

    /// Runs `body` once when the call ends — answered, expired, reset, or its connection
    /// gone — at once when it already has. `body` must not block.
    public func onEnded(_ body: @escaping @Sendable () -> Void) {
        let now = progress.withLock { p -> Bool in
            if p.ended { return true }
            p.endHandlers.append(body)
            return false
        }
        if now { body() }
    }

    /// Queues one response message (sent at the latest by the next `flush` or the end).
    /// With `waitIfBehind` (a handler on a worker thread), waits while the client has more
    /// than the stream's budget unread; sessions pass false and pause between batches.
    public func send(_ message: [UInt8], waitIfBehind: Bool = true) throws(GRPCStatus) {
        var ends: (TimerHandle?, [@Sendable () -> Void]) = (nil, [])
        let sent = progress.withLock { p -> Bool in
            guard !p.ended else { return false }
            GRPCMessageWriter.frame(message, into: &p.buffer)
            if p.buffer.count < Self.flushThreshold || Self.write(&p, to: stream, trailers: nil) { return true }
            ends = p.end()
            return false
        }
        if !sent {
            runEnd(ends)
            throw GRPCStatus(.cancelled, "The call was cancelled.")
        }
        if waitIfBehind && !stream.eventLoop.inEventLoop && stream.queuedBytes > stream.limits.maxStreamBuffer { waitUntilWritable() }
    }

    private func runEnd(_ ends: (TimerHandle?, [@Sendable () -> Void])) {
        if let deadline = ends.0 { stream.eventLoop.cancel(deadline) }
        for body in ends.1 { body() }
    }

    /// A worker thread waits for the client to read (bounded: a client that reads nothing
    /// for the send timeout has its connection closed, which ends the wait).
    private func waitUntilWritable() {
        let semaphore = DispatchSemaphore(value: 0)
        whenWritable { semaphore.signal() }
        semaphore.wait()
    }

    /// Hands the buffered messages to the stream.
    public func flush() {
        let ends = progress.withLock { p -> (TimerHandle?, [@Sendable () -> Void]) in
            guard !p.ended, !p.buffer.isEmpty, !Self.write(&p, to: stream, trailers: nil) else { return (nil, []) }
            return p.end()
        }
        runEnd(ends)
    }

    /// Ends the call with a status (no-op when it has already ended).
    public func finish(_ code: GRPCStatus.Code, message: String = "") {
        let ends = progress.withLock { p -> (TimerHandle?, [@Sendable () -> Void]) in
            guard !p.ended else { return (nil, []) }
            if p.headersSent || !p.buffer.isEmpty {
                _ = Self.write(&p, to: stream, trailers: GRPCStatus.trailers(code, message: message))
            } else {
                try? stream.sendHeaders(GRPCStatus.trailersOnly(code, message: message), endStream: true)
            }
            return p.end()
        }
        runEnd(ends)
    }

    /// Ends the call with a status's code and message.
    public func finish(_ status: GRPCStatus) { finish(status.code, message: status.message) }

    /// Ends the call by closing its connection, sending nothing more (an injected
    /// connection reset or dropped answer, docs/faults.md): the client sees the connection
    /// die. Later sends and ends are ignored.
    public func abortConnection() {
        let ends = progress.withLock { p -> (TimerHandle?, [@Sendable () -> Void]) in
            guard !p.ended else { return (nil, []) }
            p.buffer = []
            return p.end()
        }
        stream.closeConnection()
        runEnd(ends)
    }

    /// The client reset the stream: nothing more is sent.
    func cancel() {
        let ends = progress.withLock { p -> (TimerHandle?, [@Sendable () -> Void]) in
            guard !p.ended else { return (nil, []) }
            return p.end()
        }
        runEnd(ends)
    }

    /// Writes the headers (the first time), the buffer and optionally the trailers in one
    /// step; false when the stream is gone (the caller then ends the call).
    private static func write(_ p: inout Progress, to stream: HTTP2ServerStream, trailers: [HTTP2Header]?) -> Bool {
        // The buffer is handed over, not copied: the stream keeps it until it is written.
        let data = p.buffer
        p.buffer = []
        do {
            try stream.send(headers: p.headersSent ? nil : GRPCStatus.responseHeaders, data: data, trailers: trailers)
            p.headersSent = true
            return true
        } catch {
            return false
        }
    }
}
