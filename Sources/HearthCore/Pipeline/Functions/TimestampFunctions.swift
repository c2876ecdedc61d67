import Foundation

/// Timestamp functions: conversions to and from Unix time, `timestamp_add` / `_subtract` /
/// `_diff`, and `timestamp_trunc` / `timestamp_extract` in a time zone (UTC by default;
/// an IANA name or a fixed offset like `+05:30`). Calendar parts follow the documented
/// (BigQuery-style) definitions: `dayofweek` 1 = Sunday; `week` (Sunday-based) and
/// `week(<weekday>)` count the days before the year's first such weekday as week 0;
/// `isoweek` / `isoyear` are ISO 8601's. Results outside 0001-01-01 … 9999-12-31 are errors.
extension PipelineFunctions {
    static let timestampFunctions: [String: PipelineFunctionImplementation] = [
        "current_timestamp": { c throws(PipelineFailure) in
            try c.arity(0)
            return .timestamp(c.scope.run.now)
        },
        "timestamp_to_unix_micros": { c throws(PipelineFailure) in try fromTimestamp(c) { t in t.seconds &* 1_000_000 &+ Int64(t.nanos / 1000) } },
        "timestamp_to_unix_millis": { c throws(PipelineFailure) in try fromTimestamp(c) { t in floorDiv(t.seconds &* 1_000_000 &+ Int64(t.nanos / 1000), 1000) } },
        "timestamp_to_unix_seconds": { c throws(PipelineFailure) in try fromTimestamp(c) { t in t.seconds } },
        "unix_micros_to_timestamp": { c throws(PipelineFailure) in try toTimestamp(c, perSecond: 1_000_000) },
        "unix_millis_to_timestamp": { c throws(PipelineFailure) in try toTimestamp(c, perSecond: 1000) },
        "unix_seconds_to_timestamp": { c throws(PipelineFailure) in try toTimestamp(c, perSecond: 1) },
        "timestamp_add": { c throws(PipelineFailure) in try shift(c, sign: 1) },
        "timestamp_subtract": { c throws(PipelineFailure) in try shift(c, sign: -1) },
        "timestamp_diff": { c throws(PipelineFailure) in
            try c.arity(3)
            guard let args = try c.presentArgs() else { return .null }
            guard case .timestamp(let end) = args[0] else { throw c.expect(args[0], "a timestamp") }
            guard case .timestamp(let start) = args[1] else { throw c.expect(args[1], "a timestamp") }
            let unit = try micros(per: try c.string(args[2]), c)
            let diff = nanos(end) - nanos(start)
            return .integer(Int64(diff / (Int128(unit) * 1000)))
        },
        "timestamp_trunc": { c throws(PipelineFailure) in
            try c.arity(2, 3)
            guard let args = try c.presentArgs() else { return .null }
            guard case .timestamp(let t) = args[0] else { throw c.expect(args[0], "a timestamp") }
            let zone = args.count == 3 ? try Zone(try c.string(args[2]), c) : .utc
            return .timestamp(try truncate(t, to: try c.string(args[1]).lowercased(), zone, c))
        },
        "timestamp_extract": { c throws(PipelineFailure) in
            try c.arity(2, 3)
            guard let args = try c.presentArgs() else { return .null }
            guard case .timestamp(let t) = args[0] else { throw c.expect(args[0], "a timestamp") }
            let zone = args.count == 3 ? try Zone(try c.string(args[2]), c) : .utc
            return .integer(try extract(try c.string(args[1]).lowercased(), from: t, zone, c))
        },
    ]

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { Timestamp.floorDiv(a, b) }

    private static func nanos(_ t: Timestamp) -> Int128 { Int128(t.seconds) * 1_000_000_000 + Int128(t.nanos) }

    private static func timestamp(nanos n: Int128, _ c: PipelineCall) throws(PipelineFailure) -> Timestamp {
        var s = n / 1_000_000_000, r = n % 1_000_000_000
        if r < 0 { r += 1_000_000_000; s -= 1 }
        guard s >= Int128(Timestamp.minSeconds), s <= Int128(Timestamp.maxSeconds) else {
            throw c.typeError("result is outside the supported timestamp range")
        }
        return Timestamp(seconds: Int64(s), nanos: Int32(r))
    }

