import Foundation

/// The documents a query returned and the read time they reflect.
public struct QueryResult: Sendable {
    public let documents: [Document]
    public let readTime: Timestamp
    /// Matching documents the query's offset skipped.
    public var skippedResults: Int = 0

    public init(documents: [Document], readTime: Timestamp, skippedResults: Int = 0) {
        self.documents = documents
        self.readTime = readTime
        self.skippedResults = skippedResults
    }
}

/// The values of an aggregation query, by alias, and their read time.
public struct AggregationResult: Sendable {
    public let values: [String: Value]
    public let readTime: Timestamp
}

/// Query entry points: validate and normalise, check index requirements per the index mode,
/// materialise the indexes the plan needs, run.
extension Database {
    /// Runs `query` now, or at a retained `readTime`.
    public func runQuery(_ query: StructuredQuery, readTime: Timestamp? = nil) throws(FirestoreError) -> QueryResult {
        let normalized = try NormalizedQuery(query, database: id)
        try checkIndexes(normalized, aggregations: [])
        if let nearest = query.findNearest {
            // The where clause pre-filters; the distance order replaces order-by and limit.
            var candidates = query
            candidates.findNearest = nil
            candidates.limit = nil
            candidates.offset = 0
            let (docs, time, _, _) = try execute(try NormalizedQuery(candidates, database: id), readTime: readTime, limit: nil)
            return QueryResult(documents: Self.project(VectorSearch.nearest(nearest, among: docs), query.projection), readTime: time)
        }
        let (docs, time, _, skipped) = try execute(normalized, readTime: readTime, limit: nil)
        return QueryResult(documents: Self.project(docs, query.projection), readTime: time, skippedResults: skipped)
    }

    /// Runs `query` inside a server transaction: a read-only one reads its fixed state; a
    /// read-write one reads the present and records the query, so a change before the commit
    /// to a document it returned, or to one that would now match (a phantom), aborts the
    /// transaction — what production's locks on the scanned range guarantee.
    public func runQuery(_ query: StructuredQuery, transaction: TransactionID) throws(FirestoreError) -> QueryResult {
        if let point = try queryReadPoint(transaction) {
            let normalized = try NormalizedQuery(query, database: id)
            try checkIndexes(normalized, aggregations: [])
            // The fixed state's own indexes may lack what this query needs: scan it as of its time.
            let (docs, skipped) = QueryExecutor(query: normalized, state: point.state, readTime: point.readTime ?? point.state.readTime)
                .runCountingSkipped()
            return QueryResult(documents: Self.project(docs, query.projection), readTime: point.readTime ?? point.state.readTime,
                               skippedResults: skipped)
        }
        guard query.findNearest == nil else {
            let result = try runQuery(query)
            try recordReads(result.documents, transaction: transaction)
            return result
        }
        let normalized = try NormalizedQuery(query, database: id)
        try checkIndexes(normalized, aggregations: [])
        let (docs, time, state, skipped) = try execute(normalized, readTime: nil, limit: nil)
        let limited = query.limit.map { docs.count >= $0 } ?? false
        try recordReads(docs, query: ServerTransaction.QueryRead(query: normalized, state: state, lastWhenLimited: limited ? docs.last : nil),
                        transaction: transaction)
        return QueryResult(documents: Self.project(docs, query.projection), readTime: time, skippedResults: skipped)
    }

    /// Runs count / sum / average aggregations over `query`'s results.
    public func runAggregation(_ query: StructuredQuery, aggregations: [Aggregation], readTime: Timestamp? = nil) throws(FirestoreError) -> AggregationResult {
        try aggregate(query, aggregations, readTime: readTime).result
    }

    /// Runs aggregations inside a server transaction: a read-only one reads its fixed state;
    /// a read-write one reads the present and records the query, so a change before the
    /// commit to a document it covered (or one that would now match) aborts the transaction.
    public func runAggregation(_ query: StructuredQuery, aggregations: [Aggregation], transaction: TransactionID) throws(FirestoreError) -> AggregationResult {
        if let point = try queryReadPoint(transaction) {
            return try runAggregation(query, aggregations: aggregations, readTime: point.readTime ?? point.state.readTime)
        }
        let (result, normalized, limited, state) = try aggregate(query, aggregations, readTime: nil)
        try recordReads([], query: ServerTransaction.QueryRead(query: normalized, state: state, lastWhenLimited: limited), transaction: transaction)
        return result
    }

