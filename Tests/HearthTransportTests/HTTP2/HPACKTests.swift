import Testing
@testable import HearthTransport

/// Bytes from a hex string with spaces ("8286 8441").
func hexBytes(_ s: String) -> [UInt8] {
    let digits = Array(s.utf8.filter { $0 != 0x20 && $0 != 0x0A })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
}

func headers(_ pairs: [(String, String)]) -> [HTTP2Header] { pairs.map { HTTP2Header($0.0, $0.1) } }

/// RFC 7541: the Appendix B Huffman code, the Appendix C examples (decoding and encoding,
/// with and without Huffman, dynamic table contents after each block), and the limits.
@Suite struct HPACKTests {
    // MARK: Appendix B

    @Test func huffmanCodesMatchAppendixB() {
        let codes = HPACKHuffmanTable.codes
        let lengths = HPACKHuffmanTable.codeLengths
        // A sample of Appendix B rows: (symbol, code, bits).
        let rows: [(Int, UInt32, UInt8)] = [
            (0, 0x1ff8, 13), (1, 0x7fffd8, 23), (10, 0x3ffffffc, 30), (32, 0x14, 6), (48, 0x0, 5),
            (49, 0x1, 5), (97, 0x3, 5), (101, 0x5, 5), (65, 0x21, 6), (90, 0xfd, 8), (123, 0x7ffe, 15),
            (127, 0xffffffc, 28), (128, 0xfffe6, 20), (200, 0x3ffffe2, 26), (255, 0x3ffffee, 26), (256, 0x3fffffff, 30),
        ]
        for (symbol, code, bits) in rows {
            #expect(codes[symbol] == code, "symbol \(symbol)")
            #expect(lengths[symbol] == bits, "symbol \(symbol)")
        }
        // Prefix-free and complete: Kraft sum is exactly 1.
        let kraft = lengths.reduce(0.0) { $0 + 1.0 / Double(1 << Int($1)) }
        #expect(abs(kraft - 1.0) < 1e-12)
    }

    @Test func huffmanRoundTripsEveryByte() throws {
        let all = (0...255).map(UInt8.init)
        var out: [UInt8] = []
        HPACKHuffman.encode(all, into: &out)
        #expect(out.count == HPACKHuffman.encodedLength(all))
        #expect(try HPACKHuffman.decode(out, maxLength: 1000) == all)
    }

    @Test func huffmanRejectsBadPadding() {
        // "a" is 00011; padding with zeros instead of EOS's 1s is invalid.
        #expect(throws: HPACKError.invalidHuffman("Huffman padding is not a prefix of EOS")) { try HPACKHuffman.decode([0x18], maxLength: 10) }
        // A whole byte of padding (8 bits of 1s) after a complete symbol is invalid.
        #expect(throws: HPACKError.self) { try HPACKHuffman.decode([0x1F, 0xFF], maxLength: 10) }
        // EOS itself (30 ones) inside the string is invalid.
        #expect(throws: HPACKError.invalidHuffman("EOS symbol inside a Huffman-coded string")) { try HPACKHuffman.decode([0xFF, 0xFF, 0xFF, 0xFF], maxLength: 10) }
    }

