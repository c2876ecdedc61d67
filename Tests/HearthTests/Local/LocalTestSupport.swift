import Foundation
@testable import Hearth

// Helpers for the local-view tests (latency compensation, cache reads, bundles). Names carry
// a `local` prefix so they cannot clash with other files' helpers in this target.

/// What a listener's callbacks received, in order.
final class LocalEvents<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    private var failures: [Error] = []

    func add(_ value: T?, _ error: Error?) {
        lock.withLock {
            if let value { items.append(value) }
            if let error { failures.append(error) }
        }
    }

    var values: [T] { lock.withLock { items } }
    var errors: [Error] { lock.withLock { failures } }
}

/// A fresh database whose callbacks run on a private queue; a manual clock when `clock`.
func localDB(clock: ManualClock? = nil, events: LocalWriteEvents = .latencyCompensated) -> Firestore {
    let db = Firestore.inMemory(clock: clock)
    let settings = db.settings
    settings.dispatchQueue = DispatchQueue(label: "hearth.local-tests.callbacks")
    settings.localWriteEvents = events
    db.settings = settings
    return db
}

/// `data` of a document snapshot with NSNumbers read as Int where they are integral, for
/// comparisons; `Timestamp`s as "ts:<seconds>", NSNull as "null".
func localPlain(_ value: Any?) -> String {
    switch value {
    case nil: return "nil"
    case is NSNull: return "null"
    case let t as Timestamp: return "ts:\(t.seconds)"
    case let n as NSNumber: return "\(n)"
    case let s as String: return s
    case let m as [String: Any]:
        return "{" + m.keys.sorted().map { "\($0):\(localPlain(m[$0]))" }.joined(separator: ",") + "}"
    case let a as [Any]: return "[" + a.map(localPlain).joined(separator: ",") + "]"
    default: return "\(value!)"
    }
}

/// A document snapshot as `exists data pending`, e.g. `{a:1} P` (pending) or `-` (missing).
func localShow(_ s: DocumentSnapshot, _ behavior: ServerTimestampBehavior = .none) -> String {
    guard s.exists else { return "-" }
    return localPlain(s.data(with: behavior)) + (s.metadata.hasPendingWrites ? " P" : "")
}

/// A query snapshot as its documents (`id{data}`, `*` for pending ones) and its own
/// `hasPendingWrites` (` P`).
func localShow(_ s: QuerySnapshot) -> String {
    s.documents.map { "\($0.documentID)\(localPlain($0.data()))\($0.metadata.hasPendingWrites ? "*" : "")" }
        .joined(separator: " ") + (s.metadata.hasPendingWrites ? " P" : "")
}

/// `type id old→new` per change, `-` for NSNotFound.
func localChanges(_ changes: [DocumentChange]) -> [String] {
    changes.map { c in
        func i(_ v: UInt) -> String { v == UInt(NSNotFound) ? "-" : String(v) }
        return "\(c.type) \(c.document.documentID) \(i(c.oldIndex))→\(i(c.newIndex))"
    }
}
