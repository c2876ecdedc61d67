import Foundation
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport
import HearthProtobuf

/// Every mapped message round-trips: core type → bytes → core type gives the same value,
/// and the decoders apply the same rules as the REST mapping.
@Suite struct ProtoMessageRoundTripTests {
    static let db = DatabaseID(project: "p")

    static let sampleValues: [Value] = [
        .null, .boolean(true), .boolean(false), .integer(0), .integer(-1), .integer(Int64.max), .integer(Int64.min),
        .double(0), .double(-0.0), .double(1.5), .double(.infinity), .double(-.infinity),
        .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_789)), .timestamp(Timestamp(seconds: -62_135_596_800, nanos: 0)),
        .string(""), .string("héllo ✓ 𝄞"), .bytes(Data()), .bytes(Data([0, 255, 1])),
        .reference(DocumentName(database: db, path: try! ResourcePath.parse("users/alice"))),
        .geoPoint(GeoPoint(latitude: 45.5, longitude: -122.25)), .geoPoint(GeoPoint(latitude: 0, longitude: 0)),
        .array([]), .array([.integer(1), .string("two"), .map(MapValue([("k", .null)]))]),
        .map(MapValue()), .map(MapValue([("a", .integer(1)), ("", .string("empty key")), ("nested", .map(MapValue([("x", .array([.boolean(true)]))])))])),
        .vector([1, 2.5, -3]), .vector([]),
    ]

    @Test(arguments: sampleValues)
    func valueRoundTrips(_ value: Value) throws {
        let decoded = try ValueMessage.decode(ValueMessage.serialize(value))
        #expect(decoded == value)
    }

    @Test func nanRoundTrips() throws {
        #expect(try ValueMessage.decode(ValueMessage.serialize(.double(.nan))).isNaN)
    }

    @Test func valueDecodingRules() throws {
        #expect(throws: FirestoreError.invalidArgument("Cannot convert firestore.v1.Value with type unset.")) { try ValueMessage.decode([]) }
        // The last oneof member on the wire wins.
        #expect(try ValueMessage.decode([0x08, 0x01, 0x10, 0x05]) == .integer(5))
        // Unknown fields inside a Value are skipped.
        #expect(try ValueMessage.decode([0xF8, 0x07, 0x01, 0x10, 0x05]) == .integer(5))
        // Pipeline-only members are refused.
        #expect(throws: FirestoreError.self) { try ValueMessage.decode([0x9A, 0x01, 0x01, 0x61]) }
        // Out-of-range timestamps and coordinates are refused.
        var t = ProtoWriter()
        WellKnownMessages.writeTimestamp(10, Timestamp(seconds: 253_402_300_800, nanos: 0), into: &t)
        #expect(throws: FirestoreError.self) { try ValueMessage.decode(t.bytes) }
        var g = ProtoWriter()
        g.writeMessage(8) { $0.writeDouble(1, 91) }
        #expect(throws: FirestoreError.self) { try ValueMessage.decode(g.bytes) }
        // A map whose entry has no value.
        var m = ProtoWriter()
        m.writeMessage(6) { $0.writeMessage(1) { $0.writeString(1, "k") } }
        #expect(throws: FirestoreError.self) { try ValueMessage.decode(m.bytes) }
    }

    @Test func documentRoundTrips() throws {
        let path = try ResourcePath.parse("rooms/r1/messages/m1")
        let doc = Document(path: path, fields: MapValue([("text", .string("hi")), ("n", .integer(3))]),
                           createTime: Timestamp(seconds: 10, nanos: 5), updateTime: Timestamp(seconds: 20, nanos: 0))
        var w = ProtoWriter()
        DocumentMessage.encode(doc, database: Self.db, into: &w)
        var r = ProtoReader(w.bytes)
        let decoded = try DocumentMessage.decode(&r)
        #expect(decoded.name == "projects/p/databases/(default)/documents/rooms/r1/messages/m1")
        #expect(decoded.fields == doc.fields)
        #expect(decoded.createTime == doc.createTime)
        #expect(decoded.updateTime == doc.updateTime)
        #expect(try DocumentMessage.documentPath(decoded.name, database: Self.db, field: "d") == path)
        #expect(throws: FirestoreError.self) { try DocumentMessage.documentPath(decoded.name, database: DatabaseID(project: "other"), field: "d") }
        // A mask keeps only the named fields.
        var masked = ProtoWriter()
        DocumentMessage.encode(doc, database: Self.db, mask: [FieldPath(["n"])], into: &masked)
        var mr = ProtoReader(masked.bytes)
        #expect(try DocumentMessage.decode(&mr).fields == MapValue([("n", .integer(3))]))
    }

    static let sampleWrites: [Write] = {
        let path = try! ResourcePath.parse("c/d")
        let ts = Timestamp(seconds: 5, nanos: 6)
        return [
            Write.set(path, MapValue([("a", .integer(1))])),
            Write(path: path, operation: .set(MapValue()), transforms: [FieldTransform(path: FieldPath(["t"]), kind: .serverTimestamp)],
                  precondition: .exists(false)),
            Write.update(path, MapValue([("a", .map(MapValue([("b", .string("x"))])))]), mask: [FieldPath(["a", "b"]), FieldPath(["gone"])],
                         transforms: [FieldTransform(path: FieldPath(["n"]), kind: .increment(.integer(2))),
                                      FieldTransform(path: FieldPath(["hi"]), kind: .maximum(.double(1.5))),
                                      FieldTransform(path: FieldPath(["lo"]), kind: .minimum(.integer(-1))),
                                      FieldTransform(path: FieldPath(["tags"]), kind: .appendMissingElements([.string("a"), .integer(1)])),
                                      FieldTransform(path: FieldPath(["old"]), kind: .removeAllFromArray([.null]))]),
            Write.delete(path),
            Write.delete(path, precondition: .updateTime(ts)),
            Write(path: path, operation: .verify, precondition: .updateTime(ts)),
            Write(path: path, operation: .verify, precondition: .exists(true)),
            Write(path: path, operation: .transformOnly,
                  transforms: [FieldTransform(path: FieldPath(["with space"]), kind: .increment(.double(0.5)))]),
        ]
    }()

    @Test(arguments: sampleWrites)
    func writeRoundTrips(_ write: Write) throws {
        var w = ProtoWriter()
        WriteMessage.encode(write, database: Self.db, into: &w)
        var r = ProtoReader(w.bytes)
        #expect(try WriteMessage.decode(&r, database: Self.db) == write)
    }

    @Test func verifyIsField5() throws {
        var w = ProtoWriter()
        w.writeString(5, "projects/p/databases/(default)/documents/c/d")
        w.writeMessage(4) { $0.writeBool(1, true) }
        var r = ProtoReader(w.bytes)
        let write = try WriteMessage.decode(&r, database: Self.db)
        #expect(write.operation == .verify)
        #expect(write.precondition == .exists(true))
    }

    @Test func writeDecodingRules() throws {
        func decode(_ build: (inout ProtoWriter) -> Void) throws(FirestoreError) -> Write {
            var w = ProtoWriter()
            build(&w)
            var r = ProtoReader(w.bytes)
            return try WriteMessage.decode(&r, database: Self.db)
        }
        let name = "projects/p/databases/(default)/documents/c/d"
        #expect(throws: FirestoreError.emptyWriteOperation) { try decode { _ in } }
        #expect(throws: FirestoreError.invalidArgument("Multiple values for oneof operation in a write.")) {
            try decode { $0.writeString(2, name); $0.writeString(5, name) }
        }
        #expect(throws: FirestoreError.invalidArgument("update_mask can only be set with an update.")) {
            try decode { $0.writeString(2, name); $0.writeMessage(3) { _ in } }
        }
        #expect(throws: FirestoreError.invalidArgument("update_transforms can only be set with an update.")) {
            try decode { $0.writeString(2, name); $0.writeMessage(7) { $0.writeString(1, "a"); $0.writeInt32(2, 1) } }
        }
        #expect(throws: FirestoreError.invalidArgument("Unsupported server value for field a.")) {
            try decode { w in w.writeMessage(6) { $0.writeString(1, name); $0.writeMessage(2) { $0.writeString(1, "a"); $0.writeInt32(2, 7) } } }
        }
        #expect(throws: FirestoreError.invalidArgument("Document name is required (in write.update.name).")) {
            try decode { $0.writeMessage(1) { _ in } }
        }
        // An empty Precondition means none.
        #expect(try decode { $0.writeString(2, name); $0.writeMessage(4) { _ in } }.precondition == nil)
    }

    @Test func writeResultRoundTrips() throws {
        let result = WriteResult(updateTime: Timestamp(seconds: 9, nanos: 1), transformResults: [.integer(3), .timestamp(Timestamp(seconds: 1, nanos: 0))])
        var w = ProtoWriter()
        WriteMessage.encodeWriteResult(result, into: &w)
        var r = ProtoReader(w.bytes)
        #expect(try WriteMessage.decodeWriteResult(&r) == result)
    }

    static let sampleQueries: [StructuredQuery] = {
        let parent = try! ResourcePath.parse("users/alice")
        return [
            StructuredQuery(parent: .root, collectionID: "users"),
            StructuredQuery(parent: parent, collectionID: "posts", allDescendants: true,
                            filter: .composite(.and, [
                                .field(FieldPath(["age"]), .greaterThanOrEqual, .integer(18)),
                                .composite(.or, [.unary(FieldPath(["score"]), .isNaN), .unary(FieldPath(["x"]), .isNotNull),
                                                 .field(FieldPath(["tags"]), .arrayContainsAny, .array([.string("a")]))]),
                                .field(FieldPath(["a.b"]), .notIn, .array([.null])),
                            ]),
                            orderBy: [Ordering(FieldPath(["age"]), descending: true), Ordering(.documentName)],
                            startAt: Cursor(values: [.integer(18), .reference(DocumentName(database: db, path: try! ResourcePath.parse("users/alice/posts/p1")))], before: true),
                            endAt: Cursor(values: [.integer(65)], before: false),
                            offset: 3, limit: 10, projection: [FieldPath(["age"]), FieldPath(["name"])]),
            StructuredQuery(parent: .root, collectionID: "c", limit: 0, projection: []),
            StructuredQuery(parent: .root, collectionID: "vectors",
                            findNearest: FindNearest(vectorField: FieldPath(["embedding"]), queryVector: [0.5, 1, -2], distanceMeasure: .cosine, limit: 5,
                                                     distanceResultField: FieldPath(["dist"]), distanceThreshold: 0.75)),
            StructuredQuery(parent: .root, collectionID: "vectors",
                            findNearest: FindNearest(vectorField: FieldPath(["e"]), queryVector: [1], distanceMeasure: .dotProduct, limit: 1000)),
        ]
    }()

    @Test(arguments: sampleQueries)
    func structuredQueryRoundTrips(_ query: StructuredQuery) throws {
        var w = ProtoWriter()
        StructuredQueryMessage.encode(query, into: &w)
        var r = ProtoReader(w.bytes)
        #expect(try StructuredQueryMessage.decode(&r, parent: query.parent) == query)
    }

    @Test func everyOperatorRoundTrips() throws {
        for op in FieldOperator.allCases {
            let q = StructuredQuery(collectionID: "c", filter: .field(FieldPath(["f"]), op, .integer(1)))
            var w = ProtoWriter()
            StructuredQueryMessage.encode(q, into: &w)
            var r = ProtoReader(w.bytes)
            #expect(try StructuredQueryMessage.decode(&r, parent: .root) == q)
        }
        for op in UnaryOperator.allCases {
            let q = StructuredQuery(collectionID: "c", filter: .unary(FieldPath(["f"]), op))
            var w = ProtoWriter()
            StructuredQueryMessage.encode(q, into: &w)
            var r = ProtoReader(w.bytes)
            #expect(try StructuredQueryMessage.decode(&r, parent: .root) == q)
        }
    }

    @Test func queryDecodingRules() {
        func decode(_ build: (inout ProtoWriter) -> Void) throws(FirestoreError) -> StructuredQuery {
            var w = ProtoWriter()
            build(&w)
            var r = ProtoReader(w.bytes)
            return try StructuredQueryMessage.decode(&r, parent: .root)
        }
        #expect(throws: FirestoreError.tooManyCollectionSelectors) {
            try decode { $0.writeMessage(2) { $0.writeString(2, "a") }; $0.writeMessage(2) { $0.writeString(2, "b") } }
        }
        #expect(throws: FirestoreError.kindRequired(forFilterOn: "f")) {
            try decode { w in w.writeMessage(3) { $0.writeMessage(3) { $0.writeInt32(1, 3); $0.writeMessage(2) { $0.writeString(2, "f") } } } }
        }
        #expect(throws: FirestoreError.negativeOffset) { try decode { $0.writeInt32(6, -1) } }
        #expect(throws: FirestoreError.negativeLimit) { try decode { $0.writeMessage(5) { $0.writeInt32(1, -2) } } }
        #expect(throws: FirestoreError.self) { try decode { w in w.writeMessage(2) { $0.writeString(2, "c") }; w.writeMessage(3) { _ in } } }
        #expect(throws: FirestoreError.self) {
            try decode { w in w.writeMessage(2) { $0.writeString(2, "c") }; w.writeMessage(3) { $0.writeMessage(2) { $0.writeMessage(1) { $0.writeString(2, "f") }; $0.writeInt32(2, 99); ValueMessage.writeValue(3, .null, into: &$0) } } }
        }
        // An empty limit wrapper means limit 0; a missing one means none.
        #expect((try? decode { $0.writeMessage(5) { _ in } })?.limit == 0)
        #expect((try? decode { _ in })?.limit == nil)
    }

    @Test func cursorRoundTrips() throws {
        let c = Cursor(values: [.string("a"), .double(2)], before: true)
        var w = ProtoWriter()
        StructuredQueryMessage.encodeCursor(c, into: &w)
        var r = ProtoReader(w.bytes)
        #expect(try StructuredQueryMessage.decodeCursor(&r) == c)
    }

    @Test func aggregationQueryRoundTrips() throws {
        let q = StructuredQuery(collectionID: "orders", filter: .field(FieldPath(["open"]), .equal, .boolean(true)), limit: 100)
        let aggregations = [Aggregation(.count(upTo: nil), alias: "n"), Aggregation(.count(upTo: 50), alias: "capped"),
                            Aggregation(.sum(FieldPath(["total"])), alias: "field_3"), Aggregation(.average(FieldPath(["total"])), alias: "avg")]
        var w = ProtoWriter()
        StructuredQueryMessage.encodeAggregationQuery(q, aggregations, into: &w)
        var r = ProtoReader(w.bytes)
        let (dq, da) = try StructuredQueryMessage.decodeAggregationQuery(&r, parent: .root)
        #expect(dq == q)
        #expect(da == aggregations)
        // Missing aliases default to field_N.
        var w2 = ProtoWriter()
        w2.writeMessage(1) { StructuredQueryMessage.encode(q, into: &$0) }
        w2.writeMessage(3) { $0.writeMessage(1) { _ in } }
        w2.writeMessage(3) { $0.writeMessage(2) { $0.writeMessage(1) { $0.writeString(2, "x") } } }
        var r2 = ProtoReader(w2.bytes)
        #expect(try StructuredQueryMessage.decodeAggregationQuery(&r2, parent: .root).1.map(\.alias) == ["field_1", "field_2"])
        var r3 = ProtoReader([])
        #expect(throws: FirestoreError.invalidArgument("structured_aggregation_query needs a structured_query.")) {
            try StructuredQueryMessage.decodeAggregationQuery(&r3, parent: .root)
        }
    }
}
