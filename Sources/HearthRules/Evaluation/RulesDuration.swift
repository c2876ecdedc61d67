/// A signed span with nanosecond precision: `seconds` and `nanos` share a sign.
public struct RulesDuration: Sendable, Hashable, Comparable {
    public var seconds: Int64
    public var nanos: Int32

    public init(seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// Normalises seconds and nanos to share a sign.
    public static func make(seconds: Int64, nanos: Int64) -> RulesDuration? {
        var s = seconds
        var n = nanos
        let (carry, rest) = n.quotientAndRemainder(dividingBy: 1_000_000_000)
        let (s2, overflow) = s.addingReportingOverflow(carry)
        if overflow { return nil }
        s = s2
        n = rest
        if s > 0 && n < 0 { s -= 1; n += 1_000_000_000 }
        if s < 0 && n > 0 { s += 1; n -= 1_000_000_000 }
        // Production's range: ±315,576,000,000 seconds (10,000 years).
        guard s.magnitude <= 315_576_000_000 else { return nil }
        return RulesDuration(seconds: s, nanos: Int32(n))
    }

    public static func < (a: RulesDuration, b: RulesDuration) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanos < b.nanos
    }
}
