/// Huffman encoding and decoding of HPACK string literals (RFC 7541 §5.2, Appendix B).
enum HPACKHuffman {
    /// The encoded length in bytes of `bytes`.
    static func encodedLength<C: Sequence>(_ bytes: C) -> Int where C.Element == UInt8 {
        var bits = 0
        for b in bytes { bits += Int(HPACKHuffmanTable.codeLengths[Int(b)]) }
        return (bits + 7) / 8
    }

    /// Encodes `bytes`, padding the last octet with the most significant bits of EOS (1s).
    static func encode<C: Sequence>(_ bytes: C, into out: inout [UInt8]) where C.Element == UInt8 {
        var accumulator: UInt64 = 0
        var pending = 0
        for b in bytes {
            let length = Int(HPACKHuffmanTable.codeLengths[Int(b)])
            accumulator = (accumulator << UInt64(length)) | UInt64(HPACKHuffmanTable.codes[Int(b)])
            pending += length
            while pending >= 8 {
                pending -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt64(pending)))
            }
        }
        if pending > 0 {
            let padding = 8 - pending
            out.append(UInt8(truncatingIfNeeded: (accumulator << UInt64(padding)) | ((1 << UInt64(padding)) - 1)))
        }
    }

    /// Decodes a Huffman-coded string literal. Rejects (RFC 7541 §5.2) an EOS symbol in
    /// the data, padding longer than 7 bits, and padding that is not the prefix of EOS.
    static func decode<C: Collection>(_ bytes: C, maxLength: Int) throws(HPACKError) -> [UInt8] where C.Element == UInt8 {
        let tree = HPACKHuffmanTable.tree
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 8 / 5)
        var node = 0
        var bitsSinceSymbol = 0
        var allOnesSinceSymbol = true
        for byte in bytes {
            for shift in stride(from: 7, through: 0, by: -1) {
                let bit = Int((byte >> UInt8(shift)) & 1)
                let next = tree[2 * node + bit]
                bitsSinceSymbol += 1
                if bit == 0 { allOnesSinceSymbol = false }
                if next & 0x8000 != 0 {
                    let symbol = Int(next & 0x7FFF)
                    if symbol == HPACKHuffmanTable.eos { throw .invalidHuffman("EOS symbol inside a Huffman-coded string") }
                    out.append(UInt8(symbol))
                    if out.count > maxLength { throw .stringTooLong(maxLength) }
                    node = 0
                    bitsSinceSymbol = 0
                    allOnesSinceSymbol = true
                } else if next == 0 {
                    throw .invalidHuffman("invalid Huffman code")
                } else {
                    node = Int(next)
                }
            }
        }
        if bitsSinceSymbol > 7 { throw .invalidHuffman("Huffman padding longer than 7 bits") }
        if !allOnesSinceSymbol { throw .invalidHuffman("Huffman padding is not a prefix of EOS") }
        return out
    }
}
