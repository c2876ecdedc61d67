/// The current result of one listen target, kept up to date from ChangeSets.
///
/// Incremental maintenance: each changed document is removed from the view when it was in
/// it and inserted (by the normalised order) when its new version matches. With a limit the
/// view is a window on the first `limit` results: `boundary` is its last entry while the
/// window is full, and only documents sorting at or before it can enter (anything after it
/// is unknown to the view). A window that overflows drops its tail (those documents are
/// reported `.removed`); a full window that shrinks is refilled from the index by running
/// the query again — O(log n + limit). `limit(toLast:)` targets arrive already reversed
/// (`QueryDefinition.structuredQuery`), so they are ordinary limit windows here.
/// Queries with an offset or a nearest-neighbour search are re-run whenever a change could
/// affect them.
struct QueryView: Sendable {
    enum Scope: Sendable {
        case documents(Set<ResourcePath>)
        case query(NormalizedQuery)
    }

    let scope: Scope
    let order: ViewOrder
    private(set) var list: RankedDocumentList
    private var members: [ResourcePath: ViewEntry] = [:]
    /// The window's last entry while a limit window is full.
    private var boundary: ViewEntry?

    init(target: ListenTarget, database: DatabaseID, state: DatabaseState) throws(FirestoreError) {
        switch target {
        case .documents(let paths):
            scope = .documents(Set(paths))
            order = .byName
        case .query(let query):
            let normalized = try NormalizedQuery(query, database: database)
            scope = .query(normalized)
            order = ViewOrder(normalized.orderBy)
        }
        list = RankedDocumentList()
        replace(with: run(state))
    }

    /// The indexes the view's re-runs read.
    var requiredIndexes: [IndexDefinition] {
        guard case .query(let q) = scope else { return [] }
        return QueryExecutor.requiredIndexes(Self.candidateQuery(q))
    }

    private var limit: Int? {
        guard case .query(let q) = scope, q.query.findNearest == nil else { return nil }
        return q.query.limit
    }

    /// Whether changes are applied one by one (otherwise the query is re-run).
    private var isIncremental: Bool {
        guard case .query(let q) = scope else { return true }
        return q.query.offset == 0 && q.query.findNearest == nil
    }

    /// Whether the view holds the document at `path`.
    func contains(_ path: ResourcePath) -> Bool { members[path] != nil }

    /// The first snapshot: every document added.
    func initialSnapshot(readTime: Timestamp) -> ViewSnapshot {
        ViewSnapshot(readTime: readTime, isInitial: true, documents: list, previous: RankedDocumentList(),
                     order: order, changes: [])
    }

    // MARK: Applying a commit

    /// Applies the ChangeSet entries routed to this target; returns the new snapshot, or nil
    /// when the result did not change. `state` is the state the entries come from; a view
    /// that must re-run its query reads `rerunState` instead when given (a client's local
    /// view: the state with its pending writes applied, which costs what they hold to build,
    /// so it is built only when a re-run needs it).
    mutating func apply(_ entries: [ChangeSet.Entry], commitTime: Timestamp, state: DatabaseState,
                        rerunState: (() -> DatabaseState)? = nil) -> ViewSnapshot? {
        let previous = list
        if case .query(let q) = scope, q.query.limit == 0 { return nil }
        func rerun() -> [ViewEntry] { run(rerunState?() ?? state) }
        guard isIncremental else {
            let matcher = Matcher(scope: scope, state: state)
            let affected = entries.contains { e in
                e.before.map { matcher.matchesIgnoringCursors($0) } ?? false || e.after.map { matcher.matchesIgnoringCursors($0) } ?? false
            }
            guard affected else { return nil }
            return snapshot(replacingWith: rerun(), previous: previous, commitTime: commitTime,
                            successor: Self.successors(entries, rerunState ?? { state }))
        }

        let matcher = Matcher(scope: scope, state: state)
        // Per document: its entry before this commit (nil = absent) and after (so far).
        var net: [ResourcePath: (old: ViewEntry?, new: ViewEntry?, after: Document?)] = [:]
        for e in entries {
            let path = e.key.path
            let old = members[path]
            var new: ViewEntry?
            if let after = e.after, matcher.matches(after) {
                let entry = makeEntry(after)
                if boundary.map({ order.compare(entry, $0) <= 0 }) ?? true { new = entry }
            }
            if old == nil && new == nil { continue }
            if let old { list.remove(old, order); members[path] = nil }
            if let new { list.insert(new, order); members[path] = new }
            net[path] = (old, new, e.after)
        }
        if net.isEmpty { return nil }

        if let limit {
            if list.count > limit {
                while list.count > limit {
                    let dropped = list.removeLast()
                    members[dropped.path] = nil
                    if let touched = net[dropped.path] {
                        net[dropped.path] = (touched.old, nil, touched.after)
                    } else {
                        net[dropped.path] = (dropped, nil, dropped.document)
                    }
                }
                boundary = list.last
            } else if list.count < limit && boundary != nil {
                // Documents beyond the old window may now belong in it.
                return snapshot(replacingWith: rerun(), previous: previous, commitTime: commitTime,
                                successor: Self.successors(entries, rerunState ?? { state }))
            } else if list.count == limit {
                // Every match up to the old boundary is in the view, so its last entry is one.
                boundary = list.last
            }
        }
        let changes = net.values.compactMap { Self.change(old: $0.old, new: $0.new, successor: $0.after) }
        if changes.isEmpty { return nil }
        return ViewSnapshot(readTime: commitTime, isInitial: false, documents: list, previous: previous,
                            order: order, changes: sorted(changes))
    }

