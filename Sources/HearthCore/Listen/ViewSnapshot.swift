/// How one document's membership in a view changed.
public struct ViewChange: Sendable {
    public enum Kind: Sendable, Hashable { case added, modified, removed }

    public let kind: Kind
    /// The document as the view held it before (nil for `.added`).
    let old: ViewEntry?
    /// The document as the view holds it now (nil for `.removed`).
    let new: ViewEntry?
    /// For `.removed`: the document's version after the step that removed it (`.some(nil)`:
    /// deleted; a version that no longer matches, or one pushed out of a limit window) as
    /// the step delivered it, which is what a client's cache records (the SDK's cache gets
    /// that version from Watch with the removal). nil when not known.
    let successor: Document??

    init(kind: Kind, old: ViewEntry?, new: ViewEntry?, successor: Document?? = nil) {
        self.kind = kind
        self.old = old
        self.new = new
        self.successor = successor
    }

    /// The new version, or for `.removed` the version that left.
    public var document: Document { (new ?? old)!.document }
    public var oldDocument: Document? { old?.document }
    /// For `.removed`: the document's version after the step (nil inside: deleted); nil
    /// when the view does not know it.
    public var departedVersion: Document?? { successor }
}

/// A change with the positions the Firebase SDK reports for it (`DocumentChange`).
public struct IndexedViewChange: Sendable {
    public let change: ViewChange
    /// Position before the change; nil for `.added` (the SDK's `NSNotFound`).
    public let oldIndex: Int?
    /// Position after the change; nil for `.removed`.
    public let newIndex: Int?
}

/// One state of a target's view: the initial result, or the result after a commit that
/// changed it, with the net changes since the previous snapshot. Emitted at most once per
/// commit per target.
public struct ViewSnapshot: Sendable {
    /// The commit time the view reflects.
    public let readTime: Timestamp
    /// True for the first snapshot of a target.
    public let isInitial: Bool
    /// The result in view order.
    public let documents: RankedDocumentList
    /// The result before these changes (for computing positions).
    let previous: RankedDocumentList
    let order: ViewOrder
    /// Set for later snapshots; an initial one derives its changes from `documents` on
    /// demand (a large first result should not pay for a second array nobody reads).
    private let incremental: [ViewChange]
    /// The documents of the result that show a client's writes not yet committed (its
    /// pending local batches, `Database.applyLocally`); empty for targets of no client.
    public internal(set) var mutatedKeys: Set<ResourcePath> = []

    /// The net changes, grouped as the SDK orders them: removed, then added, then
    /// modified; within each group in view order (removed ones by their old position).
    /// For the initial snapshot, every document as added.
    public var changes: [ViewChange] {
        isInitial ? documents.entries.map { ViewChange(kind: .added, old: nil, new: $0) } : incremental
    }

    /// The same result with no changes: what a listener raises when only the snapshot's
    /// metadata changed (the SDK's sync-state change, `isFromCache` flipping).
    public func unchanged() -> ViewSnapshot {
        var out = ViewSnapshot(readTime: readTime, isInitial: false, documents: documents, previous: documents,
                               order: order, changes: [])
        out.mutatedKeys = mutatedKeys
        return out
    }

    init(readTime: Timestamp, isInitial: Bool, documents: RankedDocumentList, previous: RankedDocumentList,
         order: ViewOrder, changes: [ViewChange]) {
        self.readTime = readTime
        self.isInitial = isInitial
        self.documents = documents
        self.previous = previous
        self.order = order
        incremental = changes
    }

