import Foundation
import HearthCore

/// Dispatch of methods by receiver type, namespaced functions and conversions
/// (docs/rules-language.md#global-functions, #methods). A method the receiver's type lacks is
/// "Function not found", as in production.
enum Builtins {
    static func arity(_ name: String, _ args: [RulesValue], _ n: Int) throws(RulesError) {
        if args.count != n { throw RulesError("Function \(name) expects \(n) argument(s), received \(args.count).") }
    }

    static func callMethod(_ receiver: RulesValue, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        switch receiver {
        case .string(let s): return try StringMethods.call(s, name, args)
        case .list(let l): return try CollectionMethods.list(l, name, args)
        case .set(let s): return try CollectionMethods.set(s, name, args)
        case .map(let m): return try CollectionMethods.map(m, name, args)
        case .mapDiff(let new, let old): return try CollectionMethods.mapDiff(new, old, name, args)
        case .bytes(let b): return try bytesMethod(b, name, args)
        case .timestamp(let t): return try TimeMethods.timestamp(t, name, args)
        case .duration(let d): return try TimeMethods.duration(d, name, args)
        case .latlng(let lat, let lng): return try latlngMethod(lat, lng, name, args)
        case .path(let p): return try pathMethod(p, name, args)
        case .null: throw .nullValue
        case .constraint: return try QueryProver.method(receiver, name, args)
        default: throw .functionNotFound(name)
        }
    }

    /// Every method name of every type (a call to anything else draws a compile warning).
    static let methodNames: Set<String> = [
        "size", "lower", "upper", "trim", "matches", "replace", "split", "toUtf8",
        "concat", "hasAll", "hasAny", "hasOnly", "join", "removeAll", "toSet",
        "difference", "intersection", "union", "keys", "values", "get", "diff",
        "addedKeys", "removedKeys", "changedKeys", "unchangedKeys", "affectedKeys",
        "toBase64", "toHexString", "year", "month", "day", "hours", "minutes", "seconds", "nanos",
        "dayOfWeek", "dayOfYear", "toMillis", "date", "time", "latitude", "longitude", "distance", "bind",
    ]

    static func namespaceFunctionExists(_ ns: BuiltinNamespace, _ name: String) -> Bool {
        switch ns {
        case .math: ["abs", "ceil", "floor", "round", "pow", "sqrt", "isNaN"].contains(name)
        case .timestamp: ["date", "value"].contains(name)
        case .duration: ["value", "time", "abs"].contains(name)
        case .latlng: name == "value"
        case .hashing: ["md5", "sha256", "crc32", "crc32c"].contains(name)
        }
    }

    static func callNamespace(_ ns: BuiltinNamespace, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        guard namespaceFunctionExists(ns, name) else { throw .functionNotFound("\(ns.rawValue).\(name)") }
        switch ns {
        case .math: return try MathFunctions.call(name, args)
        case .timestamp, .duration: return try TimeMethods.namespace(ns, name, args)
        case .latlng:
            try arity("latlng.value", args, 2)
            guard let lat = args[0].doubleValue, let lng = args[1].doubleValue else {
                throw .unsupported("latlng.value(\(args[0].typeName), \(args[1].typeName))", expected: "latlng.value(number, number)")
            }
            guard lat >= -90, lat <= 90, lng >= -180, lng <= 180 else {
                throw RulesError("Latitude should be in [-90,90] range and longitude should be in [-180,180] range. Received: [\(lat), \(lng)].")
            }
            return .latlng(latitude: lat, longitude: lng)
        case .hashing:
            try arity("hashing.\(name)", args, 1)
            let input: [UInt8]
            switch args[0] {
            case .string(let s): input = Array(s.utf8)
            case .bytes(let b): input = b
            default: throw .unsupported("hashing.\(name)(\(args[0].typeName))", expected: "hashing.\(name)(string) or hashing.\(name)(bytes)")
            }
            switch name {
            case "md5": return .bytes(Hashing.md5(input))
            case "sha256": return .bytes(Hashing.sha256(input))
            case "crc32": return .bytes(Hashing.crc32(input))
            default: return .bytes(Hashing.crc32(input, castagnoli: true))
            }
        }
    }

