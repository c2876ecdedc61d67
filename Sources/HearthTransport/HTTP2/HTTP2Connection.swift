import HearthLock
import Synchronization

/// HTTP/2 on one event-loop connection: received bytes feed the `HTTP2ConnectionState`
/// on the loop, its events go to the `HTTP2StreamHandler` (on the loop; handlers hand long
/// work to the worker pool), and what the state machine writes goes to the connection.
///
/// Responders on other threads change the state under its lock (`perform`) and ask the
/// loop to flush; several answers finished between two turns of the loop leave in one
/// write. The state machine lets at most `maxOutboxBytes` into the connection's buffer at
/// a time; the rest waits in its stream (counted against the stream's and the
/// connection's budgets), so a client that does not read holds the server to bounded
/// memory, and producers waiting on `whenWritable` resume as the client reads.
///
/// Deadlines: the preface, any partial frame and any header block awaiting CONTINUATION
/// must complete within `headerTimeout`; a connection with no open stream is closed with
/// GOAWAY after `idleTimeout`. Frame floods are the state machine's (GOAWAY
/// ENHANCE_YOUR_CALM).
final class HTTP2Connection: ConnectionHandler, EventLoopDeferred, @unchecked Sendable {
    /// State shared with responders on other threads.
    struct Shared {
        var state: HTTP2ConnectionState
        /// Producers waiting for a stream's queue to drain: (threshold, callback).
        var waiters: [UInt32: [(Int, @Sendable () -> Void)]] = [:]
        /// Request body bytes handed to receivers and not yet released by them.
        var unreleasedInput = 0
    }

    let connection: Connection
    let loop: EventLoop
    private let shared: HearthMutex<Shared>
    private let handler: any HTTP2StreamHandler
    let limits: HTTPLimits
    let workers: WorkerPool
    private let flushScheduled = Atomic<Bool>(false)

    // Loop thread only.
    private var receivers: [UInt32: any HTTP2RequestBodyReceiver] = [:]
    private var heldReported = 0
    private var partialSince: Int64?
    private var idleSince: Int64?
    private var closing = false
    private var flushDeferred = false
    private var budgetRecheckScheduled = false

    init(connection: Connection, handler: any HTTP2StreamHandler, limits: HTTPLimits, workers: WorkerPool) {
        self.connection = connection
        self.loop = connection.loop
        self.handler = handler
        self.limits = limits
        self.workers = workers
        var config = HTTP2ConnectionState.Configuration()
        config.maxConcurrentStreams = limits.maxConcurrentStreams
        config.initialWindowSize = min(limits.maxStreamBuffer, HTTP2Settings.maxWindowSize)
        config.connectionWindowSize = max(65_535, min(limits.maxConnectionBuffer / 2, HTTP2Settings.maxWindowSize))
        config.maxResetsPerWindow = limits.maxResetsPer10s
        config.maxPingsPerWindow = limits.maxPingsPer10s
        config.maxSettingsPerWindow = limits.maxSettingsPer10s
        config.maxOutboxBytes = 64 * 1024
        config.streamWindowFollowsConsumption = true
        shared = HearthMutex(Shared(state: HTTP2ConnectionState(config: config)))
        idleSince = Monotonic.now()
    }

    // MARK: Responders (any thread)

    /// Runs a state change for a responder, then has the loop write what it produced.
    func perform<R, E: Error>(_ body: (inout HTTP2ConnectionState) throws(E) -> R) throws(E) -> R {
        let result = try shared.withLock { (s: inout Shared) throws(E) -> R in try body(&s.state) }
        requestFlush()
        return result
    }

    /// Reads the state without changing it.
    func read<R>(_ body: (HTTP2ConnectionState) -> R) -> R {
        shared.withLock { body($0.state) }
    }

    /// Whether stream `id` may be given more to send: at most `threshold` bytes queued on
    /// it, the connection's queued answers within its budget and the server's total within
    /// its own (or the stream has closed: sending then fails at once).
    func hasRoom(_ id: UInt32, threshold: Int) -> Bool {
        shared.withLock { hasRoom(id, threshold, in: $0) }
    }

