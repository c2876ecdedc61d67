/// Chooses how each disjunct of a normalised query is read. Every disjunct becomes one
/// range scan of one index whose fields are the disjunct's equality fields (values fixed,
/// so they form the scan prefix) followed by the normalised order-by fields: the scan then
/// yields matching documents already in query order, bounded by the range filters on the
/// first ordered field and by the cursors, so a query with a limit stops after `limit`
/// entries — O(log n + results). Hearth materialises whatever index a plan names (whether
/// production would need it declared is a separate question: `IndexRequirements`).
struct QueryPlan {
    enum Source {
        /// Point lookups of documents named by a `__name__ ==` filter.
        case lookup([ResourcePath])
        /// A range scan of an index.
        case index(IndexDefinition)
    }

    var source: Source
    /// Every entry of the scan starts with this (collection path, equality values).
    var prefix: [UInt8] = []
    /// The scan starts at the first entry at or after this key.
    var seek: [UInt8] = []
    /// The scan stops at an entry whose leading bytes sort after any of these.
    var stops: [[UInt8]] = []
    /// Whether the scan yields documents in the query's normalised order (so limits and end
    /// cursors can stop it early); otherwise the executor sorts.
    var ordered: Bool
    /// Whether every entry the scan visits satisfies the plan's whole conjunction, so the
    /// executor need not evaluate the filter: each constraint is an equality (or
    /// array-contains) whose value the scan prefix fixes — equal values encode to the same
    /// bytes — or an inclusive range filter on the first ordered field, which bounds an
    /// in-order scan exactly; and none of them has a null or NaN operand (those match
    /// nothing) or a reference (compared with its database).
    var filterSettled = false
}

enum QueryPlanner {
    /// No plans means: scan (a kindless query spans every collection group).
    static func plans(for query: NormalizedQuery) -> [QueryPlan] {
        if query.query.isKindless { return [] }
        return query.disjuncts.map { plan($0, query) }
    }

    /// One conjunction's plan: a lookup by name, or a scan of the index its equalities and
    /// orderings name, from its prefix, bounded by range filters and cursors when in order.
    private static func plan(_ conjunction: [QueryFilter], _ query: NormalizedQuery) -> QueryPlan {
        if let name = documentNameEquality(conjunction) { return QueryPlan(source: .lookup([name.path]), ordered: true) }
        let firstOrdering = query.orderBy.first { !$0.field.isDocumentName }
        let constraints = equalityConstraints(conjunction, firstOrdering: firstOrdering)
        let definition = indexDefinition(constraints.equalities, query)
        let order = query.orderBy
        let inOrder = order.last!.field.isDocumentName && order.last!.descending == definition.nameDescending
        let prefix = scanPrefix(definition, constraints.equalities, query.query)
        // The prefix, a range filter's bound and an end cursor: room for three.
        var stops: [[UInt8]] = []
        stops.reserveCapacity(3)
        stops.append(prefix)
        var plan = QueryPlan(source: .index(definition), prefix: prefix, seek: prefix, stops: stops, ordered: inOrder,
                             filterSettled: constraints.filterSettled)
        guard inOrder else {
            if constraints.rangeBoundsScan { plan.filterSettled = false }
            return plan
        }
        if let firstOrdering { boundByRangeFilters(&plan, conjunction, on: firstOrdering) }
        boundByCursors(&plan, query, definition)
        return plan
    }

    /// `__name__ == reference`: the one document to look up.
    private static func documentNameEquality(_ conjunction: [QueryFilter]) -> DocumentName? {
        for leaf in conjunction {
            if case .field(let f, .equal, .reference(let name)) = leaf, f.isDocumentName { return name }
        }
        return nil
    }

    /// Equality-type constraints, one per field (a second one on a field only narrows what
    /// the post-filter removes anyway), sorted by field path; whether the scan settles the
    /// whole filter; whether inclusive range filters on the first ordered field do (they
    /// become the scan's seek and stop keys, which include exactly the entries whose values
    /// satisfy them — when the scan runs in order).
    private static func equalityConstraints(_ conjunction: [QueryFilter], firstOrdering: Ordering?)
        -> (equalities: [(field: IndexDefinition.Field, value: Value)], filterSettled: Bool, rangeBoundsScan: Bool) {
        var equalities: [(field: IndexDefinition.Field, value: Value)] = []
        var filterSettled = true
        var rangeBoundsScan = false
        for leaf in conjunction {
            let e: (IndexDefinition.Field, Value)?
            switch leaf {
            case .field(let f, .equal, let v) where !f.isDocumentName: e = (.init(f, .ascending), v)
            case .unary(let f, .isNull): e = (.init(f, .ascending), .null)
            case .unary(let f, .isNaN): e = (.init(f, .ascending), .double(.nan))
            case .field(let f, .arrayContains, let v): e = (.init(f, .contains), v)
            default: e = nil
            }
            guard let e, !equalities.contains(where: { $0.field == e.0 }) else {
                if case .field(let f, let op, let v) = leaf, f == firstOrdering?.field,
                   op == .greaterThanOrEqual || op == .lessThanOrEqual, Self.settlesByEncoding(v) {
                    rangeBoundsScan = true
                } else {
                    filterSettled = false
                }
                continue
            }
            equalities.append(e)
            switch leaf {
            case .field(_, _, let v): if !Self.settlesByEncoding(v) { filterSettled = false }
            default: filterSettled = false
            }
        }
        equalities.sort { $0.field.path < $1.field.path || ($0.field.path == $1.field.path && $0.field.kind == .contains) }
        return (equalities, filterSettled, rangeBoundsScan)
    }