    /// `string()`, `int()`, `float()`, `path()` (docs/rules-language.md#global-functions).
    static func convert(_ g: GlobalFunction, _ x: RulesValue) throws(RulesError) -> RulesValue {
        switch (g, x) {
        case (.string, .bool(let b)): return .string(b ? "true" : "false")
        case (.string, .int(let i)): return .string(String(i))
        case (.string, .float(let d)): return .string(javaDoubleString(d))
        case (.string, .null): return .string("null")
        case (.string, .string): return x
        case (.string, .path(let p)): return .string(p.description)
        case (.int, .int): return x
        case (.int, .float(let d)):
            // Java's (long) cast: truncates, saturates at the int64 bounds, NaN → 0 (observed).
            if d.isNaN { return .int(0) }
            if d >= 9.223372036854775807e18 { return .int(.max) }
            if d <= -9.223372036854775808e18 { return .int(.min) }
            return .int(Int64(d.rounded(.towardZero)))
        case (.int, .string(let s)):
            // Java's Long.parseLong: optional sign, digits only.
            var body = Substring(s)
            if body.first == "+" { body = body.dropFirst() }
            guard !body.isEmpty, body.first != "-" || body.count > 1,
                  body.dropFirst(body.first == "-" ? 1 : 0).allSatisfy({ $0.isASCII && $0.isNumber }),
                  let v = Int64(body) else {
                throw RulesError("Unsupported operation error. Received: int('\(s)'). Expected: a string holding an integer.")
            }
            return .int(v)
        case (.float, .float): return x
        case (.float, .int(let i)): return .float(Double(i))
        case (.float, .string(let s)):
            // Java's Double.parseDouble: trims ASCII whitespace, accepts exponents, NaN, Infinity.
            let t = s.trimmingCharacters(in: CharacterSet(charactersIn: " \t\n\r\u{0B}\u{0C}"))
            var body = t
            if body.hasSuffix("d") || body.hasSuffix("D") || body.hasSuffix("f") || body.hasSuffix("F") { body.removeLast() }
            let allowed = Set("0123456789+-.eE")
            if ["NaN", "Infinity", "+Infinity", "-Infinity"].contains(body), let d = Double(body.replacingOccurrences(of: "Infinity", with: "inf")) {
                return .float(d)
            }
            guard !body.isEmpty, body.allSatisfy({ allowed.contains($0) }), let d = Double(body) else {
                throw RulesError("Unsupported operation error. Received: float('\(s)'). Expected: a string holding a number.")
            }
            return .float(d)
        case (.path, .string(let s)):
            var parts = s.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if parts.first == "" { parts.removeFirst() }
            if parts.last == "" && parts.count > 0 { parts.removeLast() }
            guard !parts.isEmpty, !parts.contains("") else { throw RulesError("Invalid path: '\(s)'.") }
            return .path(RulesPath(parts))
        default:
            throw .unsupported("\(g.rawValue)(\(x.typeName))", expected: g == .path ? "path(string)" : "\(g.rawValue)(bool, int, float, string or null)")
        }
    }

    static func bytesMethod(_ b: [UInt8], _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        try arity(name, args, 0)
        switch name {
        case "size": return .int(Int64(b.count))
        case "toBase64":
            // URL-safe alphabet with padding (docs/rules-language.md#methods).
            let s = Data(b).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            return .string(s)
        case "toHexString":
            return .string(b.map { String(format: "%02X", $0) }.joined())
        default: throw .functionNotFound(name)
        }
    }

    static func latlngMethod(_ lat: Double, _ lng: Double, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        switch name {
        case "latitude": try arity(name, args, 0); return .float(lat)
        case "longitude": try arity(name, args, 0); return .float(lng)
        case "distance":
            try arity(name, args, 1)
            guard case .latlng(let lat2, let lng2) = args[0] else {
                throw .unsupported("latlng.distance(\(args[0].typeName))", expected: "latlng.distance(latlng)")
            }
            // Haversine on a sphere of the Earth's mean radius.
            let r = 6_371_010.0
            let p1 = lat * .pi / 180, p2 = lat2 * .pi / 180
            let dp = (lat2 - lat) * .pi / 180, dl = (lng2 - lng) * .pi / 180
            let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
            return .float(2 * r * asin(min(1, sqrt(h))))
        default: throw .functionNotFound(name)
        }
    }

    static func pathMethod(_ p: RulesPath, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        guard name == "bind" else { throw .functionNotFound(name) }
        try arity(name, args, 1)
        guard case .map(let m) = args[0] else { throw .unsupported("path.bind(\(args[0].typeName))", expected: "path.bind(map)") }
        var segments = p.segments
        for (key, value) in m.entries {
            guard let i = segments.firstIndex(of: "{\(key)}") else {
                throw RulesError("Unsupported operation error. '\(key)' is not a placeholder of \(p).")
            }
            switch value {
            case .string(let s): segments[i] = s
            case .int(let n): segments[i] = String(n)
            default: throw .unsupported("path.bind(\(value.typeName))", expected: "string values")
            }
        }
        return .path(RulesPath(segments))
    }
}