    /// How many bytes stream `id` may still be given before `hasRoom(id, threshold:)` turns
    /// false — negative when it is false now, `Int.max` when the stream has closed — in one
    /// lock, for a producer that sends several messages and asks once.
    func room(_ id: UInt32, threshold: Int) -> Int {
        shared.withLock { s in
            if !s.state.isOpen(id) { return .max }
            return budgetsAllowMore(s) ? threshold - s.state.queuedBytes(id) : -1
        }
    }

    private func hasRoom(_ id: UInt32, _ threshold: Int, in s: Shared) -> Bool {
        if !s.state.isOpen(id) { return true }
        return s.state.queuedBytes(id) <= threshold && budgetsAllowMore(s)
    }

    private func budgetsAllowMore(_ s: Shared) -> Bool {
        s.state.queuedDataBytes <= limits.maxConnectionBuffer && !connection.server.isOverTotalBudget
    }

    /// Calls `body` once stream `id` has room (`hasRoom`), or has closed — at once when that
    /// is already so (on the calling thread), otherwise on the loop as the client reads.
    func whenWritable(_ id: UInt32, threshold: Int, _ body: @escaping @Sendable () -> Void) {
        let now = shared.withLock { s -> Bool in
            if hasRoom(id, threshold, in: s) { return true }
            s.waiters[id, default: []].append((threshold, body))
            return false
        }
        if now { body() } else { requestFlush() }
    }

    /// A receiver is done with `count` request body bytes of stream `id`: they stop
    /// counting against the budgets and their window goes back to the client.
    func releaseInput(_ id: UInt32, _ count: Int) {
        shared.withLock { s in
            s.unreleasedInput -= count
            s.state.consumed(id, count)
        }
        requestFlush()
    }

    /// Stream `id`'s receiver needs `count` more bytes to finish what it holds.
    func expectInput(_ id: UInt32, _ count: Int) {
        let widened = shared.withLock { $0.state.expectInput(id, count) }
        if widened { requestFlush() }
    }

    private func requestFlush() {
        if loop.inEventLoop {
            // Answers given on the loop (inline handlers) leave together at the end of the turn.
            if !flushDeferred {
                flushDeferred = true
                loop.deferToEndOfIteration(self)
            }
        } else if !flushScheduled.exchange(true, ordering: .acquiringAndReleasing) {
            loop.execute { [self] in
                flushScheduled.store(false, ordering: .releasing)
                flushToConnection()
            }
        }
    }

    // MARK: The loop

    func received(_ bytes: UnsafeRawBufferPointer) {
        let now = Monotonic.now()
        let events = shared.withLock { $0.state.receive(bytes, now: now) }
        dispatch(events)
        flushToConnection()
    }

    private func dispatch(_ events: [HTTP2ConnectionState.Event]) {
        for (i, event) in events.enumerated() {
            switch event {
            case .streamOpened(let id, let request, let endStream):
                // Clients send a request's HEADERS and its DATA together: the next event
                // completing this stream's body means the body is already here.
                var bodyFollows = false
                if !endStream, i + 1 < events.count, case .data(let next, _, endStream: true) = events[i + 1], next == id {
                    bodyFollows = true
                }
                let stream = HTTP2ServerStream(id: id, request: request, bodyFollowsHeaders: bodyFollows, connection: self)
                let receiver = handler.open(stream, request: request, endStream: endStream)
                if endStream { receiver.received([], endStream: true) } else { receivers[id] = receiver }
            case .data(let id, let bytes, let endStream):
                guard let receiver = receivers[id] else { continue }
                if endStream { receivers[id] = nil }
                if !bytes.isEmpty { shared.withLock { $0.unreleasedInput += bytes.count } }
                receiver.received(bytes, endStream: endStream)
            case .streamReset(let id, let code):
                receivers.removeValue(forKey: id)?.reset(code)
            }
        }
    }

