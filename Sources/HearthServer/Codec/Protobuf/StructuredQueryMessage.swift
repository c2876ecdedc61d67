import HearthCore
import HearthGRPC
import HearthProtobuf

/// `google.firestore.v1.StructuredQuery` (all of query.proto) ⇄ `HearthCore.StructuredQuery`,
/// plus `Cursor` and `StructuredAggregationQuery`.
///
/// StructuredQuery {select = 1 (Projection {fields = 2}), from = 2 (CollectionSelector
/// {collection_id = 2, all_descendants = 3}), where = 3 (Filter), order_by = 4 (Order
/// {field = 1, direction = 2}), limit = 5 (Int32Value), offset = 6, start_at = 7,
/// end_at = 8, find_nearest = 9}. The parent comes from the request, not the message.
/// Validation mirrors the REST mapping (one `from` at most, non-negative offset and limit…).
enum StructuredQueryMessage {
    static let fieldOperators: [Int32: FieldOperator] = [
        1: .lessThan, 2: .lessThanOrEqual, 3: .greaterThan, 4: .greaterThanOrEqual, 5: .equal,
        6: .notEqual, 7: .arrayContains, 8: .in, 9: .arrayContainsAny, 10: .notIn,
    ]
    static let unaryOperators: [Int32: UnaryOperator] = [2: .isNaN, 3: .isNull, 4: .isNotNaN, 5: .isNotNull]
    static let distanceMeasures: [Int32: FindNearest.DistanceMeasure] = [1: .euclidean, 2: .cosine, 3: .dotProduct]

    static func number(of op: FieldOperator) -> Int32 { fieldOperators.first { $0.value == op }!.key }
    static func number(of op: UnaryOperator) -> Int32 { unaryOperators.first { $0.value == op }!.key }
    static func number(of m: FindNearest.DistanceMeasure) -> Int32 { distanceMeasures.first { $0.value == m }!.key }

    static func decode(_ reader: inout ProtoReader, parent: ResourcePath) throws(FirestoreError) -> StructuredQuery {
        var query = StructuredQuery(parent: parent, collectionID: "")
        var fromCount = 0
        var whereFilter: QueryFilter?
        while let key = try reader.next() {
            switch key.number {
            case 1:
                var sub = try reader.readMessage(key)
                var fields: [FieldPath] = query.projection ?? []
                while let k = try sub.next() {
                    if k.number == 2 {
                        var ref = try sub.readMessage(k)
                        fields.append(try decodeFieldReference(&ref))
                    } else {
                        try sub.skip(k)
                    }
                }
                query.projection = fields
            case 2:
                fromCount += 1
                var sub = try reader.readMessage(key)
                while let k = try sub.next() {
                    switch k.number {
                    case 2: query.collectionID = try sub.readString(k)
                    case 3: query.allDescendants = try sub.readBool(k)
                    default: try sub.skip(k)
                    }
                }
            case 3:
                var sub = try reader.readMessage(key)
                whereFilter = try decodeFilter(&sub)
            case 4:
                var sub = try reader.readMessage(key)
                var field: FieldPath?
                var direction: Int32 = 0
                while let k = try sub.next() {
                    switch k.number {
                    case 1:
                        var ref = try sub.readMessage(k)
                        field = try decodeFieldReference(&ref)
                    case 2: direction = try sub.readInt32(k)
                    default: try sub.skip(k)
                    }
                }
                guard let field else { throw .invalidArgument("An order_by needs a field (order_by[\(query.orderBy.count)]).") }
                guard (0...2).contains(direction) else {
                    throw .invalidArgument("Invalid value \(direction) for order_by[\(query.orderBy.count)].direction.")
                }
                query.orderBy.append(Ordering(field, descending: direction == 2))
            case 5:
                var sub = try reader.readMessage(key)
                let n = try WellKnownMessages.decodeInt32Value(&sub)
                guard n >= 0 else { throw .negativeLimit }
                query.limit = Int(n)
            case 6:
                let n = try reader.readInt32(key)
                guard n >= 0 else { throw .negativeOffset }
                query.offset = Int(n)
            case 7:
                var sub = try reader.readMessage(key)
                query.startAt = try decodeCursor(&sub)
            case 8:
                var sub = try reader.readMessage(key)
                query.endAt = try decodeCursor(&sub)
            case 9:
                var sub = try reader.readMessage(key)
                query.findNearest = try decodeFindNearest(&sub)
            default:
                try reader.skip(key)
            }
        }
        guard fromCount <= 1 else { throw .tooManyCollectionSelectors }
        if let whereFilter {
            guard fromCount == 1 else { throw .kindRequired(forFilterOn: whereFilter.leaves.first?.field?.serverFormat ?? "") }
            query.filter = whereFilter
        }
        return query
    }

