import HearthCore
import Testing
@testable import HearthServer

/// The protobuf wire codec: every wire type, zigzag, packed and unpacked repeated fields,
/// unknown-field skipping, and exact errors for malformed input.
@Suite struct ProtoWireTests {
    @Test func varintsRoundTripAtTheBoundaries() throws {
        let values: [UInt64] = [0, 1, 127, 128, 300, 16_383, 16_384, UInt64(UInt32.max), UInt64(Int64.max), UInt64.max]
        for v in values {
            var w = ProtoWriter()
            w.writeUInt64(1, v)
            #expect(w.bytes.count == 1 + ProtoWriter.varintSize(v))
            var r = ProtoReader(w.bytes)
            let key = try #require(try r.next())
            #expect(key == ProtoFieldKey(number: 1, wireType: .varint, offset: 0))
            #expect(try r.readUInt64(key) == v)
            #expect(try r.next() == nil)
        }
    }

    @Test func negativeIntsAreTenBytes() throws {
        var w = ProtoWriter()
        w.writeInt64(2, -1)
        #expect(w.bytes == [0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        var w32 = ProtoWriter()
        w32.writeInt32(1, -2)
        #expect(w32.bytes.count == 11)
        var r = ProtoReader(w32.bytes)
        #expect(try r.readInt32(try #require(try r.next())) == -2)
    }

    @Test func zigzagMatchesTheSpec() throws {
        let pairs: [(Int64, UInt64)] = [(0, 0), (-1, 1), (1, 2), (-2, 3), (2_147_483_647, 4_294_967_294), (-2_147_483_648, 4_294_967_295), (Int64.min, UInt64.max)]
        for (n, z) in pairs {
            #expect(ProtoZigZag.encode(n) == z)
            #expect(ProtoZigZag.decode(z) == n)
        }
        #expect(ProtoZigZag.encode32(-3) == 5)
        #expect(ProtoZigZag.decode32(5) == -3)
        var w = ProtoWriter()
        w.writeSInt64(1, -150)
        w.writeSInt32(2, Int32.min)
        var r = ProtoReader(w.bytes)
        #expect(try r.readSInt64(try #require(try r.next())) == -150)
        #expect(try r.readSInt32(try #require(try r.next())) == Int32.min)
    }

    @Test func fixedWidthFields() throws {
        var w = ProtoWriter()
        w.writeFixed32(1, 0xDEAD_BEEF)
        w.writeFixed64(2, 0x0102_0304_0506_0708)
        w.writeDouble(3, -2.5)
        w.writeFloat(4, 1.5)
        #expect(Array(w.bytes[0..<5]) == [0x0D, 0xEF, 0xBE, 0xAD, 0xDE])
        var r = ProtoReader(w.bytes)
        #expect(try r.readFixed32(try #require(try r.next())) == 0xDEAD_BEEF)
        #expect(try r.readSFixed64(try #require(try r.next())) == 0x0102_0304_0506_0708)
        #expect(try r.readDouble(try #require(try r.next())) == -2.5)
        #expect(try r.readFloat(try #require(try r.next())) == 1.5)
    }

    @Test func packedAndUnpackedRepeatedFieldsAreBothAccepted() throws {
        var packed = ProtoWriter()
        packed.writePackedInt32(5, [2, 4, -1])
        #expect(Array(packed.bytes.prefix(4)) == [0x2A, 12, 2, 4])
        var unpacked = ProtoWriter()
        for v: Int32 in [2, 4, -1] { unpacked.writeInt32(5, v) }
        for bytes in [packed.bytes, unpacked.bytes, packed.bytes + unpacked.bytes] {
            var r = ProtoReader(bytes)
            var values: [Int32] = []
            while let key = try r.next() { try r.readRepeatedInt32(key, into: &values) }
            #expect(values == (bytes.count > 20 ? [2, 4, -1, 2, 4, -1] : [2, 4, -1]))
        }
        var doubles = ProtoWriter()
        doubles.writePackedDoubles(1, [1.5, -0.0])
        var r = ProtoReader(doubles.bytes)
        var raw: [UInt64] = []
        try r.readRepeatedFixed(try #require(try r.next()), width: 8, into: &raw)
        #expect(raw.map(Double.init(bitPattern:)).map(\.bitPattern) == [Double(1.5).bitPattern, Double(-0.0).bitPattern])
    }

    @Test func unknownFieldsOfEveryWireTypeAreSkipped() throws {
        var w = ProtoWriter()
        w.writeUInt64(100, 12345)
        w.writeFixed64(101, 1)
        w.writeBytes(102, [1, 2, 3])
        w.writeFixed32(103, 1)
        w.writeString(1, "kept")
        var r = ProtoReader(w.bytes)
        var found: String?
        while let key = try r.next() {
            if key.number == 1 { found = try r.readString(key) } else { try r.skip(key) }
        }
        #expect(found == "kept")
    }

    @Test func specReferenceBytes() throws {
        // wire-protocol §4: oneof members are encoded even when default.
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

    @Test func longMessagesGetMultiByteLengthPrefixes() throws {
        let s = String(repeating: "x", count: 300)
        var w = ProtoWriter()
        w.writeMessage(1) { $0.writeString(2, s) }
        #expect(Array(w.bytes.prefix(3)) == [0x0A, 0xAF, 0x02])  // 303 = 0xAF 0x02
        var r = ProtoReader(w.bytes)
        var sub = try r.readMessage(try #require(try r.next()))
        #expect(try sub.readString(try #require(try sub.next())) == s)
    }

    /// Each malformed input with the error message it must produce.
    static let malformed: [(String, [UInt8], String)] = [
        ("truncated key", [0x80], "truncated varint (byte offset 0)"),
        ("truncated varint", [0x08, 0x80, 0x80], "truncated varint (field 1 at byte offset 1)"),
        ("11-byte varint", [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01], "varint longer than 10 bytes (field 1 at byte offset 1)"),
        ("varint overflow", [0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x02], "varint overflows 64 bits (field 1 at byte offset 1)"),
        ("length past end", [0x0A, 0x05, 0x01], "length 5 runs past the end of the message (field 1 at byte offset 1)"),
        ("wire type 6", [0x0E], "invalid wire type 6 (field 1 at byte offset 0)"),
        ("wire type 7", [0x08, 0x01, 0x17], "invalid wire type 7 (field 2 at byte offset 2)"),
        ("field number 0", [0x00, 0x01], "invalid field number 0 (field 0 at byte offset 0)"),
        ("start group", [0x0B, 0x0C], "groups (wire type 3) are not supported (field 1 at byte offset 0)"),
        ("end group", [0x0C], "groups (wire type 4) are not supported (field 1 at byte offset 0)"),
        ("truncated fixed64", [0x09, 1, 2, 3], "truncated fixed64 value (field 1 at byte offset 1)"),
        ("truncated fixed32", [0x0D, 1], "truncated fixed32 value (field 1 at byte offset 1)"),
    ]

    @Test(arguments: malformed)
    func malformedInputNamesFieldAndOffset(_ name: String, _ bytes: [UInt8], _ message: String) {
        var r = ProtoReader(bytes)
        do {
            while let key = try r.next() { try r.skip(key) }
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message == "Invalid protobuf message: \(message).", "\(name)")
        }
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
