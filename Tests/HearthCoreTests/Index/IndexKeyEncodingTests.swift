import Foundation
import Testing
@testable import HearthCore

/// The index key encoding must order bytes exactly as `Value.compare` orders values.
@Suite struct IndexKeyEncodingTests {
    static let samples: [Value] = {
        var v: [Value] = [
            .null, .boolean(false), .boolean(true),
            .double(.nan), .double(-.infinity), .integer(Int64.min), .double(-9.223372036854775808e18),
            .integer(-1), .double(-0.5), .double(-0.0), .integer(0), .double(0.0), .double(.leastNonzeroMagnitude), .double(0.5),
            .integer(1), .double(1.0), .integer(9_007_199_254_740_992), .integer(9_007_199_254_740_993),
            .double(9_007_199_254_740_994), .integer(Int64.max - 1), .integer(Int64.max), .double(9.223372036854775808e18),
            .double(1e300), .double(.infinity),
            .timestamp(Timestamp(seconds: -5, nanos: 0)), .timestamp(Timestamp(seconds: 0, nanos: 1)), .timestamp(Timestamp(seconds: 0, nanos: 999_999_999)),
            .string(""), .string("\u{0}"), .string("\u{0}a"), .string("a"), .string("a\u{0}"), .string("ab"), .string("b"), .string("é"), .string("😀"),
            .bytes(Data()), .bytes(Data([0])), .bytes(Data([0, 0])), .bytes(Data([1])), .bytes(Data([255])),
            testReference("c/a"), testReference("c/a/d/b"), testReference("c/__id5__"), testReference("c/b"), testReference("d/a"),
            testReference("c/a", project: "a"), testReference("c/a", database: "x"),
            .geoPoint(GeoPoint(latitude: -10, longitude: 5)), .geoPoint(GeoPoint(latitude: 0, longitude: -5)), .geoPoint(GeoPoint(latitude: 0, longitude: 5)),
            .array([]), .array([.null]), .array([.integer(1)]), .array([.integer(1), .integer(2)]), .array([.double(1.5)]), .array([.string("a")]),
            .array([.array([])]), .vector([]), .vector([1, 2]), .vector([-1, 2, 3]), .vector([0, 0, 0]),
            .map(MapValue()), testMap(["a": .integer(1)]), testMap(["a": .integer(2)]), testMap(["a": .integer(1), "b": .null]),
            testMap(["b": .null]), testMap(["a\u{0}": .null]), testMap(["a": testMap(["x": .array([])])]),
        ]
        v.append(.integer(-9_007_199_254_740_993))
        v.append(.double(-9_007_199_254_740_992))
        return v
    }()

    func encoded(_ v: Value, descending: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        IndexKeyEncoding.encode(v, descending: descending, into: &bytes)
        return bytes
    }

    @Test func byteOrderIsValueOrder() {
        for a in Self.samples {
            for b in Self.samples {
                let expected = Value.compare(a, b)
                let actual = OrderedBytes.compare(encoded(a), encoded(b))
                #expect(actual == expected, "\(a) vs \(b): bytes say \(actual), values say \(expected)")
                let reversed = OrderedBytes.compare(encoded(a, descending: true), encoded(b, descending: true))
                #expect(reversed == -expected, "descending \(a) vs \(b)")
            }
        }
    }

    @Test func encodingIsPrefixFree() {
        // Needed so a value followed by more key bytes still sorts by the value alone.
        for a in Self.samples {
            for b in Self.samples where Value.compare(a, b) != 0 {
                let ea = encoded(a), eb = encoded(b)
                #expect(!(ea.count < eb.count && Array(eb.prefix(ea.count)) == ea), "\(a) encodes as a prefix of \(b)")
            }
        }
    }

    @Test func integersFarthestFromTheirNearestDoubleStayOrdered() {
        // Above 2^62 doubles are 1024 apart, so an int64 sits up to 512 from the nearest one:
        // the residual's full range, around ties (rounded to even) and up to Int64.max.
        var values: [Value] = []
        for base: Int64 in [1 << 62, (1 << 62) + 1024, (1 << 62) + 2048, Int64.max - 1023, Int64.max - 511] {
            for delta: Int64 in [-513, -512, -511, -1, 0, 1, 511, 512, 513] where base.addingReportingOverflow(delta).overflow == false {
                values.append(.integer(base + delta))
                values.append(.double(Double(base + delta)))
            }
        }
        values.append(.integer(Int64.max))
        values.append(.double(9.223372036854775808e18))
        for a in values {
            for b in values {
                #expect(OrderedBytes.compare(encoded(a), encoded(b)) == Value.compare(a, b), "\(a) vs \(b)")
            }
        }
    }

    @Test func randomIntegersAndDoublesInterleaveExactly() {
        var rng = SystemRandomNumberGenerator()
        var values: [Value] = []
        for _ in 0..<400 {
            let big = Int64.random(in: Int64.min...Int64.max, using: &rng)
            values.append(.integer(big))
            values.append(.double(Double(big)))
            values.append(.integer(big &+ 1))
            values.append(.double(Double.random(in: -1e6...1e6, using: &rng)))
            values.append(.integer(Int64.random(in: -1_000_000...1_000_000, using: &rng)))
        }
        for _ in 0..<4000 {
            let a = values.randomElement(using: &rng)!, b = values.randomElement(using: &rng)!
            #expect(OrderedBytes.compare(encoded(a), encoded(b)) == Value.compare(a, b), "\(a) vs \(b)")
        }
    }
}