    /// The index the scan reads: the equality fields, then the ordered fields.
    private static func indexDefinition(_ equalities: [(field: IndexDefinition.Field, value: Value)], _ query: NormalizedQuery) -> IndexDefinition {
        var fields: [IndexDefinition.Field] = []
        fields.reserveCapacity(equalities.count + query.orderBy.count)
        for e in equalities { fields.append(e.field) }
        for o in query.orderBy where !o.field.isDocumentName { fields.append(.init(o.field, o.descending ? .descending : .ascending)) }
        let q = query.query
        return IndexDefinition(collectionGroup: q.collectionID, scope: q.allDescendants ? .collectionGroup : .collection, fields: fields)
    }

    /// The key prefix every matching entry shares: the collection (or, for an unordered
    /// collection-group scan, the parent) and the equality values.
    private static func scanPrefix(_ definition: IndexDefinition, _ equalities: [(field: IndexDefinition.Field, value: Value)],
                                   _ q: StructuredQuery) -> [UInt8] {
        var prefix: [UInt8] = []
        prefix.reserveCapacity(64)
        if definition.scope == .collection {
            IndexKeyEncoding.encodePath(q.collectionPath, into: &prefix)
        } else if definition.fields.isEmpty {
            // Documents under `parent` are contiguous in path order.
            for segment in q.parent.segments { DocumentKey.encode(segment, into: &prefix) }
        }
        for e in equalities { IndexKeyEncoding.encode(e.value, into: &prefix) }
        return prefix
    }

    /// Range filters on the first ordered field bound the scan: the tightest low bound is
    /// its seek key, the tightest high bound a stop key.
    private static func boundByRangeFilters(_ plan: inout QueryPlan, _ conjunction: [QueryFilter], on first: Ordering) {
        var low: [UInt8]? = nil, high: [UInt8]? = nil
        for leaf in conjunction {
            guard case .field(let f, let op, let v) = leaf, f == first.field, op.isRange, !v.isNaN else { continue }
            let bracket = IndexKeyEncoding.bracket(of: v)
            var encoded: [UInt8] = []
            IndexKeyEncoding.encode(v, into: &encoded)
            let (lo, hi) = op == .greaterThan || op == .greaterThanOrEqual ? (encoded, [bracket.end]) : ([bracket.start], encoded)
            if low.map({ OrderedBytes.compare(lo, $0) > 0 }) ?? true { low = lo }
            if high.map({ OrderedBytes.compare(hi, $0) < 0 }) ?? true { high = hi }
        }
        guard var low, var high else { return }
        if first.descending {
            IndexKeyEncoding.invert(&low, from: 0)
            IndexKeyEncoding.invert(&high, from: 0)
            swap(&low, &high)
        }
        plan.seek = plan.prefix + low
        plan.stops.append(plan.prefix + high)
    }

    /// Cursors bound it further: a start cursor past the seek key moves it, an end cursor
    /// adds a stop key.
    private static func boundByCursors(_ plan: inout QueryPlan, _ query: NormalizedQuery, _ definition: IndexDefinition) {
        let order = query.orderBy, prefix = plan.prefix
        if let start = query.startAt {
            let key = prefix + encode(start, order: order, definition: definition, collection: query.query.collectionPath)
            if OrderedBytes.compare(key, plan.seek) > 0 { plan.seek = key }
        }
        if let end = query.endAt {
            plan.stops.append(prefix + encode(end, order: order, definition: definition, collection: query.query.collectionPath))
        }
    }

    /// Whether an equality operand is matched exactly by comparing encodings: no null, NaN
    /// or reference anywhere in it (their equality rules are not plain value identity).
    private static func settlesByEncoding(_ v: Value) -> Bool {
        switch v {
        case .null, .reference: return false
        case .double(let d): return !d.isNaN
        case .array(let items): return items.allSatisfy(settlesByEncoding)
        case .map(let m): return m.entries.allSatisfy { settlesByEncoding($0.value) }
        case .vector(let items): return !items.contains { $0.isNaN }
        default: return true
        }
    }

    /// A cursor's values as index-key bytes (directions applied), as far as they place it in
    /// the index. A name cursor in the queried collection is placed by its ID bytes (what a
    /// collection-scope entry's name holds); one outside it (production and the emulator take
    /// any document name) places nothing further: the executor compares every document with
    /// the cursor anyway.
    private static func encode(_ cursor: Cursor, order: [Ordering], definition: IndexDefinition, collection: ResourcePath) -> [UInt8] {
        var bytes: [UInt8] = []
        for (i, v) in cursor.values.enumerated() {
            if order[i].field.isDocumentName {
                guard case .reference(let name) = v, name.path.isDocument else { break }
                if definition.scope == .collection && name.path.parent != collection { break }
                IndexStore.appendNameComponent(DocumentKey(name.path), scope: definition.scope, descending: definition.nameDescending, to: &bytes)
            } else {
                IndexKeyEncoding.encode(v, descending: order[i].descending, into: &bytes)
            }
        }
        return bytes
    }
}