    private static func fromTimestamp(_ c: PipelineCall, _ f: (Timestamp) -> Int64) throws(PipelineFailure) -> Value? {
        try c.arity(1)
        guard let v = try c.arg(0), v != .null else { return .null }
        guard case .timestamp(let t) = v else { throw c.expect(v, "a timestamp") }
        return .integer(f(t))
    }

    private static func toTimestamp(_ c: PipelineCall, perSecond: Int64) throws(PipelineFailure) -> Value? {
        try c.arity(1)
        guard let v = try c.arg(0), v != .null else { return .null }
        guard case .integer(let n) = v else { throw c.expect(v, "an integer") }
        return .timestamp(try timestamp(nanos: Int128(n) * Int128(1_000_000_000 / perSecond), c))
    }

    /// Microseconds in a `timestamp_add` / `timestamp_diff` unit.
    private static func micros(per unit: String, _ c: PipelineCall) throws(PipelineFailure) -> Int64 {
        switch unit.lowercased() {
        case "microsecond": return 1
        case "millisecond": return 1000
        case "second": return 1_000_000
        case "minute": return 60_000_000
        case "hour": return 3_600_000_000
        case "day": return 86_400_000_000
        default:
            throw c.typeError("expects a unit of microsecond, millisecond, second, minute, hour or day, but got \"\(unit)\"")
        }
    }

    private static func shift(_ c: PipelineCall, sign: Int64) throws(PipelineFailure) -> Value? {
        try c.arity(3)
        guard let args = try c.presentArgs() else { return .null }
        guard case .timestamp(let t) = args[0] else { throw c.expect(args[0], "a timestamp") }
        let unit = try micros(per: try c.string(args[1]), c)
        let delta: Int128
        switch args[2] {
        case .integer(let n): delta = Int128(n) * Int128(unit) * 1000
        case .double(let d) where d.isFinite && abs(d) < 1e15: delta = Int128((d * Double(unit) * 1000).rounded(.towardZero))
        default: throw c.expect(args[2], "an integer amount")
        }
        return .timestamp(try timestamp(nanos: nanos(t) + Int128(sign) * delta, c))
    }

    /// A time zone: an IANA zone or a fixed offset.
    struct Zone {
        let zone: TimeZone?
        let fixed: Int

        static let utc = Zone(zone: nil, fixed: 0)

        private init(zone: TimeZone?, fixed: Int) {
            self.zone = zone
            self.fixed = fixed
        }

        init(_ name: String, _ c: PipelineCall) throws(PipelineFailure) {
            if name.uppercased() == "UTC" || name == "Z" { self = .utc; return }
            let b = Array(name.utf8)
            if b.count == 6, b[0] == 43 || b[0] == 45, b[3] == 58, let h = Int(String(name.dropFirst().prefix(2))), let m = Int(String(name.suffix(2))), h < 24, m < 60 {
                self.init(zone: nil, fixed: (h * 3600 + m * 60) * (b[0] == 43 ? 1 : -1))
                return
            }
            guard let tz = TimeZone(identifier: name) else { throw c.typeError("got an unknown time zone \"\(name)\"") }
            self.init(zone: tz, fixed: 0)
        }

        func offset(atUTC seconds: Int64) -> Int64 {
            guard let zone else { return Int64(fixed) }
            return Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
        }

        /// The UTC instant of a local wall-clock time (the earlier one across a change).
        func utc(fromLocal local: Int64) -> Int64 {
            var guess = local - offset(atUTC: local)
            guess = local - offset(atUTC: guess)
            return guess
        }
    }

    /// Local calendar fields of an instant.
    private struct Civil {
        let year: Int64, month: Int64, day: Int64, dayNumber: Int64, secondOfDay: Int64
        /// 0 = Sunday … 6 = Saturday.
        var weekday: Int64 { ((dayNumber % 7) + 11) % 7 }  // 1970-01-01 was a Thursday (4)
        var dayOfYear: Int64 { dayNumber - Timestamp.days(fromCivil: year, 1, 1) + 1 }

        init(local: Int64) {
            dayNumber = Timestamp.floorDiv(local, 86_400)
            secondOfDay = local - dayNumber * 86_400
            let (y, m, d) = Timestamp.civil(fromDays: dayNumber)
            year = Int64(y); month = Int64(m); day = Int64(d)
        }
    }

    /// The day number starting ISO year `y` (the Monday of its week 1).
    private static func isoYearStart(_ y: Int64) -> Int64 {
        let jan4 = Timestamp.days(fromCivil: y, 1, 4)
        let weekday = ((jan4 % 7) + 11) % 7  // 0 = Sunday
        return jan4 - ((weekday + 6) % 7)
    }

