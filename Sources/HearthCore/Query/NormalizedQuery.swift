import Foundation
/// A validated query in the form the planner, the executor and the index analysis work on:
/// production's checks applied with its messages, the normalised order (explicit order-bys,
/// then inequality fields, then summed or averaged fields, then `__name__`) and the filter in
/// disjunctive normal form. Immutable, and a class: the planner, the executor, the index
/// analysis, transactions and listeners all hold it without copying its arrays.
public final class NormalizedQuery: Sendable {
    public let query: StructuredQuery
    public let database: DatabaseID
    /// The filter with document-name operands made comparable (see `queryPlaceholder`).
    public let filter: QueryFilter?
    /// Explicit order-bys, then the inequality fields not already ordered (by field path), then
    /// the fields of the sum/average aggregations run over the query (by field path), then
    /// `__name__`; implicit entries take the last explicit direction. Aggregated fields order
    /// the documents like inequality fields do (so a limit keeps the smallest values, and
    /// documents lacking one are left out), as the official emulator was observed to do;
    /// with a cursor they are left out of the order, the cursor being positioned against the
    /// query's own order.
    public let orderBy: [Ordering]
    /// The filter as an OR of ANDs, with `in` and `array-contains-any` expanded to one
    /// disjunct per value (production's disjunction count). `[[]]` when there is no filter.
    public let disjuncts: [[QueryFilter]]
    /// Fields with an inequality (`<`, `<=`, `>`, `>=`, `!=`, `not-in`, IS_NOT_NULL, IS_NOT_NAN).
    public let inequalityFields: [FieldPath]
    public let startAt: Cursor?
    public let endAt: Cursor?

    /// Production's limits (docs/semantics.md#composite-filters-and-limits).
    public static let maxDisjunctions = 30
    public static let maxInValues = 30
    public static let maxNotInValues = 10
    public static let maxInequalityFields = 10
    /// Filters (each value of an `in`, `not-in` or `array-contains-any` counting as one),
    /// order-bys and a parent document together (observed on the official emulator).
    public static let maxFiltersAndOrders = 100

    public init(_ query: StructuredQuery, database: DatabaseID, aggregatedFields: [FieldPath] = []) throws(FirestoreError) {
        self.query = query
        self.database = database
        if !query.collectionID.isEmpty { try ResourcePath.validateID(query.collectionID, collection: true) }
        if query.offset < 0 { throw .invalidArgument("offset must be non-negative, got \(query.offset).") }
        if let limit = query.limit, limit < 0 { throw .invalidArgument("limit must be non-negative, got \(limit).") }

        for f in query.projection ?? [] { try Self.checkReservedNames(f) }
        for o in query.orderBy { try Self.checkLength(o.field) }
        let filter = try query.filter.map { f throws(FirestoreError) in try Self.prepare(f, query: query, database: database) }
            .flatMap(Self.simplified)
        self.filter = filter
        let leaves = filter?.leaves ?? []
        // Before any work that grows with the query's size (the checks below are quadratic).
        let filterCount = leaves.reduce(0) { n, leaf in
            if case .field(_, let op, .array(let values)) = leaf, op.takesList { return n + values.count }
            return n + 1
        }
        let hasAncestor = !query.parent.isEmpty
        if filterCount + query.orderBy.count + (hasAncestor ? 1 : 0) > Self.maxFiltersAndOrders {
            throw .invalidArgument("The query may not have more than \(Self.maxFiltersAndOrders) filters + sort orders + ancestor total. "
                + "Currently there are \(filterCount) filters, \(query.orderBy.count) sort orders, and \(hasAncestor ? "one" : "no") ancestor filter.")
        }
        try Self.checkOperatorCombinations(leaves, hasOr: filter.map(Self.containsOr) ?? false)

        // Normalised order.
        let inequality = Self.inequalityFields(leaves)
        if !inequality.isEmpty, !inequality.contains(where: \.isDocumentName), Self.topLevelConjuncts(filter).contains(where: {
            if case .field(let p, .equal, _) = $0 { return p.isDocumentName } else { return false }
        }) {
            throw .invalidArgument("Equality on key is not allowed if there are other inequality fields and key does not appear in inequalities.")
        }
        if inequality.count > Self.maxInequalityFields {
            throw .invalidArgument("The query contains \(inequality.count) distinct inequality fields: [\(inequality.map(\.description).joined(separator: ", "))]. A query may not have more than \(Self.maxInequalityFields) distinct inequality fields.")
        }
        self.inequalityFields = inequality
        var order = query.orderBy
        // A query names a handful of fields: arrays, searched linearly, cost less than sets.
        if !order.isEmpty {
            let equalityFields = Self.topLevelConjuncts(filter).compactMap { f -> FieldPath? in
                if case .field(let p, .equal, _) = f { return p }
                if case .unary(let p, .isNull) = f { return p }
                if case .unary(let p, .isNaN) = f { return p }
                return nil
            }
            for o in order where equalityFields.contains(o.field) && !o.field.isDocumentName {
                throw .invalidArgument("Order by clause cannot contain a field with an equality filter \(o.field)")
            }
        }
        for (i, o) in order.enumerated() where order[..<i].contains(where: { $0.field == o.field }) {
            throw .invalidArgument("order by clause cannot contain duplicate fields \(o.field)")
        }
        if let key = query.orderBy.firstIndex(where: { $0.field.isDocumentName }), key < query.orderBy.count - 1 {
            throw .invalidArgument("order by clause cannot contain more fields after the key")
        }
        order = Self.normalizedOrder(explicit: order, inequalityFields: inequality,
                                     aggregatedFields: query.startAt == nil && query.endAt == nil ? aggregatedFields : [])
        self.orderBy = order
        self.orderedFields = order.compactMap { $0.field.isDocumentName ? nil : $0.field }

        if query.isKindless {
            // A query over every collection (what recursive deletes send) may only constrain
            // and order by the document name, ascending.
            if leaves.contains(where: { !($0.field?.isDocumentName ?? false) }) || order.contains(where: { !$0.field.isDocumentName || $0.descending }) {
                throw .invalidArgument("A query without a collection ID (all descendants of \(query.parent.isEmpty ? "the database" : query.parent.description)) can only filter and order on __name__, ascending.")
            }
        }
        self.startAt = try query.startAt.map { c throws(FirestoreError) in try Self.prepare(c, order: order, query: query, database: database) }
        self.endAt = try query.endAt.map { c throws(FirestoreError) in try Self.prepare(c, order: order, query: query, database: database) }
        self.disjuncts = try filter.map { f throws(FirestoreError) in try Self.disjunctiveNormalForm(f) } ?? [[]]

        if let nearest = query.findNearest { try Self.validate(nearest) }
    }

