import Foundation

/// String methods (docs/rules-language.md#methods): sizes and indexes count UTF-16 code units,
/// case mapping is ASCII-only, `split` follows Java, `matches` is whole-string.
enum StringMethods {
    static func call(_ s: String, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        switch name {
        case "size":
            try Builtins.arity(name, args, 0)
            return .int(Int64(s.utf16.count))
        case "lower", "upper":
            try Builtins.arity(name, args, 0)
            let upper = name == "upper"
            let bytes = s.utf8.map { b -> UInt8 in
                if upper, b >= 97, b <= 122 { return b - 32 }
                if !upper, b >= 65, b <= 90 { return b + 32 }
                return b
            }
            return .string(String(decoding: bytes, as: UTF8.self))
        case "trim":
            try Builtins.arity(name, args, 0)
            // Java's String.trim(): strips code units <= U+0020.
            let units = Array(s.utf16)
            var lo = 0, hi = units.count
            while lo < hi, units[lo] <= 0x20 { lo += 1 }
            while hi > lo, units[hi - 1] <= 0x20 { hi -= 1 }
            return .string(String(decoding: units[lo..<hi], as: UTF16.self))
        case "toUtf8":
            try Builtins.arity(name, args, 0)
            return .bytes(Array(s.utf8))
        case "matches":
            try Builtins.arity(name, args, 1)
            let regex = try compiled(args[0], name, wholeString: true)
            let ns = s as NSString
            let whole = NSRange(location: 0, length: ns.length)
            try bounded(regex, s, [.anchored], whole, args[0])
            let m = regex.firstMatch(in: s, options: [.anchored], range: whole)
            return .bool(m != nil)
        case "split":
            try Builtins.arity(name, args, 1)
            let regex = try compiled(args[0], name, wholeString: false)
            try bounded(regex, s, [], NSRange(location: 0, length: (s as NSString).length), args[0])
            return .list(split(s, regex).map { .string($0) })
        case "replace":
            try Builtins.arity(name, args, 2)
            let regex = try compiled(args[0], name, wholeString: false)
            guard case .string(let template) = args[1] else {
                throw .unsupported("string.replace(string, \(args[1].typeName))", expected: "string.replace(string, string)")
            }
            let ns = s as NSString
            try bounded(regex, s, [], NSRange(location: 0, length: ns.length), args[0])
            return .string(regex.stringByReplacingMatches(in: s, options: [], range: NSRange(location: 0, length: ns.length), withTemplate: template))
        default:
            throw .functionNotFound(name)
        }
    }

    /// Refuses a search that runs past `NSRegularExpression.matchTimeLimit` (catastrophic
    /// backtracking in ICU, where production's RE2 is linear; see HearthCore's
    /// RegexTimeLimit.swift): an evaluation error, so the condition is false.
    private static func bounded(_ regex: NSRegularExpression, _ s: String, _ options: NSRegularExpression.MatchingOptions,
                                _ range: NSRange, _ pattern: RulesValue) throws(RulesError) {
        guard regex.finishesWithinTimeLimit(in: s, options: options, range: range) else {
            throw RulesError("Regular expression took too long to match. Pattern: \(pattern).")
        }
    }

    private static func compiled(_ pattern: RulesValue, _ name: String, wholeString: Bool) throws(RulesError) -> NSRegularExpression {
        guard case .string(let p) = pattern else {
            throw .unsupported("string.\(name)(\(pattern.typeName))", expected: "string.\(name)(string)")
        }
        guard let regex = RegexCache.compile(p, wholeString: wholeString) else {
            throw RulesError("Invalid regular expression pattern. Pattern: \(p).")
        }
        return regex
    }

    /// Java's `String.split(regex)`: trailing empty pieces dropped, at least one piece kept.
    static func split(_ s: String, _ regex: NSRegularExpression) -> [String] {
        let ns = s as NSString
        var pieces: [String] = []
        var last = 0
        for m in regex.matches(in: s, options: [], range: NSRange(location: 0, length: ns.length)) {
            let r = m.range
            if r.length == 0 && r.location >= ns.length { break }
            pieces.append(ns.substring(with: NSRange(location: last, length: r.location - last)))
            last = r.location + r.length
        }
        pieces.append(ns.substring(from: last))
        while let l = pieces.last, l.isEmpty { pieces.removeLast() }
        return pieces.isEmpty ? [""] : pieces
    }
}
