import Foundation
import HearthCore

/// Loads a Hearth JSON document file (DESIGN.md, "Hearth JSON") into a database: plain JSON
/// maps to Firestore values (integers and doubles kept apart), tagged single-key objects
/// (`$timestamp`, `$double`, `$bytes`, `$reference`, `$geopoint`, `$vector`, `$map`) carry
/// the other types.
public enum SeedLoader {
    /// Parses the file's documents.
    public static func documents(_ data: Data, database: DatabaseID) throws(FirestoreError) -> [(ResourcePath, MapValue)] {
        let json: JSON
        do { json = try JSON.parse(Array(data)) } catch {
            throw .invalidArgument("Seed file is not valid JSON: \(error.message) at byte \(error.offset).")
        }
        guard case .object(let pairs) = json else { throw .invalidArgument("Seed file must be a JSON object mapping document paths to field maps.") }
        var out: [(ResourcePath, MapValue)] = []
        for (path, fields) in pairs {
            let p = try ResourcePath.parse(path)
            guard p.isDocument else { throw .invalidArgument("Seed key \"\(path)\" is not a document path (it needs an even number of segments).") }
            guard case .object(let f) = fields else { throw .invalidArgument("Seed document \"\(path)\" must be a JSON object of fields.") }
            out.append((p, try map(f, at: path, database: database)))
        }
        return out
    }

    /// Commits the documents (500 per commit); returns how many were written.
    @discardableResult
    public static func load(_ data: Data, into db: Database) throws(FirestoreError) -> Int {
        let docs = try documents(data, database: db.id)
        var i = 0
        while i < docs.count {
            let chunk = docs[i..<min(i + 500, docs.count)]
            try db.commit(chunk.map { Write.set($0.0, $0.1) })
            i += 500
        }
        return docs.count
    }

    private static func map(_ pairs: [(String, JSON)], at path: String, database: DatabaseID) throws(FirestoreError) -> MapValue {
        var out: [(String, Value)] = []
        for (k, v) in pairs { out.append((k, try value(v, at: "\(path).\(k)", database: database))) }
        return MapValue(out)
    }

    static func value(_ json: JSON, at path: String, database: DatabaseID) throws(FirestoreError) -> Value {
        switch json {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .string(let s): return .string(s)
        case .number(let n):
            if !n.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                guard let i = Int64(n) else { throw .invalidArgument("Seed value at \(path): integer \(n) is out of the int64 range.") }
                return .integer(i)
            }
            return .double(Double(n) ?? .nan)
        case .array(let items):
            var values: [Value] = []
            for (i, item) in items.enumerated() { values.append(try value(item, at: "\(path)[\(i)]", database: database)) }
            return .array(values)
        case .object(let pairs):
            guard pairs.count == 1, pairs[0].0.hasPrefix("$") else { return .map(try map(pairs, at: path, database: database)) }
            let (tag, v) = pairs[0]
            switch (tag, v) {
            case ("$timestamp", .string(let s)):
                guard let t = Timestamp(rfc3339: s) else { throw .invalidArgument("Seed value at \(path): \"\(s)\" is not an RFC 3339 timestamp.") }
                return .timestamp(t)
            case ("$double", .number(let n)): return .double(Double(n) ?? .nan)
            case ("$double", .string(let s)) where ["NaN", "Infinity", "-Infinity"].contains(s):
                return .double(s == "NaN" ? .nan : s == "Infinity" ? .infinity : -.infinity)
            case ("$bytes", .string(let s)):
                guard let d = ProtoJSON.decodeBase64(s) else { throw .invalidArgument("Seed value at \(path): \"\(s.prefix(40))\" is not base64.") }
                return .bytes(d)
            case ("$reference", .string(let s)):
                return .reference(DocumentName(database: database, path: try ResourcePath.parse(s)))
            case ("$geopoint", .array(let ll)) where ll.count == 2:
                guard case .number(let a) = ll[0], case .number(let b) = ll[1], let lat = Double(a), let lng = Double(b) else {
                    throw .invalidArgument("Seed value at \(path): $geopoint needs [latitude, longitude].")
                }
                return .geoPoint(try GeoPoint.validated(latitude: lat, longitude: lng))
            case ("$vector", .array(let items)):
                var ds: [Double] = []
                for item in items {
                    guard case .number(let n) = item, let d = Double(n) else { throw .invalidArgument("Seed value at \(path): $vector needs numbers.") }
                    ds.append(d)
                }
                return .vector(ds)
            case ("$map", .object(let inner)):
                return .map(try map(inner, at: path, database: database))
            default:
                throw .invalidArgument("Seed value at \(path): unknown or malformed tag \(tag) (use $timestamp, $double, $bytes, $reference, $geopoint, $vector or $map).")
            }
        }
    }
}
