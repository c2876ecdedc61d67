import Foundation

/// An opaque transaction handle, as `BeginTransaction` returns it.
public struct TransactionID: Sendable, Hashable, CustomStringConvertible {
    public let bytes: Data

    public init(bytes: Data) { self.bytes = bytes }

    static func random() -> TransactionID {
        var g = SystemRandomNumberGenerator()
        return TransactionID(bytes: Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }))
    }

    public var description: String { bytes.base64EncodedString() }
}

/// A transaction begun on the server side (`BeginTransaction`): optimistic, so reads record
/// the version they saw and the commit validates them under the commit lock.
struct ServerTransaction: Sendable {
    enum Mode: Sendable, Equatable {
        case readWrite
        /// Reads see this fixed state (the begin time or the requested read time).
        case readOnly
    }

    let mode: Mode
    /// For read-only transactions, the consistent state every read uses.
    let readState: DatabaseState
    let readTime: Timestamp?
    /// Each document read, with the update time it had (nil: it was missing).
    var reads: [DocumentKey: Timestamp?] = [:]
    /// Each query run, with the state it read: a later change to a document it covered —
    /// one it returned, or one that would now match (a phantom) — aborts the commit.
    var queries: [QueryRead] = []

    struct QueryRead: Sendable {
        let query: NormalizedQuery
        let state: DatabaseState
        /// The last document returned when the limit cut the result short: changes past it
        /// (in query order) did not affect what the transaction saw.
        let lastWhenLimited: Document?

        /// Whether the commit-time `current` state changed something this query covered.
        func invalidated(by current: DatabaseState) -> Bool {
            let check = QueryExecutor(query: query, state: current, readTime: nil, plans: [])
            for change in current.changes(since: state) {
                for doc in [change.before, change.after] {
                    guard let doc, check.accepts(doc) == .match else { continue }
                    if let last = lastWhenLimited, check.compareInOrder(doc, last) > 0 { continue }
                    return true
                }
            }
            return false
        }
    }
}

extension FirestoreError {
    static let invalidTransaction = FirestoreError(.invalidArgument,
        "The referenced transaction has expired or is no longer valid.")
    static let contention = FirestoreError(.aborted,
        "Aborted due to cross-transaction contention. This occurs when multiple transactions attempt to access the same data, requiring Firestore to abort at least one in order to enforce serializability.")
}
