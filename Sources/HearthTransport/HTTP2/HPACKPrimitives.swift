/// HPACK integer (RFC 7541 §5.1) and string literal (§5.2) representations.
enum HPACKPrimitives {
    /// Integers above this are rejected (no legitimate index or length needs more).
    static let maxInteger = 1 << 30

    /// Appends `value` with an N-bit prefix; `firstByteFlags` holds the bits above the prefix.
    static func encodeInteger(_ value: Int, prefixBits: Int, firstByteFlags: UInt8, into out: inout [UInt8]) {
        let limit = (1 << prefixBits) - 1
        if value < limit {
            out.append(firstByteFlags | UInt8(value))
            return
        }
        out.append(firstByteFlags | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    /// Reads an N-bit-prefix integer starting at `offset` (which it advances).
    static func decodeInteger(_ bytes: [UInt8], _ offset: inout Int, end: Int, prefixBits: Int) throws(HPACKError) -> Int {
        guard offset < end else { throw .truncated }
        let limit = (1 << prefixBits) - 1
        var value = Int(bytes[offset]) & limit
        offset += 1
        if value < limit { return value }
        var shift = 0
        while true {
            guard offset < end else { throw .truncated }
            let b = bytes[offset]
            offset += 1
            value += Int(b & 0x7F) << shift
            if value > maxInteger { throw .integerOverflow }
            if b & 0x80 == 0 { return value }
            shift += 7
            if shift > 28 { throw .integerOverflow }
        }
    }

    /// Appends a string literal, Huffman-coded when `huffman` is true and that is not longer
    /// (as the RFC 7541 Appendix C examples do).
    static func encodeString(_ s: [UInt8], huffman: Bool, into out: inout [UInt8]) {
        if huffman {
            let length = HPACKHuffman.encodedLength(s)
            if length <= s.count {
                encodeInteger(length, prefixBits: 7, firstByteFlags: 0x80, into: &out)
                HPACKHuffman.encode(s, into: &out)
                return
            }
        }
        encodeInteger(s.count, prefixBits: 7, firstByteFlags: 0, into: &out)
        out.append(contentsOf: s)
    }

    /// Reads a string literal; `maxLength` bounds both the raw and the decoded length.
    static func decodeString(_ bytes: [UInt8], _ offset: inout Int, end: Int, maxLength: Int) throws(HPACKError) -> [UInt8] {
        guard offset < end else { throw .truncated }
        let huffman = bytes[offset] & 0x80 != 0
        let length = try decodeInteger(bytes, &offset, end: end, prefixBits: 7)
        guard length <= end - offset else { throw .truncated }
        let raw = bytes[offset..<(offset + length)]
        offset += length
        if huffman { return try HPACKHuffman.decode(raw, maxLength: maxLength) }
        guard length <= maxLength else { throw .stringTooLong(maxLength) }
        return Array(raw)
    }
}
