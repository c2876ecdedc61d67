import Foundation
import HearthCore
import HearthTransport
import HearthLock

/// The console's live events, sent as Server-Sent Events on `GET /api/events`:
///
/// - `request` — each request log entry as it is recorded (the same JSON as `/api/requests`);
/// - `changes` — `{"database", "count", "changes": [{"path", "kind"}]}` for the documents a
///   database added, modified or removed, or `{"database", "count", "reset": true}` when more
///   than `maxChanges` changed at once (the console reloads what it shows);
/// - `databases` — a database was created (the console reloads its tree);
/// - `streams` — the open Listen/Write streams changed (`{"streams": […]}` as `/api/streams`).
///
/// It runs only while a console is connected: the first subscriber subscribes to the request
/// log and starts a watcher thread; the last one leaving stops both, so an emulator nobody
/// watches does no work for it. The watcher compares each database's current immutable
/// state with the one it saw last (`DatabaseState.changes(since:)` skips shared subtrees, so
/// that costs what changed, not the database's size) every `interval`; every front end's
/// commits, restores and clears show up that way without a hook in the commit path.
final class ConsoleFeed: Sendable {
    /// Receives framed SSE bytes; false when its client is gone.
    typealias Sink = @Sendable ([UInt8]) -> Bool

    static let interval: Duration = .milliseconds(150)
    static let maxChanges = 500
    /// A comment is sent this often, so a client that vanished is noticed.
    static let keepAlive: Duration = .seconds(15)

    let state: EmulatorState
    private let core = HearthMutex(Core())

    private struct Core {
        var sinks: [Int: Sink] = [:]
        var nextID = 1
        var logToken: Int?
        var watching = false
        var stopped = false
        var seen: [DatabaseID: DatabaseState] = [:]
        var streamsVersion = -1
        var lastKeepAlive = ContinuousClock.now
    }

    init(state: EmulatorState) {
        self.state = state
    }

    /// The `text/event-stream` response that subscribes its client until it leaves.
    func response(for request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(status: 200, headers: [
            ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"),
        ])
        response.stream = { [self] stream in
            guard let id = subscribe({ bytes in stream.write(bytes) }) else { stream.finish(); return }
            stream.onClose { [self] in unsubscribe(id) }
        }
        return response
    }

    /// Adds a sink (nil once the feed stopped); it first gets a `hello` event.
    func subscribe(_ sink: @escaping Sink) -> Int? {
        guard sink(Self.frame("hello", .object([("retry", .int(2000))]), retry: 2000)) else { return nil }
        let (id, start) = core.withLock { c -> (Int?, Bool) in
            guard !c.stopped else { return (nil, false) }
            let id = c.nextID
            c.nextID += 1
            c.sinks[id] = sink
            let start = !c.watching
            c.watching = true
            return (id, start)
        }
        guard let id else { return nil }
        if start { startWatching() }
        return id
    }

    func unsubscribe(_ id: Int) {
        core.withLock { _ = $0.sinks.removeValue(forKey: id) }
    }

    /// Ends every event stream and the watcher.
    func stop() {
        let token = core.withLock { c -> Int? in
            c.stopped = true
            c.sinks = [:]
            defer { c.logToken = nil }
            return c.logToken
        }
        if let token { state.requestLog.unsubscribe(token) }
    }

    var subscriberCount: Int { core.withLock { $0.sinks.count } }

    // MARK: Watching

    private func startWatching() {
        let token = state.requestLog.subscribe { [self] entry in
            broadcast(Self.frame("request", ConsoleJSON.entry(entry), id: entry.id))
        }
        // Baselines: what exists now is what the console loads; only later changes are sent.
        let baseline = Dictionary(state.registry.all.map { ($0.id, $0.state()) }, uniquingKeysWith: { a, _ in a })
        core.withLock { c in
            c.logToken = token
            c.seen = baseline
            c.streamsVersion = state.streams.version
        }
        ThreadSpawner.spawn(stackSize: 512 * 1024) { [self] in
            while tick() { Thread.sleep(forTimeInterval: Double(Self.interval.components.attoseconds) / 1e18 + Double(Self.interval.components.seconds)) }
        }
    }

    /// One round of the watcher; false once nobody is left (the watcher then ends).
    private func tick() -> Bool {
        let go = core.withLock { c -> (Bool, Int?) in
            if c.sinks.isEmpty || c.stopped {
                c.watching = false
                c.seen = [:]
                defer { c.logToken = nil }
                return (false, c.logToken)
            }
            return (true, nil)
        }
        guard go.0 else {
            if let token = go.1 { state.requestLog.unsubscribe(token) }
            return false
        }
        var frames: [[UInt8]] = []
        var newDatabase = false
        for db in state.registry.all {
            let now = db.state()
            let previous = core.withLock { c -> DatabaseState? in
                let p = c.seen[db.id]
                c.seen[db.id] = now
                return p
            }
            guard let previous else { newDatabase = true; continue }
            if now.hasSameDocuments(as: previous) { continue }
            frames.append(Self.frame("changes", Self.changes(from: previous, to: now)))
        }
        if newDatabase { frames.append(Self.frame("databases", .object([]))) }
        let version = state.streams.version
        let streamsChanged = core.withLock { c -> Bool in
            defer { c.streamsVersion = version }
            return c.streamsVersion != version
        }
        if streamsChanged {
            frames.append(Self.frame("streams", .object([("streams", .array(state.streams.all.map(ConsoleJSON.stream)))])))
        }
        let ping = core.withLock { c -> Bool in
            guard ContinuousClock.now - c.lastKeepAlive >= Self.keepAlive else { return false }
            c.lastKeepAlive = .now
            return true
        }
        if ping { frames.append(Array(": keep-alive\n\n".utf8)) }
        for f in frames { broadcast(f) }
        return true
    }

    /// The `changes` event between two states of one database.
    static func changes(from previous: DatabaseState, to now: DatabaseState) -> JSON {
        var pairs: [(String, JSON)] = [("database", .string(now.database.name)), ("count", .int(now.documentCount))]
        let diff = now.changes(since: previous)
        if diff.count > maxChanges {
            pairs.append(("reset", .bool(true)))
        } else {
            pairs.append(("changes", .array(diff.map { change in
                let kind = change.before == nil ? "added" : change.after == nil ? "removed" : "modified"
                return .object([("path", .string(change.path.description)), ("kind", .string(kind))])
            })))
        }
        return .object(pairs)
    }

    private func broadcast(_ frame: [UInt8]) {
        let sinks = core.withLock { Array($0.sinks) }
        var gone: [Int] = []
        for (id, sink) in sinks where !sink(frame) { gone.append(id) }
        if !gone.isEmpty { core.withLock { c in for id in gone { c.sinks[id] = nil } } }
    }

    /// One SSE event: `event:`, optional `id:`/`retry:`, the JSON on one `data:` line.
    static func frame(_ event: String, _ json: JSON, id: Int? = nil, retry: Int? = nil) -> [UInt8] {
        var out = Array("event: \(event)\n".utf8)
        if let id { out += Array("id: \(id)\n".utf8) }
        if let retry { out += Array("retry: \(retry)\n".utf8) }
        out += Array("data: ".utf8)
        json.write(into: &out)  // JSON text has no raw newlines
        out += Array("\n\n".utf8)
        return out
    }
}
