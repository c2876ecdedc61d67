import Foundation
import HearthCore

/// `StructuredQuery` and `StructuredAggregationQuery` JSON → the core query model
/// (google/firestore/v1/query.proto; enums as names or numbers).
enum ProtoQuery {
    static let fieldOperators: [String: Int] = [
        "OPERATOR_UNSPECIFIED": 0, "LESS_THAN": 1, "LESS_THAN_OR_EQUAL": 2, "GREATER_THAN": 3,
        "GREATER_THAN_OR_EQUAL": 4, "EQUAL": 5, "NOT_EQUAL": 6, "ARRAY_CONTAINS": 7, "IN": 8,
        "ARRAY_CONTAINS_ANY": 9, "NOT_IN": 10,
    ]
    static let fieldOperatorCases: [Int: FieldOperator] = [
        1: .lessThan, 2: .lessThanOrEqual, 3: .greaterThan, 4: .greaterThanOrEqual, 5: .equal,
        6: .notEqual, 7: .arrayContains, 8: .in, 9: .arrayContainsAny, 10: .notIn,
    ]
    static let unaryOperators: [String: Int] = ["OPERATOR_UNSPECIFIED": 0, "IS_NAN": 2, "IS_NULL": 3, "IS_NOT_NAN": 4, "IS_NOT_NULL": 5]
    static let unaryCases: [Int: UnaryOperator] = [2: .isNaN, 3: .isNull, 4: .isNotNaN, 5: .isNotNull]
    static let compositeOperators: [String: Int] = ["OPERATOR_UNSPECIFIED": 0, "AND": 1, "OR": 2]
    static let directions: [String: Int] = ["DIRECTION_UNSPECIFIED": 0, "ASCENDING": 1, "DESCENDING": 2]
    static let distanceMeasures: [String: Int] = ["DISTANCE_MEASURE_UNSPECIFIED": 0, "EUCLIDEAN": 1, "COSINE": 2, "DOT_PRODUCT": 3]

