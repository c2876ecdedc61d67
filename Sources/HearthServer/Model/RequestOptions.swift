import HearthCore

// The service's request vocabulary: what the codecs decode requests into and
// `DocumentService` takes, whichever front end the request came through.

/// `TransactionOptions`: read-write, or read-only optionally at a past time.
enum TransactionMode: Sendable, Equatable {
    /// `retry`: the transaction this one retries (`retry_transaction`).
    case readWrite(retry: TransactionID?)
    case readOnly(readTime: Timestamp?)

    static let readWrite = TransactionMode.readWrite(retry: nil)
}

/// A read's consistency selector: none (now), an open transaction, a new
/// transaction begun by the read, or a past read time.
enum ReadConsistency: Sendable, Equatable {
    case current
    case transaction(TransactionID)
    case newTransaction(TransactionMode)
    case readTime(Timestamp)
}

/// One entry of a document listing: a document, or (`show_missing`) a missing parent
/// of existing subcollection documents, which has only its name.
enum ListedDocument {
    case document(Document)
    case missing(ResourcePath)

    var path: ResourcePath {
        switch self {
        case .document(let d): d.path
        case .missing(let p): p
        }
    }
}
