import Foundation
import HearthCore

/// `google.firestore.v1.Value` ⇄ JSON (docs/protocol.md#json-mapping). Vectors travel as the map
/// `{"__type__": "__vector__", "value": [doubles]}`, as production stores them.
enum ProtoValue {
    static let members = ["nullValue", "booleanValue", "integerValue", "doubleValue", "timestampValue",
                          "stringValue", "bytesValue", "referenceValue", "geoPointValue", "arrayValue", "mapValue"]

    static func decode(_ json: JSON, context: String) throws(FirestoreError) -> Value {
        var o = try ProtoObject(json, context: context)
        var present: [(String, JSON)] = []
        for m in members { if let v = o.takeRaw(m) { present.append((m, v)) } }
        try o.finish()
        guard let (member, v) = present.first else {
            throw .unsetValue
        }
        guard present.count == 1 else {
            throw ProtoJSON.invalid("Multiple values for oneof value_type (\(present.map(\.0).joined(separator: ", ")))", context: context)
        }
        let ctx = context + "." + ProtoJSON.snakeCase(member)
        switch member {
        case "nullValue":
            switch v {
            case .null, .string("NULL_VALUE"), .number("0"): return .null
            default: throw ProtoJSON.badValue(v, context: ctx, type: "TYPE_ENUM")
            }
        case "booleanValue": return .boolean(try ProtoJSON.bool(v, context: ctx))
        case "integerValue": return .integer(try ProtoJSON.int64(v, context: ctx))
        case "doubleValue": return .double(try ProtoJSON.double(v, context: ctx))
        case "timestampValue": return .timestamp(try ProtoJSON.timestamp(v, context: ctx))
        case "stringValue": return .string(try ProtoJSON.string(v, context: ctx))
        case "bytesValue": return .bytes(try ProtoJSON.bytes(v, context: ctx))
        case "referenceValue": return .reference(try DocumentName.parseReference(try ProtoJSON.string(v, context: ctx)))
        case "geoPointValue":
            var g = try ProtoObject(v, context: ctx)
            let lat = try g.take("latitude").map { j throws(FirestoreError) in try ProtoJSON.double(j, context: ctx + ".latitude") } ?? 0
            let lng = try g.take("longitude").map { j throws(FirestoreError) in try ProtoJSON.double(j, context: ctx + ".longitude") } ?? 0
            try g.finish()
            return .geoPoint(try GeoPoint.validated(latitude: lat, longitude: lng))
        case "arrayValue":
            var a = try ProtoObject(v, context: ctx)
            var values: [Value] = []
            if let list = a.take("values") {
                guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: ctx + ".values", type: "TYPE_MESSAGE") }
                values.reserveCapacity(items.count)
                for (i, item) in items.enumerated() { values.append(try decode(item, context: "\(ctx).values[\(i)]")) }
            }
            try a.finish()
            return .array(values)
        default: // mapValue
            var m = try ProtoObject(v, context: ctx)
            let fields = try m.take("fields").map { f throws(FirestoreError) in try decodeFields(f, context: ctx + ".fields") } ?? MapValue()
            try m.finish()
            return try Value.vectorOrMap(fields)
        }
    }

    /// A `fields` map: field name → Value.
    static func decodeFields(_ json: JSON, context: String) throws(FirestoreError) -> MapValue {
        guard case .object(let pairs) = json else { throw ProtoJSON.badValue(json, context: context, type: "TYPE_MESSAGE") }
        var out: [(String, Value)] = []
        out.reserveCapacity(pairs.count)
        for (k, v) in pairs { out.append((k, try decode(v, context: "\(context)[\(k)]"))) }
        return MapValue(out)
    }

    // MARK: Encoding (HearthCore's, shared with bundles)

    static func encode(_ value: Value) -> JSON { value.protoJSON }

    static func encodeFields(_ m: MapValue) -> JSON { m.protoJSON }

}
