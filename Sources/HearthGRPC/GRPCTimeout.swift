/// The `grpc-timeout` request header: 1–8 ASCII digits and a unit, `H` hours, `M`
/// minutes, `S` seconds, `m` milliseconds, `u` microseconds, `n` nanoseconds.
enum GRPCTimeout {
    /// The timeout as a Duration, or nil when the header is malformed.
    static func parse(_ value: String) -> Duration? {
        let u = Array(value.utf8)
        guard u.count >= 2, u.count <= 9, let unit = u.last else { return nil }
        var amount: Int64 = 0
        for c in u.dropLast() {
            guard c >= 0x30 && c <= 0x39 else { return nil }
            amount = amount * 10 + Int64(c - 0x30)
        }
        switch unit {
        case UInt8(ascii: "H"): return .seconds(amount * 3600)
        case UInt8(ascii: "M"): return .seconds(amount * 60)
        case UInt8(ascii: "S"): return .seconds(amount)
        case UInt8(ascii: "m"): return .milliseconds(amount)
        case UInt8(ascii: "u"): return .microseconds(amount)
        case UInt8(ascii: "n"): return .nanoseconds(amount)
        default: return nil
        }
    }
}
