import Foundation
import HearthCore

/// A value during rules evaluation (docs/rules-language.md#types). Sets keep insertion order with
/// duplicates removed; maps keep keys sorted by UTF-8 bytes, as production stores them.
public indirect enum RulesValue: Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([RulesValue])
    case map(RulesMap)
    case set([RulesValue])
    case path(RulesPath)
    case timestamp(Timestamp)
    case duration(RulesDuration)
    case latlng(latitude: Double, longitude: Double)
    /// `new.diff(old)`.
    case mapDiff(new: RulesMap, old: RulesMap)
    /// A query filter standing for an unknown field value while proving a `list` (docs/rules-language.md#list-queries).
    case constraint(QueryConstraint)

    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .map: "map"
        case .set: "set"
        case .path: "path"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .latlng: "latlng"
        case .mapDiff: "map_diff"
        case .constraint: "constraint"
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .int(let i): return String(i)
        case .float(let d): return javaDoubleString(d)
        case .string(let s): return "'\(s)'"
        case .bytes(let b): return "b'" + b.map { String(format: "\\x%02X", $0) }.joined() + "'"
        case .list(let l): return "[" + l.map(\.description).joined(separator: ", ") + "]"
        case .map(let m): return "{" + m.entries.map { "'\($0.key)': \($0.value)" }.joined(separator: ", ") + "}"
        case .set(let s): return "set(" + s.map(\.description).joined(separator: ", ") + ")"
        case .path(let p): return p.description
        case .timestamp(let t): return "timestamp(\(t.rfc3339))"
        case .duration(let d): return "duration(\(d.seconds)s, \(d.nanos)ns)"
        case .latlng(let a, let b): return "latlng(\(javaDoubleString(a)), \(javaDoubleString(b)))"
        case .mapDiff: return "map_diff"
        case .constraint(let c): return "constraint(\(c))"
        }
    }
}