    static func decode(_ json: JSON, parent: ResourcePath, context: String = "structured_query") throws(FirestoreError) -> StructuredQuery {
        var o = try ProtoObject(json, context: context)
        var query = StructuredQuery(parent: parent, collectionID: "")
        if let select = o.take("select") {
            var s = try ProtoObject(select, context: context + ".select")
            var fields: [FieldPath] = []
            if let list = s.take("fields") {
                guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".select.fields", type: "TYPE_MESSAGE") }
                for (i, item) in items.enumerated() { fields.append(try fieldReference(item, context: "\(context).select.fields[\(i)]")) }
            }
            try s.finish()
            query.projection = fields
        }
        var hasFrom = false
        if let from = o.take("from") {
            guard case .array(let items) = from else { throw ProtoJSON.badValue(from, context: context + ".from", type: "TYPE_MESSAGE") }
            guard items.count <= 1 else { throw .tooManyCollectionSelectors }
            if let item = items.first {
                hasFrom = true
                var f = try ProtoObject(item, context: context + ".from[0]")
                query.collectionID = try f.take("collectionId").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: context + ".from[0].collection_id") } ?? ""
                query.allDescendants = try f.take("allDescendants").map { j throws(FirestoreError) in try ProtoJSON.bool(j, context: context + ".from[0].all_descendants") } ?? false
                try f.finish()
            }
        }
        if let w = o.take("where") {
            let f = try filter(w, context: context + ".where")
            guard hasFrom else { throw .kindRequired(forFilterOn: f.leaves.first?.field?.serverFormat ?? "") }
            query.filter = f
        }
        if let orderBy = o.take("orderBy") {
            guard case .array(let items) = orderBy else { throw ProtoJSON.badValue(orderBy, context: context + ".order_by", type: "TYPE_MESSAGE") }
            for (i, item) in items.enumerated() {
                let ctx = "\(context).order_by[\(i)]"
                var ob = try ProtoObject(item, context: ctx)
                guard let field = ob.take("field") else { throw .invalidArgument("An order_by needs a field (at '\(ctx)').") }
                let path = try fieldReference(field, context: ctx + ".field")
                let direction = try ob.take("direction").map { j throws(FirestoreError) in try ProtoJSON.enumCase(j, context: ctx + ".direction", names: directions) } ?? 0
                try ob.finish()
                query.orderBy.append(Ordering(path, descending: direction == 2))
            }
        }
        if let c = o.take("startAt") { query.startAt = try cursor(c, context: context + ".start_at") }
        if let c = o.take("endAt") { query.endAt = try cursor(c, context: context + ".end_at") }
        if let off = o.take("offset") {
            let n = try ProtoJSON.int32(off, context: context + ".offset")
            guard n >= 0 else { throw .negativeOffset }
            query.offset = Int(n)
        }
        if let lim = o.take("limit") {
            // google.protobuf.Int32Value: in JSON, the bare number (`{"value": n}` is not its
            // JSON form; the official emulator refuses it too).
            let n = try ProtoJSON.int32(lim, context: context + ".limit")
            guard n >= 0 else { throw .negativeLimit }
            query.limit = Int(n)
        }
        if let fn = o.take("findNearest") { query.findNearest = try findNearest(fn, context: context + ".find_nearest") }
        try o.finish()
        return query
    }

    static func fieldReference(_ json: JSON, context: String) throws(FirestoreError) -> FieldPath {
        var o = try ProtoObject(json, context: context)
        guard let fp = o.take("fieldPath") else { throw .invalidArgument("A field reference needs a field_path (at '\(context)').") }
        try o.finish()
        return try FieldPath.parseServerFormat(try ProtoJSON.string(fp, context: context + ".field_path"))
    }

    static func filter(_ json: JSON, context: String) throws(FirestoreError) -> QueryFilter {
        var o = try ProtoObject(json, context: context)
        let composite = o.take("compositeFilter")
        let field = o.take("fieldFilter")
        let unary = o.take("unaryFilter")
        try o.finish()
        let set = [composite, field, unary].compactMap { $0 }
        guard set.count == 1 else {
            throw ProtoJSON.invalid(set.isEmpty ? "A filter must set one of composite_filter, field_filter, unary_filter" : "Multiple values for oneof filter_type", context: context)
        }
        if let composite {
            let ctx = context + ".composite_filter"
            var c = try ProtoObject(composite, context: ctx)
            let op = try c.take("op").map { j throws(FirestoreError) in try ProtoJSON.enumCase(j, context: ctx + ".op", names: compositeOperators) } ?? 0
            var children: [QueryFilter] = []
            if let list = c.take("filters") {
                guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: ctx + ".filters", type: "TYPE_MESSAGE") }
                for (i, item) in items.enumerated() { children.append(try filter(item, context: "\(ctx).filters[\(i)]")) }
            }
            try c.finish()
            guard op != 0 else { throw .invalidArgument("A composite filter needs an operator (AND or OR) (at '\(ctx).op').") }
            return .composite(op == 2 ? .or : .and, children)
        }
        if let field {
            let ctx = context + ".field_filter"
            var f = try ProtoObject(field, context: ctx)
            guard let fieldRef = f.take("field") else { throw .invalidArgument("A field filter needs a field (at '\(ctx)').") }
            let path = try fieldReference(fieldRef, context: ctx + ".field")
            let opNumber = try f.take("op").map { j throws(FirestoreError) in try ProtoJSON.enumCase(j, context: ctx + ".op", names: fieldOperators) } ?? 0
            guard let valueJSON = f.take("value") else { throw .unsetValue }
            let value = try ProtoValue.decode(valueJSON, context: ctx + ".value")
            try f.finish()
            guard let op = fieldOperatorCases[opNumber] else { throw .invalidArgument("A field filter needs an operator (at '\(ctx).op').") }
            return .field(path, op, value)
        }
        let ctx = context + ".unary_filter"
        var u = try ProtoObject(unary!, context: ctx)
        let opNumber = try u.take("op").map { j throws(FirestoreError) in try ProtoJSON.enumCase(j, context: ctx + ".op", names: unaryOperators) } ?? 0
        guard let fieldRef = u.take("field") else { throw .invalidArgument("A unary filter needs a field (at '\(ctx)').") }
        let path = try fieldReference(fieldRef, context: ctx + ".field")
        try u.finish()
        guard let op = unaryCases[opNumber] else { throw .invalidArgument("A unary filter needs an operator (at '\(ctx).op').") }
        return .unary(path, op)
    }

    static func cursor(_ json: JSON, context: String) throws(FirestoreError) -> Cursor {
        var o = try ProtoObject(json, context: context)
        var values: [Value] = []
        if let list = o.take("values") {
            guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".values", type: "TYPE_MESSAGE") }
            for (i, item) in items.enumerated() { values.append(try ProtoValue.decode(item, context: "\(context).values[\(i)]")) }
        }
        let before = try o.take("before").map { j throws(FirestoreError) in try ProtoJSON.bool(j, context: context + ".before") } ?? false
        try o.finish()
        return Cursor(values: values, before: before)
    }

    static func findNearest(_ json: JSON, context: String) throws(FirestoreError) -> FindNearest {
        var o = try ProtoObject(json, context: context)
        guard let vf = o.take("vectorField") else { throw .invalidArgument("find_nearest needs a vector_field (at '\(context)').") }
        let field = try fieldReference(vf, context: context + ".vector_field")
        guard let qv = o.take("queryVector") else { throw .invalidArgument("find_nearest needs a query_vector (at '\(context)').") }
        guard case .vector(let vector) = try ProtoValue.decode(qv, context: context + ".query_vector") else {
            throw .invalidArgument("find_nearest query_vector must be a vector value (at '\(context).query_vector').")
        }
        let measureNumber = try o.take("distanceMeasure").map { j throws(FirestoreError) in try ProtoJSON.enumCase(j, context: context + ".distance_measure", names: distanceMeasures) } ?? 0
        guard let lim = o.take("limit") else { throw .invalidArgument("find_nearest needs a limit (at '\(context)').") }
        let limit = try ProtoJSON.int32(lim, context: context + ".limit")
        let resultField = try o.take("distanceResultField").map { j throws(FirestoreError) in try FieldPath.parseServerFormat(try ProtoJSON.string(j, context: context + ".distance_result_field")) }
        let threshold = try o.take("distanceThreshold").map { j throws(FirestoreError) in try ProtoJSON.double(j, context: context + ".distance_threshold") }
        try o.finish()
        let measures: [Int: FindNearest.DistanceMeasure] = [1: .euclidean, 2: .cosine, 3: .dotProduct]
        guard let measure = measures[measureNumber] else { throw .invalidArgument("find_nearest needs a distance_measure (at '\(context).distance_measure').") }
        guard limit > 0, limit <= 1000 else { throw .invalidArgument("find_nearest limit must be between 1 and 1000, but was \(limit).") }
        return FindNearest(vectorField: field, queryVector: vector, distanceMeasure: measure, limit: Int(limit),
                           distanceResultField: resultField, distanceThreshold: threshold)
    }

    /// `StructuredAggregationQuery`: the query and its aggregations (aliases default to
    /// `field_1`, `field_2`… as production names them).
    static func decodeAggregation(_ json: JSON, parent: ResourcePath) throws(FirestoreError) -> (StructuredQuery, [Aggregation]) {
        let context = "structured_aggregation_query"
        var o = try ProtoObject(json, context: context)
        guard let sq = o.take("structuredQuery") else { throw .invalidArgument("structured_aggregation_query needs a structured_query.") }
        let query = try decode(sq, parent: parent, context: context + ".structured_query")
        var aggregations: [Aggregation] = []
        if let list = o.take("aggregations") {
            guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".aggregations", type: "TYPE_MESSAGE") }
            for (i, item) in items.enumerated() {
                let ctx = "\(context).aggregations[\(i)]"
                var a = try ProtoObject(item, context: ctx)
                let alias = try a.take("alias").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: ctx + ".alias") } ?? "field_\(i + 1)"
                var kinds: [Aggregation.Kind] = []
                if let c = a.take("count") {
                    var co = try ProtoObject(c, context: ctx + ".count")
                    let upTo = try co.take("upTo").map { j throws(FirestoreError) in try ProtoJSON.int64(j, context: ctx + ".count.up_to") }
                    try co.finish()
                    kinds.append(.count(upTo: upTo))
                }
                if let s = a.take("sum") { kinds.append(.sum(try aggregationField(s, context: ctx + ".sum"))) }
                if let s = a.take("avg") { kinds.append(.average(try aggregationField(s, context: ctx + ".avg"))) }
                try a.finish()
                guard kinds.count == 1 else {
                    if kinds.isEmpty { throw .missingAggregationOperator }
                    throw ProtoJSON.invalid("Multiple values for oneof operator", context: ctx)
                }
                aggregations.append(Aggregation(kinds[0], alias: alias))
            }
        }
        try o.finish()
        return (query, aggregations)
    }

    private static func aggregationField(_ json: JSON, context: String) throws(FirestoreError) -> FieldPath {
        var o = try ProtoObject(json, context: context)
        guard let f = o.take("field") else { throw .invalidArgument("The aggregation needs a field (at '\(context).field').") }
        try o.finish()
        return try fieldReference(f, context: context + ".field")
    }
}
