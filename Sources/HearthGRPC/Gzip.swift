/// Decompresses gzip (RFC 1952) data: the DEFLATE decoder (RFC 1951) a gRPC server needs to
/// read requests sent with `grpc-encoding: gzip`. Written here because neither the C library
/// nor Foundation on Linux offers one to Swift without a system-library target.
///
/// The output is capped (`limit`): a small request must not expand into unbounded memory.
/// Huffman codes are decoded a bit at a time (canonical codes, counted per length), which is
/// plenty for request messages; responses are never compressed.
public enum Gzip {
    public struct Failure: Error, Sendable, Equatable {
        public let reason: String
        /// The output would pass the limit.
        public let tooLarge: Bool
    }

    /// The data of every gzip member in `data`, one after the other.
    public static func decompress(_ data: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        var position = 0
        repeat {
            position = try member(data, at: position, into: &out, limit: limit)
        } while position < data.count
        return out
    }

    private static func fail(_ reason: String) -> Failure { Failure(reason: reason, tooLarge: false) }

    /// One member: its header, its DEFLATE data, then the CRC-32 and size of what it held.
    private static func member(_ data: [UInt8], at start: Int, into out: inout [UInt8], limit: Int) throws(Failure) -> Int {
        guard data.count - start >= 18 else { throw fail("truncated gzip header") }
        guard data[start] == 0x1F, data[start + 1] == 0x8B else { throw fail("not gzip data (bad magic bytes)") }
        guard data[start + 2] == 8 else { throw fail("unknown compression method \(data[start + 2])") }
        let flags = data[start + 3]
        var p = start + 10
        if flags & 0x04 != 0 {  // FEXTRA
            guard p + 2 <= data.count else { throw fail("truncated gzip header") }
            p += 2 + (Int(data[p]) | Int(data[p + 1]) << 8)
        }
        for flag: UInt8 in [0x08, 0x10] where flags & flag != 0 {  // FNAME, FCOMMENT: zero-terminated
            while p < data.count && data[p] != 0 { p += 1 }
            p += 1
        }
        if flags & 0x02 != 0 { p += 2 }  // FHCRC
        guard p <= data.count else { throw fail("truncated gzip header") }
        let first = out.count
        var bits = BitReader(data, at: p)
        try inflate(&bits, into: &out, limit: limit)
        p = bits.alignedPosition
        guard p + 8 <= data.count else { throw fail("truncated gzip trailer") }
        let crc = UInt32(data[p]) | UInt32(data[p + 1]) << 8 | UInt32(data[p + 2]) << 16 | UInt32(data[p + 3]) << 24
        let size = UInt32(data[p + 4]) | UInt32(data[p + 5]) << 8 | UInt32(data[p + 6]) << 16 | UInt32(data[p + 7]) << 24
        guard CRC32.checksum(out[first...]) == crc else { throw fail("CRC-32 mismatch") }
        guard UInt32(truncatingIfNeeded: out.count - first) == size else { throw fail("length mismatch") }
        return p + 8
    }

    // MARK: DEFLATE

    struct BitReader {
        let data: [UInt8]
        var position: Int
        var bitBuffer: UInt32 = 0
        var bitCount = 0

        init(_ data: [UInt8], at position: Int) {
            self.data = data
            self.position = position
        }

        mutating func bits(_ n: Int) throws(Failure) -> Int {
            while bitCount < n {
                guard position < data.count else { throw Gzip.fail("truncated deflate data") }
                bitBuffer |= UInt32(data[position]) << UInt32(bitCount)
                position += 1
                bitCount += 8
            }
            let value = Int(bitBuffer & ((1 << UInt32(n)) - 1))
            bitBuffer >>= UInt32(n)
            bitCount -= n
            return value
        }

        /// The byte after the last one read, dropping the bits left of the current byte.
        var alignedPosition: Int { position - bitCount / 8 }

        mutating func alignToByte() {
            bitBuffer = 0
            bitCount = 0
        }
    }

