import Testing
@testable import HearthGRPC

/// The gzip decoder behind `grpc-encoding: gzip` requests (RFC 1951/1952), on data made by
/// Python's gzip module: a fixed-Huffman member, a dynamic-Huffman member, a stored block,
/// two members, and broken or oversized input (never a trap, never past the limit).
@Suite struct GzipTests {
    static let fixedHuffman: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 215, 81, 200, 64, 162, 20, 210, 171, 50, 11, 0,
                                        137, 61, 53, 247, 24, 0, 0, 0]
    static let stored: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 4, 3, 1, 17, 0, 238, 255, 115, 116, 111, 114, 101, 100, 32, 98, 108, 111, 99, 107,
                                  32, 100, 97, 116, 97, 223, 101, 160, 165, 17, 0, 0, 0]
    /// 400 words drawn from twelve, 2,976 bytes.
    static let dynamicHuffman: [UInt8] = [
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 141, 86, 209, 114, 131, 48, 12, 251, 21, 126, 173, 87, 210, 43,
        119, 180, 220, 40, 172, 219, 223, 111, 171, 156, 32, 203, 206, 182, 151, 148, 26, 71, 118, 100, 217, 225, 185, 78,
        91, 25, 206, 203, 60, 151, 243, 54, 45, 247, 97, 221, 231, 242, 24, 202, 109, 159, 79, 219, 178, 14, 151, 105,
        45, 143, 239, 135, 50, 140, 203, 121, 191, 149, 251, 54, 188, 159, 230, 157, 254, 62, 95, 8, 151, 169, 204, 35,
        121, 195, 233, 109, 47, 235, 103, 134, 129, 40, 88, 155, 17, 222, 18, 7, 62, 7, 4, 2, 201, 158, 150, 46,
        229, 237, 243, 169, 255, 127, 86, 133, 212, 44, 17, 152, 56, 153, 167, 199, 86, 42, 53, 100, 23, 38, 128, 110,
        206, 120, 215, 242, 161, 93, 226, 143, 181, 57, 34, 25, 144, 42, 84, 92, 203, 105, 221, 174, 113, 191, 63, 35,
        0, 166, 251, 88, 62, 14, 84, 230, 18, 216, 112, 192, 22, 60, 195, 110, 233, 3, 133, 178, 182, 224, 82, 163,
        228, 200, 12, 102, 155, 96, 50, 47, 41, 96, 90, 110, 138, 251, 84, 129, 2, 76, 107, 216, 78, 42, 120, 136,
        6, 16, 151, 19, 203, 54, 114, 17, 211, 179, 236, 241, 218, 48, 98, 208, 35, 33, 115, 177, 31, 219, 45, 242,
        108, 127, 29, 65, 182, 69, 26, 177, 230, 91, 241, 153, 102, 98, 71, 216, 173, 39, 243, 82, 183, 64, 189, 234,
        114, 115, 10, 29, 157, 58, 128, 235, 8, 155, 188, 117, 167, 67, 250, 237, 140, 48, 6, 233, 101, 209, 233, 81,
        70, 128, 118, 51, 23, 55, 246, 116, 19, 101, 117, 239, 100, 239, 167, 220, 161, 169, 200, 33, 235, 46, 206, 37,
        115, 210, 244, 210, 70, 141, 171, 212, 85, 136, 211, 50, 203, 144, 196, 158, 140, 215, 124, 132, 39, 162, 14, 44,
        254, 235, 46, 144, 60, 120, 8, 19, 84, 59, 140, 149, 132, 177, 120, 100, 197, 214, 132, 61, 174, 6, 148, 201,
        167, 217, 220, 52, 240, 205, 234, 90, 61, 156, 89, 201, 102, 153, 244, 69, 225, 175, 24, 157, 10, 154, 149, 155,
        171, 1, 26, 6, 142, 206, 171, 180, 22, 83, 143, 103, 238, 117, 215, 254, 140, 152, 12, 115, 86, 67, 125, 114,
        140, 185, 27, 164, 109, 210, 50, 58, 226, 229, 186, 251, 69, 190, 124, 61, 178, 157, 59, 179, 219, 92, 194, 73,
        11, 16, 45, 9, 45, 161, 125, 210, 1, 173, 37, 228, 41, 234, 64, 213, 49, 159, 109, 110, 178, 39, 35, 138,
        239, 172, 236, 91, 131, 105, 73, 201, 8, 186, 14, 31, 63, 89, 189, 187, 247, 159, 251, 80, 9, 92, 177, 190,
        130, 120, 220, 213, 228, 63, 31, 15, 237, 184, 215, 97, 132, 132, 4, 89, 112, 114, 247, 50, 68, 56, 115, 199,
        160, 93, 28, 36, 161, 250, 251, 179, 168, 44, 94, 21, 198, 43, 218, 23, 142, 251, 116, 201, 160, 11, 0, 0,
    ]

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func fixedAndStoredBlocks() throws {
        #expect(text(try Gzip.decompress(Self.fixedHuffman, limit: 1000)) == "hello, hello, hello gzip")
        #expect(text(try Gzip.decompress(Self.stored, limit: 1000)) == "stored block data")
        // Two members read as their concatenation.
        #expect(text(try Gzip.decompress(Self.fixedHuffman + Self.stored, limit: 1000)) == "hello, hello, hello gzipstored block data")
    }

    @Test func dynamicBlockChecksOut() throws {
        // The decoder checks the member's CRC-32 and length itself.
        let out = text(try Gzip.decompress(Self.dynamicHuffman, limit: 1 << 20))
        #expect(out.utf8.count == 2976)
        let words: Set<Substring> = ["firestore", "document", "collection", "query", "listen", "write", "rules", "index", "value",
                                     "field", "emulator", "hearth"]
        #expect(out.split(separator: " ").allSatisfy(words.contains))
    }

    @Test func brokenOrOversizedInputIsRefused() {
        var corrupt = Self.dynamicHuffman
        corrupt[100] ^= 0x55
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(corrupt, limit: 1 << 20) }
        var badCRC = Self.fixedHuffman
        badCRC[badCRC.count - 8] ^= 1
        #expect(throws: Gzip.Failure(reason: "CRC-32 mismatch", tooLarge: false)) { try Gzip.decompress(badCRC, limit: 1000) }
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(Array(Self.dynamicHuffman.prefix(300)), limit: 1 << 20) }
        #expect(throws: Gzip.Failure(reason: "not gzip data (bad magic bytes)", tooLarge: false)) {
            try Gzip.decompress([UInt8](repeating: 7, count: 40), limit: 1000)
        }
        // A bomb stops at the limit.
        do {
            _ = try Gzip.decompress(Self.dynamicHuffman, limit: 1000)
            Issue.record("no error")
        } catch {
            #expect(error.tooLarge)
        }
        // Random bytes behind a valid header never trap.
        var g = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let junk = Self.fixedHuffman.prefix(10) + (0..<64).map { _ in UInt8.random(in: 0...255, using: &g) }
            _ = try? Gzip.decompress(Array(junk), limit: 4096)
        }
    }

    @Test func readerGunzipsCompressedMessagesAndRefusesOthers() throws {
        func framed(_ flag: UInt8, _ payload: [UInt8]) -> [UInt8] {
            let n = payload.count
            return [flag, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + payload
        }
        var gzip = GRPCMessageReader(encoding: "gzip")
        gzip.append(framed(1, Self.fixedHuffman) + framed(0, Array("plain".utf8)))
        #expect(text(try #require(try gzip.next())) == "hello, hello, hello gzip")
        #expect(text(try #require(try gzip.next())) == "plain")
        for encoding in [nil, "identity"] as [String?] {
            var r = GRPCMessageReader(encoding: encoding)
            r.append(framed(1, Self.fixedHuffman))
            #expect(throws: GRPCStatus(.internal, "Can't decode compressed gRPC message as compression not configured")) { try r.next() }
        }
        var small = GRPCMessageReader(maxMessageSize: 100, encoding: "gzip")
        small.append(framed(1, Self.dynamicHuffman))
        #expect(throws: GRPCStatus(.resourceExhausted, "Received message larger than max (528 vs. 100)")) { try small.next() }
        var bomb = GRPCMessageReader(maxMessageSize: 1000, encoding: "gzip")
        bomb.append(framed(1, Self.dynamicHuffman))
        #expect(throws: GRPCStatus(.resourceExhausted, "Decompressed gRPC message exceeds maximum size 1000")) { try bomb.next() }
        #expect(GRPCMessageReader.unsupported("deflate") == GRPCStatus(.unimplemented, "Can't find decompressor for deflate"))
    }

    @Test func headersAdvertiseGzipAndTrailersOmitAnEmptyMessage() {
        #expect(GRPCStatus.responseHeaders.contains { $0.name == "grpc-accept-encoding" && $0.value == "gzip" })
        #expect(GRPCStatus.trailers(.ok).map(\.name) == ["grpc-status"])
        #expect(GRPCStatus.trailers(.notFound, message: "gone").map(\.name) == ["grpc-status", "grpc-message"])
    }
}
