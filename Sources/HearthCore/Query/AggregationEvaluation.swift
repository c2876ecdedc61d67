/// count / sum / average over a query's results (docs/semantics.md#aggregations).
enum AggregationEvaluation {
    /// Production's cap on aggregations per request.
    static let maxAggregations = 5

    static func validate(_ aggregations: [Aggregation]) throws(FirestoreError) {
        if aggregations.isEmpty { throw .invalidArgument("Aggregations can not be empty.") }
        // The same aggregation twice is one aggregation.
        var distinct: [Aggregation.Kind] = []
        var aliases = Set<String>()
        for a in aggregations {
            if !distinct.contains(a.kind) { distinct.append(a.kind) }
            if !aliases.insert(a.alias).inserted { throw .invalidArgument("Aggregation aliases contain duplicate alias: \(a.alias).") }
            if case .count(let upTo?) = a.kind, upTo < 0 {
                throw .invalidArgument("The `up_to` value in a COUNT aggregation must be greater than or equal to zero.")
            }
            if let f = a.field, f.isDocumentName { throw .invalidArgument("Cannot aggregate on __name__.") }
        }
        if distinct.count > maxAggregations {
            throw .invalidArgument("The query exceeds the maximum number of aggregations allowed (\(maxAggregations)); it has \(distinct.count).")
        }
    }

    /// `documents` are the query's results (limit applied); only those having every
    /// sum/average field take part.
    static func evaluate(_ aggregations: [Aggregation], over documents: [Document]) -> [String: Value] {
        let fields = aggregations.compactMap(\.field)
        let docs = fields.isEmpty ? documents : documents.filter { d in fields.allSatisfy { d.fields.value(at: $0) != nil } }
        var out: [String: Value] = [:]
        for a in aggregations {
            switch a.kind {
            case .count(let upTo):
                out[a.alias] = .integer(Int64(upTo.map { min(Int($0), docs.count) } ?? docs.count))
            case .sum(let f):
                out[a.alias] = sum(docs.compactMap { $0.fields.value(at: f) }).value
            case .average(let f):
                let s = sum(docs.compactMap { $0.fields.value(at: f) })
                out[a.alias] = s.count == 0 ? .null : .double(s.asDouble / Double(s.count))
            }
        }
        return out
    }

    /// Integers are summed exactly (overflow is judged on the final result); any double
    /// makes the result a double.
    private static func sum(_ values: [Value]) -> (value: Value, asDouble: Double, count: Int) {
        var ints: Int128 = 0, doubles = 0.0, sawDouble = false, count = 0
        for v in values {
            switch v {
            case .integer(let i): ints += Int128(i); count += 1
            case .double(let d): doubles += d; sawDouble = true; count += 1
            default: continue
            }
        }
        let total = Double(ints) + doubles
        if !sawDouble, let exact = Int64(exactly: ints) { return (.integer(exact), total, count) }
        return (.double(total), total, count)
    }
}