    /// Canonical Huffman code: how many codes of each length, and the symbols in code order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) throws(Failure) {
            for l in lengths { counts[l] += 1 }
            counts[0] = 0
            var left = 1
            for len in 1...15 {
                left = left << 1 - counts[len]
                guard left >= 0 else { throw Gzip.fail("over-subscribed Huffman code") }
            }
            var offsets = [Int](repeating: 0, count: 16)
            for len in 1..<15 { offsets[len + 1] = offsets[len] + counts[len] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, l) in lengths.enumerated() where l != 0 {
                symbols[offsets[l]] = symbol
                offsets[l] += 1
            }
        }

        func decode(_ bits: inout BitReader) throws(Failure) -> Int {
            var code = 0, first = 0, index = 0
            for len in 1...15 {
                code |= try bits.bits(1)
                let count = counts[len]
                if code - first < count { return symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw Gzip.fail("invalid Huffman code")
        }
    }

    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049,
                                       3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private static let fixed: (Huffman, Huffman) = {
        var lengths = [Int](repeating: 8, count: 288)
        for i in 144..<256 { lengths[i] = 9 }
        for i in 256..<280 { lengths[i] = 7 }
        // The fixed codes are complete by construction.
        return (try! Huffman(lengths: lengths), try! Huffman(lengths: [Int](repeating: 5, count: 30)))
    }()

    static func inflate(_ bits: inout BitReader, into out: inout [UInt8], limit: Int) throws(Failure) {
        var last = false
        repeat {
            last = try bits.bits(1) == 1
            switch try bits.bits(2) {
            case 0:
                bits.alignToByte()
                let p = bits.position
                guard p + 4 <= bits.data.count else { throw fail("truncated stored block") }
                let length = Int(bits.data[p]) | Int(bits.data[p + 1]) << 8
                let complement = Int(bits.data[p + 2]) | Int(bits.data[p + 3]) << 8
                guard length == ~complement & 0xFFFF else { throw fail("stored block length check failed") }
                guard p + 4 + length <= bits.data.count else { throw fail("truncated stored block") }
                guard out.count + length <= limit else { throw Failure(reason: "output over \(limit) bytes", tooLarge: true) }
                out.append(contentsOf: bits.data[(p + 4)..<(p + 4 + length)])
                bits.position = p + 4 + length
            case 1:
                try codes(&bits, fixed.0, fixed.1, into: &out, limit: limit)
            case 2:
                let (lengths, distances) = try dynamicCodes(&bits)
                try codes(&bits, lengths, distances, into: &out, limit: limit)
            default:
                throw fail("invalid block type")
            }
        } while !last
    }

    private static func dynamicCodes(_ bits: inout BitReader) throws(Failure) -> (Huffman, Huffman) {
        let literalCount = try bits.bits(5) + 257
        let distanceCount = try bits.bits(5) + 1
        let codeLengthCount = try bits.bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw fail("too many length or distance codes") }
        var codeLengths = [Int](repeating: 0, count: 19)
        for i in 0..<codeLengthCount { codeLengths[codeLengthOrder[i]] = try bits.bits(3) }
        let codeLengthCode = try Huffman(lengths: codeLengths)
        var lengths: [Int] = []
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try codeLengthCode.decode(&bits)
            switch symbol {
            case 0..<16: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw fail("repeat with no previous length") }
                lengths += [Int](repeating: previous, count: 3 + (try bits.bits(2)))
            case 17: lengths += [Int](repeating: 0, count: 3 + (try bits.bits(3)))
            default: lengths += [Int](repeating: 0, count: 11 + (try bits.bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw fail("too many code lengths") }
        guard lengths[256] != 0 else { throw fail("no end-of-block code") }
        return (try Huffman(lengths: Array(lengths[..<literalCount])), try Huffman(lengths: Array(lengths[literalCount...])))
    }

    private static func codes(_ bits: inout BitReader, _ literals: Huffman, _ distances: Huffman,
                              into out: inout [UInt8], limit: Int) throws(Failure) {
        while true {
            let symbol = try literals.decode(&bits)
            if symbol < 256 {
                guard out.count < limit else { throw Failure(reason: "output over \(limit) bytes", tooLarge: true) }
                out.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let index = symbol - 257
            guard index < lengthBase.count else { throw fail("invalid length code") }
            let length = lengthBase[index] + (try bits.bits(lengthExtra[index]))
            let d = try distances.decode(&bits)
            guard d < distanceBase.count else { throw fail("invalid distance code") }
            let distance = distanceBase[d] + (try bits.bits(distanceExtra[d]))
            guard distance <= out.count else { throw fail("distance too far back") }
            guard out.count + length <= limit else { throw Failure(reason: "output over \(limit) bytes", tooLarge: true) }
            // Byte by byte: a copy may overlap what it writes (a run).
            let from = out.count - distance
            for i in 0..<length { out.append(out[from + i]) }
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected), as gzip's trailer carries it.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
