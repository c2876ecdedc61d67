#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The protocol spoken on a connection (HTTP/1.1, HTTP/2, or the sniffer that picks one),
/// driven by its `Connection` on the connection's loop thread.
protocol ConnectionHandler: AnyObject {
    /// Bytes arrived. The handler queues its answers with `connection.write`; they are
    /// flushed at the end of the loop's iteration.
    func received(_ bytes: UnsafeRawBufferPointer)
    /// The peer will send nothing more (it half-closed or the read failed).
    func inputEnded()
    /// The queued output drained below the low-water mark after being above it: producers
    /// that paused may go on.
    func writable()
    /// The deadline the handler set (`connection.setDeadline`) has passed.
    func deadlinePassed()
    /// The server is stopping: end gracefully (GOAWAY, or close when idle).
    func serverStopping()
    /// The connection is closed, whatever the reason: release everything it holds.
    func closed()
}

/// One accepted socket, owned by one event loop: non-blocking reads into the loop's shared
/// buffer, handed to the protocol handler; answers queued in one output buffer and written
/// in order, as much as the socket takes, the rest when it is writable again.
///
/// Back-pressure: while the queued output plus the input the handler holds passes the
/// per-connection budget, or the server's total passes its budget, the connection stops
/// reading — a client that does not read its answers cannot make the server hold more.
/// Deadlines: the handler sets one (request head, body, idle), and a send that makes no
/// progress for `sendTimeout` closes the connection; a connection is never left with part
/// of a frame written and the rest dropped.
///
/// Every method runs on the loop's thread; other threads go through `loop.execute`.
final class Connection: EventLoopSelectable, EventLoopDeferred, @unchecked Sendable {
    let fd: Int32
    let loop: EventLoop
    let server: ServerContext
    /// The protocol. It holds the connection too (work finishing on other threads reaches
    /// the connection through it, however late); `close()` drops it, which ends the cycle.
    var handler: ConnectionHandler?

    /// Queued output; `outbound[sent...]` is still to be written.
    private var outbound: [UInt8] = []
    private var sent = 0
    /// Bytes the handler holds: partial requests, request bodies not yet consumed, answers
    /// queued in the protocol (HTTP/2 DATA waiting for the socket).
    private var held = 0
    /// What this connection counts against the server's total.
    private var accounted = 0

    private(set) var isClosed = false
    private var interest: IOInterest = .read
    private var pauses: PauseReasons = []
    private var closeWhenFlushed = false
    private var flushDeferred = false
    /// Output went above the high-water mark: tell the handler when it drains.
    private var wantsWritable = false

    private var handlerDeadline: Int64?
    /// Since when queued output has made no progress.
    private var stalledSince: Int64?
    private var timer: TimerHandle?
    private var timerDeadline: Int64?

    struct PauseReasons: OptionSet {
        let rawValue: UInt8
        /// Output + held input passed the connection's budget.
        static let connectionBudget = PauseReasons(rawValue: 1)
        /// The server's total passed its budget.
        static let totalBudget = PauseReasons(rawValue: 2)
        /// The handler asked (e.g. HTTP/1.1 pipelining past its depth).
        static let handler = PauseReasons(rawValue: 4)
        /// The input ended.
        static let inputEnded = PauseReasons(rawValue: 8)
        /// Closing once the output is written.
        static let closing = PauseReasons(rawValue: 16)
    }

    /// Output past which producers should wait (`isWritable` false).
    static let highWater = 256 * 1024
    /// Output below which waiting producers are told to go on.
    static let lowWater = 64 * 1024

    init(fd: Int32, loop: EventLoop, server: ServerContext) {
        self.fd = fd
        self.loop = loop
        self.server = server
    }

    /// Registers with the loop; the handler must be set.
    func start() {
        loop.register(fd, handler: self, interest: interest)
    }

    var outboundCount: Int { outbound.count - sent }

    /// Whether producers may queue more (output below the high-water mark).
    var isWritable: Bool { outboundCount < Self.highWater }

    // MARK: Writing

    /// Queues bytes to write (flushed at the end of the loop's iteration).
    func write(_ bytes: [UInt8]) {
        guard !isClosed, !bytes.isEmpty else { return }
        if outbound.isEmpty { outbound = bytes } else { outbound.append(contentsOf: bytes) }
        deferFlush()
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, !bytes.isEmpty else { return }
        outbound.append(contentsOf: bytes)
        deferFlush()
    }

    /// Writes what is queued, then closes; reading stops now.
    func closeAfterFlush() {
        guard !isClosed else { return }
        closeWhenFlushed = true
        pause(.closing)
        deferFlush()
    }

    private func deferFlush() {
        guard !flushDeferred else { return }
        flushDeferred = true
        loop.deferToEndOfIteration(self)
    }

    func runDeferred() {
        flushDeferred = false
        flush()
    }

    /// Writes as much queued output as the socket takes now.
    func flush() {
        guard !isClosed else { return }
        var progressed = false
        while sent < outbound.count {
            let n = outbound.withUnsafeBytes { raw in
                Socket.sendNonBlocking(fd, raw.baseAddress! + sent, raw.count - sent)
            }
            if n > 0 {
                sent += n
                progressed = true
            } else if n == Socket.wouldBlock {
                break
            } else {
                close()
                return
            }
        }
        if sent == outbound.count {
            // Keep a modest buffer for the next answers; give a large one back.
            if outbound.capacity > 256 * 1024 { outbound = [] } else { outbound.removeAll(keepingCapacity: true) }
            sent = 0
            stalledSince = nil
            setInterest(adding: [], removing: .write)
            if closeWhenFlushed { close(); return }
        } else {
            if sent > 64 * 1024 && sent * 2 > outbound.count {
                outbound.removeFirst(sent)
                sent = 0
            }
            if progressed || stalledSince == nil { stalledSince = Monotonic.now() }
            setInterest(adding: .write, removing: [])
            armTimer()
        }
        if outboundCount >= Self.highWater { wantsWritable = true }
        reaccount()
        if wantsWritable && outboundCount < Self.lowWater {
            wantsWritable = false
            handler?.writable()
        }
    }

