import Foundation
import HearthCore
import HearthTransport
import HearthLock

/// Serves `/google.firestore.v1.Firestore/{Listen,Write}/channel`: the WebChannel
/// endpoints the Firebase JS SDK uses in browsers, on the HTTP/1.1 side of the one port.
///
/// - handshake: a POST without `SID` opens a session, whose first stream message rides in
///   the body; the answer is array 0, `["c", SID, "", 8, 12, keepAliveMs]`.
/// - forward channel: a POST with `SID` carries numbered messages (`ofs`, `count`,
///   `req<i>___data__`) and the client's acknowledgement (`AID`).
/// - back channel: a GET with `RID=rpc` stays open (`CI=0`) or ends after a batch (`CI=1`).
/// - `TYPE=terminate` ends the session; so does `limits.idleTimeout` without any request or back
///   channel (a tab that went away without saying so), and the server stopping.
/// Auth rides in the handshake body's `headers` field (`Authorization: Bearer …`).
/// The limits of the WebChannel sessions.
public struct WebChannelLimits: Sendable {
    /// A session with no back channel and no request for this long is ended.
    public var idleTimeout: Duration = .seconds(60)
    /// Arrays a session keeps unacknowledged before its stream pauses, and the most a back
    /// channel is given unacknowledged (see `WebChannelSession`). Below
    /// `HTTPLimits.streamWriteBudget` (8 MiB), so a back channel is never closed for
    /// holding what the session hands it.
    public var maxRetainedBytes: Int = 6 << 20

    public init() {}
}

final class WebChannelService: Sendable {
    let state: EmulatorState
    let limits: WebChannelLimits
    /// The server's worker pool, where the sessions' streams run (set once the server exists).
    let workers = HearthMutex<WorkerPool?>(nil)
    /// Sent in the handshake; the client gives up on a silent back channel after 1.5 × this.
    static let keepAliveMs = 30_000

    private struct Registry {
        var sessions: [String: WebChannelSession] = [:]
        var janitorRunning = false
        var stopped = false
    }
    private let registry = HearthMutex(Registry())

    init(state: EmulatorState, limits: WebChannelLimits = WebChannelLimits()) {
        self.state = state
        self.limits = limits
    }

    /// The channel endpoints' paths, or nil for any other path.
    static func kind(of path: Substring) -> WebChannelSession.Kind? {
        switch path {
        case "/google.firestore.v1.Firestore/Listen/channel": .listen
        case "/google.firestore.v1.Firestore/Write/channel": .write
        default: nil
        }
    }

    var sessionCount: Int { registry.withLock { $0.sessions.count } }
    func session(_ sid: String) -> WebChannelSession? { registry.withLock { $0.sessions[sid] } }

    func handle(_ request: HTTPRequest, kind: WebChannelSession.Kind) -> HTTPResponse {
        do throws(WebChannelError) {
            var response = try respond(request, kind: kind)
            response.headers.append(("Access-Control-Expose-Headers", "x-client-wire-protocol, x-http-session-id, x-http-initial-response"))
            return response
        } catch {
            return .text(error.status, error.message)
        }
    }

    /// Ends every session (the server is stopping).
    func stop() {
        let sessions = registry.withLock { r -> [WebChannelSession] in
            r.stopped = true
            defer { r.sessions = [:] }
            return Array(r.sessions.values)
        }
        for s in sessions { s.terminate() }
    }

