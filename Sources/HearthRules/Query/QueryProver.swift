import HearthCore

/// The list-query prover (docs/rules-language.md#list-queries): a query is allowed only when the
/// rule holds for every document it could return. Each disjunct of the query's filter
/// becomes a symbolic `resource` whose equality-constrained fields hold their concrete
/// value and whose other filtered fields hold a `constraint`; unfiltered fields are
/// absent. A comparison the constraints do not decide is an error, so it never grants.
enum QueryProver {
    static func unprovable(_ what: String) -> RulesError {
        RulesError("Unable to prove \(what) for every document the query could return.")
    }

    /// One disjunct of a query as the prover sees it: its symbolic `resource`, and the
    /// document it names when its `__name__` equalities (an `in` on the name is one disjunct
    /// per value already) all name one document.
    struct Disjunct {
        let resource: RulesValue
        let namedDocument: ResourcePath?
    }

    /// The disjuncts of a query, in the order the filter lists them.
    static func disjuncts(for query: StructuredQuery, in database: DatabaseID) throws(FirestoreError) -> [Disjunct] {
        let normalized = try NormalizedQuery(query, database: database)
        return disjuncts(for: normalized, database: database.database)
    }

    static func disjuncts(for normalized: NormalizedQuery, database: String) -> [Disjunct] {
        let resources = symbolicResources(for: normalized, database: database)
        return zip(resources, normalized.disjuncts).map { Disjunct(resource: $0, namedDocument: namedDocument($1)) }
    }

    /// The document every `__name__ ==` of a conjunct names; nil without one, or when two
    /// name different documents (the emulator then leaves the wildcard unbound: "Null value
    /// error." where it is read).
    static func namedDocument(_ conjunct: [QueryFilter]) -> ResourcePath? {
        var named: ResourcePath?
        for filter in conjunct {
            guard case .field(let f, .equal, let v) = filter, f.isDocumentName else { continue }
            guard case .reference(let name) = v, named == nil || named == name.path else { return nil }
            named = name.path
        }
        return named
    }

    static func symbolicResources(for normalized: NormalizedQuery, database: String) -> [RulesValue] {
        normalized.disjuncts.map { conjunct in
            var equalities: [(FieldPath, RulesValue)] = []
            var constraints: [FieldPath: QueryConstraint] = [:]
            var order: [FieldPath] = []
            func add(_ f: FieldPath, _ c: QueryConstraint.Comparator, _ v: RulesValue) {
                if constraints[f] == nil { order.append(f) }
                constraints[f, default: QueryConstraint()].filters.append((c, v))
            }
            for filter in conjunct {
                switch filter {
                case .field(let f, let op, let value) where !f.isDocumentName:
                    let v = RulesValue(value, database: database)
                    switch op {
                    case .equal: equalities.append((f, v))
                    case .lessThan: add(f, .lessThan, v)
                    case .lessThanOrEqual: add(f, .lessThanOrEqual, v)
                    case .greaterThan: add(f, .greaterThan, v)
                    case .greaterThanOrEqual: add(f, .greaterThanOrEqual, v)
                    case .notEqual: add(f, .notEqual, v)
                    case .notIn: add(f, .notIn, v)
                    case .arrayContains: add(f, .arrayContains, v)
                    case .in, .arrayContainsAny: break  // expanded into disjuncts already
                    }
                case .unary(let f, let op) where !f.isDocumentName:
                    switch op {
                    case .isNull: equalities.append((f, .null))
                    case .isNaN: equalities.append((f, .float(.nan)))
                    case .isNotNull: add(f, .notEqual, .null)
                    case .isNotNaN: add(f, .notEqual, .float(.nan))
                    }
                default: break
                }
            }
            var data = RulesMap()
            for f in order where !equalities.contains(where: { $0.0 == f }) {
                set(&data, f.segments[...], .constraint(constraints[f]!))
            }
            for (f, v) in equalities { set(&data, f.segments[...], v) }
            // `id` and `__name__` are unknown for a query: reading them errors.
            return .map(RulesMap([("data", .map(data))]))
        }
    }

