import Foundation
import HearthCore

/// The results of a query, in query order.
public final class QuerySnapshot: @unchecked Sendable, CustomStringConvertible {
    /// The query that produced these results.
    public let query: Query
    public let documents: [QueryDocumentSnapshot]
    public let metadata: SnapshotMetadata

    init(query: Query, documents: [QueryDocumentSnapshot], metadata: SnapshotMetadata = .server) {
        self.query = query
        self.documents = documents
        self.metadata = metadata
    }

    public var isEmpty: Bool { documents.isEmpty }
    public var count: Int { documents.count }

    public var description: String {
        "<FIRQuerySnapshot: \(count) documents, \(metadata)>"
    }
}