    static func encode(_ q: StructuredQuery, into w: inout ProtoWriter) {
        if let projection = q.projection {
            w.writeMessage(1) { p in for f in projection { p.writeMessage(2) { encodeFieldReference(f, into: &$0) } } }
        }
        w.writeMessage(2) { s in
            if !q.collectionID.isEmpty { s.writeString(2, q.collectionID) }
            if q.allDescendants { s.writeBool(3, true) }
        }
        if let filter = q.filter { w.writeMessage(3) { encodeFilter(filter, into: &$0) } }
        for o in q.orderBy {
            w.writeMessage(4) { m in
                m.writeMessage(1) { encodeFieldReference(o.field, into: &$0) }
                m.writeInt32(2, o.descending ? 2 : 1)
            }
        }
        if let limit = q.limit { WellKnownMessages.writeInt32Value(5, Int32(clamping: limit), into: &w) }
        if q.offset != 0 { w.writeInt32(6, Int32(clamping: q.offset)) }
        if let c = q.startAt { w.writeMessage(7) { encodeCursor(c, into: &$0) } }
        if let c = q.endAt { w.writeMessage(8) { encodeCursor(c, into: &$0) } }
        if let fn = q.findNearest { w.writeMessage(9) { encodeFindNearest(fn, into: &$0) } }
    }

    // MARK: FieldReference {field_path = 2}

    static func decodeFieldReference(_ reader: inout ProtoReader) throws(FirestoreError) -> FieldPath {
        var path: String?
        while let key = try reader.next() {
            if key.number == 2 { path = try reader.readString(key) } else { try reader.skip(key) }
        }
        guard let path else { throw .invalidArgument("A field reference needs a field_path.") }
        return try FieldPath.parseServerFormat(path)
    }

    static func encodeFieldReference(_ f: FieldPath, into w: inout ProtoWriter) {
        w.writeString(2, f.serverFormat)
    }

    // MARK: Filter {oneof: composite_filter = 1, field_filter = 2, unary_filter = 3}

    static func decodeFilter(_ reader: inout ProtoReader) throws(FirestoreError) -> QueryFilter {
        var result: QueryFilter?
        while let key = try reader.next() {
            switch key.number {
            case 1:
                // CompositeFilter {op = 1 (AND = 1, OR = 2), filters = 2}
                var sub = try reader.readMessage(key)
                var op: Int32 = 0
                var children: [QueryFilter] = []
                while let k = try sub.next() {
                    switch k.number {
                    case 1: op = try sub.readInt32(k)
                    case 2:
                        var child = try sub.readMessage(k)
                        children.append(try decodeFilter(&child))
                    default: try sub.skip(k)
                    }
                }
                guard op == 1 || op == 2 else { throw .invalidArgument("A composite filter needs an operator (AND or OR); got \(op).") }
                result = .composite(op == 1 ? .and : .or, children)
            case 2:
                // FieldFilter {field = 1, op = 2, value = 3}
                var sub = try reader.readMessage(key)
                var field: FieldPath?
                var op: Int32 = 0
                var value: Value?
                while let k = try sub.next() {
                    switch k.number {
                    case 1:
                        var ref = try sub.readMessage(k)
                        field = try decodeFieldReference(&ref)
                    case 2: op = try sub.readInt32(k)
                    case 3:
                        var v = try sub.readMessage(k)
                        value = try ValueMessage.decode(&v)
                    default: try sub.skip(k)
                    }
                }
                guard let field else { throw .invalidArgument("A field filter needs a field.") }
                guard let fieldOp = fieldOperators[op] else { throw .invalidArgument("A field filter needs an operator; got \(op).") }
                guard let value else { throw .unsetValue }
                result = .field(field, fieldOp, value)
            case 3:
                // UnaryFilter {op = 1, field = 2}
                var sub = try reader.readMessage(key)
                var field: FieldPath?
                var op: Int32 = 0
                while let k = try sub.next() {
                    switch k.number {
                    case 1: op = try sub.readInt32(k)
                    case 2:
                        var ref = try sub.readMessage(k)
                        field = try decodeFieldReference(&ref)
                    default: try sub.skip(k)
                    }
                }
                guard let field else { throw .invalidArgument("A unary filter needs a field.") }
                guard let unaryOp = unaryOperators[op] else { throw .invalidArgument("A unary filter needs an operator; got \(op).") }
                result = .unary(field, unaryOp)
            default:
                try reader.skip(key)
            }
        }
        guard let result else { throw .invalidArgument("A filter must set one of composite_filter, field_filter, unary_filter.") }
        return result
    }