    private static func set(_ map: inout RulesMap, _ path: ArraySlice<String>, _ value: RulesValue) {
        guard let first = path.first else { return }
        if path.count == 1 { map[first] = value; return }
        var child = RulesMap()
        if case .map(let existing)? = map[first] { child = existing }
        set(&child, path.dropFirst(), value)
        map[first] = .map(child)
    }

    /// A binary operator with a constraint on either side.
    static func binary(_ op: Expr.BinaryOp, _ a: RulesValue, _ b: RulesValue) throws(RulesError) -> RulesValue {
        switch (op, a, b) {
        case (.in, _, .constraint(let c)):
            // `x in field` where the query has `field array-contains x`.
            if c.filters.contains(where: { $0.comparator == .arrayContains && RulesValue.equals($0.value, a) }) { return .bool(true) }
            throw unprovable("\(a) in \(c)")
        case (.notEqual, .constraint(let c), let v), (.notEqual, let v, .constraint(let c)):
            if case .constraint = v { throw unprovable("a comparison of two constrained fields") }
            for f in c.filters {
                if f.comparator == .notEqual && RulesValue.equals(f.value, v) { return .bool(true) }
                // A range filter only matches values of its own type, inside its bounds:
                // it proves `!= null` and `!= v` for a v outside the bounds (but not for a
                // v of another type, which the emulator leaves unproved).
                if f.comparator.isRange {
                    if case .null = v { return .bool(true) }
                    if let cmp = RulesValue.compare(v, f.value), cmp != 2, !f.comparator.admits(cmp) { return .bool(true) }
                }
                if f.comparator == .notIn, case .list(let l) = f.value, RulesValue.listContains(l, v) || l.contains(where: { RulesValue.equals($0, v) }) {
                    return .bool(true)
                }
            }
            throw unprovable("!= \(v)")
        case (.less, .constraint(let c), let v), (.lessEqual, .constraint(let c), let v),
             (.greater, .constraint(let c), let v), (.greaterEqual, .constraint(let c), let v):
            if case .constraint = v { throw unprovable("a comparison of two constrained fields") }
            if implies(c, op, v) { return .bool(true) }
            throw unprovable("\(op.rawValue) \(v)")
        case (.less, let v, .constraint(let c)), (.lessEqual, let v, .constraint(let c)),
             (.greater, let v, .constraint(let c)), (.greaterEqual, let v, .constraint(let c)):
            // v < field  ≡  field > v
            let flipped: Expr.BinaryOp = switch op {
            case .less: .greater
            case .lessEqual: .greaterEqual
            case .greater: .less
            default: .lessEqual
            }
            if case .constraint = v { throw unprovable("a comparison of two constrained fields") }
            if implies(c, flipped, v) { return .bool(true) }
            throw unprovable("\(v) \(op.rawValue) field")
        default:
            throw unprovable("\(a) \(op.rawValue) \(b)")
        }
    }

    /// Do the constraint's bounds imply `field op v`?
    static func implies(_ c: QueryConstraint, _ op: Expr.BinaryOp, _ v: RulesValue) -> Bool {
        for f in c.filters {
            guard let cmp = RulesValue.compare(f.value, v), cmp != 2 else { continue }
            switch (op, f.comparator) {
            case (.less, .lessThan): if cmp <= 0 { return true }
            case (.less, .lessThanOrEqual): if cmp < 0 { return true }
            case (.lessEqual, .lessThan), (.lessEqual, .lessThanOrEqual): if cmp <= 0 { return true }
            case (.greater, .greaterThan): if cmp >= 0 { return true }
            case (.greater, .greaterThanOrEqual): if cmp > 0 { return true }
            case (.greaterEqual, .greaterThan), (.greaterEqual, .greaterThanOrEqual): if cmp >= 0 { return true }
            default: continue
            }
        }
        return false
    }

    /// No method is defined on a constrained field (`size()` of an array-contains field is
    /// "Function not found", docs/rules-language.md#list-queries).
    static func method(_ receiver: RulesValue, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        throw .functionNotFound(name)
    }
}
