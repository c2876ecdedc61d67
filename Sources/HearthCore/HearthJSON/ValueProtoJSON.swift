import Foundation

/// `google.firestore.v1.Value` in the proto3 JSON mapping, as the REST API and bundles write
/// it (integers as decimal strings, timestamps as RFC 3339, bytes as base64, NaN and ±∞ as
/// strings). Vectors are the map `{"__type__": "__vector__", "value": [doubles]}`, as
/// production stores them.
extension Value {
    public var protoJSON: JSON {
        switch self {
        case .null: return .object([("nullValue", .null)])
        case .boolean(let b): return .object([("booleanValue", .bool(b))])
        case .integer(let i): return .object([("integerValue", .string(String(i)))])
        case .double(let d): return .object([("doubleValue", Self.protoJSON(d))])
        case .timestamp(let t): return .object([("timestampValue", .string(t.rfc3339))])
        case .string(let s): return .object([("stringValue", .string(s))])
        case .bytes(let d): return .object([("bytesValue", .string(d.base64EncodedString()))])
        case .reference(let r): return .object([("referenceValue", .string(r.description))])
        case .geoPoint(let g):
            // proto3 JSON leaves out a field at its default: a zero (or minus zero) coordinate
            // is not written, so (0, 0) is `{}` (as the official emulator answers).
            var coordinates: [(String, JSON)] = []
            if g.latitude != 0 { coordinates.append(("latitude", Self.protoJSON(g.latitude))) }
            if g.longitude != 0 { coordinates.append(("longitude", Self.protoJSON(g.longitude))) }
            return .object([("geoPointValue", .object(coordinates))])
        case .array(let a):
            return .object([("arrayValue", a.isEmpty ? .object([]) : .object([("values", .array(a.map(\.protoJSON)))]))])
        case .map(let m):
            return .object([("mapValue", m.isEmpty ? .object([]) : .object([("fields", m.protoJSON)]))])
        case .vector(let v):
            return .object([("mapValue", .object([("fields", Value.vectorFields(v).protoJSON)]))])
        }
    }

    /// A double as proto3 JSON: a number, or "NaN", "Infinity", "-Infinity".
    public static func protoJSON(_ d: Double) -> JSON {
        if d.isNaN { return .string("NaN") }
        if d.isInfinite { return .string(d < 0 ? "-Infinity" : "Infinity") }
        return .double(d)
    }
}

extension MapValue {
    /// A `fields` map: each field name with its `protoJSON` value.
    public var protoJSON: JSON { .object(entries.map { ($0.key, $0.value.protoJSON) }) }
}