    static func encodeFilter(_ f: QueryFilter, into w: inout ProtoWriter) {
        switch f {
        case .composite(let op, let children):
            w.writeMessage(1) { c in
                c.writeInt32(1, op == .and ? 1 : 2)
                for child in children { c.writeMessage(2) { encodeFilter(child, into: &$0) } }
            }
        case .field(let path, let op, let value):
            w.writeMessage(2) { m in
                m.writeMessage(1) { encodeFieldReference(path, into: &$0) }
                m.writeInt32(2, number(of: op))
                ValueMessage.writeValue(3, value, into: &m)
            }
        case .unary(let path, let op):
            w.writeMessage(3) { m in
                m.writeInt32(1, number(of: op))
                m.writeMessage(2) { encodeFieldReference(path, into: &$0) }
            }
        }
    }

    // MARK: Cursor {values = 1, before = 2}

    static func decodeCursor(_ reader: inout ProtoReader) throws(FirestoreError) -> Cursor {
        var cursor = Cursor(values: [], before: false)
        while let key = try reader.next() {
            switch key.number {
            case 1:
                var sub = try reader.readMessage(key)
                cursor.values.append(try ValueMessage.decode(&sub))
            case 2: cursor.before = try reader.readBool(key)
            default: try reader.skip(key)
            }
        }
        return cursor
    }

    static func encodeCursor(_ c: Cursor, into w: inout ProtoWriter) {
        for v in c.values { ValueMessage.writeValue(1, v, into: &w) }
        if c.before { w.writeBool(2, true) }
    }

    // MARK: FindNearest {vector_field = 1, query_vector = 2, distance_measure = 3,
    // limit = 4 (Int32Value), distance_result_field = 5, distance_threshold = 6 (DoubleValue)}

    static func decodeFindNearest(_ reader: inout ProtoReader) throws(FirestoreError) -> FindNearest {
        var field: FieldPath?
        var vector: Value?
        var measure: Int32 = 0
        var limit: Int32?
        var resultField: FieldPath?
        var threshold: Double?
        while let key = try reader.next() {
            switch key.number {
            case 1:
                var sub = try reader.readMessage(key)
                field = try decodeFieldReference(&sub)
            case 2:
                var sub = try reader.readMessage(key)
                vector = try ValueMessage.decode(&sub)
            case 3: measure = try reader.readInt32(key)
            case 4:
                var sub = try reader.readMessage(key)
                limit = try WellKnownMessages.decodeInt32Value(&sub)
            case 5:
                let s = try reader.readString(key)
                resultField = s.isEmpty ? nil : try FieldPath.parseServerFormat(s)
            case 6:
                var sub = try reader.readMessage(key)
                threshold = try WellKnownMessages.decodeDoubleValue(&sub)
            default: try reader.skip(key)
            }
        }
        guard let field else { throw .invalidArgument("find_nearest needs a vector_field.") }
        guard let vector else { throw .invalidArgument("find_nearest needs a query_vector.") }
        guard case .vector(let queryVector) = vector else { throw .invalidArgument("find_nearest query_vector must be a vector value.") }
        guard let distance = distanceMeasures[measure] else { throw .invalidArgument("find_nearest needs a distance_measure.") }
        guard let limit else { throw .invalidArgument("find_nearest needs a limit.") }
        guard limit > 0, limit <= 1000 else { throw .invalidArgument("find_nearest limit must be between 1 and 1000, but was \(limit).") }
        return FindNearest(vectorField: field, queryVector: queryVector, distanceMeasure: distance, limit: Int(limit),
                           distanceResultField: resultField, distanceThreshold: threshold)
    }

