/// How `debug()` prints a value: the protobuf text format the emulator writes to its log,
/// e.g. `string_value: "alice"` or, for a map,
///
///     map_value {
///       fields {
///         key: "a"
///         value {
///           int_value: 1
///         }
///       }
///     }
enum DebugFormat {
    static func text(_ v: RulesValue) -> String { lines(v).joined(separator: "\n") }

    private static func block(_ name: String, _ body: [String]) -> [String] {
        ["\(name) {"] + body.map { "  " + $0 } + ["}"]
    }

    private static func lines(_ v: RulesValue) -> [String] {
        switch v {
        case .null: return ["null_value: NULL_VALUE"]
        case .bool(let b): return ["bool_value: \(b)"]
        case .int(let i): return ["int_value: \(i)"]
        case .float(let d): return ["float_value: \(javaDoubleString(d))"]
        case .string(let s): return ["string_value: \(quoted(Array(s.utf8)))"]
        case .bytes(let b): return ["bytes_value: \(quoted(b))"]
        case .list(let l): return block("list_value", l.flatMap { block("values", lines($0)) })
        case .set(let s): return block("set_value", s.flatMap { block("values", lines($0)) })
        case .map(let m):
            // Keys in the emulator's order (Java's, by UTF-16 code units).
            let entries = m.entries.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            return block("map_value", entries.flatMap { e in
                block("fields", ["key: \(quoted(Array(e.key.utf8)))"] + block("value", lines(e.value)))
            })
        case .path(let p): return block("path_value", p.segments.flatMap { block("segments", ["simple: \(quoted(Array($0.utf8)))"]) })
        case .timestamp(let t):
            // Zero fields are omitted, as proto3 text format does.
            return block("timestamp_value", (t.seconds != 0 ? ["seconds: \(t.seconds)"] : []) + (t.nanos != 0 ? ["nanos: \(t.nanos)"] : []))
        case .duration(let d):
            return block("duration_value", (d.seconds != 0 ? ["seconds: \(d.seconds)"] : []) + (d.nanos != 0 ? ["nanos: \(d.nanos)"] : []))
        case .latlng(let a, let b):
            return block("latlng_value", ["latitude: \(javaDoubleString(a))", "longitude: \(javaDoubleString(b))"])
        case .mapDiff(let new, let old):
            return block("map_diff_value", block("left", lines(.map(new))) + block("right", lines(.map(old))))
        case .constraint(let c): return ["constraint_value: \(quoted(Array(c.description.utf8)))"]
        }
    }

    /// A C-escaped string literal: printable ASCII as is, other bytes as octal escapes.
    private static func quoted(_ bytes: [UInt8]) -> String {
        var out = "\""
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "'"): out += "\\'"
            case 10: out += "\\n"
            case 13: out += "\\r"
            case 9: out += "\\t"
            case 0x20..<0x7F: out.unicodeScalars.append(UnicodeScalar(b))
            default:
                let o = String(b, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - o.count) + o
            }
        }
        return out + "\""
    }
}