    /// Moves what the state machine wrote into the connection's buffer, lets waiting
    /// producers go on, and keeps the accounting and the deadline current.
    private func flushToConnection() {
        guard !connection.isClosed else { return }
        let roomInSocketBuffer = connection.outboundCount < Connection.highWater
        var ready: [@Sendable () -> Void] = []
        var waitingOnBudgets = false
        let (bytes, moreWaiting, held, finished, partial, openStreams) = shared.withLock { s in
            if roomInSocketBuffer { s.state.flush() }
            let out = s.state.takeOutbox()
            if !s.waiters.isEmpty {
                for (id, list) in s.waiters {
                    var keep: [(Int, @Sendable () -> Void)] = []
                    for (threshold, body) in list {
                        if hasRoom(id, threshold, in: s) { ready.append(body) } else { keep.append((threshold, body)) }
                    }
                    s.waiters[id] = keep.isEmpty ? nil : keep
                }
            }
            waitingOnBudgets = !s.waiters.isEmpty && !budgetsAllowMore(s)
            return (out, s.state.queuedDataBytes > 0 && out.count >= 64 * 1024,
                    s.state.queuedDataBytes + s.state.heldInputBytes + s.unreleasedInput,
                    s.state.isFinished, s.state.hasPartialInput, s.state.openStreamCount)
        }
        connection.write(bytes)
        if moreWaiting || !roomInSocketBuffer { connection.requestWritableNotification() }
        if held != heldReported {
            connection.adjustHeld(by: held - heldReported)
            heldReported = held
        }
        for body in ready { body() }
        if waitingOnBudgets { recheckBudgetsLater() }
        if finished {
            closeAll(code: .cancel)
            connection.closeAfterFlush()
            return
        }
        updateDeadline(partial: partial, openStreams: openStreams)
    }

    func writable() { flushToConnection() }

    /// Producers wait on the connection's or the server's budget, which other connections'
    /// clients free: look again shortly.
    private func recheckBudgetsLater() {
        guard !budgetRecheckScheduled else { return }
        budgetRecheckScheduled = true
        loop.schedule(at: Monotonic.now() + 20_000_000) { [self] in
            budgetRecheckScheduled = false
            flushToConnection()
        }
    }

    func runDeferred() {
        flushDeferred = false
        flushToConnection()
    }

    private func updateDeadline(partial: Bool, openStreams: Int) {
        let now = Monotonic.now()
        if partial {
            if partialSince == nil { partialSince = now }
        } else {
            partialSince = nil
        }
        if openStreams > 0 {
            idleSince = nil
        } else if idleSince == nil {
            idleSince = now
        }
        var deadline: Int64?
        if let p = partialSince { deadline = p + Monotonic.nanoseconds(limits.headerTimeout) }
        if let i = idleSince {
            let d = i + Monotonic.nanoseconds(limits.idleTimeout)
            deadline = min(deadline ?? d, d)
        }
        connection.setDeadline(deadline)
    }

    func deadlinePassed() {
        let now = Monotonic.now()
        if let p = partialSince, now - p >= Monotonic.nanoseconds(limits.headerTimeout) {
            // A preface, frame or header block left half-sent.
            goAway(.protocolError, "incomplete frame or header block not finished within \(limits.headerTimeout) s")
        } else if let i = idleSince, now - i >= Monotonic.nanoseconds(limits.idleTimeout) {
            goAway(.noError, "idle for \(limits.idleTimeout) s")
        } else {
            let (partial, open) = read { ($0.hasPartialInput, $0.openStreamCount) }
            updateDeadline(partial: partial, openStreams: open)
        }
    }

    /// Sends GOAWAY and closes once it is written (open streams are cancelled).
    private func goAway(_ code: HTTP2ErrorCode, _ message: String) {
        guard !closing else { return }
        closing = true
        let bytes = shared.withLock { s -> [UInt8] in
            s.state.goAway(code, debugData: code == .noError ? [] : Array(message.utf8))
            return s.state.takeOutbox()
        }
        connection.write(bytes)
        closeAll(code: .cancel)
        connection.closeAfterFlush()
    }

    func inputEnded() {
        closeAll(code: .cancel)
        connection.closeAfterFlush()
    }

    func serverStopping() {
        goAway(.noError, "server stopping")
    }

    func closed() {
        closeAll(code: .cancel)
    }

    /// Ends every stream: receivers hear `reset`, waiting producers are released.
    private func closeAll(code: HTTP2ErrorCode) {
        let (events, waiting) = shared.withLock { s -> ([HTTP2ConnectionState.Event], [@Sendable () -> Void]) in
            let e = s.state.isClosed ? [] : s.state.peerDisconnected()
            let w = s.waiters.values.flatMap { $0.map(\.1) }
            s.waiters = [:]
            return (e, w)
        }
        dispatch(events)
        for (_, r) in receivers { r.reset(code) }
        receivers = [:]
        for body in waiting { body() }
    }
}
