import Foundation
import Testing
@testable import HearthCore

@Suite("Timestamp")
struct TimestampTests {
    @Test("RFC 3339 parsing", arguments: [
        ("1970-01-01T00:00:00Z", Int64(0), Int32(0)),
        ("2026-01-01T00:00:00Z", 1_767_225_600, 0),
        ("2026-01-01T00:00:00.5Z", 1_767_225_600, 500_000_000),
        ("2026-01-01T00:00:00.123Z", 1_767_225_600, 123_000_000),
        ("2026-01-01T00:00:00.123456Z", 1_767_225_600, 123_456_000),
        ("2026-01-01T00:00:00.123456789Z", 1_767_225_600, 123_456_789),
        ("2026-01-01T00:00:00.000000001Z", 1_767_225_600, 1),
        ("2026-01-01T09:00:00+02:00", 1_767_225_600 + 7 * 3600, 0),
        ("2026-01-01T09:00:00-00:00", 1_767_225_600 + 9 * 3600, 0),
        ("2026-01-01T05:30:00.250+05:30", 1_767_225_600, 250_000_000),
        ("2025-12-31T23:00:00-01:00", 1_767_225_600, 0),
        ("2024-02-29T12:00:00Z", 1_709_208_000, 0),
        ("1969-12-31T23:59:59.5Z", -1, 500_000_000),
        ("0001-01-01T00:00:00Z", Timestamp.minSeconds, 0),
        ("9999-12-31T23:59:59.999999Z", Timestamp.maxSeconds, 999_999_000),
        ("9999-12-31T23:59:59.999999999Z", Timestamp.maxSeconds, 999_999_999),
    ] as [(String, Int64, Int32)])
    func parse(_ text: String, _ seconds: Int64, _ nanos: Int32) throws {
        let t = try #require(Timestamp(rfc3339: text))
        #expect(t == Timestamp(seconds: seconds, nanos: nanos))
    }

