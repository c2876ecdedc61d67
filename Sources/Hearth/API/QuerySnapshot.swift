import Foundation
import HearthCore
import HearthLock

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
        /// A listener's snapshot; `reversed` for `limit(toLast:)`, whose view runs reversed;
        /// `previousMutated`: the documents with pending writes in the snapshot before it.
        case view(ViewSnapshot, previousMutated: Set<ResourcePath>, reversed: Bool)
    }

    private struct Built {
        var documents: [QueryDocumentSnapshot]?
        var changes: [DocumentChange]?
        var changesWithMetadata: [DocumentChange]?
    }

    private let source: Source
    private let includesMetadataChanges: Bool
    private let built = HearthMutex(Built())

    /// When the database produced these results (nil for a cache read).
    let readTime: HearthCore.Timestamp?

    init(query: Query, documents: [QueryDocumentSnapshot], metadata: SnapshotMetadata = .server, readTime: HearthCore.Timestamp? = nil) {
        self.query = query
        self.metadata = metadata
        self.readTime = readTime
        source = .documents(documents)
        // A one-time read is made with metadata changes included, as in the SDK.
        includesMetadataChanges = true
    }

    init(query: Query, view: ViewSnapshot, previousMutated: Set<ResourcePath>, reversed: Bool, includesMetadataChanges: Bool,
         fromCache: Bool = false) {
        self.query = query
        readTime = view.readTime
        metadata = .of(pending: !view.mutatedKeys.isEmpty, fromCache: fromCache)
        source = .view(view, previousMutated: previousMutated, reversed: reversed)
        self.includesMetadataChanges = includesMetadataChanges
    }

    public var documents: [QueryDocumentSnapshot] {
        switch source {
        case .documents(let documents): return documents
        case .view(let view, _, let reversed):
            if let cached = built.withLock({ $0.documents }) { return cached }
            var documents = view.documents.map { snapshot($0, view) }
            if reversed { documents.reverse() }
            built.withLock { $0.documents = documents }
            return documents
        }
    }

    public var isEmpty: Bool { count == 0 }

    public var count: Int {
        switch source {
        case .documents(let documents): documents.count
        case .view(let view, _, _): view.documents.count
        }
    }

    /// The changes since the previous snapshot of the same listener (for the first
    /// snapshot, or a one-time read, every document as `.added`), without the changes of a
    /// document's pending state alone (metadata changes).
    public var documentChanges: [DocumentChange] { changes(includingMetadata: false) }

    /// With `true`, metadata changes too (as `.modified`). Calling this with `true` on a
    /// snapshot from a listener that did not ask for metadata changes is a programmer
    /// error, as in the SDK.
    public func documentChanges(includeMetadataChanges: Bool) -> [DocumentChange] {
        if includeMetadataChanges && !includesMetadataChanges {
            programmerError("To include metadata changes with your document changes, you must call addSnapshotListener(includeMetadataChanges:true).")
        }
        return changes(includingMetadata: includeMetadataChanges)
    }

    private func changes(includingMetadata: Bool) -> [DocumentChange] {
        switch source {
        case .documents(let documents):
            return documents.enumerated().map { DocumentChange(type: .added, document: $1, oldIndex: UInt(NSNotFound), newIndex: UInt($0)) }
        case .view(let view, let previousMutated, let reversed):
            if let cached = built.withLock({ includingMetadata ? $0.changesWithMetadata : $0.changes }) { return cached }
            // Positions are counted over every change, as the SDK's view applies them all;
            // metadata changes leave every position where it was.
            let changes = view.indexedChanges(presentedReversed: reversed).compactMap { c -> DocumentChange? in
                switch ClassifiedChanges.kind(of: c.change, previousMutated: previousMutated, mutated: view.mutatedKeys) {
                case .none: return nil
                case .metadata where !includingMetadata: return nil
                case .metadata, .document: break
                }
                let type: DocumentChangeType = switch c.change.kind {
                case .added: .added
                case .modified: .modified
                case .removed: .removed
                }
                return DocumentChange(type: type, document: snapshot(c.change.document, view),
                                      oldIndex: c.oldIndex.map(UInt.init) ?? UInt(NSNotFound),
                                      newIndex: c.newIndex.map(UInt.init) ?? UInt(NSNotFound))
            }
            built.withLock { b in if includingMetadata { b.changesWithMetadata = changes } else { b.changes = changes } }
            return changes
        }
    }

    /// A document of the view, with its own pending state (a removed document has none).
    private func snapshot(_ document: HearthCore.Document, _ view: ViewSnapshot) -> QueryDocumentSnapshot {
        let pending = !view.mutatedKeys.isEmpty && view.mutatedKeys.contains(document.path)
        return QueryDocumentSnapshot(firestore: query.firestore, document: document, metadata: .of(pending: pending, fromCache: metadata.isFromCache))
    }

    public var description: String {
        "<FIRQuerySnapshot: \(count) documents, \(metadata)>"
    }
}