    /// The order-by fields other than `__name__`: a document lacking any of them is excluded.
    public let orderedFields: [FieldPath]

    // MARK: Filters

    /// Field names a query may not name: reserved ones (`__x__`), `__name__` itself aside.
    private static func checkReservedNames(_ path: FieldPath) throws(FirestoreError) {
        try checkLength(path)
        if path.isDocumentName { return }
        for segment in path.segments where segment.utf8.count >= 4 && segment.hasPrefix("__") && segment.hasSuffix("__") {
            throw .invalidArgument("Invalid reserved name in field path \(path.serverFormat)")
        }
    }

    /// A field path over 1,500 bytes, its dots included (production's "Maximum size of a
    /// field path"), is refused wherever a query names it, with the official emulator's text.
    private static func checkLength(_ path: FieldPath) throws(FirestoreError) {
        if path.segments.reduce(-1, { $0 + $1.utf8.count + 1 }) > 1500 {
            throw .invalidArgument("property path is longer than 1500 bytes.")
        }
    }

    private static func prepare(_ filter: QueryFilter, query: StructuredQuery, database: DatabaseID) throws(FirestoreError) -> QueryFilter {
        switch filter {
        case .composite(let op, let children):
            // An empty AND is no filter; an empty OR has no meaning (as the emulator answers).
            if op == .or && children.isEmpty { throw .invalidArgument("Composite filter must have at least one sub-filter.") }
            return .composite(op, try children.map { c throws(FirestoreError) in try prepare(c, query: query, database: database) })
        case .unary(let path, _):
            if path.isDocumentName { throw .invalidArgument("__key__ filter value must be a Key") }
            try checkReservedNames(path)
            return filter
        case .field(let path, let op, let value):
            try checkReservedNames(path)
            if op.takesList {
                guard case .array(let list) = value else { throw .invalidArgument("'\(op.rawValue)' requires an ArrayValue.") }
                if list.isEmpty { throw .invalidArgument("'\(op.rawValue)' requires an non-empty ArrayValue.") }
                let max = op == .notIn ? maxNotInValues : maxInValues
                if list.count > max { throw .invalidArgument("'\(op.rawValue)' supports up to \(max) comparison values.") }
            }
            guard path.isDocumentName else { return filter }
            if op == .arrayContains || op == .arrayContainsAny {
                throw .invalidArgument("Invalid query. You can't perform '\(op.rawValue)' queries on document ID since document IDs are not arrays.")
            }
            if op.takesList, case .array(let list) = value {
                let names = try list.map { v throws(FirestoreError) in try documentNameOperand(v, query: query, database: database) }
                return .field(path, op, .array(names))
            }
            return .field(path, op, try documentNameOperand(value, query: query, database: database))
        }
    }

