/// A query in the shape of the protocol's `StructuredQuery` (query.proto): every front end
/// (Swift API, REST, gRPC) decodes into this one model, and the engine validates, plans and
/// runs it. Document-ID values (`__name__` filters, orderings, cursors) are `.reference`s.
public struct StructuredQuery: Sendable, Hashable {
    /// The document (or the database root, `.root`) whose collections are queried.
    public var parent: ResourcePath
    /// The collection ID queried (`from.collection_id`).
    public var collectionID: String
    /// `from.all_descendants`: every collection with that ID under `parent`, at any depth
    /// (a collection-group query when `parent` is the root).
    public var allDescendants: Bool
    public var filter: QueryFilter?
    /// The explicit order-bys (the engine adds production's implicit ones).
    public var orderBy: [Ordering]
    public var startAt: Cursor?
    public var endAt: Cursor?
    public var offset: Int
    public var limit: Int?
    /// `select`: the fields to return (empty list = only the document names); nil = all.
    public var projection: [FieldPath]?
    public var findNearest: FindNearest?

    public init(parent: ResourcePath = .root, collectionID: String, allDescendants: Bool = false,
                filter: QueryFilter? = nil, orderBy: [Ordering] = [], startAt: Cursor? = nil,
                endAt: Cursor? = nil, offset: Int = 0, limit: Int? = nil,
                projection: [FieldPath]? = nil, findNearest: FindNearest? = nil) {
        self.parent = parent
        self.collectionID = collectionID
        self.allDescendants = allDescendants
        self.filter = filter
        self.orderBy = orderBy
        self.startAt = startAt
        self.endAt = endAt
        self.offset = offset
        self.limit = limit
        self.projection = projection
        self.findNearest = findNearest
    }

    /// No collection ID: with `allDescendants`, every document under `parent` whatever its
    /// collection (how the SDKs' recursive delete lists a subtree); without, the documents of
    /// every collection directly under `parent` (a raw query with no `from`, as the official
    /// emulator answers it).
    public var isKindless: Bool { collectionID.isEmpty }

    /// The collection this query reads when it is not a collection-group query.
    public var collectionPath: ResourcePath { parent.appending(collectionID) }

    /// The query that returns the last `limit` results of this one, in reverse: every
    /// direction flipped and the cursors swapped (how `limit(toLast:)` runs; the caller
    /// reverses the results again).
    public func reversed() -> StructuredQuery {
        var q = self
        q.orderBy = orderBy.map { Ordering($0.field, descending: !$0.descending) }
        q.startAt = endAt.map { Cursor(values: $0.values, before: !$0.before) }
        q.endAt = startAt.map { Cursor(values: $0.values, before: !$0.before) }
        return q
    }
}

/// A where clause: a field or unary filter, or an AND / OR of filters nested to any depth.
public indirect enum QueryFilter: Sendable, Hashable {
    case field(FieldPath, FieldOperator, Value)
    case unary(FieldPath, UnaryOperator)
    case composite(CompositeOperator, [QueryFilter])

    public enum CompositeOperator: String, Sendable, Hashable { case and = "AND", or = "OR" }

    /// Every field and unary filter in the tree, depth first.
    public var leaves: [QueryFilter] {
        if case .composite(_, let children) = self { return children.flatMap(\.leaves) }
        return [self]
    }

    public var field: FieldPath? {
        switch self {
        case .field(let f, _, _), .unary(let f, _): return f
        case .composite: return nil
        }
    }
}

/// `FieldFilter.Operator` of query.proto.
public enum FieldOperator: String, Sendable, Hashable, CaseIterable {
    case lessThan = "LESS_THAN"
    case lessThanOrEqual = "LESS_THAN_OR_EQUAL"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
    case equal = "EQUAL"
    case notEqual = "NOT_EQUAL"
    case arrayContains = "ARRAY_CONTAINS"
    case `in` = "IN"
    case arrayContainsAny = "ARRAY_CONTAINS_ANY"
    case notIn = "NOT_IN"

    /// `<`, `<=`, `>`, `>=`.
    public var isRange: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: true
        default: false
        }
    }

    /// Range operators plus `!=` and `not-in`: the filters that make a field an inequality
    /// field (implicitly ordered, one of at most ten).
    public var isInequality: Bool { isRange || self == .notEqual || self == .notIn }

    /// Operators whose value is a list.
    public var takesList: Bool { self == .in || self == .notIn || self == .arrayContainsAny }

    /// The name the SDKs use in messages (`lessThan`, `notIn`…).
    public var sdkName: String {
        switch self {
        case .lessThan: "lessThan"
        case .lessThanOrEqual: "lessThanOrEqual"
        case .greaterThan: "greaterThan"
        case .greaterThanOrEqual: "greaterThanOrEqual"
        case .equal: "equal"
        case .notEqual: "notEqual"
        case .arrayContains: "arrayContains"
        case .in: "in"
        case .arrayContainsAny: "arrayContainsAny"
        case .notIn: "notIn"
        }
    }
}

/// `UnaryFilter.Operator` of query.proto.
public enum UnaryOperator: String, Sendable, Hashable, CaseIterable {
    case isNaN = "IS_NAN"
    case isNull = "IS_NULL"
    case isNotNaN = "IS_NOT_NAN"
    case isNotNull = "IS_NOT_NULL"
}

public struct Ordering: Sendable, Hashable, CustomStringConvertible {
    public var field: FieldPath
    public var descending: Bool

    public init(_ field: FieldPath, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    public var description: String { descending ? "\(field) desc" : "\(field)" }
}

/// A position in the query's order: values for a prefix of the order-bys.
/// `before` = the position is just before those values: for `startAt` that makes the bound
/// inclusive (`start(at:)`), for `endAt` exclusive (`end(before:)`).
public struct Cursor: Sendable, Hashable {
    public var values: [Value]
    public var before: Bool

    public init(values: [Value], before: Bool) {
        self.values = values
        self.before = before
    }
}

/// `StructuredQuery.FindNearest`: nearest-neighbour search on a vector field.
public struct FindNearest: Sendable, Hashable {
    public enum DistanceMeasure: String, Sendable, Hashable, CaseIterable {
        case euclidean = "EUCLIDEAN", cosine = "COSINE", dotProduct = "DOT_PRODUCT"
    }

    public var vectorField: FieldPath
    public var queryVector: [Double]
    public var distanceMeasure: DistanceMeasure
    public var limit: Int
    /// When set, the distance is written into each result at this field.
    public var distanceResultField: FieldPath?
    /// Results farther than this are dropped (for DOT_PRODUCT: smaller similarity is dropped).
    public var distanceThreshold: Double?

    public init(vectorField: FieldPath, queryVector: [Double], distanceMeasure: DistanceMeasure, limit: Int,
                distanceResultField: FieldPath? = nil, distanceThreshold: Double? = nil) {
        self.vectorField = vectorField
        self.queryVector = queryVector
        self.distanceMeasure = distanceMeasure
        self.limit = limit
        self.distanceResultField = distanceResultField
        self.distanceThreshold = distanceThreshold
    }
}

/// One aggregation of `StructuredAggregationQuery`, with its result alias.
public struct Aggregation: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case count(upTo: Int64?)
        case sum(FieldPath)
        case average(FieldPath)
    }

    public var kind: Kind
    public var alias: String

    public init(_ kind: Kind, alias: String) {
        self.kind = kind
        self.alias = alias
    }

    public var field: FieldPath? {
        switch kind {
        case .count: nil
        case .sum(let f), .average(let f): f
        }
    }
}
