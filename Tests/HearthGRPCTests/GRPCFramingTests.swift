import HearthTransport
import Testing
@testable import HearthGRPC

/// gRPC length-prefixed messages, status trailers with percent-encoding, and
/// `grpc-timeout` parsing.
@Suite struct GRPCFramingTests {
    @Test func messagesAreReassembledAcrossAnySplit() throws {
        let messages: [[UInt8]] = [[], [1, 2, 3], [UInt8](repeating: 9, count: 70_000), [42]]
        let stream = messages.flatMap(GRPCMessageWriter.frame)
        #expect(Array(GRPCMessageWriter.frame([1, 2, 3])) == [0, 0, 0, 0, 3, 1, 2, 3])
        for chunkSize in [1, 3, 5, 7, 16_384, stream.count] {
            var reader = GRPCMessageReader()
            var out: [[UInt8]] = []
            var i = 0
            while i < stream.count {
                reader.append(stream[i..<min(stream.count, i + chunkSize)])
                while let m = try reader.next() { out.append(m) }
                i += chunkSize
            }
            #expect(out == messages, "chunk size \(chunkSize)")
            #expect(!reader.hasPartialMessage)
        }
    }

    @Test func compressedMessagesThatCannotBeReadAreRefusedClearly() {
        // gzip is read (GzipTests); a broken gzip message, the flag without an encoding and
        // another algorithm are refused with the official emulator's codes.
        var gzip = GRPCMessageReader(encoding: "gzip")
        gzip.append([1, 0, 0, 0, 1, 0xFF])
        #expect(throws: GRPCStatus(.internal, "Could not decompress the gzip message: truncated gzip header.")) { try gzip.next() }
        var snappy = GRPCMessageReader(encoding: "snappy")
        snappy.append([1, 0, 0, 0, 1, 0xFF])
        #expect(throws: GRPCStatus(.unimplemented, "Can't find decompressor for snappy")) { try snappy.next() }
        var none = GRPCMessageReader()
        none.append([1, 0, 0, 0, 0])
        #expect(throws: GRPCStatus(.internal, "Can't decode compressed gRPC message as compression not configured")) { try none.next() }
        var bad = GRPCMessageReader()
        bad.append([2, 0, 0, 0, 0])
        #expect(throws: GRPCStatus.self) { try bad.next() }
    }

    @Test func oversizedMessagesAreRefusedBeforeBuffering() {
        var reader = GRPCMessageReader(maxMessageSize: 100)
        reader.append([0, 0, 0, 0, 101])
        #expect(throws: GRPCStatus(.resourceExhausted, "Received message larger than max (101 vs. 100)")) { try reader.next() }
        // The default accepts the 17 MiB the SDKs may send.
        var big = GRPCMessageReader()
        big.append([0, 0x01, 0x10, 0, 0])  // 17 MiB header only
        #expect((try? big.next()) == .some(nil))
    }

    @Test func statusTrailersArePercentEncoded() {
        #expect(GRPCStatus.percentEncode("no such doc ✓") == "no such doc %E2%9C%93")
        #expect(GRPCStatus.percentEncode("100% done\n") == "100%25 done%0A")
        #expect(GRPCStatus.percentDecode("no%20such%20doc%20%E2%9C%93") == "no such doc ✓")
        #expect(GRPCStatus.percentDecode("bad %zz and %4") == "bad %zz and %4")
        #expect(GRPCStatus.trailers(.notFound, message: "missing ✓") == [HTTP2Header("grpc-status", "5"), HTTP2Header("grpc-message", "missing %E2%9C%93")])
        let only = GRPCStatus.trailersOnly(.unimplemented, message: "x")
        #expect(only.prefix(2) == [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")])
        #expect(only.contains(HTTP2Header("grpc-status", "12")))
    }

    /// A long message (it may echo a 20 KB name) is cut so the trailers fit the 8 KiB
    /// header list grpc-java accepts; the cut falls between characters, never inside one.
    @Test func longStatusMessagesAreCut() throws {
        let long = "Document name \"" + String(repeating: "é/", count: 5000) + "\" is wrong."
        let trailers = GRPCStatus.trailers(.invalidArgument, message: long)
        let encoded = try #require(trailers.first { $0.name == "grpc-message" }).value
        #expect(encoded.utf8.count <= GRPCStatus.maxEncodedMessage)
        #expect(encoded.utf8.count > GRPCStatus.maxEncodedMessage - 20)
        let decoded = GRPCStatus.percentDecode(encoded)
        #expect(decoded.hasPrefix("Document name \"é/é/"))
        #expect(decoded.hasSuffix("…"))
        #expect(long.hasPrefix(String(decoded.dropLast())))
        // At the limit exactly, nothing is cut.
        let fits = String(repeating: "a", count: GRPCStatus.maxEncodedMessage)
        #expect(GRPCStatus.trailers(.notFound, message: fits)[1].value == fits)
    }

    @Test func timeoutsParse() {
        #expect(GRPCTimeout.parse("1M") == .seconds(60))
        #expect(GRPCTimeout.parse("60100m") == .milliseconds(60_100))
        #expect(GRPCTimeout.parse("301S") == .seconds(301))
        #expect(GRPCTimeout.parse("2H") == .seconds(7200))
        #expect(GRPCTimeout.parse("5u") == .microseconds(5))
        #expect(GRPCTimeout.parse("99999999n") == .nanoseconds(99_999_999))
        for bad in ["", "S", "1", "123456789S", "1x", "-1S", "1.5S", " 1S"] {
            #expect(GRPCTimeout.parse(bad) == nil, "\(bad)")
        }
    }
}
