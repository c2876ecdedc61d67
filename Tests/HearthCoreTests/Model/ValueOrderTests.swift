import Foundation
import Testing
@testable import HearthCore

/// A comparison vector: `compare(lhs, rhs)` must be `expected`, and the reverse its negation.
struct OrderCase: Sendable, CustomTestStringConvertible {
    let lhs: Value
    let rhs: Value
    let expected: Int
    var testDescription: String { "\(lhs) vs \(rhs) → \(expected)" }
    init(_ lhs: Value, _ rhs: Value, _ expected: Int) {
        self.lhs = lhs
        self.rhs = rhs
        self.expected = expected
    }
}

@Suite("Value total order (docs/semantics.md#value-order)")
struct ValueOrderTests {
    // MARK: Across types

    /// The lowest and highest representative we use for each type, in the type order of docs/semantics.md#value-order.
    static let typeRepresentatives: [(name: String, low: Value, high: Value)] = [
        ("null", .null, .null),
        ("boolean", .boolean(false), .boolean(true)),
        ("number", .double(.nan), .double(.infinity)),
        ("timestamp", .timestamp(Timestamp(seconds: Timestamp.minSeconds, nanos: 0)),
         .timestamp(Timestamp(seconds: Timestamp.maxSeconds, nanos: 999_999_999))),
        ("string", .string(""), .string("\u{10FFFF}\u{10FFFF}")),
        ("bytes", .bytes(Data()), .bytes(Data([0xFF, 0xFF, 0xFF]))),
        ("reference", testReference("a/b", project: ""), testReference("z/z/z/z", project: "zzz")),
        ("geoPoint", .geoPoint(GeoPoint(latitude: -90, longitude: -180)), .geoPoint(GeoPoint(latitude: 90, longitude: 180))),
        ("array", .array([]), .array([testMap(["z": .string("z")])])),
        ("vector", .vector([]), .vector([.infinity, .infinity, .infinity])),
        ("map", .map(MapValue()), testMap(["\u{10FFFF}": testMap(["z": .null])])),
    ]

    @Test("type order matches docs/semantics.md#value-order")
    func typeOrderPositions() {
        for (i, rep) in Self.typeRepresentatives.enumerated() {
            #expect(rep.low.typeOrder == i, "\(rep.name)")
            #expect(rep.high.typeOrder == i, "\(rep.name)")
        }
        #expect(Value.integer(0).typeOrder == Value.double(0).typeOrder)  // one number bucket
    }

    // docs/semantics.md#value-order: null < bool < number < timestamp < string < bytes < reference < geopoint
    // < array < vector < map, whatever the values within each type.
    @Test("every value of a lower type sorts before every value of a higher type", arguments: 0..<11)
    func crossTypeOrder(lowerType: Int) {
        let lower = Self.typeRepresentatives[lowerType]
        for higher in Self.typeRepresentatives[(lowerType + 1)...] {
            for a in [lower.low, lower.high] {
                for b in [higher.low, higher.high] {
                    #expect(Value.compare(a, b) == -1, "\(lower.name) \(a) < \(higher.name) \(b)")
                    #expect(Value.compare(b, a) == 1, "\(higher.name) \(b) > \(lower.name) \(a)")
                }
            }
        }
    }

    @Test("each representative equals itself")
    func reflexive() {
        for rep in Self.typeRepresentatives {
            #expect(Value.compare(rep.low, rep.low) == 0)
            #expect(Value.compare(rep.high, rep.high) == 0)
        }
    }

    // MARK: Numbers

