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
}

extension FirestoreError {
    static let invalidTransaction = FirestoreError(.invalidArgument,
        "The referenced transaction has expired or is no longer valid.")
    static let contention = FirestoreError(.aborted,
        "Aborted due to cross-transaction contention. This occurs when multiple transactions attempt to access the same data, requiring Firestore to abort at least one in order to enforce serializability.")
}