    /// A `__name__` operand must be a reference in the queried database (and, for a
    /// collection query, in the queried collection for equality filters); it is rewritten so
    /// only the path is compared.
    static func documentNameOperand(_ value: Value, query: StructuredQuery, database: DatabaseID) throws(FirestoreError) -> Value {
        guard case .reference(let name) = value else {
            throw .invalidArgument("__key__ filter value must be a Key")
        }
        if name.database != database {
            throw .invalidArgument("__key__ filter value must be in the same database: \(name) is not in \(database).")
        }
        return .reference(DocumentName(database: .queryPlaceholder, path: name.path))
    }

    // MARK: The normalised order (docs/semantics.md#ordering)

    /// The order a query's results come in: the explicit order-bys, then every inequality
    /// field not already ordered (by field path), then the given aggregated fields (those of
    /// the sums and averages run over the query), then `__name__`; the implicit entries take
    /// the last explicit direction. The one place this rule lives: the engine runs queries in
    /// it, and the Swift API reverses it for `limit(toLast:)` and takes document cursors'
    /// values in it. Unvalidated: for a query that fails validation it is still an order.
    public static func normalizedOrder(explicit: [Ordering], filter: QueryFilter?,
                                       aggregatedFields: [FieldPath] = []) -> [Ordering] {
        normalizedOrder(explicit: explicit, inequalityFields: inequalityFields(filter?.leaves ?? []),
                        aggregatedFields: aggregatedFields)
    }

    /// The distinct fields with an inequality, in the order the filters name them.
    static func inequalityFields(_ leaves: [QueryFilter]) -> [FieldPath] {
        // A query names a handful of fields: arrays, searched linearly, cost less than sets.
        var fields: [FieldPath] = []
        for leaf in leaves {
            guard let f = leaf.field, isInequality(leaf), !fields.contains(f) else { continue }
            fields.append(f)
        }
        return fields
    }

    static func normalizedOrder(explicit: [Ordering], inequalityFields inequality: [FieldPath],
                                aggregatedFields: [FieldPath]) -> [Ordering] {
        var order = explicit
        // Implicit entries: each at most once, `order` itself being the fields seen so far.
        order.reserveCapacity(order.count + inequality.count + aggregatedFields.count + 1)
        func orders(_ f: FieldPath) -> Bool { order.contains { $0.field == f } }
        let direction = order.last?.descending ?? false
        for f in inequality.count > 1 ? inequality.sorted() : inequality where !orders(f) && !f.isDocumentName {
            order.append(Ordering(f, descending: direction))
        }
        for f in aggregatedFields.count > 1 ? aggregatedFields.sorted() : aggregatedFields where !orders(f) && !f.isDocumentName {
            order.append(Ordering(f, descending: direction))
        }
        if !orders(.documentName) { order.append(Ordering(.documentName, descending: direction)) }
        return order
    }

    static func isInequality(_ leaf: QueryFilter) -> Bool {
        switch leaf {
        case .field(_, let op, _): op.isInequality
        case .unary(_, let op): op == .isNotNull || op == .isNotNaN
        case .composite: false
        }
    }

    private static func containsOr(_ f: QueryFilter) -> Bool {
        if case .composite(let op, let children) = f { return op == .or || children.contains(where: containsOr) }
        return false
    }

    /// Drops empty composites and collapses single-child ones (as the SDKs do).
    static func simplified(_ f: QueryFilter) -> QueryFilter? {
        guard case .composite(let op, let children) = f else { return f }
        var flat: [QueryFilter] = []
        for child in children.compactMap(simplified) {
            if case .composite(let childOp, let grand) = child, childOp == op { flat += grand } else { flat.append(child) }
        }
        if flat.isEmpty { return nil }
        return flat.count == 1 ? flat[0] : .composite(op, flat)
    }

    static func topLevelConjuncts(_ f: QueryFilter?) -> [QueryFilter] {
        guard let f else { return [] }
        if case .composite(.and, let children) = f { return children }
        if case .composite(.or, _) = f { return [] }
        return [f]
    }

