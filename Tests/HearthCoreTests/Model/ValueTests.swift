import Foundation
import Testing
@testable import HearthCore

// `Value ==` is identity (same type, same bits): what "did this write change the document"
// needs (docs/semantics.md#observed-on-the-official-emulator: changing 1 to 1.0 is a change). Firestore equality is tested in
// ValueOrderTests.
@Suite("Value identity")
struct ValueTests {
    @Test("integer and double are different values even when numerically equal")
    func intIsNotDouble() {
        #expect(Value.integer(1) != Value.double(1.0))
        #expect(Set<Value>([.integer(1), .double(1.0)]).count == 2)
        #expect(Value.firestoreEquals(.integer(1), .double(1.0)))  // …though Firestore-equal
    }

    @Test("zeros keep their sign; NaNs are one value")
    func doubles() {
        #expect(Value.double(-0.0) != Value.double(0.0))
        #expect(Value.double(.nan) == Value.double(.nan))
        let otherNaN = Value.double(Double(bitPattern: 0x7FF8_0000_0000_0042))
        #expect(otherNaN == Value.double(.nan))
        #expect(Set<Value>([otherNaN, .double(.nan)]).count == 1)
        #expect(Value.vector([.nan, -0.0]) == Value.vector([.nan, -0.0]))
        #expect(Value.vector([0.0]) != Value.vector([-0.0]))
    }

    @Test("strings compare by bytes, not canonical equivalence")
    func strings() {
        #expect(Value.string("\u{E9}") != Value.string("e\u{301}"))
        #expect(Set<Value>([.string("\u{E9}"), .string("e\u{301}")]).count == 2)
        #expect(Value.string("abc") == Value.string("abc"))
    }

    @Test("containers compare element identity; maps ignore insertion order")
    func containers() {
        #expect(Value.array([.integer(1)]) != Value.array([.double(1)]))
        #expect(Value.array([.integer(1), .integer(2)]) != Value.array([.integer(2), .integer(1)]))
        let ab = MapValue([("a", Value.integer(1)), ("b", .integer(2))])
        let ba = MapValue([("b", Value.integer(2)), ("a", .integer(1))])
        #expect(Value.map(ab) == Value.map(ba))
        #expect(ab.hashValue == ba.hashValue)
        #expect(testMap(["a": .integer(1)]) != testMap(["a": .double(1)]))
    }

    @Test("type order and names", arguments: [
        (Value.null, 0, "null"), (.boolean(true), 1, "bool"), (.integer(1), 2, "int"), (.double(1), 2, "float"),
        (.timestamp(Timestamp(seconds: 0, nanos: 0)), 3, "timestamp"), (.string(""), 4, "string"),
        (.bytes(Data()), 5, "bytes"), (testReference("a/b"), 6, "path"),
        (.geoPoint(GeoPoint(latitude: 0, longitude: 0)), 7, "latlng"), (.array([]), 8, "list"),
        (.vector([]), 9, "vector"), (.map(MapValue()), 10, "map"),
    ] as [(Value, Int, String)])
    func typeOrder(_ value: Value, _ order: Int, _ name: String) {
        #expect(value.typeOrder == order)
        #expect(value.typeName == name)
    }
}

@Suite("MapValue")
struct MapValueTests {
    @Test("keys are kept sorted by UTF-8 bytes; a later duplicate replaces an earlier one")
    func sortedKeys() {
        let m = MapValue([("b", Value.integer(1)), ("Z", .integer(2)), ("é", .integer(3)), ("a", .integer(4)), ("b", .integer(5))])
        #expect(m.keys == ["Z", "a", "b", "é"])
        #expect(m["b"] == .integer(5))
    }

    @Test("nested set creates maps and replaces non-map intermediates; remove leaves parents")
    func nestedSetAndRemove() {
        var m = testFields(["a": .integer(5)])
        m.setValue(.integer(1), at: testFieldPath("a.b"))
        #expect(m == testFields(["a": testMap(["b": .integer(1)])]))
        m.setValue(.integer(2), at: testFieldPath("x.y.z"))
        #expect(m.value(at: testFieldPath("x.y.z")) == .integer(2))
        m.removeValue(at: testFieldPath("x.y.z"))
        #expect(m.value(at: testFieldPath("x.y")) == .map(MapValue()))
        m.removeValue(at: testFieldPath("nope.deeper"))
        #expect(m.value(at: testFieldPath("a.b.c")) == nil)  // a.b is not a map
        #expect(m.keys == ["a", "x"])
    }

    /// Names around the 16 bytes compared as words: shared prefixes, NULs (equal to the
    /// zero padding), high bytes, canonically equivalent but different UTF-8.
    static let names = [
        "", "a", "a\u{0}", "a\u{0}\u{0}", "ab", "b", "B", "é", "e\u{301}", "🐵", "category", "counter", "created",
        "abcdefghijklmnop", "abcdefghijklmnop\u{0}", "abcdefghijklmnopq", "abcdefghijklmnoq", "abcdefghijklmno",
        "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxy\u{0}", "abcdefgh", "abcdefgh\u{0}", "abcdefgh\u{FF}",
    ]

    /// What the map must hold: entries inserted one by one through the subscript (a later
    /// duplicate replaces an earlier one), which keeps them sorted by binary search.
    static func reference(_ pairs: [(String, Value)]) -> MapValue {
        var m = MapValue(sortedEntries: [])
        for (k, v) in pairs { m[k] = v }
        return m
    }

