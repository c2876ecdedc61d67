import HearthLock

/// The body of a response that lasts (a WebChannel back channel, Server-Sent Events, a long
/// poll): whoever produces the data calls `write` from any thread; the transport sends each
/// write as one chunk of a `Transfer-Encoding: chunked` body, in order.
///
/// `write` never blocks. What the transport has not sent yet is counted against a write
/// budget; a write that would pass it closes the stream instead (a client that stopped
/// reading must not make the server hold ever more bytes), and so does the client going
/// away or the server stopping. Once closed, `write` returns false and the producer must
/// stop and drop its subscription; the `onClose` bodies run once, on whichever thread saw
/// the end. `finish()` ends the body normally; the connection then goes on with its next
/// request (keep-alive).
public final class HTTPResponseStream: Sendable {
    /// What the transport has to do next (see `take`).
    struct Pending {
        var bytes: [UInt8]
        /// The producer called `finish()`: send `bytes`, then end the body.
        var finished: Bool
        /// The stream was closed (budget, client, server): send nothing more.
        var closed: Bool
    }

    private struct State {
        /// Queued bytes, already framed as chunks.
        var queue: [UInt8] = []
        var finished = false
        var closed = false
        var onClose: [@Sendable () -> Void] = []
    }

    private let state = HearthMutex(State())
    /// Unsent bytes past which the stream closes.
    let budget: Int
    /// False for an HTTP/1.0 client: the body is sent raw and ends with the connection.
    let chunked: Bool
    /// Tells the transport there is something to do; called outside the lock.
    private let wake: @Sendable () -> Void

    init(budget: Int, chunked: Bool = true, wake: @escaping @Sendable () -> Void) {
        self.budget = budget
        self.chunked = chunked
        self.wake = wake
    }

    /// Queues `bytes` as one chunk. False once the stream is closed or finished, or when
    /// this write would pass the write budget (the stream is then closed).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        if bytes.isEmpty { return !isClosed }  // an empty chunk would end a chunked body
        enum Outcome { case queued, refused, overBudget([@Sendable () -> Void]) }
        let outcome = state.withLock { s -> Outcome in
            guard !s.closed && !s.finished else { return .refused }
            if s.queue.count + bytes.count > budget {
                s.closed = true
                s.queue = []
                let handlers = s.onClose
                s.onClose = []
                return .overBudget(handlers)
            }
            if chunked {
                s.queue.append(contentsOf: String(bytes.count, radix: 16).utf8)
                s.queue.append(13); s.queue.append(10)
                s.queue.append(contentsOf: bytes)
                s.queue.append(13); s.queue.append(10)
            } else {
                s.queue.append(contentsOf: bytes)
            }
            return .queued
        }
        switch outcome {
        case .queued:
            wake()
            return true
        case .refused:
            return false
        case .overBudget(let handlers):
            wake()
            for h in handlers { h() }
            return false
        }
    }

    /// Ends the response once what is queued has been sent. Idempotent.
    public func finish() {
        let changed = state.withLock { s -> Bool in
            guard !s.closed && !s.finished else { return false }
            s.finished = true
            return true
        }
        if changed { wake() }
    }

    /// Runs `body` once when the stream ends: the client went away, the server is stopping,
    /// the write budget was passed, or the body finished and was sent. Runs at once when
    /// the stream has already ended.
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.closed { return true }
            s.onClose.append(body)
            return false
        }
        if runNow { body() }
    }

    /// Cuts the response: the connection closes without ending the body, as a dropped
    /// network would (an injected fault, docs/faults.md). Idempotent.
    public func abort() {
        close()
        wake()
    }

    /// True once nothing more can be written (closed or finished).
    public var isClosed: Bool { state.withLock { $0.closed || $0.finished } }

    // MARK: Transport side

    /// Takes the queued bytes and whether the body is finished or closed.
    func take() -> Pending {
        state.withLock { s in
            let p = Pending(bytes: s.queue, finished: s.finished, closed: s.closed)
            s.queue = []
            return p
        }
    }

    /// Closes the stream (client gone, server stopping, body ended) and runs the `onClose`
    /// bodies once.
    func close() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.closed else { return [] }
            s.closed = true
            s.queue = []
            let h = s.onClose
            s.onClose = []
            return h
        }
        for h in handlers { h() }
    }
}