    private static func isoYearAndWeek(_ civil: Civil) -> (Int64, Int64) {
        var y = civil.year
        if civil.dayNumber >= isoYearStart(y + 1) { y += 1 } else if civil.dayNumber < isoYearStart(y) { y -= 1 }
        return (y, (civil.dayNumber - isoYearStart(y)) / 7 + 1)
    }

    private static let weekdays = ["sunday": Int64(0), "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6]

    /// `week` is `week(sunday)`; returns the weekday a `week(...)` part names.
    private static func weekStart(_ part: String) -> Int64? {
        if part == "week" { return 0 }
        guard part.hasPrefix("week("), part.hasSuffix(")") else { return nil }
        return weekdays[String(part.dropFirst(5).dropLast())]
    }

    private static func extract(_ part: String, from t: Timestamp, _ zone: Zone, _ c: PipelineCall) throws(PipelineFailure) -> Int64 {
        let local = t.seconds + zone.offset(atUTC: t.seconds)
        let civil = Civil(local: local)
        switch part {
        case "microsecond": return Int64(t.nanos / 1000)
        case "millisecond": return Int64(t.nanos / 1_000_000)
        case "second": return civil.secondOfDay % 60
        case "minute": return civil.secondOfDay / 60 % 60
        case "hour": return civil.secondOfDay / 3600
        case "day": return civil.day
        case "dayofweek": return civil.weekday + 1
        case "dayofyear": return civil.dayOfYear
        case "month": return civil.month
        case "quarter": return (civil.month - 1) / 3 + 1
        case "year": return civil.year
        case "isoweek": return isoYearAndWeek(civil).1
        case "isoyear": return isoYearAndWeek(civil).0
        default:
            guard let start = weekStart(part) else { throw c.typeError("got an unknown part \"\(part)\"") }
            let jan1 = Civil(local: Timestamp.days(fromCivil: civil.year, 1, 1) * 86_400)
            let first = (start - jan1.weekday + 7) % 7  // day-of-year index (0-based) of the first such weekday
            let index = civil.dayOfYear - 1
            return index < first ? 0 : (index - first) / 7 + 1
        }
    }

    private static func truncate(_ t: Timestamp, to granularity: String, _ zone: Zone, _ c: PipelineCall) throws(PipelineFailure) -> Timestamp {
        switch granularity {
        case "microsecond": return Timestamp(seconds: t.seconds, nanos: t.nanos - t.nanos % 1000)
        case "millisecond": return Timestamp(seconds: t.seconds, nanos: t.nanos - t.nanos % 1_000_000)
        case "second": return Timestamp(seconds: t.seconds, nanos: 0)
        default: break
        }
        let local = t.seconds + zone.offset(atUTC: t.seconds)
        let civil = Civil(local: local)
        let day = civil.dayNumber
        let startDay: Int64
        switch granularity {
        case "minute": return Timestamp(seconds: zone.utc(fromLocal: local - local %% 60), nanos: 0)
        case "hour": return Timestamp(seconds: zone.utc(fromLocal: local - local %% 3600), nanos: 0)
        case "day": startDay = day
        case "isoweek": startDay = day - (civil.weekday + 6) % 7
        case "month": startDay = Timestamp.days(fromCivil: civil.year, civil.month, 1)
        case "quarter": startDay = Timestamp.days(fromCivil: civil.year, (civil.month - 1) / 3 * 3 + 1, 1)
        case "year": startDay = Timestamp.days(fromCivil: civil.year, 1, 1)
        case "isoyear": startDay = isoYearStart(isoYearAndWeek(civil).0)
        default:
            guard let start = weekStart(granularity) else { throw c.typeError("got an unknown granularity \"\(granularity)\"") }
            startDay = day - (civil.weekday - start + 7) % 7
        }
        let utc = zone.utc(fromLocal: startDay * 86_400)
        guard utc >= Timestamp.minSeconds else { throw c.typeError("result is outside the supported timestamp range") }
        return Timestamp(seconds: utc, nanos: 0)
    }
}

infix operator %%: MultiplicationPrecedence

/// The non-negative remainder (floor modulo).
private func %% (a: Int64, b: Int64) -> Int64 {
    let r = a % b
    return r < 0 ? r + b : r
}
