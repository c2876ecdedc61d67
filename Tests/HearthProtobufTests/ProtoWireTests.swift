import Testing
@testable import HearthProtobuf

/// A malformation as the reader reports it.
private struct Malformed: ProtoDecodingFailure, Equatable {
    let message: String
    static func malformedProtobuf(_ description: String) -> Malformed { Malformed(message: description) }
}

/// The reader under test.
private typealias ProtoReader = ProtoWireReader<Malformed>

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

    @Test func longMessagesGetMultiByteLengthPrefixes() throws {
        let s = String(repeating: "x", count: 300)
        var w = ProtoWriter()
        w.writeMessage(1) { $0.writeString(2, s) }
        #expect(Array(w.bytes.prefix(3)) == [0x0A, 0xAF, 0x02])  // 303 = 0xAF 0x02
        var r = ProtoReader(w.bytes)
        var sub = try r.readMessage(try #require(try r.next()))
        #expect(try sub.readString(try #require(try sub.next())) == s)
    }

    // The length prefix takes one byte up to 127 and grows the body's way past it; nested
    // messages each patch their own, and a reserved capacity changes nothing written.
    @Test(arguments: [0, 1, 127, 128, 129, 16_383, 16_384, 2_097_152])
    func embeddedMessagesOfEveryPrefixWidth(_ length: Int) throws {
        let payload = [UInt8](repeating: 0x5A, count: length)
        for capacity in [0, length + 16] {
            var w = ProtoWriter(capacity: capacity)
            w.writeUInt64(7, 1)
            w.writeMessage(1) { outer in
                outer.writeMessage(2) { $0.bytes.append(contentsOf: payload) }
                outer.writeBool(3, true)
            }
            w.writeUInt64(8, 2)
            var expected: [UInt8] = [0x38, 0x01, 0x0A]
            func varint(_ n: Int) -> [UInt8] {
                var v = n, out: [UInt8] = []
                while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
                return out + [UInt8(v)]
            }
            let inner = [0x12] + varint(length) + payload
            expected += varint(inner.count + 2) + inner + [0x18, 0x01, 0x40, 0x02]
            #expect(w.bytes == expected)
        }
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
            #expect(error.message == "Invalid protobuf message: \(message).", "\(name)")
        }
    }

    @Test func groupsAreReadOnlyWhereAccepted() throws {
        var w = ProtoWriter()
        w.writeInt64(1, 7)
        w.writeGroup(2) { g in
            g.writeString(3, "inner")
            g.writeGroup(4) { $0.writeInt64(5, 9) }
        }
        w.writeInt64(6, 8)
        // The Firestore API's readers refuse groups outright.
        var strict = ProtoReader(w.bytes)
        _ = try strict.next()
        #expect(throws: Malformed.self) { _ = try strict.next() }

        var r = ProtoReader(w.bytes, acceptsGroups: true)
        var seen: [String] = []
        while let k = try r.next() {
            switch k.number {
            case 1, 6: seen.append("\(k.number)=\(try r.readInt64(k))")
            case 2:
                var g = try r.readGroup(k)
                while let gk = try g.next() {
                    if gk.number == 3 { seen.append(try g.readString(gk)) } else { try g.skip(gk) }
                }
            default: try r.skip(k)
            }
        }
        #expect(seen == ["1=7", "inner", "6=8"])

        // A group closed by another field, or never closed, names the field and offset.
        let crossed: [UInt8] = [0x13, 0x08, 0x01, 0x24]   // start 2, varint 1, end 4
        var c = ProtoReader(crossed, acceptsGroups: true)
        let ck = try #require(try c.next())
        #expect(throws: Malformed(message: "Invalid protobuf message: group 2 closed by field 4 (field 4 at byte offset 3).")) { _ = try c.readGroup(ck) }
        let open: [UInt8] = [0x13, 0x08, 0x01]
        var o = ProtoReader(open, acceptsGroups: true)
        let ok = try #require(try o.next())
        #expect(throws: Malformed(message: "Invalid protobuf message: group without its end (field 2 at byte offset 0).")) { _ = try o.readGroup(ok) }
    }
}
