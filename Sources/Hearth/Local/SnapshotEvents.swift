import HearthCore

/// Which of a listener's view snapshots reach its callback, by the SDK's rules
/// (`QueryListener::OnViewSnapshot`): the first always; later ones when a document changed,
/// or — with `includeMetadataChanges` — when only a document's pending state changed
/// (a metadata change) or the snapshot's `hasPendingWrites` flipped. Hearth's listeners
/// start in sync with the server (or, offline, from the cache at once), so no snapshot is
/// held back waiting for a sync; `isFromCache` changes only when the instance goes offline
/// or comes back (`SnapshotListener`).
struct SnapshotEvents {
    let includeMetadataChanges: Bool
    /// The last snapshot's documents with pending writes (nil before the first).
    private var lastMutated: Set<ResourcePath>?

    init(includeMetadataChanges: Bool) {
        self.includeMetadataChanges = includeMetadataChanges
    }

    /// What the listener makes of `snapshot`: nil when it raises no event, otherwise the
    /// pending state its changes are classified against (`ClassifiedChanges`).
    mutating func accept(_ snapshot: ViewSnapshot) -> Set<ResourcePath>? {
        guard let previous = lastMutated else {
            lastMutated = snapshot.mutatedKeys
            return []
        }
        lastMutated = snapshot.mutatedKeys
        let kinds = ClassifiedChanges.kinds(snapshot.changes, previousMutated: previous, mutated: snapshot.mutatedKeys)
        if kinds.document { return previous }
        if includeMetadataChanges && (kinds.metadata || previous.isEmpty != snapshot.mutatedKeys.isEmpty) { return previous }
        return nil
    }
}

/// A view snapshot's changes as the SDK's view reports them: a modification whose fields
/// did not change is a metadata change when the document's pending state changed (it
/// gained or lost a write not yet committed), and no change at all otherwise (a local
/// document replaced by an equal one).
enum ClassifiedChanges {
    enum Kind { case document, metadata, none }

    static func kind(of change: ViewChange, previousMutated: Set<ResourcePath>, mutated: Set<ResourcePath>) -> Kind {
        guard change.kind == .modified else { return .document }
        let path = change.document.path
        let before = previousMutated.contains(path), after = mutated.contains(path)
        // Only a document that has or had a pending write can be replaced by equal fields.
        guard before || after, let old = change.oldDocument, old.fields == change.document.fields else { return .document }
        return before != after ? .metadata : .none
    }

    /// Whether any change is a document change, and whether any is a metadata change.
    static func kinds(_ changes: [ViewChange], previousMutated: Set<ResourcePath>, mutated: Set<ResourcePath>) -> (document: Bool, metadata: Bool) {
        var document = false, metadata = false
        for change in changes {
            switch kind(of: change, previousMutated: previousMutated, mutated: mutated) {
            case .document: document = true
            case .metadata: metadata = true
            case .none: break
            }
            if document { break }
        }
        return (document, metadata)
    }
}