    /// The table-driven decoder (four bits a step) answers as the tree walked a bit at a
    /// time does — the same bytes, or the same error — for every short input and many
    /// random ones, valid Huffman strings among them, with a tight length limit too.
    @Test func huffmanNibbleDecoderMatchesTheBitwiseWalk() {
        func bitwise(_ bytes: [UInt8], maxLength: Int) -> Result<[UInt8], HPACKError> {
            let tree = HPACKHuffmanTable.tree
            var out: [UInt8] = [], node = 0, bits = 0, ones = true
            for byte in bytes {
                for shift in stride(from: 7, through: 0, by: -1) {
                    let bit = Int((byte >> UInt8(shift)) & 1)
                    let next = tree[2 * node + bit]
                    bits += 1
                    if bit == 0 { ones = false }
                    if next & 0x8000 != 0 {
                        let symbol = Int(next & 0x7FFF)
                        if symbol == HPACKHuffmanTable.eos { return .failure(.invalidHuffman("EOS symbol inside a Huffman-coded string")) }
                        out.append(UInt8(symbol))
                        if out.count > maxLength { return .failure(.stringTooLong(maxLength)) }
                        node = 0; bits = 0; ones = true
                    } else if next == 0 {
                        return .failure(.invalidHuffman("invalid Huffman code"))
                    } else {
                        node = Int(next)
                    }
                }
            }
            if bits > 7 { return .failure(.invalidHuffman("Huffman padding longer than 7 bits")) }
            if !ones { return .failure(.invalidHuffman("Huffman padding is not a prefix of EOS")) }
            return .success(out)
        }
        func table(_ bytes: [UInt8], maxLength: Int) -> Result<[UInt8], HPACKError> {
            Result { () throws(HPACKError) -> [UInt8] in try HPACKHuffman.decode(bytes, maxLength: maxLength) }
        }
        var inputs: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for a in stride(from: 0, through: 255, by: 3) { for b in stride(from: 0, through: 255, by: 5) { inputs.append([UInt8(a), UInt8(b)]) } }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var coded: [UInt8] = []
            HPACKHuffman.encode(text, into: &coded)
            inputs.append(coded)
            inputs.append((0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
        for input in inputs {
            for limit in [4, 1_000] {
                #expect(table(input, maxLength: limit) == bitwise(input, maxLength: limit), "\(input) limit \(limit)")
            }
        }
    }

    // MARK: C.1 integers

    @Test func integerExamplesC1() throws {
        var out: [UInt8] = []
        HPACKPrimitives.encodeInteger(10, prefixBits: 5, firstByteFlags: 0, into: &out)
        #expect(out == [0x0A])
        out = []
        HPACKPrimitives.encodeInteger(1337, prefixBits: 5, firstByteFlags: 0, into: &out)
        #expect(out == [0x1F, 0x9A, 0x0A])
        out = []
        HPACKPrimitives.encodeInteger(42, prefixBits: 8, firstByteFlags: 0, into: &out)
        #expect(out == [0x2A])
        var offset = 0
        #expect(try HPACKPrimitives.decodeInteger([0x1F, 0x9A, 0x0A], &offset, end: 3, prefixBits: 5) == 1337)
        #expect(offset == 3)
        offset = 0
        #expect(throws: HPACKError.integerOverflow) {
            try HPACKPrimitives.decodeInteger([0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], &offset, end: 7, prefixBits: 5)
        }
        offset = 0
        #expect(throws: HPACKError.truncated) { try HPACKPrimitives.decodeInteger([0x1F, 0x9A], &offset, end: 2, prefixBits: 5) }
    }

    // MARK: C.2 single representations

    @Test func literalRepresentationsC2() throws {
        var d = HPACKDecoder()
        #expect(try d.decode(hexBytes("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572")) == headers([("custom-key", "custom-header")]))
        #expect(d.table.size == 55)
        var d2 = HPACKDecoder()
        #expect(try d2.decode(hexBytes("040c 2f73 616d 706c 652f 7061 7468")) == headers([(":path", "/sample/path")]))
        #expect(d2.table.count == 0)
        var d3 = HPACKDecoder()
        #expect(try d3.decode(hexBytes("1008 7061 7373 776f 7264 0673 6563 7265 74")) == headers([("password", "secret")]))
        #expect(d3.table.count == 0)
        var d4 = HPACKDecoder()
        #expect(try d4.decode([0x82]) == headers([(":method", "GET")]))

        var e = HPACKEncoder(useHuffman: false)
        #expect(e.encode(headers([("custom-key", "custom-header")])) == hexBytes("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
        var e2 = HPACKEncoder(useHuffman: false, useIndexing: false)
        #expect(e2.encode(headers([(":path", "/sample/path")])) == hexBytes("040c 2f73 616d 706c 652f 7061 7468"))
        var e3 = HPACKEncoder(useHuffman: false)
        e3.sensitiveNames = ["password"]
        #expect(e3.encode(headers([("password", "secret")])) == hexBytes("1008 7061 7373 776f 7264 0673 6563 7265 74"))
    }

    // MARK: C.3 / C.4 requests

    static let requests: [[(String, String)]] = [
        [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com")],
        [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com"), ("cache-control", "no-cache")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/index.html"), (":authority", "www.example.com"), ("custom-key", "custom-value")],
    ]
    static let requestTableSizes = [57, 110, 164]

    @Test(arguments: [
        (false, ["8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                 "8286 84be 5808 6e6f 2d63 6163 6865",
                 "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"]),
        (true, ["8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
                "8286 84be 5886 a8eb 1064 9cbf",
                "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"]),
    ])
    func requestExamplesC3C4(huffman: Bool, blocks: [String]) throws {
        var decoder = HPACKDecoder()
        var encoder = HPACKEncoder(useHuffman: huffman)
        for (i, hex) in blocks.enumerated() {
            #expect(try decoder.decode(hexBytes(hex)) == headers(Self.requests[i]))
            #expect(decoder.table.size == Self.requestTableSizes[i])
            #expect(encoder.encode(headers(Self.requests[i])) == hexBytes(hex))
            #expect(encoder.table.size == Self.requestTableSizes[i])
        }
        #expect(decoder.table.entry(0).map { String(decoding: $0.name, as: UTF8.self) } == "custom-key")
        #expect(decoder.table.entry(2).map { String(decoding: $0.value, as: UTF8.self) } == "www.example.com")
    }

    // MARK: C.5 / C.6 responses with a 256-byte table (eviction)

    static let responses: [[(String, String)]] = [
        [(":status", "302"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"), ("location", "https://www.example.com")],
        [(":status", "307"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"), ("location", "https://www.example.com")],
        [(":status", "200"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:22 GMT"), ("location", "https://www.example.com"),
         ("content-encoding", "gzip"), ("set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1")],
    ]
    static let responseTableSizes = [222, 222, 215]

    @Test(arguments: [
        (false, ["4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                 "4803 3330 37c1 c0bf",
                 "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31"]),
        (true, ["4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
                "4883 640e ffc1 c0bf",
                "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"]),
    ])
    func responseExamplesC5C6(huffman: Bool, blocks: [String]) throws {
        var decoder = HPACKDecoder(maxTableSize: 256)
        var encoder = HPACKEncoder(maxTableSize: 256, useHuffman: huffman)
        for (i, hex) in blocks.enumerated() {
            #expect(try decoder.decode(hexBytes(hex)) == headers(Self.responses[i]))
            #expect(decoder.table.size == Self.responseTableSizes[i])
            #expect(encoder.encode(headers(Self.responses[i])) == hexBytes(hex))
            #expect(encoder.table.size == Self.responseTableSizes[i])
        }
        #expect(decoder.table.count == 3)
        #expect(decoder.table.entry(0).map { String(decoding: $0.name, as: UTF8.self) } == "set-cookie")
    }

    // MARK: Dynamic table size updates and limits

    @Test func sizeUpdateEvictsAndIsBoundedBySettings() throws {
        var d = HPACKDecoder(maxTableSize: 4096)
        _ = try d.decode(hexBytes("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
        #expect(d.table.count == 1)
        // Size update to 0 (0x20) empties the table, then :method GET.
        #expect(try d.decode([0x20, 0x82]) == headers([(":method", "GET")]))
        #expect(d.table.count == 0)
        // Index 62 no longer exists.
        #expect(throws: HPACKError.invalidIndex(62)) { try d.decode([0xBE]) }
        // Above the advertised limit: 0x3F 0x80 0x20 = 31 + 32 × 128 = 4127.
        #expect(throws: HPACKError.tableSizeUpdateTooLarge(requested: 4127, allowed: 4096)) { try d.decode([0x3F, 0x80, 0x20]) }
        // After a field: not allowed.
        #expect(throws: HPACKError.tableSizeUpdateNotAtStart) { try d.decode([0x82, 0x20]) }
    }

    @Test func encoderAnnouncesTableSizeChanges() throws {
        var e = HPACKEncoder()
        var d = HPACKDecoder()
        e.setMaxTableSize(0)
        e.setMaxTableSize(100)
        let block = e.encode(headers([("x-a", "1")]))
        // Minimum (0) then the final size (100), then the field.
        #expect(Array(block.prefix(3)) == [0x20, 0x3F, 0x45])
        #expect(try d.decode(block) == headers([("x-a", "1")]))
        #expect(d.table.maxSize == 100)
    }

    /// The encoder reuses a block it encoded without changing its table, only while the
    /// table is unchanged: a list encoded again after other fields moved the table's
    /// indices (or evicted its entries) must be encoded anew, or the peer decodes other
    /// fields.
    @Test func encoderReusesABlockOnlyWhileItsTableIsUnchanged() throws {
        let answer = headers([(":status", "200"), ("content-type", "application/grpc"), ("grpc-encoding", "identity")])
        let trailers = headers([("grpc-status", "0")])
        for maxTableSize in [4096, 120] {  // 120: each new field evicts older ones
            var e = HPACKEncoder(maxTableSize: maxTableSize)
            var d = HPACKDecoder(maxTableSize: maxTableSize)
            let lists = [answer, answer, answer, trailers, answer, headers([("x-other", "a")]), answer, trailers, trailers,
                         headers([("grpc-status", "5"), ("grpc-message", "gone")]), trailers, answer]
            var blocks: [[UInt8]] = []
            for list in lists {
                let block = e.encode(list)
                #expect(try d.decode(block) == list)
                blocks.append(block)
            }
            // Once the fields are in an unchanged table, the same bytes (all indexed).
            #expect(blocks[1] == blocks[2])
            #expect(blocks[2].count == 3)
            if maxTableSize == 4096 {
                #expect(blocks[7] == blocks[8])
            } else {
                #expect(blocks[4] != blocks[2])  // the entries were evicted: literals again
            }
        }
        // A change of how fields are encoded is not answered with a block encoded before it.
        var e = HPACKEncoder(useHuffman: false, useIndexing: false)
        let plain = e.encode(answer)
        #expect(e.encode(answer) == plain)
        e.useHuffman = true
        #expect(e.encode(answer) != plain)
        var d = HPACKDecoder()
        #expect(try d.decode(e.encode(answer)) == answer)
    }

    /// A `:path` literal (nghttp2 never indexes it) is decoded once and remembered by its
    /// bytes: the same bytes give the same field, any other bytes are decoded anew.
    @Test(arguments: [false, true])
    func repeatedPathLiteralsDecodeAsSent(huffman: Bool) throws {
        var e = HPACKEncoder(useHuffman: huffman, useIndexing: false)
        var d = HPACKDecoder()
        let paths = ["/google.firestore.v1.Firestore/GetDocument", "/google.firestore.v1.Firestore/GetDocument", "/a/b",
                     "/a/bc", "/a/b", "/", "/google.firestore.v1.Firestore/GetDocument", "/é/%20"]
        for path in paths {
            let list = headers([(":method", "POST"), (":path", path), ("x-n", path)])
            #expect(try d.decode(e.encode(list)) == list)
        }
        // A list over the limit counts the remembered path's octets too.
        var small = HPACKDecoder(maxHeaderListSize: 60)
        let long = headers([(":path", "/" + String(repeating: "p", count: 19))])
        #expect(try small.decode(e.encode(long)) == long)
        #expect(throws: HPACKError.headerListTooLarge(60)) { try small.decode(e.encode(long + long)) }
    }

    @Test func headerBombsAreRejected() throws {
        // A header list over the limit (name + value + 32 per field).
        var d = HPACKDecoder(maxHeaderListSize: 100)
        var e = HPACKEncoder(useHuffman: false, useIndexing: false)
        let big = e.encode(headers([("x-big", String(repeating: "a", count: 200))]))
        #expect(throws: HPACKError.stringTooLong(100)) { try d.decode(big) }
        let many = e.encode(headers((0..<5).map { ("x-\($0)", "v") }))
        #expect(throws: HPACKError.headerListTooLarge(100)) { try d.decode(many) }
        // Repeating one indexed entry: each costs a byte but counts 32+ towards the list.
        var d2 = HPACKDecoder(maxHeaderListSize: 16 * 1024)
        let repeated = [UInt8](repeating: 0x82, count: 10_000)
        #expect(throws: HPACKError.headerListTooLarge(16 * 1024)) { try d2.decode(repeated) }
        // Huffman expansion is bounded by the same limit: 1000 bytes of '0' (5 bits) decode to 1600.
        var d3 = HPACKDecoder(maxHeaderListSize: 1000)
        var huff: [UInt8] = [0x00]  // literal without indexing, new name
        HPACKPrimitives.encodeString(Array("x".utf8), huffman: false, into: &huff)
        var value: [UInt8] = []
        HPACKPrimitives.encodeString([UInt8](repeating: 0x30, count: 1600), huffman: true, into: &value)
        huff += value
        #expect(throws: HPACKError.stringTooLong(1000)) { try d3.decode(huff) }
    }

    @Test func truncatedBlocksAreErrors() {
        var d = HPACKDecoder()
        #expect(throws: HPACKError.truncated) { try d.decode([0x40, 0x0A, 0x63]) }
        #expect(throws: HPACKError.invalidIndex(0)) { try d.decode([0x80]) }
    }
}
