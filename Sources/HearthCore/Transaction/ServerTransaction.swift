import Foundation

/// An opaque transaction handle, as `BeginTransaction` returns it.
public struct TransactionID: Sendable, Hashable, CustomStringConvertible {
    public let bytes: Data

    public init(bytes: Data) { self.bytes = bytes }

    /// A new id: eight random bytes and a check of them keyed by this process, so an id can
    /// be told from one this server never issued (`wasIssuedHere`) without keeping every id.
    static func random() -> TransactionID {
        let nonce = UInt64.random(in: .min ... .max)
        return TransactionID(bytes: Data(bigEndianBytes(nonce) + bigEndianBytes(check(nonce))))
    }

    /// Whether this server issued the id (live or ended): a retry may name an ended
    /// transaction, not one never begun (the official emulator refuses that with
    /// INVALID_ARGUMENT).
    public var wasIssuedHere: Bool {
        guard bytes.count == 16 else { return false }
        let b = [UInt8](bytes)
        let word = { (i: Int) in b[i..<i + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        return Self.check(word(0)) == word(8)
    }

    private static let key = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    /// A keyed mix of the nonce (splitmix64 rounds): not a secret, a fingerprint.
    private static func check(_ nonce: UInt64) -> UInt64 {
        var z = (nonce ^ key.0) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) ^ key.1
    }

    private static func bigEndianBytes(_ v: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) }
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
