import Foundation
import HearthCore
import HearthRules
import HearthLock

/// What one request did, collected while it is served and the request log is observed:
/// the front end makes it (`RequestLog.begin`) and binds it as `RequestTrace.current` for
/// the request's synchronous work; the service layer notes the database and documents it
/// addressed and the rules enforcer each verdict. Only made while someone watches, so the
/// service reads `current` only behind `RequestLog.isObserved`.
final class RequestTrace: Sendable {
    /// The trace of the request being served on this thread or task, if it is traced.
    @TaskLocal static var current: RequestTrace?

    private let started = ContinuousClock.now
    private let entry: HearthMutex<Entry>

    private struct Entry {
        var value: RequestLogEntry
        var failure: FirestoreError?
        var resourcesDropped = 0
        var verdictsDropped = 0
    }

    init(transport: RequestLogEntry.Transport, method: String, path: String, caller: RequestLogEntry.Caller) {
        entry = HearthMutex(Entry(value: RequestLogEntry(time: Date(), transport: transport, method: method, path: path, caller: caller)))
    }

    /// The trace current here when `log` is observed (nil otherwise, without a task-local read).
    static func current(ifObserving log: RequestLog) -> RequestTrace? {
        log.isObserved ? current : nil
    }

    /// The request addressed `database`.
    func addressed(_ database: DatabaseID) {
        entry.withLock { $0.value.database = $0.value.database ?? database }
    }

    /// The request named the document or collection at `path` of `database`.
    func named(_ path: ResourcePath, in database: DatabaseID) {
        entry.withLock { e in
            e.value.database = e.value.database ?? database
            guard !e.value.resources.contains(path) else { return }
            if e.value.resources.count < RequestLogEntry.maxResources { e.value.resources.append(path) } else { e.resourcesDropped += 1 }
        }
    }

    /// A security rules verdict reached for the request.
    func decided(_ decision: RulesDecision) {
        entry.withLock { e in
            if e.value.rules.count < RequestLogEntry.maxVerdicts { e.value.rules.append(decision) } else { e.verdictsDropped += 1 }
        }
    }

    /// The request failed with `error` (for front ends that turn errors into responses).
    func failed(_ error: FirestoreError) {
        entry.withLock { $0.failure = error }
    }

    /// The error `failed` noted.
    var failure: FirestoreError? { entry.withLock { $0.failure } }

    /// The finished entry.
    func finish(code: FirestoreError.Code, httpStatus: Int? = nil, message: String? = nil) -> RequestLogEntry {
        let duration = ContinuousClock.now - started
        return entry.withLock { e in
            var v = e.value
            v.duration = duration
            v.code = code
            v.httpStatus = httpStatus
            v.message = message.flatMap { $0.isEmpty ? nil : $0 }
            if e.verdictsDropped > 0 {
                v.message = (v.message.map { $0 + "\n" } ?? "") + "(\(e.verdictsDropped) more rules verdicts not shown)"
            }
            return v
        }
    }
}