    static let two63 = 9_223_372_036_854_775_808.0  // 2^63, exactly representable
    static let numberCases: [OrderCase] = [
        // docs/semantics.md#value-order: exact int/double comparison.
        OrderCase(.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992.0), 1),
        OrderCase(.integer(9_007_199_254_740_992), .double(9_007_199_254_740_992.0), 0),
        OrderCase(.integer(9_007_199_254_740_991), .double(9_007_199_254_740_992.0), -1),
        OrderCase(.integer(1), .double(1.0), 0),
        OrderCase(.integer(1), .double(1.5), -1),
        OrderCase(.integer(2), .double(1.5), 1),
        OrderCase(.integer(-1), .double(-1.5), 1),
        OrderCase(.integer(0), .double(-0.5), 1),
        OrderCase(.integer(0), .double(0.5), -1),
        // Below -2^63 (and -inf) is below every integer; -2^63 itself equals Int64.min.
        OrderCase(.double(-9.3e18), .integer(.min), -1),
        OrderCase(.double(-two63), .integer(.min), 0),
        OrderCase(.double(-two63), .integer(.min + 1), -1),
        OrderCase(.double(-.infinity), .integer(.min), -1),
        // At or above 2^63 (and +inf) is above every integer.
        OrderCase(.double(two63), .integer(.max), 1),
        OrderCase(.double(9_223_372_036_854_774_784.0), .integer(.max), -1),  // largest double < 2^63
        OrderCase(.double(.infinity), .integer(.max), 1),
        OrderCase(.double(1e300), .integer(.max), 1),
        // NaN is the lowest number and equals NaN in the ordering.
        OrderCase(.double(.nan), .double(.nan), 0),
        OrderCase(.double(.nan), .double(-.infinity), -1),
        OrderCase(.double(.nan), .integer(.min), -1),
        OrderCase(.double(.nan), .double(-Double.greatestFiniteMagnitude), -1),
        OrderCase(.double(Double(bitPattern: 0x7FF8_0000_0000_0001)), .double(.nan), 0),  // any payload
        OrderCase(.double(.nan), .boolean(true), 1),  // still a number: above booleans
        // -0.0 == 0.0 (docs/semantics.md#open-points, A1)
        OrderCase(.double(-0.0), .double(0.0), 0),
        OrderCase(.double(-0.0), .integer(0), 0),
        OrderCase(.double(-Double.leastNonzeroMagnitude), .double(-0.0), -1),
        OrderCase(.double(-.infinity), .double(-Double.greatestFiniteMagnitude), -1),
        OrderCase(.integer(.min), .integer(.max), -1),
        OrderCase(.double(2.5), .double(2.25), 1),
    ]

    @Test("numbers compare by exact mathematical value", arguments: numberCases)
    func numbers(_ c: OrderCase) {
        #expect(Value.compare(c.lhs, c.rhs) == c.expected)
        #expect(Value.compare(c.rhs, c.lhs) == -c.expected)
    }

    // MARK: Strings

    // docs/semantics.md#value-order (prod test): UTF-8 byte order, not UTF-16 and not Swift's `<`.
    static let prodStrings = ["Łukasiewicz", "Sierpiński", "岩澤", "🄟", "Ｐ", "︒", "🐵"]
    static let prodStringsSorted = ["Sierpiński", "Łukasiewicz", "岩澤", "︒", "Ｐ", "🄟", "🐵"]

    enum StringWrapping: String, CaseIterable, Sendable {
        case plain, arrayElement, mapValue, mapKey
        func wrap(_ s: String) -> Value {
            switch self {
            case .plain: .string(s)
            case .arrayElement: .array([.string(s)])
            case .mapValue: testMap(["k": .string(s)])
            case .mapKey: .map(MapValue([(s, .integer(1))]))
            }
        }
    }

    @Test("prod string vector sorts by UTF-8 bytes", arguments: StringWrapping.allCases)
    func prodStringVector(_ wrapping: StringWrapping) {
        let sorted = firestoreSorted(Self.prodStrings.map(wrapping.wrap))
        #expect(sorted == Self.prodStringsSorted.map(wrapping.wrap))
    }

    @Test("prod string vector as document IDs and FieldPath segments")
    func prodStringVectorIDs() {
        let ids = Self.prodStrings.sorted { ResourcePath.compareSegments($0, $1) < 0 }
        #expect(ids == Self.prodStringsSorted)
        let fieldPaths = Self.prodStrings.map { FieldPath([$0]) }.sorted()
        #expect(fieldPaths.map { $0.segments[0] } == Self.prodStringsSorted)
        // UTF-16 order would differ (it puts the astral-plane characters first).
        let utf16 = Self.prodStrings.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
        #expect(utf16 != Self.prodStringsSorted)
    }

    @Test("precomposed é and e + combining acute are different strings")
    func canonicalEquivalenceIsNotEquality() {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        #expect(composed == decomposed)  // Swift's String == uses canonical equivalence…
        // …Firestore compares bytes: 65 CC 81 < C3 A9.
        #expect(Value.compare(.string(decomposed), .string(composed)) == -1)
        #expect(Value.compare(.string(composed), .string(decomposed)) == 1)
        #expect(!Value.firestoreEquals(.string(composed), .string(decomposed)))
        #expect(Value.string(composed) != Value.string(decomposed))
        #expect(ResourcePath.compareSegments(composed, decomposed) == 1)
        #expect(MapValue([(composed, .integer(1)), (decomposed, .integer(2))]).count == 2)
    }

    @Test("strings: prefix first, bytes unsigned")
    func stringBasics() {
        let sorted = firestoreSorted([.string("b"), .string("ab"), .string("a"), .string(""), .string("B"), .string("\u{80}")])
        #expect(sorted == [.string(""), .string("B"), .string("a"), .string("ab"), .string("b"), .string("\u{80}")])
    }

    // MARK: Other scalar types

    @Test("booleans: false < true")
    func booleans() {
        #expect(Value.compare(.boolean(false), .boolean(true)) == -1)
        #expect(Value.compare(.boolean(true), .boolean(true)) == 0)
    }

    @Test("timestamps: seconds, then nanos")
    func timestamps() {
        let values: [Value] = [
            .timestamp(Timestamp(seconds: 2, nanos: 0)),
            .timestamp(Timestamp(seconds: 1, nanos: 6)),
            .timestamp(Timestamp(seconds: -1, nanos: 999_999_999)),
            .timestamp(Timestamp(seconds: 1, nanos: 5)),
        ]
        #expect(firestoreSorted(values) == [values[2], values[3], values[1], values[0]])
    }

    // docs/semantics.md#value-order: unsigned lexicographic; a proper prefix first; empty lowest.
    @Test("bytes: unsigned, prefix first, empty lowest")
    func bytes() {
        let expected: [Value] = [
            .bytes(Data()), .bytes(Data([0])), .bytes(Data([0, 0])), .bytes(Data([0, 1])),
            .bytes(Data([1])), .bytes(Data([0x7F])), .bytes(Data([0x80])), .bytes(Data([0xFF])),
        ]
        #expect(firestoreSorted(expected.reversed()) == expected)
        #expect(Value.compare(.bytes(Data([1, 2])), .bytes(Data([1, 2]))) == 0)
    }

    // docs/semantics.md#value-order: segment-wise (project, database, then path), fewer segments first.
    @Test("references: segment by segment")
    func references() {
        let expected: [Value] = [
            testReference("a/b", project: "a"),
            testReference("a/__id7__"),
            testReference("a/__id12__"),
            testReference("a/b"),
            testReference("a/b/c/d"),
            testReference("a/b/d/a"),
            testReference("a/c"),
            testReference("b/a"),
            testReference("a/b", database: "other"),
            testReference("a/b", project: "q"),
        ]
        #expect(firestoreSorted(expected.reversed()) == expected)
        #expect(Value.compare(testReference("a/b"), testReference("a/b")) == 0)
    }

    // docs/semantics.md#value-order (prod test): `__id<int64>__` IDs first by value, then UTF-8 bytes.
    @Test("document-ID order vector")
    func documentIDs() {
        let ids = ["A", "a", "Aa", "7", "12", "__id7__", "__id12__", "__id-2__", "__id1_", "_id1__", "__id",
                   "__id9223372036854775807__", "__id-9223372036854775808__"]
        let expected = ["__id-9223372036854775808__", "__id-2__", "__id7__", "__id12__", "__id9223372036854775807__",
                        "12", "7", "A", "Aa", "__id", "__id1_", "_id1__", "a"]
        #expect(ids.sorted { ResourcePath.compareSegments($0, $1) < 0 } == expected)
        #expect(ids.reversed().sorted { ResourcePath.compareSegments($0, $1) < 0 } == expected)
        #expect(ResourcePath.compareSegments("__id7__", "__id7__") == 0)
        // Whole paths use the same per-segment order.
        #expect(testPath("c/__id12__") > testPath("c/__id7__"))
        #expect(testPath("c/__id12__") < testPath("c/12"))
    }

    @Test("numeric document IDs", arguments: [
        ("__id0__", Int64?(0)), ("__id-2__", -2), ("__id9223372036854775807__", .max),
        ("__id-9223372036854775808__", .min), ("__id__", nil), ("__id9223372036854775808__", nil),
        ("__id1_", nil), ("__idx__", nil), ("__id+1__", nil), ("__id007__", nil), ("__id-0__", nil),
    ] as [(String, Int64?)])
    func numericIDs(_ id: String, _ expected: Int64?) {
        #expect(ResourcePath.numericID(id) == expected)
    }

    @Test("geo points: latitude, then longitude")
    func geoPoints() {
        let expected: [Value] = [
            .geoPoint(GeoPoint(latitude: -10, longitude: 100)),
            .geoPoint(GeoPoint(latitude: 0, longitude: -100)),
            .geoPoint(GeoPoint(latitude: 0, longitude: 50)),
            .geoPoint(GeoPoint(latitude: 10, longitude: -180)),
        ]
        #expect(firestoreSorted(expected.reversed()) == expected)
    }

    // MARK: Containers

    // docs/semantics.md#value-order: [1,2,3] < [1,2,3,1] < [2]
    @Test("arrays: element-wise, prefix first")
    func arrays() {
        let a: Value = .array([.integer(1), .integer(2), .integer(3)])
        let b: Value = .array([.integer(1), .integer(2), .integer(3), .integer(1)])
        let c: Value = .array([.integer(2)])
        #expect(Value.compare(a, b) == -1)
        #expect(Value.compare(b, c) == -1)
        #expect(Value.compare(a, c) == -1)
        #expect(firestoreSorted([c, b, a, .array([])]) == [.array([]), a, b, c])
        // Elements use the full order, numbers exactly.
        #expect(Value.compare(.array([.integer(1)]), .array([.double(1.0)])) == 0)
        #expect(Value.compare(.array([.null, .integer(5)]), .array([.boolean(false)])) == -1)
    }

    // docs/semantics.md#value-order: dimension first, then element-wise.
    @Test("vectors: dimension first")
    func vectors() {
        #expect(Value.compare(.vector([9, 9]), .vector([1, 1, 1])) == -1)
        #expect(Value.compare(.vector([1, 2]), .vector([1, 3])) == -1)
        #expect(Value.compare(.vector([1, 2]), .vector([1, 2])) == 0)
        #expect(Value.compare(.vector([]), .vector([-1])) == -1)
        // A vector is above any array and below any map.
        #expect(Value.compare(.array([.integer(1), .integer(2)]), .vector([0])) == -1)
        #expect(Value.compare(.vector([1e300]), .map(MapValue())) == -1)
    }

    // docs/semantics.md#value-order: the docs' map ordering example, ascending.
    @Test("maps: the documentation example")
    func mapsDocsExample() {
        let expected: [Value] = [
            testMap(["a": .string("aaa"), "b": .string("baz")]),
            testMap(["a": .string("foo"), "b": .string("bar")]),
            testMap(["a": .string("foo"), "b": .string("bar"), "c": .string("qux")]),
            testMap(["a": .string("foo"), "b": .string("baz")]),
            testMap(["b": .string("aaa"), "c": .string("baz")]),
            testMap(["c": .string("aaa")]),
        ]
        #expect(firestoreSorted(expected.reversed()) == expected)
        #expect(firestoreSorted([expected[3], expected[0], expected[5], expected[1], expected[4], expected[2]]) == expected)
        for i in expected.indices.dropLast() {
            #expect(Value.compare(expected[i], expected[i + 1]) == -1)
        }
    }

    @Test("maps: keys compare before values, insertion order irrelevant")
    func mapsKeyFirst() {
        #expect(Value.compare(testMap(["a": .integer(2)]), testMap(["b": .integer(1)])) == -1)
        #expect(Value.compare(testMap(["a": .integer(1)]), testMap(["a": .integer(1), "b": .null])) == -1)
        #expect(Value.compare(.map(MapValue()), testMap(["a": .null])) == -1)
        let ab = MapValue([("a", Value.integer(1)), ("b", .integer(2))])
        let ba = MapValue([("b", Value.integer(2)), ("a", .integer(1))])
        #expect(Value.compare(.map(ab), .map(ba)) == 0)
        #expect(ab.keys == ["a", "b"] && ba.keys == ["a", "b"])
    }
}

