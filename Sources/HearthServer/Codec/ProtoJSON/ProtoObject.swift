import Foundation
import HearthCore

/// Reads one JSON object as a proto3 message: each field is taken by its lowerCamel json
/// name or its original snake_case name, and `finish()` rejects any member no field took
/// (production: "Invalid JSON payload received. Unknown name …").
struct ProtoObject {
    private let pairs: [(String, JSON)]
    /// Where this object sits in the request, for messages (`writes[0].update`).
    let context: String
    private var used: [Bool]

    init(_ json: JSON, context: String) throws(FirestoreError) {
        guard case .object(let p) = json else {
            throw ProtoJSON.invalid("Invalid value at '\(context)', expected an object", context: nil)
        }
        pairs = p
        self.context = context
        used = Array(repeating: false, count: p.count)
    }

    /// The member for field `name` (lowerCamel), or its snake_case spelling. A JSON
    /// `null` counts as absent, as proto3 JSON specifies for message and scalar fields.
    mutating func take(_ name: String) -> JSON? {
        let found = takeRaw(name)
        if case .null? = found { return nil }
        return found
    }

    /// Like `take`, but keeps an explicit `null` (for `nullValue`).
    mutating func takeRaw(_ name: String) -> JSON? {
        let snake = ProtoJSON.snakeCase(name)
        var found: JSON?
        for i in pairs.indices where pairs[i].0 == name || pairs[i].0 == snake {
            used[i] = true
            found = pairs[i].1
        }
        return found
    }

    /// Rejects members no field took.
    func finish() throws(FirestoreError) {
        if let i = used.firstIndex(of: false) {
            throw ProtoJSON.invalid("Unknown name \"\(pairs[i].0)\"", context: context, suffix: ": Cannot find field.")
        }
    }

    var memberNames: [String] { pairs.map(\.0) }
}

/// Scalar conversions of the proto3 JSON mapping (docs/protocol.md#json-mapping).
enum ProtoJSON {
    /// INVALID_ARGUMENT "Invalid JSON payload received. <detail> at '<context>'<suffix>".
    static func invalid(_ detail: String, context: String?, suffix: String = "") -> FirestoreError {
        if let context, !context.isEmpty {
            return .invalidArgument("Invalid JSON payload received. \(detail) at '\(context)'\(suffix)")
        }
        return .invalidArgument("Invalid JSON payload received. \(detail)\(suffix)")
    }

    static func badValue(_ json: JSON, context: String, type: String) -> FirestoreError {
        let shown = String(decoding: json.bytes.prefix(80), as: UTF8.self)
        return .invalidArgument("Invalid JSON payload received. Invalid value at '\(context)' (\(type)), \(shown)")
    }

    static func snakeCase(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase { out.append("_"); out.append(contentsOf: c.lowercased()) } else { out.append(c) }
        }
        return out
    }

    static func string(_ json: JSON, context: String) throws(FirestoreError) -> String {
        guard case .string(let s) = json else { throw badValue(json, context: context, type: "TYPE_STRING") }
        return s
    }

    /// bool: `true`/`false`, or those words quoted (protobuf's JSON parsers, production's and
    /// the official emulator's, take both).
    static func bool(_ json: JSON, context: String) throws(FirestoreError) -> Bool {
        switch json {
        case .bool(let b): return b
        case .string("true"): return true
        case .string("false"): return false
        default: throw badValue(json, context: context, type: "TYPE_BOOL")
        }
    }

    /// int64 / int32: a JSON number without fraction, or a decimal string.
    static func int64(_ json: JSON, context: String, type: String = "TYPE_INT64") throws(FirestoreError) -> Int64 {
        let text: String
        switch json {
        case .number(let n): text = n
        case .string(let s): text = s
        default: throw badValue(json, context: context, type: type)
        }
        if let i = Int64(text) { return i }
        // `1e3` / `5.0` are integral numbers written another way.
        if let d = Double(text), d.isFinite, d == d.rounded(), abs(d) < 9.2e18 { return Int64(d) }
        throw badValue(json, context: context, type: type)
    }

    static func int32(_ json: JSON, context: String) throws(FirestoreError) -> Int32 {
        let v = try int64(json, context: context, type: "TYPE_INT32")
        guard let i = Int32(exactly: v) else { throw badValue(json, context: context, type: "TYPE_INT32") }
        return i
    }

    /// double: a JSON number, or a string holding a number, `NaN`, `Infinity`, `-Infinity`.
    /// A number too large for a double (`1e400`) is refused, not read as infinity.
    static func double(_ json: JSON, context: String) throws(FirestoreError) -> Double {
        switch json {
        case .number(let n):
            if let d = Double(n), d.isFinite { return d }
        case .string(let s):
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default:
                if !s.isEmpty, s.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 43 || $0 == 46 || $0 == 101 || $0 == 69 }),
                   let d = Double(s), d.isFinite { return d }
            }
        default: break
        }
        throw badValue(json, context: context, type: "TYPE_DOUBLE")
    }

    /// bytes: standard or URL-safe base64, padding optional.
    static func bytes(_ json: JSON, context: String) throws(FirestoreError) -> Data {
        guard case .string(let s) = json, let d = decodeBase64(s) else { throw badValue(json, context: context, type: "TYPE_BYTES") }
        return d
    }

    static func decodeBase64(_ s: String) -> Data? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.utf8.count % 4 != 0 { t.append("=") }
        return Data(base64Encoded: t)
    }

    /// google.protobuf.Timestamp: RFC 3339 with upper-case `T`/`Z` or a numeric offset.
    static func timestamp(_ json: JSON, context: String) throws(FirestoreError) -> Timestamp {
        guard case .string(let s) = json, let t = Timestamp(rfc3339: s) else {
            throw badValue(json, context: context, type: "type.googleapis.com/google.protobuf.Timestamp")
        }
        guard t.seconds >= Timestamp.minSeconds, t.seconds <= Timestamp.maxSeconds else {
            throw .invalidArgument("Invalid JSON payload received. Timestamp out of range at '\(context)': \(s)")
        }
        return t
    }

    /// An enum given by name or number.
    static func enumCase(_ json: JSON, context: String, names: [String: Int]) throws(FirestoreError) -> Int {
        switch json {
        case .string(let s):
            if let v = names[s] { return v }
        case .number(let n):
            if let v = Int(n), names.values.contains(v) || v == 0 { return v }
        default: break
        }
        throw badValue(json, context: context, type: "TYPE_ENUM")
    }

    /// A google.protobuf wrapper (`Int32Value` …) in the form WebChannel messages may carry
    /// it: the bare value, or `{"value": n}`. (REST takes only the bare value, proto3 JSON's
    /// form, as the official emulator does.)
    static func unwrap(_ json: JSON) -> JSON {
        if case .object(let p) = json, p.count == 1, p[0].0 == "value" { return p[0].1 }
        return json
    }

    static func base64(_ data: Data) -> JSON { .string(data.base64EncodedString()) }
}
