/// Runs a normalised query against one database state.
///
/// At the state's own read time the query is answered from index scans (`QueryPlanner`);
/// the indexes the plans name must already be materialised (`Database.runQuery` sees to
/// that). At an earlier retained read time, indexes (which describe the present) cannot be
/// used, so the collection (group) is scanned as of that time. Either way every candidate
/// is checked against the whole query — filter, scope, order-by fields, cursors — so a plan
/// only ever has to produce a superset, in order or not.
struct QueryExecutor {
    let query: NormalizedQuery
    /// `query.query.collectionPath`, computed once.
    private let collectionPath: ResourcePath
    let state: DatabaseState
    /// Nil: the state's present. Otherwise an earlier read time.
    let readTime: Timestamp?

    /// The plans for the state's present (unused for a past read time).
    let plans: [QueryPlan]

    init(query: NormalizedQuery, state: DatabaseState, readTime: Timestamp?, plans: [QueryPlan]? = nil) {
        self.query = query
        self.state = state
        self.readTime = readTime
        self.plans = readTime == nil ? plans ?? QueryPlanner.plans(for: query) : []
        collectionPath = query.query.collectionPath
    }

    /// The indexes the plans need, for materialisation.
    static func requiredIndexes(_ plans: [QueryPlan]) -> [IndexDefinition] {
        plans.compactMap { if case .index(let d) = $0.source { d } else { nil } }
    }

    static func requiredIndexes(_ query: NormalizedQuery) -> [IndexDefinition] {
        requiredIndexes(QueryPlanner.plans(for: query))
    }

    /// The matching documents in query order, after cursors, offset and limit (`limit`
    /// overrides the query's own, for aggregations' up-to counts). No projection applied.
    func run(limit: Int? = nil) -> [Document] { runCountingSkipped(limit: limit).documents }

    /// `run`, and how many matching documents the offset skipped (what a RunQuery answer
    /// reports as `skipped_results`).
    func runCountingSkipped(limit: Int? = nil) -> (documents: [Document], skipped: Int) {
        let limit = limit ?? query.query.limit
        if limit == 0 { return ([], 0) }
        let wanted = limit.map { $0 + query.query.offset }
        var results: [Document]
        if plans.count == 1, plans[0].ordered {
            results = scan(plans[0], limit: wanted)
        } else {
            var seen = Set<ResourcePath>()
            results = []
            if readTime == nil && !plans.isEmpty {
                for plan in plans {
                    for doc in scan(plan, limit: nil) where seen.insert(doc.path).inserted { results.append(doc) }
                }
            } else {
                results = scanAll()
            }
            results.sort { compareInOrder($0, $1) < 0 }
            if let wanted, results.count > wanted { results.removeLast(results.count - wanted) }
        }
        return (Array(results.dropFirst(query.query.offset)), min(query.query.offset, results.count))
    }

    // MARK: Scans

    private func scan(_ plan: QueryPlan, limit: Int?) -> [Document] {
        var out: [Document] = []
        if let limit { out.reserveCapacity(min(limit, 256)) }
        switch plan.source {
        case .lookup(let paths):
            for path in paths {
                if let doc = state.document(path), accepts(doc) == .match { out.append(doc) }
            }
        case .index(let definition):
            guard let entries = state.indexes.entries(definition) else {
                preconditionFailure("index \(definition) was not materialised before the query ran")
            }
            // Every entry of a collection-scope scan starts with the collection's path (the
            // plan's prefix is one of its stops), and an index only has entries for documents
            // holding all its fields, the ordered ones among them: those checks are settled.
            let settled = definition.scope == .collection
            var it = entries.elements(from: IndexKey(plan.seek), inclusive: true, descending: false)
            let stops = plan.stops.map(IndexKey.init)
            let documents = state.documents
            // The documents an index scan returns are spread over the heap, so reading each
            // one's replaced flag is a cache miss; one after another, they would wait in turn.
            // So the flags of the next entries in the leaf (as many as the limit may still
            // want) are read together first — their misses overlap — into `aheadReplaced`
            // (bit 0: the next entry's), and the document reads after them hit the cache.
            var aheadCount = 0, aheadReplaced: UInt64 = 0
            scanning: while true {
                if aheadCount == 0 {
                    let wanted = min(Self.readAhead, limit.map { $0 - out.count } ?? Self.readAhead)
                    (aheadCount, aheadReplaced) = it.withUpcomingValuesInLeaf { upcoming in
                        let n = min(upcoming.count, wanted)
                        var mask: UInt64 = 0
                        for i in 0..<n where upcoming[i].isReplaced { mask |= 1 << UInt64(i) }
                        return (n, mask)
                    }
                }
                // The next entry's flag, when it was read ahead.
                let flagRead = aheadCount > 0, replaced = aheadReplaced & 1 != 0
                if flagRead { aheadCount -= 1; aheadReplaced >>= 1 }
                // The entry is read in place: past a stop, or the document's current version
                // (the entry's own unless a later commit replaced it).
                let entry = it.withNext { (key, document) -> (stop: Bool, document: Document?) in
                    for stop in stops where key.sortsAfter(stop) { return (true, nil) }
                    guard flagRead ? replaced : document.isReplaced else { return (false, document) }
                    return (false, documents[DocumentKey(document.path)]?.document)
                }
                guard let entry, !entry.stop else { break }
                guard let doc = entry.document else { continue }
                switch accepts(doc, scopeAndOrderSettled: settled, filterSettled: plan.filterSettled) {
                case .match:
                    out.append(doc)
                    if let limit, out.count >= limit { break scanning }
                case .afterEnd where plan.ordered: break scanning
                default: continue
                }
            }
        }
        return out
    }

