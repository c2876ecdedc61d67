import Synchronization

/// Code that runs whenever an `EmulatorServer` starts in this process, with the server: how
/// `hearth serve --websocket_port` attaches the Requests feed's port to the server the serve
/// command builds, without that command knowing the feed (Sources/hearth/WebSocketPortFlag.swift).
/// Empty unless something registers: the cost is one lock at server start.
public enum EmulatorServerStartObservers {
    private static let observers = Mutex<[@Sendable (EmulatorServer) -> Void]>([])

    public static func add(_ observer: @escaping @Sendable (EmulatorServer) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    static func started(_ server: EmulatorServer) {
        for o in observers.withLock({ $0 }) { o(server) }
    }
}
