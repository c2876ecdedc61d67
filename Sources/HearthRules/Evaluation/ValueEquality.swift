import HearthCore

/// Equality and ordering of rules values (docs/rules-language.md#operators):
/// numbers compare numerically at the top level but type-strictly inside lists and maps.
extension RulesValue {
    /// `==` on two evaluated values. Never an error: mismatched types are simply unequal.
    static func equals(_ a: RulesValue, _ b: RulesValue) -> Bool { equal(a, b, strict: false) }

    static func equal(_ a: RulesValue, _ b: RulesValue, strict: Bool) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.float(x), .float(y)): return x == y
        case let (.int(x), .float(y)): return !strict && Double(x) == y && exactIntFloat(x, y)
        case let (.float(x), .int(y)): return !strict && Double(y) == x && exactIntFloat(y, x)
        case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
        case let (.bytes(x), .bytes(y)): return x == y
        case let (.list(x), .list(y)):
            guard x.count == y.count else { return false }
            for i in x.indices where !equal(x[i], y[i], strict: true) { return false }
            return true
        case let (.map(x), .map(y)):
            guard x.count == y.count else { return false }
            for (k, v) in x.entries {
                guard let w = y[k], equal(v, w, strict: true) else { return false }
            }
            return true
        case let (.set(x), .set(y)):
            guard x.count == y.count else { return false }
            return x.allSatisfy { e in setContains(y, e) }
        case let (.path(x), .path(y)):
            return x.segments.count == y.segments.count
                && zip(x.segments, y.segments).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
        case let (.timestamp(x), .timestamp(y)): return x == y
        case let (.duration(x), .duration(y)): return x == y
        case let (.latlng(a1, b1), .latlng(a2, b2)): return a1 == a2 && b1 == b2
        case let (.mapDiff(n1, o1), .mapDiff(n2, o2)): return equal(.map(n1), .map(n2), strict: true) && equal(.map(o1), .map(o2), strict: true)
        default: return false
        }
    }

    /// Guards against 2^53+1 == 2^53 through the float conversion.
    private static func exactIntFloat(_ i: Int64, _ d: Double) -> Bool {
        guard d.isFinite, d >= -9.223372036854775808e18, d < 9.223372036854775808e18 else { return false }
        return Int64(d) == i
    }

    /// Set membership compares numbers numerically (`[1].toSet() == [1.0].toSet()`, docs/rules-language.md#operators).
    static func setContains(_ set: [RulesValue], _ v: RulesValue) -> Bool {
        set.contains { equal($0, v, strict: false) }
    }

    static func listContains(_ list: [RulesValue], _ v: RulesValue) -> Bool {
        list.contains { equal($0, v, strict: true) }
    }

    static func makeSet(_ items: [RulesValue]) -> [RulesValue] {
        var out: [RulesValue] = []
        for item in items where !setContains(out, item) { out.append(item) }
        return out
    }

    /// `<` family: numbers (mixed), strings (UTF-16 order), timestamps, durations, bytes.
    /// Returns nil when the pair is not comparable (an error for the caller), and 2 when a
    /// NaN makes every relation false.
    static func compare(_ a: RulesValue, _ b: RulesValue) -> Int? {
        func cmp<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case let (.int(x), .int(y)): return cmp(x, y)
        case let (.float(x), .float(y)): return x.isNaN || y.isNaN ? 2 : cmp(x, y)
        case let (.int(x), .float(y)): return y.isNaN ? 2 : compareIntDouble(x, y)
        case let (.float(x), .int(y)): return x.isNaN ? 2 : -compareIntDouble(y, x)
        case let (.string(x), .string(y)):
            // Java's String.compareTo: UTF-16 code units, so '😀' < '\u{FFFF}' (observed).
            if x.utf8.elementsEqual(y.utf8) { return 0 }
            return x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : 1
        case let (.bytes(x), .bytes(y)): return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        case let (.timestamp(x), .timestamp(y)): return cmp(x, y)
        case let (.duration(x), .duration(y)): return cmp(x, y)
        default: return nil
        }
    }

    private static func compareIntDouble(_ i: Int64, _ d: Double) -> Int {
        if d >= 9.223372036854775808e18 { return -1 }
        if d < -9.223372036854775808e18 { return 1 }
        let t = d.rounded(.towardZero)
        let ti = Int64(t)
        if i != ti { return i < ti ? -1 : 1 }
        let frac = d - t
        return frac > 0 ? -1 : (frac < 0 ? 1 : 0)
    }
}