@Suite("Value equality (docs/semantics.md#equality)")
struct ValueEqualityTests {
    static let nan = Value.double(.nan)

    struct EqualityCase: Sendable, CustomTestStringConvertible {
        let lhs: Value, rhs: Value, firestore: Bool, transform: Bool
        var testDescription: String { "\(lhs) vs \(rhs)" }
    }

    static let cases: [EqualityCase] = [
        EqualityCase(lhs: .integer(1), rhs: .double(1.0), firestore: true, transform: true),
        EqualityCase(lhs: .integer(3), rhs: .double(3.0), firestore: true, transform: true),
        EqualityCase(lhs: .double(-0.0), rhs: .double(0.0), firestore: true, transform: true),
        EqualityCase(lhs: .double(-0.0), rhs: .integer(0), firestore: true, transform: true),
        EqualityCase(lhs: .integer(1), rhs: .double(1.000_000_000_000_000_2), firestore: false, transform: false),
        // NaN: never equal in query equality, equal in arrayUnion/arrayRemove; inside an
        // array or a map, equal in both (recorded: Tests/Differential/cases/nan_filters.py).
        EqualityCase(lhs: nan, rhs: nan, firestore: false, transform: true),
        EqualityCase(lhs: .array([nan]), rhs: .array([nan]), firestore: true, transform: true),
        EqualityCase(lhs: testMap(["a": nan]), rhs: testMap(["a": nan]), firestore: true, transform: true),
        EqualityCase(lhs: .vector([.nan]), rhs: .vector([.nan]), firestore: false, transform: true),
        EqualityCase(lhs: nan, rhs: .integer(0), firestore: false, transform: false),
        EqualityCase(lhs: .null, rhs: .null, firestore: true, transform: true),
        // Type buckets.
        EqualityCase(lhs: .null, rhs: .boolean(false), firestore: false, transform: false),
        EqualityCase(lhs: .integer(0), rhs: .boolean(false), firestore: false, transform: false),
        EqualityCase(lhs: .string(""), rhs: .bytes(Data()), firestore: false, transform: false),
        EqualityCase(lhs: .array([]), rhs: .vector([]), firestore: false, transform: false),
        EqualityCase(lhs: .array([]), rhs: .map(MapValue()), firestore: false, transform: false),
        // Arrays are order-sensitive.
        EqualityCase(lhs: .array([.integer(1), .integer(2)]), rhs: .array([.integer(2), .integer(1)]), firestore: false, transform: false),
        EqualityCase(lhs: .array([.integer(1), .integer(2)]), rhs: .array([.integer(1), .integer(2), .integer(2)]), firestore: false, transform: false),
        EqualityCase(lhs: .array([.integer(1), testMap(["a": .integer(2)])]),
                     rhs: .array([.double(1), testMap(["a": .double(2)])]), firestore: true, transform: true),
        // Maps: key order irrelevant, key sets must match.
        EqualityCase(lhs: .map(MapValue([("a", .integer(1)), ("b", .integer(2))])),
                     rhs: .map(MapValue([("b", .double(2)), ("a", .integer(1))])), firestore: true, transform: true),
        EqualityCase(lhs: testMap(["a": .integer(1)]), rhs: testMap(["a": .integer(1), "b": .null]), firestore: false, transform: false),
        EqualityCase(lhs: testMap(["a": .integer(1)]), rhs: testMap(["b": .integer(1)]), firestore: false, transform: false),
        // Other types: exact.
        EqualityCase(lhs: .timestamp(Timestamp(seconds: 1, nanos: 1)), rhs: .timestamp(Timestamp(seconds: 1, nanos: 1)), firestore: true, transform: true),
        EqualityCase(lhs: .timestamp(Timestamp(seconds: 1, nanos: 1)), rhs: .timestamp(Timestamp(seconds: 1, nanos: 2)), firestore: false, transform: false),
        EqualityCase(lhs: .geoPoint(GeoPoint(latitude: 1, longitude: 2)), rhs: .geoPoint(GeoPoint(latitude: 1, longitude: 2)), firestore: true, transform: true),
        EqualityCase(lhs: .geoPoint(GeoPoint(latitude: 1, longitude: 2)), rhs: .geoPoint(GeoPoint(latitude: 2, longitude: 1)), firestore: false, transform: false),
        EqualityCase(lhs: testReference("a/b"), rhs: testReference("a/b"), firestore: true, transform: true),
        EqualityCase(lhs: testReference("a/b"), rhs: testReference("a/b", database: "db2"), firestore: false, transform: false),
        EqualityCase(lhs: .bytes(Data([1, 2])), rhs: .bytes(Data([1, 2])), firestore: true, transform: true),
        EqualityCase(lhs: .bytes(Data([1, 2])), rhs: .bytes(Data([1, 2, 0])), firestore: false, transform: false),
        EqualityCase(lhs: .string("\u{E9}"), rhs: .string("e\u{301}"), firestore: false, transform: false),
    ]

    @Test("firestoreEquals and transformEquals", arguments: cases)
    func equality(_ c: EqualityCase) {
        #expect(Value.firestoreEquals(c.lhs, c.rhs) == c.firestore)
        #expect(Value.firestoreEquals(c.rhs, c.lhs) == c.firestore)
        #expect(Value.transformEquals(c.lhs, c.rhs) == c.transform)
        #expect(Value.transformEquals(c.rhs, c.lhs) == c.transform)
    }
}
