import HearthLock
import Synchronization

/// What an HTTP/1.1 connection serves: the handler, where it runs, the limits.
struct HTTPApplication: Sendable {
    let limits: HTTPLimits
    let router: @Sendable (HTTPRequest) -> HTTPRoute
    let pool: WorkerPool
}

/// What every connection of one server shares: its limits, its applications, the worker
/// pool, the count of bytes all connections hold (the total buffer budget) and the set of
/// open connections (the connection budget, and `stop()`).
final class ServerContext: Sendable {
    let limits: HTTPLimits
    let http1: HTTPApplication
    let http2: (any HTTP2StreamHandler)?
    let pool: WorkerPool
    private let buffered = Atomic<Int>(0)
    private let registry = HearthMutex(Registry())

    private struct Registry {
        var connections: [ObjectIdentifier: Connection] = [:]
        var stopping = false
    }

    init(limits: HTTPLimits, http1: HTTPApplication, http2: (any HTTP2StreamHandler)?, pool: WorkerPool) {
        self.limits = limits
        self.http1 = http1
        self.http2 = http2
        self.pool = pool
    }

    // MARK: Buffers

    func adjustBuffered(by delta: Int) {
        buffered.add(delta, ordering: .relaxed)
    }

    /// Bytes all connections hold now.
    var bufferedBytes: Int { buffered.load(ordering: .relaxed) }

    var isOverTotalBudget: Bool { bufferedBytes > limits.maxTotalBuffer }

    var isBelowTotalResumeMark: Bool { bufferedBytes <= limits.maxTotalBuffer / 4 * 3 }

    // MARK: Connections

    /// Counts `connection` in; false (it must be closed) past `maxConnections` or after
    /// `stop()`.
    func admit(_ connection: Connection, limit: Int) -> Bool {
        registry.withLock { r in
            guard !r.stopping, r.connections.count < limit else { return false }
            r.connections[ObjectIdentifier(connection)] = connection
            return true
        }
    }

    func connectionClosed(_ connection: Connection) {
        _ = registry.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    var connectionCount: Int { registry.withLock { $0.connections.count } }

    /// Marks the server stopping and returns the connections open now.
    func beginStopping() -> [Connection] {
        registry.withLock { r in
            r.stopping = true
            return Array(r.connections.values)
        }
    }

    var isStopping: Bool { registry.withLock { $0.stopping } }
}
