import HearthLock

/// The application's end of one open WebSocket: `send` from any thread, never blocking;
/// the transport writes each message as one unmasked frame, in order.
///
/// What the transport has not yet handed to the socket counts against the limits'
/// `sendBudget`: a send that would pass it closes the WebSocket (1008) instead, so a client
/// that stops reading costs at most the budget plus the socket buffer's high-water mark.
/// Once closed (by either side, the budget, a protocol error or the server stopping),
/// `send` returns false and the `onClose` bodies run once.
public final class WebSocket: Sendable {
    private struct State {
        /// Framed bytes waiting for the transport.
        var queue: [UInt8] = []
        var closed = false
        /// A close the application asked for (code, reason), to be sent after the queue.
        var closeRequest: (UInt16, String)?
        var onClose: [@Sendable () -> Void] = []
        var onMessage: (@Sendable (WebSocketMessage) -> Void)?
    }

    private let state = HearthMutex(State())
    let budget: Int
    let shared: WebSocketSharedBudget?
    private let wake: @Sendable () -> Void

    init(budget: Int, shared: WebSocketSharedBudget? = nil, wake: @escaping @Sendable () -> Void) {
        self.budget = budget
        self.shared = shared
        self.wake = wake
    }

    /// Sends a text message. False once closed, or when it would pass the send budget (the
    /// WebSocket is then closed).
    @discardableResult
    public func send(text: String) -> Bool { enqueue(.text, Array(text.utf8)) }

    @discardableResult
    public func send(binary: [UInt8]) -> Bool { enqueue(.binary, binary) }

    /// Sends a text message whose UTF-8 bytes are given (the caller vouches they are UTF-8).
    @discardableResult
    public func send(utf8Text bytes: [UInt8]) -> Bool { enqueue(.text, bytes) }

    private func enqueue(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> Bool {
        enum Outcome { case queued, refused, overBudget }
        let outcome = state.withLock { s -> Outcome in
            guard !s.closed, s.closeRequest == nil else { return .refused }
            let overShared = shared.map { !s.queue.isEmpty && $0.queued + payload.count > $0.limit } ?? false
            if s.queue.count + payload.count + 10 > budget || overShared {
                s.closeRequest = (WebSocketCloseCode.policyViolation, "the client does not read what it is sent")
                shared?.release(s.queue.count)
                s.queue = []
                return .overBudget
            }
            let before = s.queue.count
            WebSocketFrame.serialize(opcode, payload, into: &s.queue)
            shared?.add(s.queue.count - before)
            return .queued
        }
        switch outcome {
        case .queued: wake(); return true
        case .refused: return false
        case .overBudget: wake(); return false
        }
    }

    /// Starts the closing handshake (idempotent): what is queued goes out, then a close frame.
    public func close(code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
        let changed = state.withLock { s -> Bool in
            guard !s.closed, s.closeRequest == nil else { return false }
            s.closeRequest = (code, reason)
            return true
        }
        if changed { wake() }
    }

    /// Runs `body` once when the WebSocket closes (at once if it has).
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.closed { return true }
            s.onClose.append(body)
            return false
        }
        if now { body() }
    }

    /// Receives the client's messages (on the connection's loop: must not block).
    public func onMessage(_ body: @escaping @Sendable (WebSocketMessage) -> Void) {
        state.withLock { $0.onMessage = body }
    }

    public var isClosed: Bool { state.withLock { $0.closed || $0.closeRequest != nil } }

    // MARK: Transport side

    struct Pending {
        var bytes: [UInt8]
        var close: (UInt16, String)?
    }

    /// Takes up to `max` queued bytes (frames may be cut: the socket is a byte stream), and
    /// the close request once nothing is left before it.
    func take(max: Int) -> Pending {
        state.withLock { s in
            let n = min(max, s.queue.count)
            let bytes: [UInt8]
            if n == s.queue.count {
                bytes = s.queue
                s.queue = []
            } else {
                bytes = Array(s.queue[..<n])
                s.queue.removeFirst(n)
            }
            shared?.release(n)
            return Pending(bytes: bytes, close: s.queue.isEmpty ? s.closeRequest : nil)
        }
    }

    var queuedByteCount: Int { state.withLock { $0.queue.count } }

    func deliver(_ message: WebSocketMessage) {
        let handler = state.withLock { $0.onMessage }
        handler?(message)
    }

    /// The WebSocket is closed: nothing more is sent; the `onClose` bodies run once.
    func markClosed() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.closed else { return [] }
            s.closed = true
            shared?.release(s.queue.count)
            s.queue = []
            let h = s.onClose
            s.onClose = []
            s.onMessage = nil
            return h
        }
        for h in handlers { h() }
    }
}

/// How an application accepts a WebSocket: the answer to the opening handshake, and what
/// to do with the WebSocket once it is open.
public struct WebSocketUpgrade: Sendable {
    public var limits: WebSocketLimits
    /// Called once on the connection's loop when the 101 has been written: register with the
    /// producer and return (must not block).
    public var onOpen: @Sendable (WebSocket) -> Void

    public init(limits: WebSocketLimits = WebSocketLimits(), onOpen: @escaping @Sendable (WebSocket) -> Void) {
        self.limits = limits
        self.onOpen = onOpen
    }
}

extension HTTPResponse {
    /// The answer to a WebSocket opening handshake: 101 and the upgrade, or the refusal
    /// (400/405/426 naming what is wrong) for a request that is not a valid handshake.
    public static func webSocket(_ request: HTTPRequest, _ upgrade: WebSocketUpgrade) -> HTTPResponse {
        var (response, accepted) = WebSocketHandshake.response(to: request)
        if accepted { response.webSocket = upgrade }
        return response
    }
}