    private func respond(_ request: HTTPRequest, kind: WebChannelSession.Kind) throws(WebChannelError) -> HTTPResponse {
        guard let params = WebChannelWire.form(request.query) else {
            throw WebChannelError(400, "Malformed percent-encoding in the channel URL.")
        }
        if let database = params["database"] {
            do throws(FirestoreError) {
                _ = try ResourceNameFields.database(database)
            } catch {
                throw WebChannelError(400, error.message)
            }
        }
        let aid = params["AID"].flatMap { Int($0) }
        switch request.method {
        case "GET":
            guard params["RID"] == "rpc", let sid = params["SID"] else {
                throw WebChannelError(400, "A channel GET is a back channel: it needs RID=rpc and SID.")
            }
            let session = try lookup(sid, kind: kind)
            let longPoll = params["CI"] == "1"
            var r = HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8"),
                                                        ("X-Content-Type-Options", "nosniff"),
                                                        ("Cache-Control", "no-cache, no-store, max-age=0")])
            r.stream = { stream in session.attach(stream, acknowledged: aid ?? 0, longPoll: longPoll) }
            return r
        case "POST":
            guard let form = WebChannelWire.form(String(decoding: request.body, as: UTF8.self)) else {
                throw WebChannelError(400, "Malformed percent-encoding in the forward channel body.")
            }
            if params["TYPE"] == "terminate" {
                if let sid = params["SID"], let session = remove(sid) { session.terminate() }
                return plain([])
            }
            let (offset, messages) = try WebChannelWire.messages(form)
            guard let sid = params["SID"] else {
                return try handshake(kind: kind, form: form, offset: offset, messages: messages)
            }
            let session = try lookup(sid, kind: kind)
            return plain(session.forward(offset: offset, messages: messages, acknowledged: aid))
        default:
            throw WebChannelError(405, "A channel takes GET and POST.")
        }
    }

    private func handshake(kind: WebChannelSession.Kind, form: [String: String], offset: Int, messages: [String]) throws(WebChannelError) -> HTTPResponse {
        let headers = WebChannelWire.headers(form["headers"])
        var random = SystemRandomNumberGenerator()
        let sid = (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &random), radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let pool = workers.withLock { $0 }
        let session = WebChannelSession(id: sid, kind: kind, authorization: headers["authorization"], maxRetainedBytes: limits.maxRetainedBytes,
                                        submit: { job in pool?.submit(job, bounded: false) ?? false })
        let accepted = registry.withLock { r -> Bool in
            guard !r.stopped else { return false }
            r.sessions[sid] = session
            return true
        }
        guard accepted else { throw WebChannelError(503, "The server is stopping.") }
        session.onAbort = { [weak self] sid in _ = self?.remove(sid) }
        session.start(state: state)
        startJanitor()
        _ = session.forward(offset: offset, messages: messages, acknowledged: nil)
        return plain(WebChannelWire.created(sid: sid, keepAliveMs: Self.keepAliveMs))
    }

    private func lookup(_ sid: String, kind: WebChannelSession.Kind) throws(WebChannelError) -> WebChannelSession {
        // The wording closure's WebChannel client looks for to report UNKNOWN_SESSION_ID.
        guard let s = registry.withLock({ $0.sessions[sid] }), s.kind == kind else { throw WebChannelError(400, "Unknown SID") }
        return s
    }

    private func remove(_ sid: String) -> WebChannelSession? {
        registry.withLock { $0.sessions.removeValue(forKey: sid) }
    }

    private func plain(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: body)
    }

    /// One thread while sessions exist: every second, ends those idle past `limits.idleTimeout`.
    private func startJanitor() {
        let start = registry.withLock { r -> Bool in
            guard !r.janitorRunning else { return false }
            r.janitorRunning = true
            return true
        }
        guard start else { return }
        let spawned = ThreadSpawner.spawn(stackSize: 256 * 1024) { [self] in
            while true {
                usleep(1_000_000)
                let (expired, done) = registry.withLock { r -> ([WebChannelSession], Bool) in
                    let idle = r.sessions.values.filter { $0.isIdle(for: limits.idleTimeout) }
                    for s in idle { r.sessions[s.id] = nil }
                    if r.sessions.isEmpty { r.janitorRunning = false }
                    return (idle, !r.janitorRunning)
                }
                for s in expired { s.terminate() }
                if done { return }
            }
        }
        if !spawned { registry.withLock { $0.janitorRunning = false } }
    }
}
