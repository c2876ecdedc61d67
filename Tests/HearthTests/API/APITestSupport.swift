import Foundation
import Testing
@testable import Hearth
import HearthLock

// Helpers shared by the Hearth API tests. Names carry an `api` prefix so they cannot clash
// with helpers of other test files in this target (e.g. the Codable tests).

/// 2023-11-14T22:13:20Z, where manual clocks start.
let apiEpochSeconds: Int64 = 1_700_000_000

/// The resource-name prefix of documents in `Firestore.inMemory()` databases.
let apiDocumentsPrefix = "projects/\(Firestore.defaultProjectID)/databases/(default)/documents/"

/// A fresh, isolated database; with `queue`, completion handlers run there.
func apiDB(queue: DispatchQueue? = nil) -> Firestore {
    let db = Firestore.inMemory()
    if let queue { apiUseQueue(db, queue) }
    return db
}

/// A fresh database whose commit times come from a manual clock standing at `apiEpochSeconds`.
func apiClockedDB() -> (Firestore, ManualClock) {
    let clock = ManualClock(now: Timestamp(seconds: apiEpochSeconds, nanoseconds: 0))
    return (Firestore.inMemory(clock: clock), clock)
}

/// Sets the callback queue (must happen before the instance is first used).
func apiUseQueue(_ db: Firestore, _ queue: DispatchQueue) {
    let settings = db.settings
    settings.dispatchQueue = queue
    db.settings = settings
}

/// A private serial callback queue that can tell whether code runs on it.
final class APICallbackQueue: @unchecked Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()

    init(_ label: String = "hearth.api-tests.callbacks") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: 1)
    }

    /// True when called from a block running on `queue`.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
}

/// Boxes a non-Sendable value to hand it across a continuation.
struct APISent<T>: @unchecked Sendable {
    let value: T
}

/// Waits for a completion-handler API: `start` receives the function to call with the result.
func apiCallback<T>(_ start: (@escaping (T) -> Void) -> Void) async -> T {
    let box = await withHandOffContinuation { (c: HandOffContinuation<APISent<T>, Never>) in
        start { c.resume(returning: APISent(value: $0)) }
    }
    return box.value
}

/// A thread-safe counter (transaction blocks run on other threads).
final class APICounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0

    @discardableResult
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        n += 1
        return n
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return n
    }
}

/// The Firestore error of `body`, or nil when it succeeds.
func apiError(_ body: () async throws -> Void) async -> NSError? {
    do {
        try await body()
        return nil
    } catch {
        return error as NSError
    }
}

/// The message of a programmer-error check (the internal throwing functions behind the
/// SDK's exceptions), or nil when the check passes.
func apiRejection(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        return Mirror(reflecting: error).descendant("message") as? String
    }
}

/// What kind of number a snapshot handed back, from the NSNumber's ObjC type code (the
/// same rule `UserDataReader` applies when the value is written again): "integer", "double"
/// or "bool"; nil when it is not an NSNumber. (swift-corelibs-foundation reports small
/// integers as `i` rather than `q`.)
func apiNumberKind(_ value: Any?) -> String? {
    guard let value, type(of: value) is NSNumber.Type, let n = value as? NSNumber else { return nil }
    switch String(cString: n.objCType) {
    case "c", "B": return "bool"
    case "d", "f": return "double"
    case "q", "i", "l", "s", "Q", "I", "L", "S": return "integer"
    default: return "unknown"
    }
}

/// A key set on the main queue, to prove a block runs there (under `swift test` on Linux the
/// main queue is drained by a worker thread after `dispatchMain()`, so `Thread.isMainThread`
/// is false even on the main queue).
let apiMainQueueKey: DispatchSpecificKey<Int> = {
    let key = DispatchSpecificKey<Int>()
    DispatchQueue.main.setSpecific(key: key, value: 7)
    return key
}()

/// True when called from a block running on the main queue.
var apiIsOnMainQueue: Bool { DispatchQueue.getSpecific(key: apiMainQueueKey) == 7 }

/// The data of a document, or nil when it does not exist.
func apiData(_ ref: DocumentReference) async throws -> [String: Any]? {
    try await ref.getDocument().data()
}

/// A timestamp read back from a snapshot value.
func apiTimestamp(_ value: Any?) -> Timestamp? {
    value as? Timestamp
}

/// `Timestamp(seconds:nanoseconds:)` shorthand.
func apiTime(_ seconds: Int64, _ nanos: Int32 = 0) -> Timestamp {
    Timestamp(seconds: seconds, nanoseconds: nanos)
}
