import Foundation
import HearthCore

/// What a query asks for, as the SDK's core query holds it: the collection (or collection
/// group), the where clauses in the order they were added, the explicit order-bys, the
/// cursors and the limit. The engine adds production's implicit order-bys when it runs.
struct QueryDefinition: Hashable, Sendable {
    enum LimitType: Hashable, Sendable { case first, last }

    var parent: ResourcePath
    var collectionID: String
    var allDescendants: Bool
    /// Top-level conjuncts, each a field, unary or composite filter.
    var filters: [QueryFilter] = []
    var orderBy: [HearthCore.Ordering] = []
    var startAt: Cursor?
    var endAt: Cursor?
    var limit: Int?
    var limitType: LimitType = .first

    /// A query over one collection.
    init(collection path: ResourcePath) {
        parent = path.parent
        collectionID = path.lastSegment
        allDescendants = false
    }

    /// A query over every collection with this ID, at any depth.
    init(collectionGroup collectionID: String) {
        parent = .root
        self.collectionID = collectionID
        allDescendants = true
    }

    /// What document-ID strings are relative to (the SDK's `query.path()`): the collection,
    /// or the root for a collection group.
    var documentIDBase: ResourcePath { allDescendants ? parent : parent.appending(collectionID) }

    /// Every field and unary filter, in the order they were added.
    var flattenedFilters: [QueryFilter] { filters.flatMap(\.leaves) }

    /// The engine's normalised order (docs/semantics.md#ordering): the explicit order-bys,
    /// then the inequality fields, then `__name__`. Document cursors take their values in this
    /// order.
    var normalizedOrderBy: [HearthCore.Ordering] {
        NormalizedQuery.normalizedOrder(explicit: orderBy, filter: filter)
    }

    /// The where clauses as one filter (nil without any).
    var filter: QueryFilter? {
        switch filters.count {
        case 0: nil
        case 1: filters[0]
        default: .composite(.and, filters)
        }
    }

    /// The query the engine runs. `limit(toLast:)` runs the normalised order reversed, with
    /// the cursors swapped; the caller reverses the results again.
    var structuredQuery: StructuredQuery {
        var q = StructuredQuery(parent: parent, collectionID: collectionID, allDescendants: allDescendants,
                                filter: filter, orderBy: orderBy, startAt: startAt, endAt: endAt, limit: limit)
        if limitType == .last {
            q.orderBy = normalizedOrderBy
            q = q.reversed()
        } else if startAt != nil || endAt != nil {
            // As the SDKs send it: a cursor holds a value per order-by, implicit ones included,
            // and the server takes no more values than the order-bys written out.
            q.orderBy = normalizedOrderBy
        }
        return q
    }
}

/// A query over the documents of a collection or collection group. Every builder returns a
/// new query; a query never changes. Invalid arguments are programmer errors, checked when
/// the builder is called, with the SDK's messages; what only the server checks (limits on
/// values and disjunctions, missing indexes…) arrives as an error when the query runs.
public class Query: @unchecked Sendable, Hashable {
    public let firestore: Firestore
    let definition: QueryDefinition

    init(firestore: Firestore, definition: QueryDefinition) {
        self.firestore = firestore
        self.definition = definition
    }

    init(firestore: Firestore, collectionPath: ResourcePath) {
        self.firestore = firestore
        self.definition = QueryDefinition(collection: collectionPath)
    }

    /// The collection queried (for a collection reference, its path).
    var collectionPath: ResourcePath { definition.parent.appending(definition.collectionID) }

    private func with(_ definition: QueryDefinition) -> Query {
        Query(firestore: firestore, definition: definition)
    }

