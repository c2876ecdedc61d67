import HearthCore

/// Timestamp and duration built-ins (docs/rules-language.md#global-functions). All components are UTC.
enum TimeMethods {
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { Timestamp.floorDiv(a, b) }

    static func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (y, m, d) = Timestamp.civil(fromDays: days)
        return (Int64(y), Int64(m), Int64(d))
    }

    static func days(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 { Timestamp.days(fromCivil: year, month, day) }

    static func isLeap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func timestamp(_ t: Timestamp, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        try Builtins.arity(name, args, 0)
        let day = floorDiv(t.seconds, 86_400)
        let secOfDay = t.seconds - day * 86_400
        let (y, m, d) = civil(day)
        switch name {
        case "year": return .int(y)
        case "month": return .int(m)
        case "day": return .int(d)
        case "hours": return .int(secOfDay / 3600)
        case "minutes": return .int(secOfDay % 3600 / 60)
        case "seconds": return .int(secOfDay % 60)
        case "nanos": return .int(Int64(t.nanos))
        case "dayOfWeek":
            // 1970-01-01 was a Thursday (4); Monday = 1 … Sunday = 7.
            let w = ((day % 7) + 7 + 3) % 7  // 0 = Monday
            return .int(w + 1)
        case "dayOfYear": return .int(day - days(y, 1, 1) + 1)
        case "toMillis": return .int(t.seconds * 1000 + Int64(t.nanos) / 1_000_000)
        case "date": return .timestamp(Timestamp(seconds: day * 86_400, nanos: 0))
        case "time": return .duration(RulesDuration(seconds: secOfDay, nanos: t.nanos))
        default: throw .functionNotFound(name)
        }
    }

    static func duration(_ d: RulesDuration, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        try Builtins.arity(name, args, 0)
        switch name {
        case "seconds": return .int(d.seconds)
        case "nanos": return .int(Int64(d.nanos))
        default: throw .functionNotFound(name)
        }
    }

    static func namespace(_ ns: BuiltinNamespace, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        func int(_ i: Int) throws(RulesError) -> Int64 {
            guard case .int(let v) = args[i] else {
                throw .unsupported("\(ns.rawValue).\(name)(\(args.map(\.typeName).joined(separator: ", ")))", expected: "int arguments")
            }
            return v
        }
        switch (ns, name) {
        case (.timestamp, "date"):
            try Builtins.arity("timestamp.date", args, 3)
            let y = try int(0), m = try int(1), d = try int(2)
            let monthDays: [Int64] = [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard y >= 1, y <= 9999, m >= 1, m <= 12, d >= 1, d <= monthDays[Int(m - 1)] else {
                throw RulesError("Invalid date: \(y)-\(m)-\(d).")
            }
            return .timestamp(Timestamp(seconds: days(y, m, d) * 86_400, nanos: 0))
        case (.timestamp, "value"):
            try Builtins.arity("timestamp.value", args, 1)
            let ms = try int(0)
            let s = floorDiv(ms, 1000)
            let t = Timestamp(seconds: s, nanos: Int32((ms - s * 1000) * 1_000_000))
            guard s >= Timestamp.minSeconds, s <= Timestamp.maxSeconds else { throw RulesError("Timestamp out of range.") }
            return .timestamp(t)
        case (.duration, "value"):
            try Builtins.arity("duration.value", args, 2)
            let magnitude = try int(0)
            guard case .string(let unit) = args[1] else { throw .unsupported("duration.value(int, \(args[1].typeName))", expected: "duration.value(int, string)") }
            let nanosPerUnit: Int64
            switch unit {
            case "w": nanosPerUnit = 604_800_000_000_000
            case "d": nanosPerUnit = 86_400_000_000_000
            case "h": nanosPerUnit = 3_600_000_000_000
            case "m": nanosPerUnit = 60_000_000_000
            case "s": nanosPerUnit = 1_000_000_000
            case "ms": nanosPerUnit = 1_000_000
            case "ns": nanosPerUnit = 1
            default: throw RulesError("Invalid duration unit: '\(unit)'. Expected one of w, d, h, m, s, ms, ns.")
            }
            // Split into seconds and nanos without overflowing for large magnitudes.
            let r: RulesDuration?
            if nanosPerUnit >= 1_000_000_000 {
                let (s, o) = magnitude.multipliedReportingOverflow(by: nanosPerUnit / 1_000_000_000)
                r = o ? nil : RulesDuration.make(seconds: s, nanos: 0)
            } else {
                let perSecond = 1_000_000_000 / nanosPerUnit
                r = RulesDuration.make(seconds: magnitude / perSecond, nanos: (magnitude % perSecond) * nanosPerUnit)
            }
            guard let r else { throw .overflow }
            return .duration(r)
        case (.duration, "time"):
            try Builtins.arity("duration.time", args, 4)
            let h = try int(0), mi = try int(1), s = try int(2), n = try int(3)
            let (a, o1) = h.multipliedReportingOverflow(by: 3600)
            let (b, o2) = mi.multipliedReportingOverflow(by: 60)
            let (ab, o3) = a.addingReportingOverflow(b)
            let (total, o4) = ab.addingReportingOverflow(s)
            guard !o1, !o2, !o3, !o4, let r = RulesDuration.make(seconds: total, nanos: n) else { throw .overflow }
            return .duration(r)
        case (.duration, "abs"):
            try Builtins.arity("duration.abs", args, 1)
            guard case .duration(let d) = args[0] else { throw .unsupported("duration.abs(\(args[0].typeName))", expected: "duration.abs(duration)") }
            return .duration(d.seconds < 0 || d.nanos < 0 ? RulesDuration(seconds: -d.seconds, nanos: -d.nanos) : d)
        default:
            throw .functionNotFound("\(ns.rawValue).\(name)")
        }
    }
}
