/// The part of a pipeline an index scan can answer: a `collection` / `collection_group`
/// source followed by `where` stages made of field-versus-constant comparisons (ANDed),
/// then optionally a `sort` on fields and `offset` / `limit`. It becomes a `StructuredQuery`
/// run by the query engine's planner, so such a head costs O(log n + results) rather than a
/// collection scan (`hearth-bench`'s pipeline d_range and g_combo measure it).
///
/// Only comparisons whose pipeline meaning equals the query filter's are taken: a constant
/// that is not null, NaN or a reference (pipelines compare those differently), on a field
/// other than `__name__`. A `sort` key must be a field the filters constrain (a pipeline
/// keeps rows that lack a sorted field, a query's order-by drops them). The query is always
/// ordered by the sort keys then `__name__` ascending — exactly the pipeline's stable order
/// over a name-ordered source.
struct PipelineQueryHead {
    let query: StructuredQuery
    /// How many of the plan's steps (source included) the query answers.
    let steps: Int

    init?(_ plan: PipelinePlan) {
        var query: StructuredQuery
        switch plan.steps.first {
        case .collection(let path)?: query = StructuredQuery(parent: path.parent, collectionID: path.lastSegment)
        case .collectionGroup(let id)?: query = StructuredQuery(collectionID: id, allDescendants: true)
        default: return nil
        }
        var filters: [QueryFilter] = []
        var mustExist: [FieldPath] = []
        var i = 1
        while i < plan.steps.count, case .filter(let condition) = plan.steps[i] {
            guard Self.convert(condition, into: &filters, exists: &mustExist) else { break }
            i += 1
        }
        let constrained = Set(filters.compactMap(\.field))
        let equalities = Set(filters.compactMap { f -> FieldPath? in
            if case .field(let p, .equal, _) = f { return p } else { return nil }
        })
        var order: [Ordering] = []
        if i < plan.steps.count, case .sort(let keys) = plan.steps[i] {
            var convertible = true
            for key in keys {
                guard case .field(let text) = key.expression, let path = try? pipelineFieldPath(text) else { convertible = false; break }
                if path.isDocumentName { order.append(Ordering(path, descending: key.descending)); continue }
                guard constrained.contains(path) || mustExist.contains(path) else { convertible = false; break }
                // Sorting by a field an equality fixes changes nothing.
                if !equalities.contains(path), !order.contains(where: { $0.field == path }) {
                    order.append(Ordering(path, descending: key.descending))
                }
            }
            if convertible { i += 1 }
        }
        // An `exists` the query cannot express: only as implied by a filter or an order-by.
        for f in mustExist where !constrained.contains(f) && !order.contains(where: { $0.field == f }) { return nil }
        if !order.contains(where: { $0.field.isDocumentName }) { order.append(Ordering(.documentName)) }
        if i < plan.steps.count, case .offset(let n) = plan.steps[i] {
            query.offset = n
            i += 1
        }
        if i < plan.steps.count, case .limit(let n) = plan.steps[i] {
            query.limit = n
            i += 1
        }
        guard i > 1 else { return nil }
        query.filter = filters.isEmpty ? nil : filters.count == 1 ? filters[0] : .composite(.and, filters)
        query.orderBy = order
        self.query = query
        self.steps = i
    }

    /// Adds the condition's conjuncts as query filters; false when some conjunct has no
    /// equal query filter.
    private static func convert(_ condition: PipelineValue, into filters: inout [QueryFilter], exists: inout [FieldPath]) -> Bool {
        guard case .function(let f) = condition else { return false }
        if f.name == "and" {
            var added: [QueryFilter] = [], seen: [FieldPath] = []
            for a in f.args { guard convert(a, into: &added, exists: &seen) else { return false } }
            filters += added
            exists += seen
            return true
        }
        if f.name == "exists", f.args.count == 1, case .field(let text) = f.args[0],
           let path = try? pipelineFieldPath(text), !path.isDocumentName {
            exists.append(path)
            return true
        }
        guard f.args.count == 2 else { return false }
        var (lhs, rhs) = (f.args[0], f.args[1])
        var name = f.name
        if case .constant = lhs, case .field = rhs {
            swap(&lhs, &rhs)
            switch name {
            case "less_than": name = "greater_than"
            case "less_than_or_equal": name = "greater_than_or_equal"
            case "greater_than": name = "less_than"
            case "greater_than_or_equal": name = "less_than_or_equal"
            case "equal": break
            default: return false
            }
        }
        guard case .field(let text) = lhs, let path = try? pipelineFieldPath(text), !path.isDocumentName,
              case .constant(let value) = rhs else { return false }
        let op: FieldOperator
        switch name {
        case "equal": op = .equal
        case "less_than": op = .lessThan
        case "less_than_or_equal": op = .lessThanOrEqual
        case "greater_than": op = .greaterThan
        case "greater_than_or_equal": op = .greaterThanOrEqual
        case "array_contains": op = .arrayContains
        case "equal_any":
            guard case .array(let items) = value, !items.isEmpty, items.count <= 30, items.allSatisfy(plain) else { return false }
            filters.append(.field(path, .in, value))
            return true
        default: return false
        }
        guard plain(value) else { return false }
        filters.append(.field(path, op, value))
        return true
    }

    /// A constant compared alike by pipelines and queries.
    private static func plain(_ v: Value) -> Bool {
        switch v {
        case .null, .reference: return false
        case .double(let d): return !d.isNaN
        case .array(let items): return items.allSatisfy(plain)
        case .map(let m): return m.entries.allSatisfy { plain($0.value) }
        case .vector(let d): return !d.contains { $0.isNaN }
        default: return true
        }
    }
}
