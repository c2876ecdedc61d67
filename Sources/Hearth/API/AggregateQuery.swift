import Foundation
import HearthCore

/// Where an aggregation runs. Aggregations are computed by the server only; Hearth's
/// embedded database is that server.
public enum AggregateSource: UInt, Sendable {
    case server
}

/// One aggregation to compute: `count()`, `sum(field)` or `average(field)`. Fields compare
/// by value, so a fresh `AggregateField.sum("pages")` reads the result of an earlier one.
public final class AggregateField: @unchecked Sendable, Hashable, CustomStringConvertible {
    enum Operation: Hashable { case count, sum, average }

    let operation: Operation
    let fieldPath: HearthCore.FieldPath?

    private init(_ operation: Operation, _ fieldPath: HearthCore.FieldPath?) {
        self.operation = operation
        self.fieldPath = fieldPath
    }

    /// The number of documents in the query's results.
    public static func count() -> AggregateField { AggregateField(.count, nil) }

    /// The sum of the numeric values of a field (dotted path).
    public static func sum(_ field: String) -> AggregateField { AggregateField(.sum, Query.parseFieldPath(field)) }

    public static func sum(_ fieldPath: FieldPath) -> AggregateField { AggregateField(.sum, fieldPath.core) }

    /// The average of the numeric values of a field (dotted path); null over no values.
    public static func average(_ field: String) -> AggregateField { AggregateField(.average, Query.parseFieldPath(field)) }

    public static func average(_ fieldPath: FieldPath) -> AggregateField { AggregateField(.average, fieldPath.core) }

    /// The SDK's name for the operation, as in its messages.
    var name: String {
        switch operation {
        case .count: "count"
        case .sum: "sum"
        case .average: "avg"
        }
    }

    /// The SDK's alias: `count`, `sum_<path>`, `avg_<path>`. Equal fields share it, so a
    /// repeated aggregation is computed once.
    var alias: String { fieldPath.map { "\(name)_\($0.serverFormat)" } ?? name }

    var aggregation: Aggregation {
        switch operation {
        case .count: Aggregation(.count(upTo: nil), alias: alias)
        case .sum: Aggregation(.sum(fieldPath!), alias: alias)
        case .average: Aggregation(.average(fieldPath!), alias: alias)
        }
    }

    public static func == (a: AggregateField, b: AggregateField) -> Bool {
        a.operation == b.operation && a.fieldPath == b.fieldPath
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(operation)
        hasher.combine(fieldPath)
    }

    public var description: String { "\(name)(\(fieldPath?.serverFormat ?? ""))" }
}

/// A query's results reduced to aggregations (`query.count`, `query.aggregate([...])`).
public final class AggregateQuery: @unchecked Sendable, Hashable {
    /// The query aggregated.
    public let query: Query
    let fields: [AggregateField]

    init(query: Query, fields: [AggregateField]) {
        self.query = query
        self.fields = fields
    }

    public static func == (a: AggregateQuery, b: AggregateQuery) -> Bool {
        a.query == b.query && a.fields == b.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(query)
        hasher.combine(fields)
    }

    /// Runs the aggregations over the query's results (filters, cursors and limit apply);
    /// engine errors (no aggregations, more than five, missing index…) are thrown.
    func run() throws(FirestoreErrorCode) -> AggregateQuerySnapshot {
        let firestore = query.firestore
        firestore.ensureActive()
        // The SDK's RemoteStore::RunAggregateQuery answer with the network disabled
        // (FIRCountTests testFailWithoutNetwork).
        if firestore.local.isOffline { throw FirestoreErrorCode(.unavailable, message: "Failed to get result from server.") }
        // The SDK's RunAggregationQuery: its faults (docs/faults.md), over the query's collection.
        try firestore.readFault(.runAggregationQuery, [query.definition.structuredQuery.collectionPath])
        // Like the SDK, a repeated aggregation is sent once.
        var aggregations: [Aggregation] = []
        for f in fields where !aggregations.contains(where: { $0.alias == f.alias }) {
            aggregations.append(f.aggregation)
        }
        do {
            try firestore.access.checkQuery(query.definition.structuredQuery, in: firestore.database)
            let result = try firestore.database.runAggregation(query.definition.structuredQuery, aggregations: aggregations)
            return AggregateQuerySnapshot(query: self, values: result.values)
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    public func getAggregation(source: AggregateSource, completion: @escaping (AggregateQuerySnapshot?, Error?) -> Void) {
        let completion = sendable(completion)
        let firestore = query.firestore
        do {
            let snapshot = try run()
            firestore.deliver { completion(snapshot, nil) }
        } catch {
            firestore.deliver { completion(nil, error) }
        }
    }

    public func getAggregation(source: AggregateSource) async throws -> AggregateQuerySnapshot { try run() }
}

/// The results of an aggregate query.
public final class AggregateQuerySnapshot: @unchecked Sendable, Hashable {
    /// The aggregate query that produced these results.
    public let query: AggregateQuery
    /// The engine's values by alias.
    let values: [String: Value]

    init(query: AggregateQuery, values: [String: Value]) {
        self.query = query
        self.values = values
    }

    /// The number of documents (an Int64 NSNumber). A programmer error when `count()` was
    /// not requested.
    public var count: NSNumber {
        self.get(.count()) as! NSNumber
    }

    /// The result of an aggregation: an NSNumber (Int64 for counts and integer sums, Double
    /// otherwise), or NSNull for the average of no values. A programmer error when the
    /// aggregation was not requested.
    public func get(_ aggregateField: AggregateField) -> Any {
        requireValid { () throws(FirestoreError) in try value(for: aggregateField) }
    }

    /// `get(_:)` with its programmer error thrown.
    func value(for field: AggregateField) throws(FirestoreError) -> Any {
        guard let v = values[field.alias] else {
            throw .invalidArgument("'\(field.name)(\(field.fieldPath?.serverFormat ?? ""))' was not requested in the aggregation query.")
        }
        return UserDataWriter(firestore: query.query.firestore).value(v)
    }

    public static func == (a: AggregateQuerySnapshot, b: AggregateQuerySnapshot) -> Bool {
        a.query == b.query && a.values == b.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(query)
        hasher.combine(values)
    }
}