    static func encodeFindNearest(_ fn: FindNearest, into w: inout ProtoWriter) {
        w.writeMessage(1) { encodeFieldReference(fn.vectorField, into: &$0) }
        ValueMessage.writeValue(2, .vector(fn.queryVector), into: &w)
        w.writeInt32(3, number(of: fn.distanceMeasure))
        WellKnownMessages.writeInt32Value(4, Int32(clamping: fn.limit), into: &w)
        if let f = fn.distanceResultField { w.writeString(5, f.serverFormat) }
        if let t = fn.distanceThreshold { WellKnownMessages.writeDoubleValue(6, t, into: &w) }
    }

    // MARK: StructuredAggregationQuery {structured_query = 1, aggregations = 3}
    // Aggregation {oneof: count = 1 {up_to = 1 (Int64Value)}, sum = 2 {field = 1}, avg = 3 {field = 1}; alias = 7}

    /// The query and its aggregations; aliases default to `field_1`, `field_2`… as
    /// production names them.
    static func decodeAggregationQuery(_ reader: inout ProtoReader, parent: ResourcePath) throws(FirestoreError) -> (StructuredQuery, [Aggregation]) {
        var query: StructuredQuery?
        var aggregations: [Aggregation] = []
        while let key = try reader.next() {
            switch key.number {
            case 1:
                var sub = try reader.readMessage(key)
                query = try decode(&sub, parent: parent)
            case 3:
                var sub = try reader.readMessage(key)
                aggregations.append(try decodeAggregation(&sub, index: aggregations.count))
            default: try reader.skip(key)
            }
        }
        guard let query else { throw .invalidArgument("structured_aggregation_query needs a structured_query.") }
        return (query, aggregations)
    }

    static func decodeAggregation(_ reader: inout ProtoReader, index: Int) throws(FirestoreError) -> Aggregation {
        var kind: Aggregation.Kind?
        var alias: String?
        while let key = try reader.next() {
            switch key.number {
            case 1:
                var sub = try reader.readMessage(key)
                var upTo: Int64?
                while let k = try sub.next() {
                    if k.number == 1 {
                        var wrapper = try sub.readMessage(k)
                        upTo = try WellKnownMessages.decodeInt64Value(&wrapper)
                    } else {
                        try sub.skip(k)
                    }
                }
                kind = .count(upTo: upTo)
            case 2, 3:
                var sub = try reader.readMessage(key)
                var field: FieldPath?
                while let k = try sub.next() {
                    if k.number == 1 {
                        var ref = try sub.readMessage(k)
                        field = try decodeFieldReference(&ref)
                    } else {
                        try sub.skip(k)
                    }
                }
                guard let field else { throw .invalidArgument("The aggregation needs a field (aggregations[\(index)]).") }
                kind = key.number == 2 ? .sum(field) : .average(field)
            case 7: alias = try reader.readString(key)
            default: try reader.skip(key)
            }
        }
        guard let kind else { throw .missingAggregationOperator }
        return Aggregation(kind, alias: alias.flatMap { $0.isEmpty ? nil : $0 } ?? "field_\(index + 1)")
    }

    static func encodeAggregationQuery(_ query: StructuredQuery, _ aggregations: [Aggregation], into w: inout ProtoWriter) {
        w.writeMessage(1) { encode(query, into: &$0) }
        for a in aggregations {
            w.writeMessage(3) { m in
                switch a.kind {
                case .count(let upTo):
                    m.writeMessage(1) { c in if let upTo { WellKnownMessages.writeInt64Value(1, upTo, into: &c) } }
                case .sum(let f):
                    m.writeMessage(2) { s in s.writeMessage(1) { encodeFieldReference(f, into: &$0) } }
                case .average(let f):
                    m.writeMessage(3) { s in s.writeMessage(1) { encodeFieldReference(f, into: &$0) } }
                }
                m.writeString(7, a.alias)
            }
        }
    }
}
