import Foundation
import HearthCore

/// Reads Hearth JSON (DESIGN.md): plain JSON values plus `$timestamp`, `$double`, `$bytes`,
/// `$reference`, `$geopoint`, `$vector` and `$map` tagged objects.
public enum HearthJSON {
    public struct FormatError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public static func value(_ json: JSONValue, database: String = "(default)", project: String = "demo-hearth") throws(FormatError) -> Value {
        switch json {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .string(let s): return .string(s)
        case .number(let text):
            if !text.contains("."), !text.contains("e"), !text.contains("E") {
                guard let i = Int64(text) else { throw FormatError(message: "Integer out of range: \(text)") }
                return .integer(i)
            }
            return .double(Double(text)!)
        case .array(let items):
            var out: [Value] = []
            for item in items { out.append(try value(item, database: database, project: project)) }
            return .array(out)
        case .object(let pairs):
            if pairs.count == 1, pairs[0].0.hasPrefix("$") {
                let (tag, inner) = pairs[0]
                switch (tag, inner) {
                case ("$timestamp", .string(let s)):
                    guard let t = Timestamp(rfc3339: s) else { throw FormatError(message: "Invalid $timestamp: \(s)") }
                    return .timestamp(t)
                case ("$double", .number(let n)): return .double(Double(n)!)
                case ("$double", .string(let s)):
                    guard let d = Double(s.replacingOccurrences(of: "Infinity", with: "inf")) else { throw FormatError(message: "Invalid $double: \(s)") }
                    return .double(d)
                case ("$bytes", .string(let s)):
                    guard let d = Data(base64Encoded: s) else { throw FormatError(message: "Invalid $bytes: \(s)") }
                    return .bytes(d)
                case ("$reference", .string(let s)):
                    do {
                        return .reference(DocumentName(database: DatabaseID(project: project, database: database), path: try ResourcePath.parse(s)))
                    } catch { throw FormatError(message: "Invalid $reference: \(s)") }
                case ("$geopoint", .array(let a)) where a.count == 2:
                    guard case .number(let lat) = a[0], case .number(let lng) = a[1], let la = Double(lat), let lo = Double(lng) else {
                        throw FormatError(message: "Invalid $geopoint")
                    }
                    return .geoPoint(GeoPoint(latitude: la, longitude: lo))
                case ("$vector", .array(let a)):
                    var out: [Double] = []
                    for x in a {
                        guard case .number(let n) = x, let d = Double(n) else { throw FormatError(message: "Invalid $vector") }
                        out.append(d)
                    }
                    return .vector(out)
                case ("$map", .object):
                    return .map(try map(inner, database: database, project: project))
                default:
                    throw FormatError(message: "Unknown or malformed tag \(tag)")
                }
            }
            return .map(try map(json, database: database, project: project))
        }
    }

    public static func map(_ json: JSONValue, database: String = "(default)", project: String = "demo-hearth") throws(FormatError) -> MapValue {
        guard case .object(let pairs) = json else { throw FormatError(message: "Expected an object of fields") }
        var m = MapValue()
        for (k, v) in pairs { m[k] = try value(v, database: database, project: project) }
        return m
    }

    /// A documents file: `{"users/alice": {...fields}}`.
    public static func documents(_ json: JSONValue, database: String = "(default)", project: String = "demo-hearth") throws(FormatError) -> [ResourcePath: MapValue] {
        guard case .object(let pairs) = json else { throw FormatError(message: "Expected an object mapping document paths to fields") }
        var out: [ResourcePath: MapValue] = [:]
        for (path, fields) in pairs {
            guard let p = try? ResourcePath.parse(path), p.isDocument else { throw FormatError(message: "Not a document path: \(path)") }
            out[p] = try map(fields, database: database, project: project)
        }
        return out
    }
}
