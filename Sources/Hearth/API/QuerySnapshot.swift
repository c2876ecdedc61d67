import Foundation
import HearthCore
import Synchronization

/// The results of a query, in query order, and (for a listener's snapshots) how they
/// changed since the previous snapshot.
///
/// A listener's snapshot wraps the engine's view snapshot and builds `documents` and
/// `documentChanges` on first access, so a snapshot of a large result that is never
/// inspected costs nothing per commit.
public final class QuerySnapshot: @unchecked Sendable, CustomStringConvertible {
    /// The query that produced these results.
    public let query: Query
    public let metadata: SnapshotMetadata

    private enum Source {
        /// A one-time read: every document counts as added.
        case documents([QueryDocumentSnapshot])
        /// A listener's snapshot; `reversed` for `limit(toLast:)`, whose view runs reversed.
        case view(ViewSnapshot, reversed: Bool)
    }

    private let source: Source
    private let includesMetadataChanges: Bool
    private let built = Mutex<(documents: [QueryDocumentSnapshot]?, changes: [DocumentChange]?)>((nil, nil))

    init(query: Query, documents: [QueryDocumentSnapshot], metadata: SnapshotMetadata = .server) {
        self.query = query
        self.metadata = metadata
        source = .documents(documents)
        // A one-time read is made with metadata changes included, as in the SDK.
        includesMetadataChanges = true
    }

    init(query: Query, view: ViewSnapshot, reversed: Bool, includesMetadataChanges: Bool) {
        self.query = query
        metadata = .server
        source = .view(view, reversed: reversed)
        self.includesMetadataChanges = includesMetadataChanges
    }

    public var documents: [QueryDocumentSnapshot] {
        switch source {
        case .documents(let documents): return documents
        case .view(let view, let reversed):
            if let cached = built.withLock({ $0.documents }) { return cached }
            var documents = view.documents.map(snapshot)
            if reversed { documents.reverse() }
            built.withLock { $0.documents = documents }
            return documents
        }
    }

    public var isEmpty: Bool { count == 0 }

    public var count: Int {
        switch source {
        case .documents(let documents): documents.count
        case .view(let view, _): view.documents.count
        }
    }

    /// The changes since the previous snapshot of the same listener (for the first
    /// snapshot, or a one-time read, every document as `.added`). Hearth has no
    /// metadata-only changes, so this equals `documentChanges(includeMetadataChanges: true)`.
    public var documentChanges: [DocumentChange] { changes() }

    /// Calling this with `true` on a snapshot from a listener that did not ask for metadata
    /// changes is a programmer error, as in the SDK.
    public func documentChanges(includeMetadataChanges: Bool) -> [DocumentChange] {
        if includeMetadataChanges && !includesMetadataChanges {
            programmerError("To include metadata changes with your document changes, you must call addSnapshotListener(includeMetadataChanges:true).")
        }
        return changes()
    }

    private func changes() -> [DocumentChange] {
        switch source {
        case .documents(let documents):
            return documents.enumerated().map { DocumentChange(type: .added, document: $1, oldIndex: UInt(NSNotFound), newIndex: UInt($0)) }
        case .view(let view, let reversed):
            if let cached = built.withLock({ $0.changes }) { return cached }
            let changes = view.indexedChanges(presentedReversed: reversed).map { c in
                let type: DocumentChangeType = switch c.change.kind {
                case .added: .added
                case .modified: .modified
                case .removed: .removed
                }
                return DocumentChange(type: type, document: snapshot(c.change.document),
                                      oldIndex: c.oldIndex.map(UInt.init) ?? UInt(NSNotFound),
                                      newIndex: c.newIndex.map(UInt.init) ?? UInt(NSNotFound))
            }
            built.withLock { $0.changes = changes }
            return changes
        }
    }

    private func snapshot(_ document: HearthCore.Document) -> QueryDocumentSnapshot {
        QueryDocumentSnapshot(firestore: query.firestore, document: document, metadata: metadata)
    }

    public var description: String {
        "<FIRQuerySnapshot: \(count) documents, \(metadata)>"
    }
}