    /// Production's operator restrictions, with its messages (observed on the emulator).
    private static func checkOperatorCombinations(_ leaves: [QueryFilter], hasOr: Bool) throws(FirestoreError) {
        var hasNotIn = false, hasInOrAny = false
        var negations = 0
        for leaf in leaves {
            switch leaf {
            case .field(_, let op, _):
                if op == .notIn { hasNotIn = true }
                if op == .in || op == .arrayContainsAny { hasInOrAny = true }
                if op == .notEqual || op == .notIn { negations += 1 }
            case .unary(_, .isNotNull), .unary(_, .isNotNaN): negations += 1
            default: break
            }
        }
        if negations > 1 {
            throw .invalidArgument("Only a single 'NOT_EQUAL', 'NOT_IN', 'IS_NOT_NAN', or 'IS_NOT_NULL' filter allowed per query.")
        }
        if hasNotIn, hasInOrAny || hasOr {
            throw .invalidArgument("'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        }
    }

    /// DNF with production's budget: counted first (sums for OR, products for AND) so an
    /// oversized filter is rejected before it is expanded.
    static func disjunctiveNormalForm(_ f: QueryFilter) throws(FirestoreError) -> [[QueryFilter]] {
        func count(_ f: QueryFilter) -> Int {
            switch f {
            case .field(_, .in, .array(let l)), .field(_, .arrayContainsAny, .array(let l)): return l.count
            case .field, .unary: return 1
            case .composite(.or, let c): return c.reduce(0) { min($0 + count($1), Int(Int32.max)) }
            case .composite(.and, let c): return c.reduce(1) { min($0 * count($1), Int(Int32.max)) }
            }
        }
        let n = count(f)
        if n > maxDisjunctions {
            throw .invalidArgument("Too many disjunctions after normalization. Result had \(n) disjunctions which is more than the maximum of \(maxDisjunctions)")
        }
        func expand(_ f: QueryFilter) -> [[QueryFilter]] {
            switch f {
            case .field(let p, .in, .array(let l)): return l.map { [.field(p, .equal, $0)] }
            case .field(let p, .arrayContainsAny, .array(let l)): return l.map { [.field(p, .arrayContains, $0)] }
            case .field, .unary: return [[f]]
            case .composite(.or, let c): return c.flatMap(expand)
            case .composite(.and, let c):
                var acc: [[QueryFilter]] = [[]]
                for child in c {
                    let e = expand(child)
                    acc = acc.flatMap { left in e.map { left + $0 } }
                }
                return acc
            }
        }
        // An AND of leaves that expand to themselves is one disjunct as it is (no products).
        func expandsToItself(_ f: QueryFilter) -> Bool {
            switch f {
            case .field(_, .in, _), .field(_, .arrayContainsAny, _), .composite: false
            case .field, .unary: true
            }
        }
        let dnf: [[QueryFilter]]
        if case .composite(.and, let children) = f, children.allSatisfy(expandsToItself) {
            dnf = [children]
        } else {
            dnf = expand(f)
        }
        for conj in dnf {
            var arrayFilters = 0
            for leaf in conj { if case .field(_, .arrayContains, _) = leaf { arrayFilters += 1 } }
            if arrayFilters > 1 {
                throw .invalidArgument("A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.")
            }
        }
        return dnf
    }

    // MARK: Cursors

    /// A cursor may hold a value for each order-by the request wrote, no more (production's
    /// reference: "it cannot reference more fields than what are in the provided ORDER BY";
    /// the SDKs write out the implicit order-bys when they set a cursor). A `__name__` value
    /// must be a reference; one outside the queried collection simply positions the cursor.
    private static func prepare(_ cursor: Cursor, order: [Ordering], query: StructuredQuery, database: DatabaseID) throws(FirestoreError) -> Cursor {
        if cursor.values.count > query.orderBy.count { throw .invalidArgument("Cursor has too many values.") }
        var values = cursor.values
        for (i, v) in values.enumerated() where order[i].field.isDocumentName {
            guard case .reference(let name) = v else { throw .invalidArgument("Cursor __key__ value is not a document reference.") }
            if name.database != database {
                throw .invalidArgument("Cursor reference \(name) is not in the queried database \(database).")
            }
            values[i] = .reference(DocumentName(database: .queryPlaceholder, path: name.path))
        }
        return Cursor(values: values, before: cursor.before)
    }

    // MARK: Vector search

    static let maxNearestLimit = 1000
    static let maxVectorDimension = 2048

    private static func validate(_ n: FindNearest) throws(FirestoreError) {
        if n.limit <= 0 || n.limit > maxNearestLimit {
            throw .invalidArgument("find_nearest.limit must be a positive integer of no more than \(maxNearestLimit), got \(n.limit).")
        }
        if n.queryVector.isEmpty { throw .invalidArgument("find_nearest.query_vector must not be empty.") }
        if n.queryVector.count > maxVectorDimension {
            throw .invalidArgument("find_nearest.query_vector has \(n.queryVector.count) dimensions; at most \(maxVectorDimension) are supported.")
        }
        if n.vectorField.isDocumentName { throw .invalidArgument("find_nearest.vector_field cannot be __name__.") }
    }
}
