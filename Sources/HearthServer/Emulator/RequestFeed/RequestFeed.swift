import Foundation
import HearthCore
import HearthRules
import HearthTransport
import HearthLock

/// The Emulator UI's Requests feed: every security rules evaluation, as JSON, to every
/// WebSocket client of `/requests` — first the evaluations kept so far (one JSON array),
/// then one JSON object per evaluation as it is made.
///
/// It reads the request log, the mechanism the console's Requests panel uses (each
/// `RequestLogEntry` carries its `RulesDecision`s): no second hook in the rules enforcer.
/// It subscribes only while a client is connected, so an emulator nobody watches pays the
/// request log's one atomic load per request and nothing more. Evaluations are kept (the
/// last `capacity`) across connections, so a UI that reconnects sees those made while the
/// feed was watched; unlike the official emulator's, evaluations made while no client was
/// connected are not kept (that would trace every request of every run).
public final class RequestFeed: Sendable {
    /// Evaluations kept for the array a new client gets first.
    public let capacity: Int
    let state: EmulatorState
    private let core: HearthMutex<Core>

    private struct Core {
        var clients: [Int: WebSocket] = [:]
        var nextID = 1
        var logToken: Int?
        /// Serialised evaluations.
        var kept: RecentItems<[UInt8]>
        var stopped = false
    }

    /// The initial array's size at most: the newest kept evaluations that fit.
    static let maxInitialBytes = 2 * 1024 * 1024

    public init(state: EmulatorState, capacity: Int = 1_000) {
        self.state = state
        self.capacity = max(1, capacity)
        core = HearthMutex(Core(kept: RecentItems(capacity: self.capacity)))
    }

    /// Clients connected now.
    public var clientCount: Int { core.withLock { $0.clients.count } }

    /// A new client: it gets the kept evaluations as one array, then each new one.
    func add(_ socket: WebSocket) {
        let (id, subscribe, initial) = core.withLock { c -> (Int?, Bool, [UInt8]) in
            guard !c.stopped else { return (nil, false, []) }
            let id = c.nextID
            c.nextID += 1
            c.clients[id] = socket
            var array: [UInt8] = [UInt8(ascii: "[")]
            let ordered = c.kept.ordered
            // The newest that fit in `maxInitialBytes` (each evaluation carries the rules source).
            var size = 0
            var first = ordered.count
            while first > 0, size + ordered[first - 1].count + 1 <= Self.maxInitialBytes {
                first -= 1
                size += ordered[first].count + 1
            }
            for (i, e) in ordered[first...].enumerated() {
                if i > 0 { array.append(UInt8(ascii: ",")) }
                array.append(contentsOf: e)
            }
            array.append(UInt8(ascii: "]"))
            // The initial array is sent under the lock, so no evaluation can slip in before it.
            socket.send(utf8Text: array)
            return (id, c.logToken == nil, array)
        }
        _ = initial
        guard let id else { socket.close(code: WebSocketCloseCode.goingAway, reason: "the server is stopping"); return }
        if subscribe { subscribeToLog() }
        socket.onClose { [self] in remove(id) }
    }

    private func subscribeToLog() {
        let token = state.requestLog.subscribe { [weak self] entry in self?.publish(entry) }
        let extra = core.withLock { c -> Int? in
            if c.logToken != nil || c.clients.isEmpty { return token }
            c.logToken = token
            return nil
        }
        if let extra { state.requestLog.unsubscribe(extra) }
    }

    private func remove(_ id: Int) {
        let token = core.withLock { c -> Int? in
            c.clients.removeValue(forKey: id)
            guard c.clients.isEmpty, let t = c.logToken else { return nil }
            c.logToken = nil
            return t
        }
        if let token { state.requestLog.unsubscribe(token) }
    }

