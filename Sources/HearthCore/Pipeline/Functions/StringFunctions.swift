import Foundation

/// The string (and byte-string) functions. Lengths, positions and `substring` count Unicode
/// code points (`char_length`), `byte_length` counts UTF-8 bytes; `like` and the regular
/// expression functions work on code points too. A null operand gives null; another type
/// where a string is expected is an error.
extension PipelineFunctions {
    static let stringFunctions: [String: PipelineFunctionImplementation] = [
        "string_concat": { c throws(PipelineFailure) in
            try c.arity(1, Int.max)
            guard let args = try c.presentArgs() else { return .null }
            var out = ""
            for v in args { out += try c.string(v) }
            return .string(out)
        },
        "concat": { c throws(PipelineFailure) in
            try c.arity(1, Int.max)
            guard let args = try c.presentArgs() else { return .null }
            switch args[0] {
            case .string:
                var out = ""
                for v in args { out += try c.string(v) }
                return .string(out)
            case .bytes:
                var out = Data()
                for v in args { guard case .bytes(let d) = v else { throw c.expect(v, "bytes") }; out.append(d) }
                return .bytes(out)
            case .array:
                var out: [Value] = []
                for v in args { out += try c.array(v) }
                return .array(out)
            case let v:
                throw c.expect(v, "strings, bytes or arrays")
            }
        },
        "char_length": { c throws(PipelineFailure) in
            try text(c) { s throws(PipelineFailure) in .integer(Int64(s.unicodeScalars.count)) }
        },
        "byte_length": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0), v != .null else { return .null }
            switch v {
            case .string(let s): return .integer(Int64(s.utf8.count))
            case .bytes(let d): return .integer(Int64(d.count))
            default: throw c.expect(v, "a string or bytes")
            }
        },
        "length": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0), v != .null else { return .null }
            switch v {
            case .string(let s): return .integer(Int64(s.unicodeScalars.count))
            case .bytes(let d): return .integer(Int64(d.count))
            case .array(let a): return .integer(Int64(a.count))
            case .map(let m): return .integer(Int64(m.count))
            case .vector(let d): return .integer(Int64(d.count))
            default: throw c.expect(v, "a string, bytes, an array, a map or a vector")
            }
        },
        "to_lower": { c throws(PipelineFailure) in try text(c) { s throws(PipelineFailure) in .string(s.lowercased()) } },
        "to_upper": { c throws(PipelineFailure) in try text(c) { s throws(PipelineFailure) in .string(s.uppercased()) } },
        "string_reverse": { c throws(PipelineFailure) in
            try text(c) { s throws(PipelineFailure) in
                var out = String.UnicodeScalarView()
                out.append(contentsOf: s.unicodeScalars.reversed())
                return .string(String(out))
            }
        },
        "trim": { c throws(PipelineFailure) in try trim(c, leading: true, trailing: true) },
        "ltrim": { c throws(PipelineFailure) in try trim(c, leading: true, trailing: false) },
        "rtrim": { c throws(PipelineFailure) in try trim(c, leading: false, trailing: true) },
        "starts_with": { c throws(PipelineFailure) in try pair(c) { s, t in .boolean(s.unicodeScalars.starts(with: t.unicodeScalars)) } },
        "ends_with": { c throws(PipelineFailure) in
            try pair(c) { s, t in .boolean(s.unicodeScalars.reversed().starts(with: t.unicodeScalars.reversed())) }
        },
        "string_contains": { c throws(PipelineFailure) in
            try pair(c) { s, t in .boolean(t.isEmpty || scalarIndex(of: t, in: s) != nil) }
        },
        "string_index_of": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let args = try c.presentArgs() else { return .null }
            if case .bytes(let d) = args[0], case .bytes(let n) = args[1] {
                return .integer(Int64(d.range(of: n).map { $0.lowerBound - d.startIndex } ?? -1))
            }
            let s = try c.string(args[0]), t = try c.string(args[1])
            return .integer(Int64(scalarIndex(of: t, in: s) ?? -1))
        },
        "string_repeat": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let args = try c.presentArgs() else { return .null }
            let n = try c.integer(args[1])
            guard n >= 0 else { throw c.typeError("expects a non-negative repetition count, but got \(n)") }
            switch args[0] {
            // The size is checked without overflow (a count near Int64.max trapped), and an
            // empty value repeated is empty whatever the count (repeating it looped `n` times:
            // a request could hold a worker for ever). So the loop is bounded by the 1 MiB.
            case .string(let s):
                let (size, overflow) = Int64(s.utf8.count).multipliedReportingOverflow(by: n)
                guard !overflow, size <= 1_048_576 else { throw c.typeError("result would exceed 1 MiB") }
                return .string(s.isEmpty ? "" : String(repeating: s, count: Int(n)))
            case .bytes(let d):
                let (size, overflow) = Int64(d.count).multipliedReportingOverflow(by: n)
                guard !overflow, size <= 1_048_576 else { throw c.typeError("result would exceed 1 MiB") }
                var out = Data()
                if !d.isEmpty { for _ in 0..<n { out.append(d) } }
                return .bytes(out)
            case let v: throw c.expect(v, "a string or bytes")
            }
        },
        "string_replace_all": { c throws(PipelineFailure) in try replace(c, all: true) },
        "string_replace_one": { c throws(PipelineFailure) in try replace(c, all: false) },
        "substring": { c throws(PipelineFailure) in
            try c.arity(2, 3)
            guard let args = try c.presentArgs() else { return .null }
            let position = try c.integer(args[1])
            let length = args.count == 3 ? try c.integer(args[2]) : Int64.max
            guard length >= 0 else { throw c.typeError("expects a non-negative length, but got \(length)") }
            switch args[0] {
            case .string(let s):
                let scalars = Array(s.unicodeScalars)
                let (lo, hi) = slice(count: scalars.count, position: position, length: length)
                var out = String.UnicodeScalarView()
                out.append(contentsOf: scalars[lo..<hi])
                return .string(String(out))
            case .bytes(let d):
                let bytes = [UInt8](d)
                let (lo, hi) = slice(count: bytes.count, position: position, length: length)
                return .bytes(Data(bytes[lo..<hi]))
            case let v: throw c.expect(v, "a string or bytes")
            }
        },
        "split": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let args = try c.presentArgs() else { return .null }
            if case .bytes(let d) = args[0], case .bytes(let sep) = args[1] {
                guard !sep.isEmpty else { return .array(d.map { .bytes(Data([$0])) }) }
                var parts: [Value] = []
                var rest = d[...]
                while let r = rest.range(of: sep) {
                    parts.append(.bytes(Data(rest[rest.startIndex..<r.lowerBound])))
                    rest = rest[r.upperBound...]
                }
                parts.append(.bytes(Data(rest)))
                return .array(parts)
            }
            let s = try c.string(args[0]), sep = try c.string(args[1])
            if sep.isEmpty { return .array(s.unicodeScalars.map { .string(String($0)) }) }
            return .array(s.components(separatedBy: sep).map(Value.string))
        },
        "join": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let args = try c.presentArgs() else { return .null }
            let items = try c.array(args[0]), sep = try c.string(args[1])
            var parts: [String] = []
            for item in items {
                switch item {
                case .string(let s): parts.append(s)
                case .null: continue
                default: throw c.expect(item, "an array of strings")
                }
            }
            return .string(parts.joined(separator: sep))
        },
        "like": { c throws(PipelineFailure) in
            try pair(c) { s, pattern in .boolean(likeMatches(Array(s.unicodeScalars)[...], Array(pattern.unicodeScalars)[...])) }
        },
        "regex_contains": { c throws(PipelineFailure) in
            try regex(c) { re, s in .boolean(re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil) }
        },
        "regex_match": { c throws(PipelineFailure) in
            try regex(c) { re, s in
                let whole = NSRange(s.startIndex..., in: s)
                guard let m = re.firstMatch(in: s, options: [.anchored], range: whole) else { return .boolean(false) }
                if m.range == whole { return .boolean(true) }
                // A shorter first alternative may have won: ask for a match of the whole (its
                // own search is bounded too: `(?:(a+)+)\z` backtracks where `(a+)+` does not).
                let anchored = try? NSRegularExpression(pattern: "(?:" + re.pattern + ")\\z", options: re.options)
                guard anchored?.finishesWithinTimeLimit(in: s, options: [.anchored], range: whole) ?? true else { return nil }
                return .boolean(anchored?.firstMatch(in: s, options: [.anchored], range: whole) != nil)
            }
        },
        "regex_find": { c throws(PipelineFailure) in
            try regex(c) { re, s in
                guard let m = re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) else { return .null }
                return .string(matchText(m, in: s))
            }
        },
        "regex_find_all": { c throws(PipelineFailure) in
            try regex(c) { re, s in
                .array(re.matches(in: s, range: NSRange(s.startIndex..., in: s)).map { .string(matchText($0, in: s)) })
            }
        },
    ]

    /// A one-string function; null in, null out.
    private static func text(_ c: PipelineCall, _ f: (String) throws(PipelineFailure) -> Value) throws(PipelineFailure) -> Value? {
        try c.arity(1)
        guard let v = try c.arg(0), v != .null else { return .null }
        return try f(try c.string(v))
    }

    /// A two-string function; null in, null out.
    private static func pair(_ c: PipelineCall, _ f: (String, String) -> Value) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let args = try c.presentArgs() else { return .null }
        return f(try c.string(args[0]), try c.string(args[1]))
    }

    /// The code-point index of the first occurrence of `needle` in `s`.
    static func scalarIndex(of needle: String, in s: String) -> Int? {
        let h = Array(s.unicodeScalars), n = Array(needle.unicodeScalars)
        if n.isEmpty { return 0 }
        guard n.count <= h.count else { return nil }
        for i in 0...(h.count - n.count) where h[i] == n[0] && Array(h[i..<(i + n.count)]) == n { return i }
        return nil
    }

    /// `substring`'s bounds: a negative position counts from the end; both are clamped.
    private static func slice(count: Int, position: Int64, length: Int64) -> (Int, Int) {
        var start = position < 0 ? Int64(count) + position : position
        start = min(max(start, 0), Int64(count))
        let end = length > Int64(count) - start ? Int64(count) : start + length
        return (Int(start), Int(end))
    }

    private static func trim(_ c: PipelineCall, leading: Bool, trailing: Bool) throws(PipelineFailure) -> Value? {
        try c.arity(1, 2)
        guard let args = try c.presentArgs() else { return .null }
        switch args[0] {
        case .bytes(let d):
            var set: Set<UInt8> = [32]
            if args.count == 2 { guard case .bytes(let chars) = args[1] else { throw c.expect(args[1], "bytes") }; set = Set(chars) }
            var bytes = [UInt8](d)[...]
            if leading { while let f = bytes.first, set.contains(f) { bytes.removeFirst() } }
            if trailing { while let l = bytes.last, set.contains(l) { bytes.removeLast() } }
            return .bytes(Data(bytes))
        default:
            let s = try c.string(args[0])
            var isTrimmed: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
            if args.count == 2 {
                let chars = Set(try c.string(args[1]).unicodeScalars)
                isTrimmed = { chars.contains($0) }
            }
            var scalars = Array(s.unicodeScalars)[...]
            if leading { while let f = scalars.first, isTrimmed(f) { scalars.removeFirst() } }
            if trailing { while let l = scalars.last, isTrimmed(l) { scalars.removeLast() } }
            var out = String.UnicodeScalarView()
            out.append(contentsOf: scalars)
            return .string(String(out))
        }
    }

    private static func replace(_ c: PipelineCall, all: Bool) throws(PipelineFailure) -> Value? {
        try c.arity(3)
        guard let args = try c.presentArgs() else { return .null }
        if case .bytes(let d) = args[0] {
            guard case .bytes(let find) = args[1], case .bytes(let with) = args[2] else { throw c.expect(args[1], "bytes") }
            guard !find.isEmpty else { return .bytes(d) }
            var out = Data(), rest = d[...]
            while let r = rest.range(of: find) {
                out.append(rest[rest.startIndex..<r.lowerBound])
                out.append(with)
                rest = rest[r.upperBound...]
                if !all { break }
            }
            out.append(rest)
            return .bytes(out)
        }
        let s = try c.string(args[0]), find = try c.string(args[1]), with = try c.string(args[2])
        guard !find.isEmpty else { return .string(s) }
        if all { return .string(s.replacingOccurrences(of: find, with: with, options: .literal)) }
        guard let r = s.range(of: find, options: .literal) else { return .string(s) }
        return .string(s.replacingCharacters(in: r, with: with))
    }

    /// SQL LIKE: `%` any run of code points, `_` one code point.
    private static func likeMatches(_ s: ArraySlice<Unicode.Scalar>, _ p: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let first = p.first else { return s.isEmpty }
        if first == "%" {
            let rest = p.dropFirst()
            var tail = s
            while true {
                if likeMatches(tail, rest) { return true }
                guard !tail.isEmpty else { return false }
                tail = tail.dropFirst()
            }
        }
        guard let c = s.first, first == "_" || first == c else { return false }
        return likeMatches(s.dropFirst(), p.dropFirst())
    }

    /// `f` returns nil when a search of its own ran past the time limit.
    private static func regex(_ c: PipelineCall, _ f: (NSRegularExpression, String) -> Value?) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let args = try c.presentArgs() else { return .null }
        let s = try c.string(args[0]), pattern = try c.string(args[1])
        let re = try c.scope.run.regex(pattern, function: c.name)
        guard re.finishesWithinTimeLimit(in: s, range: NSRange(s.startIndex..., in: s)) else { throw regexTooSlow(c, pattern) }
        guard let value = f(re, s) else { throw regexTooSlow(c, pattern) }
        return value
    }

    /// A pattern whose search ran past `NSRegularExpression.matchTimeLimit` (catastrophic
    /// backtracking: production's RE2 would answer; see RegexTimeLimit.swift).
    static func regexTooSlow(_ c: PipelineCall, _ pattern: String) -> PipelineFailure {
        .evaluation("\(c.name)(): the regular expression \"\(pattern.prefix(100))\" took too long to match (over \(NSRegularExpression.matchTimeLimit))")
    }

    /// The whole match, or its first capture group when the pattern has one (RE2's rule).
    private static func matchText(_ m: NSTextCheckingResult, in s: String) -> String {
        let range = m.numberOfRanges > 1 && m.range(at: 1).location != NSNotFound ? m.range(at: 1) : m.range
        return Range(range, in: s).map { String(s[$0]) } ?? ""
    }
}

extension PipelineRun {
    /// A compiled regular expression (cached for the run); an invalid pattern is an error.
    func regex(_ pattern: String, function: String) throws(PipelineFailure) -> NSRegularExpression {
        if let re = regexes[pattern] { return re }
        guard let re = try? NSRegularExpression(pattern: pattern) else {
            throw .evaluation("\(function)(): invalid regular expression \"\(pattern)\"")
        }
        regexes[pattern] = re
        return re
    }
}