    @Test("unsorted entries sort by UTF-8 bytes; a later duplicate wins")
    func sortsLikeInsertion() {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let count = Int.random(in: 0...30, using: &rng)
            let pairs: [(String, Value)] = (0..<count).map { i in
                (Self.names.randomElement(using: &rng)!, .integer(Int64(round * 100 + i)))
            }
            let built = MapValue(pairs)
            let expected = Self.reference(pairs)
            #expect(built == expected, "\(pairs)")
            for i in built.entries.indices.dropFirst() {
                #expect(compareUTF8(built.entries[i - 1].key, built.entries[i].key) < 0)
            }
        }
    }

    @Test("a hinted lookup finds what value(at:) finds, whatever the hint, and leaves it where the field was")
    func hintedLookup() {
        var rng = SystemRandomNumberGenerator()
        let paths = (Self.names + ["x.y", "x.nope", "category.deeper"]).map { name in
            name.contains(".") ? testFieldPath(name) : FieldPath([name])
        }
        for round in 0..<200 {
            let pairs: [(String, Value)] = (0..<Int.random(in: 0...12, using: &rng)).map { i in
                (Self.names.randomElement(using: &rng)!, .integer(Int64(round * 100 + i)))
            } + [("x", testMap(["y": .string("nested")]))]
            let m = MapValue(pairs)
            for path in paths {
                for start in [-1, 0, 3, m.count - 1, m.count, 99] {
                    var hint = start
                    let found = m.value(at: path, hint: &hint)
                    #expect(found == m.value(at: path), "\(path) from \(start) in \(m)")
                    if found != nil {
                        #expect(utf8Equal(m.entries[hint].key, path.segments[0]))
                    } else if m[path.segments[0]] == nil {
                        #expect(hint == start)  // not found: left alone
                    }
                }
            }
        }
    }

    @Test("distinct names under canonical equivalence stay two fields")
    func canonicalEquivalentNames() {
        let m = MapValue(unsortedEntries: [("e\u{301}", .integer(1)), ("é", .integer(2)), ("e\u{301}", .integer(3))])
        #expect(m.count == 2)
        #expect(m.entries.map(\.key).map { Array($0.utf8) } == [Array("e\u{301}".utf8), Array("é".utf8)])
        #expect(m.entries.map(\.value) == [.integer(3), .integer(2)])
    }

    @Test("hasNames: the same names in the same order, byte for byte, whatever their storage")
    func hasNames() {
        let long = "a field name longer than fifteen bytes"
        let m = MapValue(unsortedEntries: [("b", .integer(1)), (long, .string("x")), ("é", .null)])
        // Equal names in storage of their own (not the map's strings) still match.
        let longCopy = String(decoding: Array(long.utf8), as: UTF8.self)
        #expect(m.hasNames(["a field name longer than fifteen bytes", "b", "é"]))
        #expect(m.hasNames([longCopy, "b", "é"]))
        #expect(!m.hasNames([longCopy, "b", "e\u{301}"]))  // canonically equivalent, other bytes
        #expect(!m.hasNames(["b", longCopy, "é"]))  // another order
        #expect(!m.hasNames([longCopy, "b"]))
        #expect(!m.hasNames([longCopy + "!", "b", "é"]))
        #expect(MapValue().hasNames([]))
    }
}

@Suite("GeoPoint")
struct GeoPointTests {
    @Test("validated accepts the closed ranges", arguments: [(-90.0, -180.0), (90, 180), (0, 0), (-0.0, 179.999)] as [(Double, Double)])
    func accepts(_ lat: Double, _ lng: Double) throws {
        let g = try GeoPoint.validated(latitude: lat, longitude: lng)
        #expect(g.latitude == lat && g.longitude == lng)
    }

    @Test("validated rejects out-of-range or non-finite coordinates", arguments: [
        (90.0001, 0, "latitude"), (-91, 0, "latitude"), (.nan, 0, "latitude"), (.infinity, 0, "latitude"),
        (0, 180.5, "longitude"), (0, -181, "longitude"), (0, .nan, "longitude"), (0, -.infinity, "longitude"),
    ] as [(Double, Double, String)])
    func rejects(_ lat: Double, _ lng: Double, _ part: String) {
        expectFirestoreError(.invalidArgument, containing: ["GeoPoint requires a \(part) value"]) {
            try GeoPoint.validated(latitude: lat, longitude: lng)
        }
    }
}

@Suite("FirestoreError codes (docs/semantics.md#error-codes)")
struct FirestoreErrorTests {
    @Test("gRPC numbers and names", arguments: [
        (FirestoreError.Code.cancelled, 1, "CANCELLED"), (.unknown, 2, "UNKNOWN"), (.invalidArgument, 3, "INVALID_ARGUMENT"),
        (.deadlineExceeded, 4, "DEADLINE_EXCEEDED"), (.notFound, 5, "NOT_FOUND"), (.alreadyExists, 6, "ALREADY_EXISTS"),
        (.permissionDenied, 7, "PERMISSION_DENIED"), (.failedPrecondition, 9, "FAILED_PRECONDITION"), (.aborted, 10, "ABORTED"),
        (.internal, 13, "INTERNAL"), (.unavailable, 14, "UNAVAILABLE"),
    ] as [(FirestoreError.Code, Int, String)])
    func codes(_ code: FirestoreError.Code, _ raw: Int, _ name: String) {
        #expect(code.rawValue == raw)
        #expect(code.name == name)
        #expect(FirestoreError(code, "m").description == "\(name): m")
    }
}
