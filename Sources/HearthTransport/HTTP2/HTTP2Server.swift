#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The HTTP/2 (gRPC) front end, installed into the HTTP/1.1 server's sniffer hook: every
/// connection that starts with the HTTP/2 preface is served here, on the thread that
/// accepted it. `stop()` sends GOAWAY on every connection (call it when the server stops).
public final class HTTP2Server: HTTP2ConnectionHandler {
    private let handler: any HTTP2StreamHandler
    private let config: HTTP2ConnectionState.Configuration
    private let connections = Mutex<[Int32: HTTP2Connection]>([:])
    private let stopped = Mutex(false)

    public init(handler: any HTTP2StreamHandler, config: HTTP2ConnectionState.Configuration = .init()) {
        self.handler = handler
        self.config = config
    }

    public func serve(socket: Int32, initialBytes: [UInt8]) {
        let connection = HTTP2Connection(socket: socket, handler: handler, config: config)
        let accepted = connections.withLock { c -> Bool in
            c[socket] = connection
            return true
        }
        if accepted && stopped.withLock({ $0 }) { connection.goAway() }
        connection.run(initialBytes: initialBytes)
        connections.withLock { _ = $0.removeValue(forKey: socket) }
        connection.closeSocket()
    }

    /// Open HTTP/2 connections.
    public var connectionCount: Int { connections.withLock { $0.count } }

    /// GOAWAY(NO_ERROR) on every connection, then closes them.
    public func stop() {
        stopped.withLock { $0 = true }
        let all = connections.withLock { Array($0.values) }
        for c in all {
            c.goAway()
            c.shutdownSocket()
        }
    }
}
