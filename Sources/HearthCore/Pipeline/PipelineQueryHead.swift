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
/// ordered by the sort keys then `__name__` in the last key's direction — exactly the order
/// the pipeline's sort gives.
struct PipelineQueryHead {
    let query: StructuredQuery
    /// How many of the plan's steps (source included) the query answers.
    let steps: Int
    /// Conjuncts of the absorbed `where` stages the query does not express, applied to its
    /// rows before the next step.
    let residual: [PipelineValue]

    init?(_ plan: PipelinePlan) {
        var query: StructuredQuery
        switch plan.steps.first {
        case .collection(let path)?: query = StructuredQuery(parent: path.parent, collectionID: path.lastSegment)
        case .collectionGroup(let id)?: query = StructuredQuery(collectionID: id, allDescendants: true)
        default: return nil
        }
        var filters: [QueryFilter] = []
        var mustExist: [FieldPath] = []
        var residual: [PipelineValue] = []
        // Fields a residual `!=` / `not-in` compares: production serves those from an index
        // on the field, so they order an unsorted result like a query's inequality fields.
        var residualInequalities: [FieldPath] = []
        var i = 1
        while i < plan.steps.count, case .filter(let condition) = plan.steps[i] {
            for conjunct in Self.conjuncts(condition) where !Self.convert(conjunct, into: &filters, exists: &mustExist) {
                residual.append(conjunct)
                if case .function(let f) = conjunct, f.name == "not_equal" || f.name == "not_equal_any", f.args.count == 2,
                   case .field(let text) = f.args[0], Self.constant(f.args[1]) != nil, let path = try? pipelineFieldPath(text),
                   !path.isDocumentName {
                    residualInequalities.append(path)
                }
            }
            i += 1
        }
        let constrained = Set(filters.compactMap(\.field))
        let equalities = Set(filters.compactMap { f -> FieldPath? in
            if case .field(let p, .equal, _) = f { return p } else { return nil }
        })
        var order: [Ordering] = []
        var sortDescending = false
        var sorted = false
        if i < plan.steps.count, case .sort(let keys) = plan.steps[i] {
            sortDescending = keys.last?.descending ?? false
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
            if convertible { i += 1; sorted = true } else { order = [] }
        }
        // An `exists` the query cannot express: only as implied by a filter or an order-by.
        for f in mustExist where !constrained.contains(f) && !order.contains(where: { $0.field == f }) { return nil }
        // Without a sort, the order of the index production scans: inequality fields, then
        // names (a query's own normalised order).
        if !sorted {
            var inequality = Set(filters.flatMap(\.leaves).compactMap { f -> FieldPath? in
                if case .field(let p, let op, _) = f, op.isInequality { return p } else { return nil }
            })
            inequality.formUnion(residualInequalities)
            order = inequality.sorted().map { Ordering($0) }
        }
        if !order.contains(where: { $0.field.isDocumentName }) {
            order.append(Ordering(.documentName, descending: sortDescending))
        }
        if residual.isEmpty, i < plan.steps.count, case .offset(let n) = plan.steps[i] {
            query.offset = n
            i += 1
        }
        if residual.isEmpty, i < plan.steps.count, case .limit(let n) = plan.steps[i] {
            query.limit = n
            i += 1
        }
        guard i > 1 else { return nil }
        query.filter = filters.isEmpty ? nil : filters.count == 1 ? filters[0] : .composite(.and, filters)
        query.orderBy = order
        self.query = query
        self.steps = i
        self.residual = residual
    }

    /// The top-level conjuncts of a condition (`and` flattened).
    static func conjuncts(_ condition: PipelineValue) -> [PipelineValue] {
        if case .function(let f) = condition, f.name == "and", !f.args.isEmpty { return f.args.flatMap(conjuncts) }
        return [condition]
    }

    /// The source as a query with the filters of its leading `where` stages that convert
    /// (a superset of what those stages keep), for the rules' list check.
    static func filterQuery(_ plan: PipelinePlan) -> StructuredQuery {
        var query: StructuredQuery
        switch plan.steps.first {
        case .collection(let path)?: query = StructuredQuery(parent: path.parent, collectionID: path.lastSegment)
        case .collectionGroup(let id)?: query = StructuredQuery(collectionID: id, allDescendants: true)
        default: preconditionFailure("filterQuery needs a collection or collection_group source")
        }
        var filters: [QueryFilter] = []
        for step in plan.steps.dropFirst() {
            guard case .filter(let condition) = step else { break }
            var found: [QueryFilter] = [], exists: [FieldPath] = []
            if convert(condition, into: &found, exists: &exists) { filters += found }
        }
        query.filter = filters.isEmpty ? nil : filters.count == 1 ? filters[0] : .composite(.and, filters)
        return query
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
        if f.name == "or" {
            var branches: [QueryFilter] = []
            for a in f.args {
                var found: [QueryFilter] = [], seen: [FieldPath] = []
                guard convert(a, into: &found, exists: &seen) else { return false }
                // An `exists` inside a branch is implied by that branch's comparisons only.
                let fields = Set(found.compactMap(\.field))
                guard seen.allSatisfy(fields.contains), !found.isEmpty else { return false }
                branches.append(found.count == 1 ? found[0] : .composite(.and, found))
            }
            guard !branches.isEmpty else { return false }
            filters.append(branches.count == 1 ? branches[0] : .composite(.or, branches))
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
        if constant(lhs) != nil, case .field = rhs {
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
              let value = constant(rhs) else { return false }
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

    /// A constant operand: a literal, or an `array(…)` of literals (how the clients send a
    /// list such as `equal_any`'s).
    static func constant(_ v: PipelineValue) -> Value? {
        switch v {
        case .constant(let value): return value
        case .function(let f) where f.name == "array":
            var items: [Value] = []
            for a in f.args {
                guard case .constant(let item) = a else { return nil }
                items.append(item)
            }
            return .array(items)
        default: return nil
        }
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