    /// How many entries ahead an index scan reads its documents' replaced flags (at most 64).
    private static let readAhead = 16

    /// Without indexes: every document of the collection (group) as of `readTime`.
    private func scanAll() -> [Document] {
        let q = query.query
        var out: [Document] = []
        func consider(_ version: DocumentVersion) {
            let doc = readTime.map { version.version(at: $0)?.document } ?? version.document
            if let doc, accepts(doc) == .match { out.append(doc) }
        }
        if q.allDescendants || q.isKindless {
            for (_, version) in state.documents { consider(version) }
        } else {
            let start = DocumentKey.start(of: q.collectionPath)
            var it = state.documents.elements(from: start, inclusive: true, descending: false)
            while let (key, version) = it.next(), key.hasPrefix(start) { consider(version) }
        }
        return out
    }

    // MARK: The whole-query check

    enum Verdict { case match, noMatch, beforeStart, afterEnd }

    /// `scopeAndOrderSettled`: the caller knows the document is in the queried collection
    /// and has every order-by field (an entry of a collection-scope index scan);
    /// `filterSettled`: it satisfies one disjunct of the filter (`QueryPlan.filterSettled`).
    func accepts(_ doc: Document, scopeAndOrderSettled: Bool = false, filterSettled: Bool = false) -> Verdict {
        let q = query.query
        if scopeAndOrderSettled {
            // Checked by the index scan.
        } else if q.allDescendants {
            guard doc.path.count > q.parent.count, q.parent.isPrefix(of: doc.path),
                  q.isKindless || utf8Equal(doc.path.segments[doc.path.count - 2], q.collectionID) else { return .noMatch }
        } else if q.isKindless {
            guard doc.path.count == q.parent.count + 2, q.parent.isPrefix(of: doc.path) else { return .noMatch }
        } else if doc.path.count != collectionPath.count + 1 || !collectionPath.isPrefix(of: doc.path) {
            return .noMatch
        }
        if !scopeAndOrderSettled {
            for f in query.orderedFields where doc.fields.value(at: f) == nil { return .noMatch }
        }
        if !filterSettled, let filter = query.filter, !filter.matches(doc) { return .noMatch }
        if let start = query.startAt {
            let c = compare(doc, to: start)
            if c < 0 || (c == 0 && !start.before) { return .beforeStart }
        }
        if let end = query.endAt {
            let c = compare(doc, to: end)
            if c > 0 || (c == 0 && end.before) { return .afterEnd }
        }
        return .match
    }

    /// The document's position relative to a cursor, position-wise over the cursor's prefix
    /// of the order (0 when equal on every cursor value).
    private func compare(_ doc: Document, to cursor: Cursor) -> Int {
        for (i, value) in cursor.values.enumerated() {
            let ordering = query.orderBy[i]
            var c: Int
            if ordering.field.isDocumentName {
                guard case .reference(let name) = value else { return 0 }
                c = ResourcePath.compare(doc.path, name.path)
            } else {
                guard let v = doc.fields.value(at: ordering.field) else { return 0 }
                c = Value.compare(v, value)
            }
            if ordering.descending { c = -c }
            if c != 0 { return c }
        }
        return 0
    }

    /// The normalised order between two documents.
    func compareInOrder(_ a: Document, _ b: Document) -> Int {
        for ordering in query.orderBy {
            var c: Int
            if ordering.field.isDocumentName {
                c = ResourcePath.compare(a.path, b.path)
            } else {
                c = Value.compare(a.fields.value(at: ordering.field) ?? .null, b.fields.value(at: ordering.field) ?? .null)
            }
            if ordering.descending { c = -c }
            if c != 0 { return c }
        }
        return 0
    }
}
