import Foundation

/// A point in time with nanosecond resolution, in Firestore's valid range
/// 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999999Z.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var seconds: Int64
    public var nanos: Int32

    /// 0001-01-01T00:00:00Z in Unix seconds.
    public static let minSeconds: Int64 = -62_135_596_800
    /// 9999-12-31T23:59:59Z in Unix seconds.
    public static let maxSeconds: Int64 = 253_402_300_799

    /// Creates a timestamp without validation; use `validated` for untrusted input.
    public init(seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// Checks the range rules, naming the offending part.
    public static func validated(seconds: Int64, nanos: Int32) throws(FirestoreError) -> Timestamp {
        guard nanos >= 0, nanos < 1_000_000_000 else {
            throw .invalidArgument("Timestamp nanoseconds out of range: \(nanos)")
        }
        guard seconds >= minSeconds, seconds <= maxSeconds else {
            throw .invalidArgument("Timestamp seconds out of range: \(seconds)")
        }
        return Timestamp(seconds: seconds, nanos: nanos)
    }

    public init(date: Date) {
        let interval = date.timeIntervalSince1970
        var secs = interval.rounded(.down)
        var nanos = ((interval - secs) * 1e9).rounded()
        if nanos >= 1e9 { secs += 1; nanos -= 1e9 }
        self.init(seconds: Int64(secs), nanos: Int32(nanos))
    }

    public var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9)
    }

    /// Truncated toward −∞ at the microsecond, as the server stores timestamps (docs/semantics.md#values).
    public var truncatedToMicroseconds: Timestamp {
        Timestamp(seconds: seconds, nanos: nanos - nanos % 1000)
    }

    /// Microseconds since the Unix epoch.
    public var microseconds: Int64 { seconds &* 1_000_000 &+ Int64(nanos / 1000) }

    public init(microseconds: Int64) {
        var s = microseconds / 1_000_000
        var us = microseconds % 1_000_000
        if us < 0 { us += 1_000_000; s -= 1 }
        self.init(seconds: s, nanos: Int32(us) * 1000)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanos < b.nanos
    }

    /// RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as proto3 JSON writes it.
    public var rfc3339: String {
        let days = Self.floorDiv(seconds, 86_400)
        let secOfDay = Int(seconds - days * 86_400)
        let (y, m, d) = Self.civil(fromDays: days)
        guard (0...9999).contains(y), (0..<1_000_000_000).contains(nanos) else {
            // Out of Firestore's range (an invalid value named in an error): printf's form.
            var out = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, secOfDay / 3600, secOfDay % 3600 / 60, secOfDay % 60)
            if nanos != 0 {
                if nanos % 1_000_000 == 0 { out += String(format: ".%03d", nanos / 1_000_000) }
                else if nanos % 1000 == 0 { out += String(format: ".%06d", nanos / 1000) }
                else { out += String(format: ".%09d", nanos) }
            }
            return out + "Z"
        }
        // Written digit by digit: `String(format:)` went through Foundation's formatter, a
        // quarter of a REST document read's CPU (two timestamps a document).
        var out: [UInt8] = []
        out.reserveCapacity(30)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var v = value
            while divisor > 0 {
                out.append(UInt8(48 + v / divisor))
                v %= divisor
                divisor /= 10
            }
        }
        digits(y, 4); out.append(45); digits(m, 2); out.append(45); digits(d, 2); out.append(84)
        digits(secOfDay / 3600, 2); out.append(58); digits(secOfDay % 3600 / 60, 2); out.append(58); digits(secOfDay % 60, 2)
        let n = Int(nanos)
        if n != 0 {
            out.append(46)
            if n % 1_000_000 == 0 { digits(n / 1_000_000, 3) } else if n % 1000 == 0 { digits(n / 1000, 6) } else { digits(n, 9) }
        }
        out.append(90)
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { rfc3339 }

    /// Parses RFC 3339 (`2026-01-01T09:00:00Z`, `…T09:00:00.123456+02:00`, `-00:00`).
    /// Requires upper-case `T` and `Z`, as the Firestore JSON mapping does.
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var v = 0
            for i in start..<(start + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 20, let y = digits(0, 4), b[4] == 45, let mo = digits(5, 2), b[7] == 45,
              let d = digits(8, 2), b[10] == 84, let h = digits(11, 2), b[13] == 58,
              let mi = digits(14, 2), b[16] == 58, let s = digits(17, 2),
              (1...12).contains(mo), d >= 1, d <= Self.daysInMonth(y, mo), h < 24, mi < 60, s < 60
        else { return nil }
        var i = 19
        var nanos = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var n = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                guard n < 9 else { return nil }
                nanos = nanos * 10 + Int(b[i] - 48)
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            for _ in n..<9 { nanos *= 10 }
        }
        var offset = 0
        guard i < b.count else { return nil }
        if b[i] == 90 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            guard let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 58,
                  let om = digits(i + 4, 2), oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (b[i] == 43 ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = Self.days(fromCivil: Int64(y), Int64(mo), Int64(d))
        let secs = days * 86_400 + Int64(h * 3600 + mi * 60 + s) - Int64(offset)
        // Year 0000, or an offset pushing the instant past either end, is outside the range.
        guard secs >= Self.minSeconds, secs <= Self.maxSeconds else { return nil }
        self.init(seconds: secs, nanos: Int32(nanos))
    }

    /// Division rounding toward −∞ (days before 1970 are negative).
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's civil-from-days algorithms (proleptic Gregorian calendar, UTC), also
    // used by the rules' timestamp methods.
    /// Days since 1970-01-01 of a calendar date.
    public static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The calendar date (year, month, day) of a day number since 1970-01-01.
    public static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }
}
