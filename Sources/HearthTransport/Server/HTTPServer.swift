#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HearthLock

/// The server: one listening port, a few event-loop threads that own every connection,
/// and a bounded worker pool. Each connection is sniffed: HTTP/1.1 requests go to
/// `handler`, HTTP/2 streams (gRPC) to the `http2` stream handler. Knows nothing of what
/// it serves. See `HTTPLimits` for the budgets it enforces.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public let host: String
    /// The bound port (the ephemeral one when started with port 0).
    public let port: Int
    /// The budgets in force (`maxConnections` capped by the descriptor limit).
    public let limits: HTTPLimits
    private let context: ServerContext
    private let group: EventLoopGroup
    private let listener: Listener
    private let stopped = HearthMutex(StopState())

    private struct StopState {
        var running = true
        var callbacks: [@Sendable () -> Void] = []
    }

    /// Binds and starts serving one handler, run where `placement` says (on the worker pool
    /// unless said otherwise). Throws when the address cannot be bound or the threads
    /// cannot start.
    public convenience init(host: String, port: Int, limits: HTTPLimits = HTTPLimits(),
                            http2: (any HTTP2StreamHandler)? = nil,
                            placement: @escaping @Sendable (HTTPRequest) -> HandlerPlacement = { _ in .pool },
                            handler: @escaping Handler) throws {
        try self.init(host: host, port: port, limits: limits, http2: http2, router: { HTTPRoute(placement($0), handler) })
    }

    /// Binds and starts serving: `router` reads each HTTP/1.1 request once and says where it
    /// runs and what answers it. Throws when the address cannot be bound or the threads
    /// cannot start.
    public init(host: String, port: Int, limits: HTTPLimits = HTTPLimits(),
                http2: (any HTTP2StreamHandler)? = nil,
                router: @escaping @Sendable (HTTPRequest) -> HTTPRoute) throws {
        var limits = limits
        limits.maxConnections = min(limits.maxConnections, max(1, Self.descriptorLimit() - 32))
        let (fd, bound) = try Socket.listen(host: host, port: port)
        Socket.setNonBlocking(fd)
        let pool = WorkerPool(maxThreads: limits.workerThreads > 0 ? limits.workerThreads : WorkerPool.defaultThreadCount,
                              maxQueued: limits.maxQueuedJobs)
        let group: EventLoopGroup
        do {
            group = try EventLoopGroup(count: limits.eventLoops > 0 ? limits.eventLoops : EventLoopGroup.defaultLoopCount)
        } catch {
            Socket.closeSocket(fd)
            throw error
        }
        self.host = host
        self.port = bound
        self.limits = limits
        self.group = group
        context = ServerContext(limits: limits, http1: HTTPApplication(limits: limits, router: router, pool: pool),
                                http2: http2, pool: pool)
        listener = Listener(fd: fd, group: group, context: context)
        let listener = listener
        group.loops[0].execute { listener.start() }
    }

    /// Open client connections, both protocols.
    public var connectionCount: Int { context.connectionCount }

    /// Bytes all connections hold now (requests not yet consumed, answers not yet read).
    public var bufferedBytes: Int { context.bufferedBytes }

    /// The pool handlers that may take long run on.
    public var workers: WorkerPool { context.pool }

    public var isRunning: Bool { stopped.withLock { $0.running } }

    /// Stops accepting; HTTP/2 connections get GOAWAY, streamed answers end, every
    /// connection is closed, then the threads end. Idempotent; returns at once.
    public func stop() {
        let callbacks = stopped.withLock { s -> [@Sendable () -> Void]? in
            guard s.running else { return nil }
            s.running = false
            let c = s.callbacks
            s.callbacks = []
            return c
        }
        guard let callbacks else { return }
        let listener = listener
        group.loops[0].execute { listener.close() }
        let open = context.beginStopping()
        var byLoop: [ObjectIdentifier: [Connection]] = [:]
        for c in open { byLoop[ObjectIdentifier(c.loop), default: []].append(c) }
        for loop in group.loops {
            let mine = byLoop[ObjectIdentifier(loop)] ?? []
            loop.execute {
                for c in mine where !c.isClosed { c.handler?.serverStopping() }
                // What the goodbyes queued goes out now; then every connection closes.
                for c in mine { c.flushAndShutDown() }
            }
        }
        group.stop()
        context.pool.shutdown()
        for cb in callbacks { cb() }
    }

    /// After `stop()`: waits until every event loop has finished and every worker thread
    /// has ended — the descriptors closed, nothing left running — or `timeout` seconds
    /// passed (a handler still running holds its worker). True when all ended. Polls every
    /// millisecond: it runs once per server, so a condition variable would buy nothing.
    @discardableResult
    public func waitUntilStopped(timeout: Double = 5) -> Bool {
        let deadline = Monotonic.now() + Int64(timeout * 1e9)
        while true {
            if group.loops.allSatisfy(\.hasFinished) && context.pool.threadCount == 0 { return true }
            if Monotonic.now() >= deadline { return false }
            usleep(1000)
        }
    }

    /// Calls `body` once the server stops (immediately if it already has).
    public func onStop(_ body: @escaping @Sendable () -> Void) {
        let runNow = stopped.withLock { s -> Bool in
            if !s.running { return true }
            s.callbacks.append(body)
            return false
        }
        if runNow { body() }
    }

    /// The process's descriptor limit (connections past it could not be accepted anyway).
    private static func descriptorLimit() -> Int {
        var rl = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &rl) == 0 else { return 1024 }
        // RLIM_INFINITY is all ones; clamping maps it (and any huge limit) to Int.max.
        return Int(clamping: rl.rlim_cur)
    }
}