    /// The aggregation, the normalised query, the last document when a limit cut the
    /// documents short, and the state read.
    private func aggregate(_ query: StructuredQuery, _ aggregations: [Aggregation], readTime: Timestamp?) throws(FirestoreError)
        -> (result: AggregationResult, query: NormalizedQuery, lastWhenLimited: Document?, state: DatabaseState) {
        try AggregationEvaluation.validate(aggregations)
        let normalized = try NormalizedQuery(query, database: id, aggregatedFields: aggregations.compactMap(\.field))
        try checkIndexes(normalized, aggregations: aggregations)
        // A count with `up_to` needs no more documents than that.
        var limit = query.limit
        if aggregations.allSatisfy({ if case .count(_?) = $0.kind { true } else { false } }) {
            let cap = aggregations.compactMap { if case .count(let upTo?) = $0.kind { Int(upTo) } else { nil } }.max()!
            limit = min(limit ?? cap, cap)
        }
        let (docs, time, state, _) = try execute(normalized, readTime: readTime, limit: limit)
        let limited = limit.map { docs.count >= $0 } ?? false
        return (AggregationResult(values: AggregationEvaluation.evaluate(aggregations, over: docs), readTime: time),
                normalized, limited ? docs.last : nil, state)
    }

    /// The composite indexes the queries so far needed, as a `firestore.indexes.json`.
    public func learnedIndexes() -> IndexConfiguration {
        withIndexing { indexing in
            var learned = IndexConfiguration()
            for index in indexing.learned { learned.insert(index) }
            return learned
        }
    }

    /// Replaces the declared indexes and the index mode, and builds the declared indexes
    /// (`IndexConfiguration.declaredDefinitions`) the database lacks: one pass over its
    /// documents each, now, instead of at the first query that needs it.
    public func configureIndexes(_ configuration: IndexConfiguration, mode: IndexMode) {
        configureIndexing(configuration, mode: mode)
    }

    public var indexMode: IndexMode { withIndexing { $0.mode } }

    /// The declared indexes and field overrides (`firestore.indexes.json`).
    public var indexConfiguration: IndexConfiguration { withIndexing { $0.configuration } }

    // MARK: Internals

    /// The documents, the read time they reflect and the state they were read from.
    private func execute(_ query: NormalizedQuery, readTime: Timestamp?, limit: Int?) throws(FirestoreError)
        -> ([Document], Timestamp, DatabaseState, skipped: Int) {
        var s = try readTime.map { t throws(FirestoreError) in try state(readTime: t) } ?? state()
        let plans = QueryPlanner.plans(for: query)
        if readTime.map({ $0 >= s.readTime }) ?? true {
            let needed = QueryExecutor.requiredIndexes(plans)
            if needed.contains(where: { s.indexes.entries($0) == nil }) { s = materializing(needed) }
        }
        // Indexes describe the state's present; an earlier read time is served by a scan.
        let past = readTime.flatMap { $0 < s.readTime ? $0 : nil }
        let (docs, skipped) = QueryExecutor(query: query, state: s, readTime: past, plans: plans).runCountingSkipped(limit: limit)
        return (docs, past ?? s.readTime, s, skipped)
    }

    func checkIndexes(_ query: NormalizedQuery, aggregations: [Aggregation]) throws(FirestoreError) {
        let (configuration, mode) = withIndexing { ($0.configuration, $0.mode) }
        if mode == .off { return }
        let missing = IndexRequirements.missingIndexes(for: query, aggregations: aggregations, configuration: configuration)
        if missing.isEmpty { return }
        let unlogged = withIndexing { indexing -> [IndexDefinition] in
            for m in missing where !indexing.learned.contains(m) { indexing.learned.append(m) }
            return mode == .warn ? missing.filter { indexing.warned.insert($0).inserted } : []
        }
        switch mode {
        case .enforce:
            throw IndexRequirements.missingIndexError(missing[0], database: id, configuration: configuration)
        case .warn:
            for m in unlogged {
                let error = IndexRequirements.missingIndexError(m, database: id, configuration: configuration)
                HearthLog.warning("production would reject this query: \(error.message)")
            }
        case .learn, .off:
            break
        }
    }

    /// `select`: only the listed fields (an empty list keeps only the names).
    static func project(_ documents: [Document], _ fields: [FieldPath]?) -> [Document] {
        guard let fields else { return documents }
        return documents.map { doc in
            var projected = MapValue()
            for f in fields where !f.isDocumentName {
                if let v = doc.fields.value(at: f) { projected.setValue(v, at: f) }
            }
            var d = doc
            d.fields = projected
            return d
        }
    }
}
