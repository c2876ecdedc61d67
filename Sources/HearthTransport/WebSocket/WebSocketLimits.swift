import Synchronization

/// A WebSocket's budgets. Every one bounds what a client can make the server hold or wait
/// for; the defaults suit a feed the server writes and the client only reads.
public struct WebSocketLimits: Sendable {
    /// Largest client frame payload; a longer one closes with 1009 from its header alone.
    public var maxFrameSize: Int = 64 * 1024
    /// Largest client message (all fragments together); past it: close 1009.
    public var maxMessageSize: Int = 1024 * 1024
    /// Bytes the server may have queued for the client and not yet handed to the socket
    /// (past the socket buffer's high-water mark); a send past it closes the WebSocket with
    /// 1008 — a client that stops reading cannot make the server hold more.
    public var sendBudget: Int = 4 * 1024 * 1024
    /// Bytes all the WebSockets sharing this budget (one server's) may have queued together;
    /// past it a send to a client that still has bytes waiting closes that client (1008), so
    /// many slow clients cannot add up to many budgets. A client with nothing waiting always
    /// gets its message. Nil: no shared cap.
    public var sharedBudget: WebSocketSharedBudget?
    /// A frame begun must be complete this long after its first byte (slowloris), seconds.
    public var frameTimeout: Double = 10
    /// With nothing received for this long the server pings (seconds)…
    public var pingInterval: Double = 30
    /// …and closes if nothing (a pong, any frame) arrives this long after the ping.
    public var pongTimeout: Double = 30
    /// After the server's close frame, the client's has this long to arrive before the
    /// socket is closed anyway (seconds).
    public var closeTimeout: Double = 5

    public init() {}
}

/// A complete message from the client.
public enum WebSocketMessage: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
}

/// A cap on the bytes several WebSockets have queued together (see
/// `WebSocketLimits.sharedBudget`).
public final class WebSocketSharedBudget: Sendable {
    public let limit: Int
    private let used = Atomic<Int>(0)

    public init(limit: Int) { self.limit = limit }

    /// Bytes queued now.
    public var queued: Int { used.load(ordering: .relaxed) }

    func add(_ n: Int) { used.add(n, ordering: .relaxed) }
    func release(_ n: Int) { if n != 0 { used.subtract(n, ordering: .relaxed) } }
}
