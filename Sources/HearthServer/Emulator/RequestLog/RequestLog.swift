import Foundation
import HearthCore
import HearthLock
import Synchronization

/// The log of requests the front ends served (REST, gRPC, WebChannel), kept for the console.
///
/// It records only while someone subscribes: when nobody does, a front end pays one relaxed
/// atomic load per request (`isObserved`) and nothing else — no clock reads, no entry, no
/// task-local binding. While observed, each request gets a `RequestTrace` that the service
/// layer and the rules enforcer fill in, and the finished entry goes to every subscriber
/// and into a ring of the last `capacity` entries (what a console opened later sees first).
public final class RequestLog: Sendable {
    public typealias Subscriber = @Sendable (RequestLogEntry) -> Void

    /// How many recent entries are kept.
    public let capacity: Int
    private let observers = Atomic<Int>(0)
    private let store: HearthMutex<Store>

    private struct Store {
        var kept: RecentItems<RequestLogEntry>
        var lastID = 0
        var subscribers: [Int: Subscriber] = [:]
        var nextToken = 1
    }

    public init(capacity: Int = 1_000) {
        self.capacity = max(1, capacity)
        store = HearthMutex(Store(kept: RecentItems(capacity: self.capacity)))
    }

    /// True while anyone subscribes: the front ends' only check when nobody does.
    @inline(__always)
    public var isObserved: Bool { observers.load(ordering: .relaxed) > 0 }

    /// Calls `subscriber` with every entry recorded from now on (on the thread that served
    /// the request: it must not block). Returns the token `unsubscribe` takes.
    public func subscribe(_ subscriber: @escaping Subscriber) -> Int {
        let token = store.withLock { s in
            let t = s.nextToken
            s.nextToken += 1
            s.subscribers[t] = subscriber
            return t
        }
        observers.add(1, ordering: .relaxed)
        return token
    }

    /// Stops calling a subscriber (idempotent).
    public func unsubscribe(_ token: Int) {
        let removed = store.withLock { $0.subscribers.removeValue(forKey: token) != nil }
        if removed { observers.subtract(1, ordering: .relaxed) }
    }

    /// Numbers `entry`, keeps it and hands it to every subscriber.
    public func record(_ entry: RequestLogEntry) {
        var entry = entry
        let subscribers = store.withLock { s -> [Subscriber] in
            s.lastID += 1
            entry.id = s.lastID
            s.kept.append(entry)
            return Array(s.subscribers.values)
        }
        // Outside the lock: a subscriber that finds its client gone unsubscribes.
        for subscriber in subscribers { subscriber(entry) }
    }

    /// The kept entries with an id above `after`, oldest first, at most `limit` (the newest).
    public func recent(after: Int = 0, limit: Int = .max) -> [RequestLogEntry] {
        store.withLock { s in
            return Array(s.kept.ordered.filter { $0.id > after }.suffix(max(0, limit)))
        }
    }

    // MARK: Front ends

    /// A trace for a request arriving now, or nil when nobody watches (the one check on the
    /// hot path). `authorization` is only read when a trace is made.
    func begin(_ transport: RequestLogEntry.Transport, method: String, path: @autoclosure () -> String,
               authorization: @autoclosure () -> String?) -> RequestTrace? {
        guard isObserved else { return nil }
        return RequestTrace(transport: transport, method: method, path: path(), caller: .init(authorization: authorization()))
    }

    /// Serves a request that ends by returning or throwing (a gRPC call, a stream's
    /// message): `body` runs with the trace current, and its outcome is recorded.
    func serve<R>(_ transport: RequestLogEntry.Transport, method: String, path: @autoclosure () -> String,
                  authorization: @autoclosure () -> String?, _ body: () throws(FirestoreError) -> R) throws(FirestoreError) -> R {
        guard let trace = begin(transport, method: method, path: path(), authorization: authorization()) else { return try body() }
        let result = RequestTrace.$current.withValue(trace) { Result { () throws(FirestoreError) -> R in try body() } }
        switch result {
        case .success:
            // A request can succeed while failing in part (a Listen target refused by the rules).
            let failure = trace.failure
            record(trace.finish(code: failure?.code ?? .ok, message: failure?.message))
        case .failure(let error): record(trace.finish(code: error.code, message: error.message))
        }
        return try result.get()
    }
}
