import Testing
@testable import HearthCore

@Suite("The vector wire form (docs/protocol.md#vectors)")
struct VectorWireFormTests {
    @Test("a vector travels as {__type__: __vector__, value: [doubles]} and comes back")
    func roundTrip() throws {
        let fields = Value.vectorFields([1, 2.5, -0.0])
        #expect(fields.entries.map(\.key) == ["__type__", "value"])
        #expect(fields["__type__"] == .string("__vector__"))
        #expect(fields["value"] == .array([.double(1), .double(2.5), .double(-0.0)]))
        #expect(try Value.vectorOrMap(fields) == .vector([1, 2.5, -0.0]))
        #expect(try Value.vectorOrMap(Value.vectorFields([])) == .vector([]))
    }

    @Test("pipeline constants widen integer components; a written vector must hold doubles only (the official emulator's error)")
    func integers() {
        let fields = MapValue([("__type__", .string("__vector__")), ("value", .array([.integer(3), .double(0.5)]))])
        #expect(Value.vectorComponents(of: fields) == [3, 0.5])
        #expect(throws: FirestoreError.self) { try Value.vectorOrMap(fields) }
        let strings = MapValue([("__type__", .string("__vector__")), ("value", .array([.string("1")]))])
        #expect(throws: FirestoreError.self) { try Value.vectorOrMap(strings) }
    }

    @Test("a map of any other shape stays a map", arguments: [
        MapValue([("__type__", .string("__vector__"))]),
        MapValue([("__type__", .string("__vector__")), ("value", .array([.double(1)])), ("x", .null)]),
        MapValue([("__type__", .string("vector")), ("value", .array([.double(1)]))]),
        MapValue([("__type__", .string("__vector__")), ("value", .double(1))]),
    ])
    func notVectors(_ fields: MapValue) throws {
        #expect(Value.vectorComponents(of: fields) == nil)
        #expect(try Value.vectorOrMap(fields) == .map(fields))
    }
}