/// The listening socket, on the group's first loop: accepts every pending connection at
/// each readiness report and hands each to the next loop in turn.
final class Listener: EventLoopSelectable, @unchecked Sendable {
    private let fd: Int32
    private let group: EventLoopGroup
    private let context: ServerContext
    private var loop: EventLoop { group.loops[0] }
    private var closed = false

    init(fd: Int32, group: EventLoopGroup, context: ServerContext) {
        self.fd = fd
        self.group = group
        self.context = context
    }

    func start() {
        guard !closed else { return }
        loop.register(fd, handler: self, interest: .read)
    }

    func close() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd)
        Socket.closeSocket(fd)
    }

    func readyToRead(hangup: Bool) {
        while !closed {
            let accepted = Socket.acceptNonBlocking(fd)
            if accepted == Int32(Socket.wouldBlock) { return }
            if accepted < 0 {
                if errno == EMFILE || errno == ENFILE {
                    // Out of descriptors: stop accepting for a moment instead of spinning.
                    loop.setInterest(fd, [])
                    loop.schedule(at: Monotonic.now() + 100_000_000) { [self] in
                        if !closed { loop.setInterest(fd, .read) }
                    }
                }
                return
            }
            Socket.configureAcceptedNonBlocking(accepted)
            let target = group.next()
            let socket = AcceptedSocket(accepted)
            let context = context
            if target === loop {
                Self.adopt(socket, on: target, context: context)
            } else {
                target.execute { Self.adopt(socket, on: target, context: context) }
            }
        }
    }

    /// Starts serving an accepted socket on `loop` (its thread), unless the server is full
    /// or stopping, in which case the socket is closed at once.
    private static func adopt(_ socket: AcceptedSocket, on loop: EventLoop, context: ServerContext) {
        guard let fd = socket.take() else { return }
        let connection = Connection(fd: fd, loop: loop, server: context)
        guard context.admit(connection, limit: context.limits.maxConnections) else {
            Socket.closeSocket(fd)
            return
        }
        connection.handler = ProtocolSniffingHandler(connection: connection, server: context)
        connection.start()
    }

    func readyToWrite() {}
    func hungUp() {}
}

/// An accepted descriptor on its way to another loop: if the task carrying it is dropped
/// (that loop has exited), the descriptor is closed rather than leaked.
private final class AcceptedSocket: @unchecked Sendable {
    private var fd: Int32?
    init(_ fd: Int32) { self.fd = fd }

    func take() -> Int32? {
        defer { fd = nil }
        return fd
    }

    deinit {
        if let fd { Socket.closeSocket(fd) }
    }
}