    /// Every evaluation of a finished request, in order.
    func publish(_ entry: RequestLogEntry) {
        guard !entry.rules.isEmpty, let database = entry.database else { return }
        let rules = state.rules.rules(for: database)
        var granular: [AllowOutcome] = []
        var messages: [[UInt8]] = []
        let listing = entry.method == "ListDocuments" || (entry.transport != .grpc && entry.method == "GET")
        // Each evaluation its own time (a microsecond apart at least), as each is its own on the official emulator.
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        for (i, decision) in entry.rules.enumerated() {
            granular += decision.outcomes
            messages.append(RequestFeedJSON.evaluation(decision, granular: granular, project: database.project, rules: rules,
                                                       atMicroseconds: now + Int64(i), listing: listing).bytes)
        }
        let clients = core.withLock { c -> [WebSocket] in
            for m in messages { c.kept.append(m) }
            return Array(c.clients.values)
        }
        // A client over its send budget is closed by its WebSocket; the others go on.
        for client in clients { for m in messages { client.send(utf8Text: m) } }
    }

    /// Closes every client (the server stops).
    func stop() {
        let (clients, token) = core.withLock { c -> ([WebSocket], Int?) in
            c.stopped = true
            let all = Array(c.clients.values)
            c.clients = [:]
            let t = c.logToken
            c.logToken = nil
            return (all, t)
        }
        if let token { state.requestLog.unsubscribe(token) }
        for c in clients { c.close(code: WebSocketCloseCode.goingAway, reason: "the server is stopping") }
    }
}

/// The Requests feed's own port (the official emulator's `--websocket_port`): `GET /requests`
/// with a WebSocket handshake opens the feed; anything else is 404. It shares the
/// emulator's state, not its connections: its budgets are the WebSocket's (a UI only reads).
public final class RequestFeedServer: Sendable {
    public let feed: RequestFeed
    let http: HTTPServer

    /// Binds `host:port` (0: an ephemeral port) and serves the feed of `state`.
    public init(host: String = "127.0.0.1", port: Int, state: EmulatorState, limits: HTTPLimits = RequestFeedServer.limits(),
                webSocketLimits: WebSocketLimits = RequestFeedServer.webSocketLimits()) throws {
        let feed = RequestFeed(state: state)
        self.feed = feed
        http = try HTTPServer(host: host, port: port, limits: limits, placement: { _ in .inline }) { request in
            guard request.path == "/requests" else {
                var r = HTTPResponse(status: 404, body: Array("Not Found\n".utf8))
                r.closeConnection = WebSocketHandshake.isUpgrade(request)
                return r
            }
            return .webSocket(request, WebSocketUpgrade(limits: webSocketLimits) { socket in feed.add(socket) })
        }
        http.onStop { feed.stop() }
    }

    /// Small requests only (a handshake), short deadlines before the upgrade: the feed's
    /// port holds open WebSockets, not HTTP work. The deadlines follow `server`'s (the main
    /// port's `--header-timeout`, `--idle-timeout` up to 30 s, `--send-timeout`).
    public static func limits(like server: HTTPLimits = HTTPLimits()) -> HTTPLimits {
        var l = HTTPLimits()
        l.maxHeaderBytes = 16 * 1024
        l.maxBodyBytes = 16 * 1024
        l.idleTimeout = min(server.idleTimeout, 30)
        l.headerTimeout = server.headerTimeout
        l.bodyTimeout = server.headerTimeout
        l.sendTimeout = server.sendTimeout
        l.maxConnections = 2048
        l.maxConnectionBuffer = 8 * 1024 * 1024
        l.maxTotalBuffer = 128 * 1024 * 1024
        l.workerThreads = 1
        l.eventLoops = 1
        return l
    }

    /// A client message is never needed (the UI only reads): small frames; a frame begun
    /// must end within the main port's header deadline; 4 MiB unread closes a client, and
    /// so does passing 32 MiB unread across all clients while it has anything unread (each
    /// client also holds at most 64 KiB in its connection's output).
    public static func webSocketLimits(like server: HTTPLimits = HTTPLimits()) -> WebSocketLimits {
        var l = WebSocketLimits()
        l.maxFrameSize = 64 * 1024
        l.maxMessageSize = 256 * 1024
        l.frameTimeout = server.headerTimeout
        l.sendBudget = 4 * 1024 * 1024
        l.sharedBudget = WebSocketSharedBudget(limit: 32 * 1024 * 1024)
        return l
    }

    public var port: Int { http.port }
    public var host: String { http.host }
    public var connectionCount: Int { http.connectionCount }

    public func stop() { http.stop() }
}