    @Test("RFC 3339 rejects malformed or out-of-range text", arguments: [
        "", "2026-01-01", "2026-01-01T00:00:00", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z",
        "2026-01-01 00:00:00Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1234567890Z",
        "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "1900-02-29T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z",
        "2026-01-01T00:00:00+2:00", "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00+0200", "2026-01-01T00:00:00Zjunk",
        "26-01-01T00:00:00Z", "+2026-01-01T00:00:00Z",
        // Outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999999Z (docs/semantics.md#values).
        "0000-12-31T23:59:59Z", "0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01",
    ])
    func parseRejects(_ text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test("RFC 3339 formatting uses 0, 3, 6 or 9 fractional digits in UTC", arguments: [
        (Int64(0), Int32(0), "1970-01-01T00:00:00Z"),
        (1_767_225_600, 0, "2026-01-01T00:00:00Z"),
        (1_767_225_600, 500_000_000, "2026-01-01T00:00:00.500Z"),
        (1_767_225_600, 123_000_000, "2026-01-01T00:00:00.123Z"),
        (1_767_225_600, 123_456_000, "2026-01-01T00:00:00.123456Z"),
        (1_767_225_600, 1000, "2026-01-01T00:00:00.000001Z"),
        (1_767_225_600, 123_456_789, "2026-01-01T00:00:00.123456789Z"),
        (1_767_225_600, 1, "2026-01-01T00:00:00.000000001Z"),
        (-1, 500_000_000, "1969-12-31T23:59:59.500Z"),
        (Timestamp.minSeconds, 0, "0001-01-01T00:00:00Z"),
        (Timestamp.maxSeconds, 999_999_000, "9999-12-31T23:59:59.999999Z"),
        (951_782_400, 0, "2000-02-29T00:00:00Z"),
        (1_767_225_600 + 86_399, 999_999_999, "2026-01-01T23:59:59.999999999Z"),
        (253_402_300_799 + 1, 0, "10000-01-01T00:00:00Z"),  // out of range: still written
    ] as [(Int64, Int32, String)])
    func format(_ seconds: Int64, _ nanos: Int32, _ text: String) {
        let t = Timestamp(seconds: seconds, nanos: nanos)
        #expect(t.rfc3339 == text)
        #expect(t.description == text)
        if seconds <= Timestamp.maxSeconds { #expect(Timestamp(rfc3339: text) == t) }  // round trip
    }

    // docs/semantics.md#values: truncated toward −∞ at the microsecond.
    @Test("truncation to microseconds rounds toward −∞", arguments: [
        (Int64(5), Int32(123_456_789), Int64(5), Int32(123_456_000)),
        (5, 999_999_999, 5, 999_999_000),
        (5, 999, 5, 0),
        (5, 1000, 5, 1000),
        (-1, 999_999_999, -1, 999_999_000),  // -1 ns → -1 µs, not 0
        (-1, 1, -1, 0),
    ] as [(Int64, Int32, Int64, Int32)])
    func truncation(_ s: Int64, _ n: Int32, _ ts: Int64, _ tn: Int32) {
        let t = Timestamp(seconds: s, nanos: n).truncatedToMicroseconds
        #expect(t == Timestamp(seconds: ts, nanos: tn))
        #expect(t <= Timestamp(seconds: s, nanos: n))
    }

    @Test("microsecond conversions", arguments: [Int64(0), 1, -1, 1_500_000, -1_500_001, 1_767_225_600_123_456] as [Int64])
    func microseconds(_ us: Int64) {
        let t = Timestamp(microseconds: us)
        #expect(t.nanos >= 0 && t.nanos < 1_000_000_000 && t.nanos % 1000 == 0)
        #expect(t.microseconds == us)
    }

    @Test("negative microseconds borrow from the seconds")
    func negativeMicros() {
        #expect(Timestamp(microseconds: -1) == Timestamp(seconds: -1, nanos: 999_999_000))
        #expect(Timestamp(microseconds: -1_500_001) == Timestamp(seconds: -2, nanos: 499_999_000))
    }

    @Test("validated checks nanos and the 0001…9999 range")
    func validated() throws {
        _ = try Timestamp.validated(seconds: Timestamp.minSeconds, nanos: 0)
        _ = try Timestamp.validated(seconds: Timestamp.maxSeconds, nanos: 999_999_999)
        expectFirestoreError(.invalidArgument, containing: ["nanoseconds", "-1"]) { try Timestamp.validated(seconds: 0, nanos: -1) }
        expectFirestoreError(.invalidArgument, containing: ["nanoseconds"]) { try Timestamp.validated(seconds: 0, nanos: 1_000_000_000) }
        expectFirestoreError(.invalidArgument, containing: ["seconds"]) { try Timestamp.validated(seconds: Timestamp.minSeconds - 1, nanos: 0) }
        expectFirestoreError(.invalidArgument, containing: ["seconds"]) { try Timestamp.validated(seconds: Timestamp.maxSeconds + 1, nanos: 0) }
    }

    @Test("chronological order: seconds, then nanos")
    func order() {
        #expect(Timestamp(seconds: 1, nanos: 999) < Timestamp(seconds: 2, nanos: 0))
        #expect(Timestamp(seconds: 1, nanos: 5) < Timestamp(seconds: 1, nanos: 6))
        #expect(Timestamp(seconds: -1, nanos: 999_999_999) < Timestamp(seconds: 0, nanos: 0))
        #expect(!(Timestamp(seconds: 1, nanos: 5) < Timestamp(seconds: 1, nanos: 5)))
    }

    @Test("Date conversion", arguments: [(1.5, Int64(1), Int32(500_000_000)), (-1.5, -2, 500_000_000), (0, 0, 0)] as [(Double, Int64, Int32)])
    func dates(_ interval: Double, _ s: Int64, _ n: Int32) {
        let t = Timestamp(date: Date(timeIntervalSince1970: interval))
        #expect(t == Timestamp(seconds: s, nanos: n))
        #expect(t.date.timeIntervalSince1970 == interval)
    }
}
