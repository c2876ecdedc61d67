import HearthCore
import HearthGRPC
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport
import HearthProtobuf

/// The Firestore messages on the wire: reference bytes, and malformed input whose reader
/// errors reach the caller as INVALID_ARGUMENT naming the field and offset, with bounded nesting.
@Suite struct ProtoMessageWireTests {
    @Test func specReferenceBytes() throws {
        // docs/protocol.md#protobuf-encoding: oneof members are encoded even when default.
        #expect(ValueMessage.serialize(.null) == [0x58, 0x00])
        #expect(ValueMessage.serialize(.boolean(false)) == [0x08, 0x00])
        #expect(ValueMessage.serialize(.integer(0)) == [0x10, 0x00])
        #expect(ValueMessage.serialize(.double(0)) == [0x19, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(ValueMessage.serialize(.string("")) == [0x8A, 0x01, 0x00])
        #expect(ValueMessage.serialize(.array([])) == [0x4A, 0x00])
        #expect(ValueMessage.serialize(.map(MapValue())) == [0x32, 0x00])
        var p = ProtoWriter()
        WriteMessage.encodePrecondition(.exists(false), into: &p)
        #expect(p.bytes == [0x08, 0x00])
        let db = DatabaseID(project: "p")
        let doc = Document(path: try ResourcePath.parse("c/d"), fields: MapValue([("a", .integer(1))]), createTime: Timestamp(seconds: 0, nanos: 0), updateTime: Timestamp(seconds: 0, nanos: 0))
        var d = ProtoWriter()
        DocumentMessage.encode(.init(name: db.resourceName(doc.path), fields: doc.fields), into: &d)
        #expect(d.bytes == [0x0A, 0x2C] + Array("projects/p/databases/(default)/documents/c/d".utf8) + [0x12, 0x07, 0x0A, 0x01, 0x61, 0x12, 0x02, 0x10, 0x01])
    }

    // A stored document's name is written piece by piece; it must be the resource name's
    // bytes exactly, with its length prefix (long and non-ASCII names included).
    @Test(arguments: [("p", "(default)", "c/d"), ("demo-app", "named-db", "users/alice/posts/p1"),
                      ("p", "(default)", "caf\u{E9}/\u{1F600}"), ("p", "(default)", "c/" + String(repeating: "x", count: 200))])
    func storedDocumentNames(_ project: String, _ database: String, _ path: String) throws {
        let db = DatabaseID(project: project, database: database)
        let doc = Document(path: try ResourcePath.parse(path), fields: MapValue([("a", .integer(1))]),
                           createTime: Timestamp(seconds: 1, nanos: 0), updateTime: Timestamp(seconds: 2, nanos: 0))
        var stored = ProtoWriter()
        DocumentMessage.encode(doc, database: db, into: &stored)
        var built = ProtoWriter()
        built.writeString(1, db.resourceName(doc.path))
        ValueMessage.encodeFields(doc.fields, field: 2, into: &built)
        WellKnownMessages.writeTimestamp(3, doc.createTime, into: &built)
        WellKnownMessages.writeTimestamp(4, doc.updateTime, into: &built)
        #expect(stored.bytes == built.bytes)
    }

    @Test func wrongWireTypeForAKnownField() {
        // Value.boolean_value (1) sent as length-delimited.
        #expect(throws: FirestoreError.invalidArgument("Invalid protobuf message: wire type length-delimited where varint was expected (field 1 at byte offset 0).")) {
            try ValueMessage.decode([0x0A, 0x00])
        }
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: FirestoreError.invalidArgument("Invalid protobuf message: string is not valid UTF-8 (field 17 at byte offset 0).")) {
            try ValueMessage.decode([0x8A, 0x01, 0x02, 0xC3, 0x28])
        }
    }

    @Test func nestingDepthIsLimited() throws {
        // 200 nested array values: Value{array_value{values{...}}}.
        var inner = ValueMessage.serialize(.null)
        for _ in 0..<200 {
            var arrayBody = ProtoWriter()
            arrayBody.writeBytes(1, inner)
            var value = ProtoWriter()
            value.writeBytes(9, arrayBody.bytes)
            inner = value.bytes
        }
        do {
            _ = try ValueMessage.decode(inner)
            Issue.record("accepted 200 levels")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("nested deeper than 100 levels"))
        }
        // 40 levels are fine.
        var ok = ValueMessage.serialize(.integer(1))
        for _ in 0..<40 {
            var arrayBody = ProtoWriter()
            arrayBody.writeBytes(1, ok)
            var value = ProtoWriter()
            value.writeBytes(9, arrayBody.bytes)
            ok = value.bytes
        }
        var v = try ValueMessage.decode(ok)
        var depth = 0
        while case .array(let items) = v { v = items[0]; depth += 1 }
        #expect(depth == 40)
        #expect(v == .integer(1))
    }
}