    // MARK: Reading

    func readyToRead(hangup: Bool) {
        guard !isClosed else { return }
        let buffer = loop.readBuffer
        // A few reads per wake-up, so one busy client cannot starve the others on the loop.
        for _ in 0..<4 {
            let n = Socket.receiveNonBlocking(fd, buffer.baseAddress!, buffer.count)
            if n > 0 {
                handler?.received(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                if isClosed || !pauses.isEmpty || n < buffer.count { break }
            } else if n == 0 {
                endOfInput()
                break
            } else if n == Socket.wouldBlock {
                break
            } else {
                close()
                return
            }
        }
        reaccount()
    }

    func readyToWrite() { flush() }

    func hungUp() {
        // Reported while not reading: the peer is gone; nothing queued can reach it.
        close()
    }

    private func endOfInput() {
        pause(.inputEnded)
        handler?.inputEnded()
    }

    // MARK: Flow control of input

    /// Stops reading for `reason` (reading resumes once no reason is left).
    func pause(_ reason: PauseReasons) {
        guard !pauses.contains(reason) else { return }
        pauses.insert(reason)
        setInterest(adding: [], removing: .read)
    }

    func resume(_ reason: PauseReasons) {
        guard pauses.contains(reason) else { return }
        pauses.remove(reason)
        if pauses.isEmpty && !isClosed { setInterest(adding: .read, removing: []) }
    }

    /// The handler now holds `delta` more (or fewer) bytes.
    func adjustHeld(by delta: Int) {
        held += delta
    }

    /// Asks for one `handler.writable()` once the output drains below the low-water mark
    /// (the protocol has more to send than it let into the buffer).
    func requestWritableNotification() {
        wantsWritable = true
        if outboundCount < Self.lowWater { deferFlush() }
    }

    /// Brings the server's total up to date and applies both buffer budgets.
    func reaccount() {
        guard !isClosed else { return }
        let current = outboundCount + held
        if current != accounted {
            server.adjustBuffered(by: current - accounted)
            accounted = current
        }
        let limits = server.limits
        if current > limits.maxConnectionBuffer {
            pause(.connectionBudget)
        } else if current <= limits.maxConnectionBuffer / 2 {
            resume(.connectionBudget)
        }
        if current > 0 && server.isOverTotalBudget {
            if !pauses.contains(.totalBudget) {
                pause(.totalBudget)
                // Nothing tells a connection when others free memory: look again shortly.
                recheckTotalBudget()
            }
        } else {
            resume(.totalBudget)
        }
    }

    private func recheckTotalBudget() {
        loop.schedule(at: Monotonic.now() + 20_000_000) { [weak self] in
            guard let self, !self.isClosed, self.pauses.contains(.totalBudget) else { return }
            if self.server.isBelowTotalResumeMark || self.outboundCount + self.held == 0 {
                self.resume(.totalBudget)
            } else {
                self.recheckTotalBudget()
            }
        }
    }

    private func setInterest(adding: IOInterest, removing: IOInterest) {
        var next = interest.union(adding).subtracting(removing)
        if !pauses.isEmpty { next.remove(.read) }
        guard next != interest, !isClosed else { return }
        interest = next
        loop.setInterest(fd, next)
    }

    // MARK: Deadlines

    /// The handler's deadline (`Monotonic` nanoseconds), or nil for none.
    func setDeadline(_ deadline: Int64?) {
        handlerDeadline = deadline
        armTimer()
    }

    private func armTimer() {
        guard !isClosed else { return }
        var next = handlerDeadline
        if let s = stalledSince {
            let d = s + Monotonic.nanoseconds(server.limits.sendTimeout)
            next = min(next ?? d, d)
        }
        guard let next else { return }
        // A timer already due no later stays; a later one is left to fire and re-arm.
        if let armed = timerDeadline, armed <= next, timer != nil { return }
        if let timer { loop.cancel(timer) }
        timerDeadline = next
        timer = loop.schedule(at: next) { [weak self] in self?.timerFired() }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard !isClosed else { return }
        let now = Monotonic.now()
        if let s = stalledSince, now - s >= Monotonic.nanoseconds(server.limits.sendTimeout) {
            // The client has not read for the whole send timeout: close rather than keep
            // (or drop part of) what is queued.
            close()
            return
        }
        if let d = handlerDeadline, d <= now {
            handlerDeadline = nil
            handler?.deadlinePassed()
        }
        armTimer()
    }

    // MARK: Closing

    /// Writes what the socket takes now, then ends both directions and closes (the server
    /// stopping). The flush may already have closed the connection (a failed send, or a
    /// close waiting for it): the descriptor number is then no longer ours — another
    /// thread may have been given it for its own socket — so nothing more touches it.
    func flushAndShutDown() {
        guard !isClosed else { return }
        flush()
        guard !isClosed else { return }
        Socket.shutdownBoth(fd)
        close()
    }

    /// Closes the socket now; queued output is dropped.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let timer { loop.cancel(timer) }
        timer = nil
        loop.deregister(fd)
        Socket.closeSocket(fd)
        if accounted != 0 { server.adjustBuffered(by: -accounted) }
        accounted = 0
        outbound = []
        sent = 0
        let h = handler
        handler = nil
        h?.closed()
        server.connectionClosed(self)
    }
}