    /// A re-run's removed documents' versions: the step's own entry when it has one, else
    /// the document as `state` (the state re-run, built only when asked) holds it.
    private static func successors(_ entries: [ChangeSet.Entry], _ state: @escaping () -> DatabaseState) -> (ResourcePath) -> Document? {
        var after: [ResourcePath: Document?] = [:]
        for e in entries { after[e.key.path] = .some(e.after) }
        var built: DatabaseState?
        return { path in
            if let known = after[path] { return known }
            if built == nil { built = state() }
            return built!.document(path)
        }
    }

    /// Brings the view to `state`'s result at once (a client back online: the SDK's resumed
    /// target), reporting the differences; nil when none. `state` holds `requiredIndexes`.
    mutating func resync(to state: DatabaseState, commitTime: Timestamp) -> ViewSnapshot? {
        if case .query(let q) = scope, q.query.limit == 0 { return nil }
        return snapshot(replacingWith: run(state), previous: list, commitTime: commitTime, successor: { state.document($0) })
    }

    /// Replaces the view with a fresh result and reports the differences from `previous`;
    /// `successor` gives a removed document's version after the step.
    private mutating func snapshot(replacingWith result: [ViewEntry], previous: RankedDocumentList, commitTime: Timestamp,
                                   successor: (ResourcePath) -> Document?) -> ViewSnapshot? {
        var before: [ResourcePath: ViewEntry] = [:]
        before.reserveCapacity(previous.count)
        for e in previous.entries { before[e.path] = e }
        replace(with: result)
        var changes: [ViewChange] = []
        for new in result {
            if let old = before.removeValue(forKey: new.path) {
                if old.document != new.document { changes.append(ViewChange(kind: .modified, old: old, new: new)) }
            } else {
                changes.append(ViewChange(kind: .added, old: nil, new: new))
            }
        }
        for old in before.values { changes.append(ViewChange(kind: .removed, old: old, new: nil, successor: .some(successor(old.path)))) }
        if changes.isEmpty { return nil }
        return ViewSnapshot(readTime: commitTime, isInitial: false, documents: list, previous: previous,
                            order: order, changes: sorted(changes))
    }

    private static func change(old: ViewEntry?, new: ViewEntry?, successor: Document?) -> ViewChange? {
        switch (old, new) {
        case (nil, nil): return nil
        case (nil, let n?): return ViewChange(kind: .added, old: nil, new: n)
        case (let o?, nil): return ViewChange(kind: .removed, old: o, new: nil, successor: .some(successor))
        case (let o?, let n?): return o.document == n.document ? nil : ViewChange(kind: .modified, old: o, new: n)
        }
    }

    /// The SDK's order: removed, added, modified; within a group by view order (removed
    /// documents by the position they had).
    private func sorted(_ changes: [ViewChange]) -> [ViewChange] {
        func rank(_ k: ViewChange.Kind) -> Int { k == .removed ? 0 : k == .added ? 1 : 2 }
        return changes.sorted { a, b in
            if a.kind != b.kind { return rank(a.kind) < rank(b.kind) }
            return order.compare(a.new ?? a.old!, b.new ?? b.old!) < 0
        }
    }

    // MARK: Results

    private mutating func replace(with result: [ViewEntry]) {
        list = RankedDocumentList(sorted: result)
        members = Dictionary(uniqueKeysWithValues: result.map { ($0.path, $0) })
        if let limit, result.count >= limit { boundary = result.last } else { boundary = nil }
    }

    private func makeEntry(_ doc: Document) -> ViewEntry {
        guard case .query(let q) = scope, let fields = q.query.projection else { return order.entry(doc) }
        return order.entry(doc, document: Database.project([doc], fields)[0])
    }

    /// The whole result at `state` (whose indexes include `requiredIndexes`).
    private func run(_ state: DatabaseState) -> [ViewEntry] {
        switch scope {
        case .documents(let paths):
            return paths.compactMap { state.document($0) }.map { order.entry($0) }
                .sorted { order.compare($0, $1) < 0 }
        case .query(let q):
            var docs = QueryExecutor(query: Self.candidateQuery(q), state: state, readTime: nil).run()
            if let nearest = q.query.findNearest { docs = VectorSearch.nearest(nearest, among: docs) }
            return docs.map(makeEntry)
        }
    }

    /// A nearest-neighbour query's where clause pre-filters; the distance order replaces
    /// order-by and limit (as `Database.runQuery` does).
    private static func candidateQuery(_ q: NormalizedQuery) -> NormalizedQuery {
        guard q.query.findNearest != nil else { return q }
        var candidates = q.query
        candidates.findNearest = nil
        candidates.limit = nil
        candidates.offset = 0
        // Validated already as part of the full query.
        return (try? NormalizedQuery(candidates, database: q.database)) ?? q
    }

    /// Whether a document belongs to the view's scope and passes its filters. It reads no
    /// other document (a document's own path and fields decide), so the committed state
    /// serves a client's local view as well.
    private struct Matcher {
        let executor: QueryExecutor?
        let paths: Set<ResourcePath>

        init(scope: Scope, state: DatabaseState) {
            switch scope {
            case .documents(let p): paths = p; executor = nil
            case .query(let q): paths = []; executor = QueryExecutor(query: q, state: state, readTime: nil)
            }
        }

        func matches(_ doc: Document) -> Bool {
            executor.map { $0.accepts(doc) == .match } ?? paths.contains(doc.path)
        }

        /// In scope and filtered in, whatever the cursors say (for queries that are re-run).
        func matchesIgnoringCursors(_ doc: Document) -> Bool {
            guard let executor else { return paths.contains(doc.path) }
            return executor.accepts(doc) != .noMatch
        }
    }
}
