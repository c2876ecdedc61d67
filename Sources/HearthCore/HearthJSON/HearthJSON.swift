import Foundation

/// Hearth JSON (docs/formats.md#hearth-json): the human format of seed files, rules test cases
/// and exports. Plain JSON maps to Firestore values (a number without fraction or exponent is
/// an integer — full int64 — otherwise a double); tagged single-key objects carry the other
/// types: `$timestamp`, `$double`, `$bytes`, `$reference`, `$geopoint`, `$vector`, and `$map`
/// for a literal map whose only key starts with `$`. Errors name the offending path.
public enum HearthJSON {
    /// A documents file: `{"users/alice": {...fields}, ...}`, in file order.
    public static func documents(_ data: Data, database: DatabaseID) throws(FirestoreError) -> [(path: ResourcePath, fields: MapValue)] {
        let json: JSON
        do { json = try JSON.parse(Array(data)) } catch {
            throw .invalidArgument("Hearth JSON is not valid JSON: \(error.message) at byte \(error.offset).")
        }
        return try documents(json, database: database)
    }

    public static func documents(_ json: JSON, database: DatabaseID) throws(FirestoreError) -> [(path: ResourcePath, fields: MapValue)] {
        guard case .object(let pairs) = json else {
            throw .invalidArgument("A Hearth JSON documents file must be an object mapping document paths to field maps.")
        }
        var out: [(path: ResourcePath, fields: MapValue)] = []
        for (path, fields) in pairs {
            let p = try ResourcePath.parse(path)
            guard p.isDocument else { throw .invalidArgument("\"\(path)\" is not a document path (it needs an even number of segments).") }
            out.append((p, try map(fields, at: path, database: database)))
        }
        return out
    }

    /// A field map; `path` names the place in messages.
    public static func map(_ json: JSON, at path: String = "", database: DatabaseID) throws(FirestoreError) -> MapValue {
        guard case .object(let pairs) = json else { throw .invalidArgument("Hearth JSON at \(where_(path)): expected an object of fields.") }
        var out: [(String, Value)] = []
        for (k, v) in pairs { out.append((k, try value(v, at: path.isEmpty ? k : "\(path).\(k)", database: database))) }
        return MapValue(out)
    }

    public static func value(_ json: JSON, at path: String = "", database: DatabaseID) throws(FirestoreError) -> Value {
        switch json {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .string(let s): return .string(s)
        case .number(let n):
            if !n.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                guard let i = Int64(n) else { throw .invalidArgument("Hearth JSON at \(where_(path)): integer \(n) is out of the int64 range.") }
                return .integer(i)
            }
            return .double(Double(n) ?? .nan)
        case .array(let items):
            var values: [Value] = []
            for (i, item) in items.enumerated() { values.append(try value(item, at: "\(path)[\(i)]", database: database)) }
            return .array(values)
        case .object(let pairs):
            guard pairs.count == 1, pairs[0].0.hasPrefix("$") else { return .map(try map(json, at: path, database: database)) }
            let (tag, v) = pairs[0]
            let at = where_(path)
            switch (tag, v) {
            case ("$timestamp", .string(let s)):
                guard let t = Timestamp(rfc3339: s) else { throw .invalidArgument("Hearth JSON at \(at): \"\(s)\" is not an RFC 3339 timestamp.") }
                return .timestamp(t)
            case ("$double", .number(let n)): return .double(Double(n) ?? .nan)
            case ("$double", .string(let s)) where ["NaN", "Infinity", "-Infinity"].contains(s):
                return .double(s == "NaN" ? .nan : s == "Infinity" ? .infinity : -.infinity)
            case ("$bytes", .string(let s)):
                guard let d = Data(base64Encoded: s) else { throw .invalidArgument("Hearth JSON at \(at): \"\(s.prefix(40))\" is not base64.") }
                return .bytes(d)
            case ("$reference", .string(let s)):
                return .reference(DocumentName(database: database, path: try ResourcePath.parse(s)))
            case ("$geopoint", .array(let ll)) where ll.count == 2:
                guard case .number(let a) = ll[0], case .number(let b) = ll[1], let lat = Double(a), let lng = Double(b) else {
                    throw .invalidArgument("Hearth JSON at \(at): $geopoint needs [latitude, longitude].")
                }
                return .geoPoint(try GeoPoint.validated(latitude: lat, longitude: lng))
            case ("$vector", .array(let items)):
                var ds: [Double] = []
                for item in items {
                    guard case .number(let n) = item, let d = Double(n) else { throw .invalidArgument("Hearth JSON at \(at): $vector needs numbers.") }
                    ds.append(d)
                }
                return .vector(ds)
            case ("$map", .object):
                return .map(try map(v, at: path, database: database))
            default:
                throw .invalidArgument("Hearth JSON at \(at): unknown or malformed tag \(tag) (use $timestamp, $double, $bytes, $reference, $geopoint, $vector or $map).")
            }
        }
    }

    private static func where_(_ path: String) -> String { path.isEmpty ? "the top level" : path }
}