    /// The changes with their `oldIndex`/`newIndex`, computed exactly as the SDK does
    /// (docs/semantics.md#listeners): the changes are applied one by one, in order, to the previous
    /// result; a removal's `oldIndex` is its position before it is removed, an addition's
    /// `newIndex` its position after it is inserted, and a modification is a removal and
    /// an insertion. `presentedReversed`: the documents are shown in the opposite order
    /// (a `limit(toLast:)` query runs reversed), so within each group the changes follow
    /// the shown order and positions count from the other end.
    public func indexedChanges(presentedReversed reversed: Bool = false) -> [IndexedViewChange] {
        let changes = self.changes
        if previous.isEmpty && changes.allSatisfy({ $0.kind == .added }) {
            // An initial result: positions 0, 1, 2… in the shown order.
            let shown = reversed ? Array(changes.reversed()) : changes
            return shown.enumerated().map { IndexedViewChange(change: $1, oldIndex: nil, newIndex: $0) }
        }
        var tracker = previous
        var out: [IndexedViewChange] = []
        out.reserveCapacity(changes.count)
        var start = 0
        while start < changes.count {
            var end = start
            while end < changes.count && changes[end].kind == changes[start].kind { end += 1 }
            let group = changes[start..<end]
            for change in reversed ? Array(group.reversed()) : Array(group) {
                var oldIndex: Int?, newIndex: Int?
                if let old = change.old {
                    let n = tracker.count
                    guard let r = tracker.remove(old, order) else {
                        preconditionFailure("view change for \(old.path), which the previous result does not hold")
                    }
                    oldIndex = reversed ? n - 1 - r : r
                }
                if let new = change.new {
                    let r = tracker.insert(new, order)
                    newIndex = reversed ? tracker.count - 1 - r : r
                }
                out.append(IndexedViewChange(change: change, oldIndex: oldIndex, newIndex: newIndex))
            }
            start = end
        }
        return out
    }
}

// MARK: A listener's first snapshot from a client's cache

extension ViewSnapshot {
    /// This target's first snapshot with `documents` in place of its own: what a client's
    /// listener raises from its cache before the server's result (the SDK's `View` starts
    /// from its local documents). `documents` must match the target (a cache query's
    /// result); they are put in this view's order. O(k log k) in their count.
    public func initial(with documents: [Document], mutatedKeys: Set<ResourcePath>) -> ViewSnapshot {
        var entries = documents.map { order.entry($0) }
        // A cache query returns them in query order already: sort only when it did not.
        if zip(entries, entries.dropFirst()).contains(where: { order.compare($0, $1) > 0 }) {
            entries.sort { order.compare($0, $1) < 0 }
        }
        var out = ViewSnapshot(readTime: readTime, isInitial: true, documents: RankedDocumentList(sorted: entries),
                               previous: RankedDocumentList(), order: order, changes: [])
        out.mutatedKeys = mutatedKeys
        return out
    }

    /// This snapshot's documents as one step from what `shown` (a snapshot of the same
    /// target) holds, with the SDK's changes (`View::ComputeDocChanges`): removed, added,
    /// and modified where the fields differ or the pending state flipped (equal fields at
    /// another version are no change). O(n + m) in both results' sizes.
    public func step(from shown: ViewSnapshot) -> ViewSnapshot {
        var old: [ResourcePath: ViewEntry] = [:]
        old.reserveCapacity(shown.documents.count)
        for i in 0..<shown.documents.count {
            let e = shown.documents.entry(at: i)
            old[e.path] = e
        }
        var removed: [ViewChange] = [], added: [ViewChange] = [], modified: [ViewChange] = []
        var kept = Set<ResourcePath>()
        for i in 0..<documents.count {
            let e = documents.entry(at: i)
            guard let o = old[e.path] else {
                added.append(ViewChange(kind: .added, old: nil, new: e))
                continue
            }
            kept.insert(e.path)
            let samePending = shown.mutatedKeys.contains(e.path) == mutatedKeys.contains(e.path)
            if samePending && (o.document.isIdentical(to: e.document) || o.document.fields == e.document.fields) { continue }
            modified.append(ViewChange(kind: .modified, old: o, new: e))
        }
        for i in 0..<shown.documents.count {
            let e = shown.documents.entry(at: i)
            if !kept.contains(e.path) { removed.append(ViewChange(kind: .removed, old: e, new: nil)) }
        }
        var out = ViewSnapshot(readTime: readTime, isInitial: false, documents: documents, previous: shown.documents,
                               order: order, changes: removed + added + modified)
        out.mutatedKeys = mutatedKeys
        return out
    }
}