    /// Equal when they belong to the same `Firestore` instance and ask for the same thing.
    public static func == (a: Query, b: Query) -> Bool {
        a.firestore === b.firestore && type(of: a) == type(of: b) && a.definition == b.definition
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(firestore))
        hasher.combine(definition)
    }

    // MARK: Filters (String paths)

    @discardableResult
    public func whereField(_ field: String, isEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isEqualTo: value))
    }

    @discardableResult
    public func whereField(_ field: String, isNotEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isNotEqualTo: value))
    }

    @discardableResult
    public func whereField(_ field: String, isLessThan value: Any) -> Query {
        whereFilter(.whereField(field, isLessThan: value))
    }

    @discardableResult
    public func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isLessThanOrEqualTo: value))
    }

    @discardableResult
    public func whereField(_ field: String, isGreaterThan value: Any) -> Query {
        whereFilter(.whereField(field, isGreaterThan: value))
    }

    @discardableResult
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isGreaterOrEqualTo: value))
    }

    @discardableResult
    public func whereField(_ field: String, arrayContains value: Any) -> Query {
        whereFilter(.whereField(field, arrayContains: value))
    }

    @discardableResult
    public func whereField(_ field: String, arrayContainsAny values: [Any]) -> Query {
        whereFilter(.whereField(field, arrayContainsAny: values))
    }

    @discardableResult
    public func whereField(_ field: String, in values: [Any]) -> Query {
        whereFilter(.whereField(field, in: values))
    }

    @discardableResult
    public func whereField(_ field: String, notIn values: [Any]) -> Query {
        whereFilter(.whereField(field, notIn: values))
    }

    // MARK: Filters (FieldPath paths)

    @discardableResult
    public func whereField(_ path: FieldPath, isEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isEqualTo: value))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, isNotEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isNotEqualTo: value))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, isLessThan value: Any) -> Query {
        whereFilter(.whereField(path, isLessThan: value))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, isLessThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isLessThanOrEqualTo: value))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, isGreaterThan value: Any) -> Query {
        whereFilter(.whereField(path, isGreaterThan: value))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, isGreaterThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isGreaterOrEqualTo: value))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, arrayContains value: Any) -> Query {
        whereFilter(.whereField(path, arrayContains: value))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, arrayContainsAny values: [Any]) -> Query {
        whereFilter(.whereField(path, arrayContainsAny: values))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, in values: [Any]) -> Query {
        whereFilter(.whereField(path, in: values))
    }

    @discardableResult
    public func whereField(_ path: FieldPath, notIn values: [Any]) -> Query {
        whereFilter(.whereField(path, notIn: values))
    }

    /// Adds a where clause (AND with the others); an empty composite adds nothing.
    @discardableResult
    public func whereFilter(_ filter: Filter) -> Query {
        requireValid { () throws(FirestoreError) in try filtered(by: filter) }
    }

    /// `whereFilter` with its programmer errors thrown.
    func filtered(by filter: Filter) throws(FirestoreError) -> Query {
        guard let parsed = try parse(filter) else { return self }
        try validateNewFilter(parsed)
        var d = definition
        d.filters.append(parsed)
        return with(d)
    }

    /// The engine filter for `filter` in this query; nil for an empty composite. A composite
    /// with one non-empty child is that child (the SDK's `parseCompositeFilter`).
    private func parse(_ filter: Filter) throws(FirestoreError) -> QueryFilter? {
        switch filter.kind {
        case .composite(let op, let children):
            var parsed: [QueryFilter] = []
            for child in children {
                if let p = try parse(child) { parsed.append(p) }
            }
            if parsed.isEmpty { return nil }
            return parsed.count == 1 ? parsed[0] : .composite(op, parsed)
        case .field(let path, let op, let raw):
            return try parseFieldFilter(path, op, raw)
        }
    }

    private func parseFieldFilter(_ path: HearthCore.FieldPath, _ op: FieldOperator, _ raw: Any) throws(FirestoreError) -> QueryFilter {
        let reader = UserDataReader(firestore: firestore)
        var value: Value
        var rawElements: [Any] = []
        if op == .in || op == .notIn {
            // Each element of an `in` / `not-in` list is a value, and may itself be an array.
            rawElements = raw as? [Any] ?? [raw]
            var elements: [Value] = []
            for e in rawElements { elements.append(try reader.argumentValue(e)) }
            value = .array(elements)
        } else {
            value = try reader.argumentValue(raw)
        }
        if path.isDocumentName {
            if op == .arrayContains || op == .arrayContainsAny {
                throw .invalidArgument("Invalid query. You can't perform \(op.sdkName) queries on document ID since document IDs are not arrays.")
            }
            if case .array(let list) = value, op == .in || op == .notIn {
                try Self.requireNonEmpty(list, op)
                var names: [Value] = []
                for (element, rawElement) in zip(list, rawElements) {
                    names.append(try documentIDValue(element, raw: rawElement))
                }
                value = .array(names)
            } else {
                value = try documentIDValue(value, raw: raw)
            }
        } else if op.takesList, case .array(let list) = value {
            try Self.requireNonEmpty(list, op)
        }
        // `== null` / `== NaN` (and `!=`) are the unary filters on the wire.
        if op == .equal || op == .notEqual {
            if case .null = value { return .unary(path, op == .equal ? .isNull : .isNotNull) }
            if case .double(let d) = value, d.isNaN { return .unary(path, op == .equal ? .isNaN : .isNotNaN) }
        }
        return .field(path, op, value)
    }

    private static func requireNonEmpty(_ list: [Value], _ op: FieldOperator) throws(FirestoreError) {
        if list.isEmpty {
            throw .invalidArgument("Invalid Query. A non-empty array is required for '\(op.sdkName)' filters.")
        }
    }

    /// A document-ID operand as a reference: a plain ID (collection queries), a relative
    /// path with an even number of segments (collection groups), or a `DocumentReference`.
    private func documentIDValue(_ value: Value, raw: Any) throws(FirestoreError) -> Value {
        switch value {
        case .string(let id):
            if id.isEmpty {
                throw .invalidArgument("Invalid query. When querying by document ID you must provide a valid document ID, but it was an empty string.")
            }
            if !definition.allDescendants && id.utf8.contains(UInt8(ascii: "/")) {
                throw .invalidArgument("Invalid query. When querying a collection by document ID you must provide a plain document ID, but '\(id)' contains a '/' character.")
            }
            let path = definition.documentIDBase.appending(Self.slashSeparated(id))
            guard path.isDocument else {
                throw .invalidArgument("Invalid query. When querying a collection group by document ID, the value provided must result in a valid document path, but '\(path)' is not because it has an odd number of segments.")
            }
            return .reference(DocumentName(database: firestore.database.id, path: path))
        case .reference:
            return value
        default:
            throw .invalidArgument("Invalid query. When querying by document ID you must provide a valid string or DocumentReference, but it was of type: \(type(of: unwrapOptional(raw)))")
        }
    }

    /// The SDK's `ResourcePath::FromString`: split on `/`, empty segments dropped.
    private static func slashSeparated(_ s: String) -> ResourcePath {
        ResourcePath(segments: s.split(separator: "/").map(String.init))
    }

    /// The SDK's client-side operator rules, applied to the flattened filters of the whole
    /// query (OR branches included), each new leaf against those before it (docs/semantics.md#composite-filters-and-limits).
    private func validateNewFilter(_ filter: QueryFilter) throws(FirestoreError) {
        var existing = definition.flattenedFilters.map(Self.sdkOperator)
        for leaf in filter.leaves {
            let op = Self.sdkOperator(leaf)
            let conflicting = Self.conflictingOperators(op)
            if let found = existing.first(where: conflicting.contains) {
                if found == op {
                    throw .invalidArgument("Invalid Query. You cannot use more than one '\(op.sdkName)' filter.")
                }
                throw .invalidArgument("Invalid Query. You cannot use '\(op.sdkName)' filters with '\(found.sdkName)' filters.")
            }
            existing.append(op)
        }
    }

    /// The operator the SDK sees: `== null`/`== NaN` are `equal`, their negations `notEqual`.
    private static func sdkOperator(_ leaf: QueryFilter) -> FieldOperator {
        switch leaf {
        case .field(_, let op, _): op
        case .unary(_, .isNull), .unary(_, .isNaN): .equal
        case .unary: .notEqual
        case .composite: .equal  // leaves are never composite
        }
    }

    private static func conflictingOperators(_ op: FieldOperator) -> [FieldOperator] {
        switch op {
        case .notEqual: [.notEqual, .notIn]
        case .in, .arrayContainsAny: [.notIn]
        case .notIn: [.arrayContainsAny, .in, .notIn, .notEqual]
        default: []
        }
    }

    /// A dotted path as `whereField`, `order(by:)` and `Filter` read it; invalid paths are
    /// programmer errors.
    static func parseFieldPath(_ field: String) -> HearthCore.FieldPath {
        requireValid { () throws(FirestoreError) in try HearthCore.FieldPath.parseDotted(field) }
    }

    // MARK: Ordering and limits

    @discardableResult
    public func order(by field: String) -> Query {
        order(by: field, descending: false)
    }

    @discardableResult
    public func order(by path: FieldPath) -> Query {
        order(by: path, descending: false)
    }

    @discardableResult
    public func order(by field: String, descending: Bool) -> Query {
        let path = Self.parseFieldPath(field)
        return requireValid { () throws(FirestoreError) in try ordered(by: path, descending: descending) }
    }

    @discardableResult
    public func order(by path: FieldPath, descending: Bool) -> Query {
        requireValid { () throws(FirestoreError) in try ordered(by: path.core, descending: descending) }
    }

    /// `order(by:descending:)` with its programmer errors thrown.
    func ordered(by path: HearthCore.FieldPath, descending: Bool) throws(FirestoreError) -> Query {
        if definition.startAt != nil {
            throw .invalidArgument("Invalid query. You must not specify a starting point before specifying the order by.")
        }
        if definition.endAt != nil {
            throw .invalidArgument("Invalid query. You must not specify an ending point before specifying the order by.")
        }
        var d = definition
        d.orderBy.append(HearthCore.Ordering(path, descending: descending))
        return with(d)
    }

    /// The first `limit` results.
    @discardableResult
    public func limit(to limit: Int) -> Query {
        requireValid { () throws(FirestoreError) in try limited(to: limit, .first) }
    }

    /// The last `limit` results, still in query order. Needs an explicit order-by, which is
    /// checked when the query runs.
    @discardableResult
    public func limit(toLast limit: Int) -> Query {
        requireValid { () throws(FirestoreError) in try limited(to: limit, .last) }
    }

    /// `limit(to:)` / `limit(toLast:)` with their programmer errors thrown.
    func limited(to limit: Int, _ type: QueryDefinition.LimitType) throws(FirestoreError) -> Query {
        // The SDK keeps limits as int32, saturating larger values (Int32.max = no limit).
        let saturated = Int(Int32(clamping: limit))
        if saturated <= 0 {
            throw .invalidArgument("Invalid Query. Query limit (\(saturated)) is invalid. Limit must be positive.")
        }
        var d = definition
        d.limit = saturated
        d.limitType = type
        return with(d)
    }

    // MARK: Cursors

    enum CursorEdge { case start, end }

    /// Starts at the position given by values for the explicit order-bys (a prefix is fine).
    @discardableResult
    public func start(at fieldValues: [Any]) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.start, values: fieldValues, inclusive: true) }
    }

    @discardableResult
    public func start(after fieldValues: [Any]) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.start, values: fieldValues, inclusive: false) }
    }

    @discardableResult
    public func end(at fieldValues: [Any]) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.end, values: fieldValues, inclusive: true) }
    }

    @discardableResult
    public func end(before fieldValues: [Any]) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.end, values: fieldValues, inclusive: false) }
    }

    /// Starts at `document`: its values for the whole normalised order (explicit order-bys,
    /// inequality fields, document ID), so the position is exact.
    @discardableResult
    public func start(atDocument document: DocumentSnapshot) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.start, document: document, inclusive: true) }
    }

    @discardableResult
    public func start(afterDocument document: DocumentSnapshot) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.start, document: document, inclusive: false) }
    }

    @discardableResult
    public func end(atDocument document: DocumentSnapshot) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.end, document: document, inclusive: true) }
    }

    @discardableResult
    public func end(beforeDocument document: DocumentSnapshot) -> Query {
        requireValid { () throws(FirestoreError) in try bounded(.end, document: document, inclusive: false) }
    }

    private func with(_ edge: CursorEdge, _ values: [Value], inclusive: Bool) -> Query {
        var d = definition
        // A start cursor is "before" its values when inclusive; an end cursor when exclusive.
        switch edge {
        case .start: d.startAt = Cursor(values: values, before: inclusive)
        case .end: d.endAt = Cursor(values: values, before: !inclusive)
        }
        return with(d)
    }

    /// A value cursor with its programmer errors thrown.
    func bounded(_ edge: CursorEdge, values fieldValues: [Any], inclusive: Bool) throws(FirestoreError) -> Query {
        let explicit = definition.orderBy
        if fieldValues.count > explicit.count {
            throw .invalidArgument("Invalid query. You are trying to start or end a query using more values than were specified in the order by.")
        }
        let reader = UserDataReader(firestore: firestore)
        var values: [Value] = []
        for (raw, ordering) in zip(fieldValues, explicit) {
            let value = try reader.argumentValue(raw)
            guard ordering.field.isDocumentName else {
                values.append(value)
                continue
            }
            guard case .string(let id) = value else {
                throw .invalidArgument("Invalid query. Expected a string for the document ID.")
            }
            if !definition.allDescendants && id.utf8.contains(UInt8(ascii: "/")) {
                throw .invalidArgument("Invalid query. When querying a collection and ordering by document ID, you must pass a plain document ID, but '\(id)' contains a slash.")
            }
            let path = definition.documentIDBase.appending(Self.slashSeparated(id))
            guard path.isDocument else {
                throw .invalidArgument("Invalid query. When querying a collection group and ordering by document ID, you must pass a value that results in a valid document path, but '\(path)' is not because it contains an odd number of segments.")
            }
            values.append(.reference(DocumentName(database: firestore.database.id, path: path)))
        }
        return with(edge, values, inclusive: inclusive)
    }

    /// A document cursor with its programmer errors thrown.
    func bounded(_ edge: CursorEdge, document snapshot: DocumentSnapshot, inclusive: Bool) throws(FirestoreError) -> Query {
        guard let document = snapshot.document else {
            throw .invalidArgument("Invalid query. You are trying to start or end a query using a document that doesn't exist.")
        }
        var values: [Value] = []
        for ordering in definition.normalizedOrderBy {
            if ordering.field.isDocumentName {
                values.append(.reference(DocumentName(database: firestore.database.id, path: snapshot.path)))
            } else if let value = document.fields.value(at: ordering.field) {
                values.append(value)
            } else {
                throw .invalidArgument("Invalid query. You are trying to start or end a query using a document for which the field '\(ordering.field.serverFormat)' (used as the order by) does not exist.")
            }
        }
        return with(edge, values, inclusive: inclusive)
    }

    // MARK: Reads

    /// The SDK's one check made when a query runs rather than when it is built.
    func checkRunnable() throws(FirestoreError) {
        if definition.limitType == .last && definition.orderBy.isEmpty {
            throw .invalidArgument("limit(toLast:) queries require specifying at least one OrderBy() clause.")
        }
    }

    /// Runs the query now, on the database (`.default`, `.server`) or on this instance's
    /// cache (`.cache`: `LocalCache`, with no index requirements); engine errors (missing
    /// index, server-side limits) are thrown as `FirestoreErrorCode`.
    func run(source: FirestoreSource = .default) throws(FirestoreErrorCode) -> QuerySnapshot {
        firestore.ensureActive()
        requireValid { () throws(FirestoreError) in try checkRunnable() }
        var documents: [HearthCore.Document]
        var readTime: HearthCore.Timestamp?
        var pending: Set<ResourcePath> = []
        // Offline, the default source reads the cache and `.server` fails, as the SDK's
        // query_core.cc answers from the snapshot its cache raises (FIRFirestoreSourceTests
        // testGetCollectionWhileOfflineWithDefaultSource, …ServerOnly).
        let fromCache = source == .cache || firestore.local.isOffline
        if source == .server && fromCache {
            throw FirestoreErrorCode(.unavailable, message: "Failed to get documents from server. (However, these documents may exist in the local cache. Run again without setting source to FirestoreSourceServer to retrieve the cached documents.)")
        }
        if !fromCache { try firestore.readFault(.runQuery, [definition.structuredQuery.collectionPath]) }
        do {
            let query = definition.structuredQuery
            if fromCache {
                // As the SDK's local documents view: the instance's pending writes show.
                let local = firestore.local.localState()
                documents = try firestore.local.cachedDocuments(matching: query, local: local.state, pending: local.pending)
                pending = local.pending
            } else {
                try firestore.access.checkQuery(query, in: firestore.database)
                firestore.local.acknowledgeAll()
                let result = try firestore.database.runQuery(query)
                documents = result.documents
                readTime = result.readTime
                firestore.local.cache.record(query, results: documents)
            }
        } catch {
            throw FirestoreErrorCode(error)
        }
        if definition.limitType == .last { documents.reverse() }
        let metadata: SnapshotMetadata = fromCache ? .cache : .server
        var anyPending = false
        let snapshots = documents.map { doc in
            // Hashing a path per result is not free: a server read has no pending set.
            let isPending = !pending.isEmpty && pending.contains(doc.path)
            anyPending = anyPending || isPending
            return QueryDocumentSnapshot(firestore: firestore, document: doc, metadata: isPending ? .pendingInCache : metadata)
        }
        return QuerySnapshot(query: self, documents: snapshots, metadata: anyPending ? .pendingInCache : metadata, readTime: readTime)
    }

    public func getDocuments(completion: @escaping (QuerySnapshot?, Error?) -> Void) {
        getDocuments(source: .default, completion: completion)
    }

    public func getDocuments(source: FirestoreSource, completion: @escaping (QuerySnapshot?, Error?) -> Void) {
        let completion = sendable(completion)
        do {
            let snapshot = try run(source: source)
            firestore.deliver { completion(snapshot, nil) }
        } catch {
            firestore.deliver { completion(nil, error) }
        }
    }

    public func getDocuments() async throws -> QuerySnapshot { try run() }

    public func getDocuments(source: FirestoreSource) async throws -> QuerySnapshot { try run(source: source) }

    // MARK: Aggregation

    /// Counts the query's results (`aggregate([.count()])`).
    public var count: AggregateQuery { aggregate([.count()]) }

    /// Computes count / sum / average over the query's results on the server.
    @discardableResult
    public func aggregate(_ aggregateFields: [AggregateField]) -> AggregateQuery {
        AggregateQuery(query: self, fields: aggregateFields)
    }
}
