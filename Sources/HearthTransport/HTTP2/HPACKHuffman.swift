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
    ///
    /// Four bits a step through `Nibbles.table` (the tree walk of those bits done once at
    /// start-up): a bit at a time cost ~30 instructions, ~8,000 for the `:path` of a gRPC
    /// call, which h2load and nghttp2-based clients never index.
    static func decode<C: Collection>(_ bytes: C, maxLength: Int) throws(HPACKError) -> [UInt8] where C.Element == UInt8 {
        let table = Nibbles.table
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 8 / 5)
        var node = 0
        for byte in bytes {
            for half in 0..<2 {
                let nibble = half == 0 ? byte >> 4 : byte & 0x0F
                let step = table[node << 4 | Int(nibble)]
                if step & Nibbles.emits != 0 {
                    out.append(UInt8(truncatingIfNeeded: step >> 16))
                    if out.count > maxLength { throw .stringTooLong(maxLength) }
                }
                if step & Nibbles.eos != 0 { throw .invalidHuffman("EOS symbol inside a Huffman-coded string") }
                if step & Nibbles.invalid != 0 { throw .invalidHuffman("invalid Huffman code") }
                node = Int(step & 0xFFFF)
            }
        }
        // The bits since the last symbol are the path from the root to `node`.
        if Nibbles.depth[node] > 7 { throw .invalidHuffman("Huffman padding longer than 7 bits") }
        if !Nibbles.allOnes[node] { throw .invalidHuffman("Huffman padding is not a prefix of EOS") }
        return out
    }

    /// The tree walk of every 4-bit step from every inner node: 256 nodes × 16 entries,
    /// each the node reached (low 16 bits), the symbol completed on the way (bits 16–23;
    /// a code is at least 5 bits, so at most one a step) and flags.
    enum Nibbles {
        static let emits: UInt32 = 1 << 24
        static let eos: UInt32 = 1 << 25
        static let invalid: UInt32 = 1 << 26

        static let table: [UInt32] = {
            let tree = HPACKHuffmanTable.tree
            let nodes = tree.count / 2
            var table = [UInt32](repeating: 0, count: nodes * 16)
            for start in 0..<nodes {
                for nibble in 0..<16 {
                    var node = start
                    var step: UInt32 = 0
                    for shift in stride(from: 3, through: 0, by: -1) {
                        let next = tree[2 * node + ((nibble >> shift) & 1)]
                        if next & 0x8000 != 0 {
                            let symbol = Int(next & 0x7FFF)
                            if symbol == HPACKHuffmanTable.eos { step |= eos; break }
                            step |= emits | UInt32(symbol) << 16
                            node = 0
                        } else if next == 0 {
                            step |= invalid
                            break
                        } else {
                            node = Int(next)
                        }
                    }
                    table[start << 4 | nibble] = step | UInt32(node)
                }
            }
            return table
        }()

        /// Each node's distance from the root, and whether the path to it is all 1 bits
        /// (valid padding: at most 7 bits of EOS's prefix).
        static let (depth, allOnes): ([Int], [Bool]) = {
            let tree = HPACKHuffmanTable.tree
            var depth = [Int](repeating: 0, count: tree.count / 2)
            var ones = [Bool](repeating: false, count: tree.count / 2)
            ones[0] = true
            var queue = [0]
            while let node = queue.popLast() {
                for bit in 0...1 {
                    let next = tree[2 * node + bit]
                    guard next & 0x8000 == 0, next != 0 else { continue }
                    depth[Int(next)] = depth[node] + 1
                    ones[Int(next)] = ones[node] && bit == 1
                    queue.append(Int(next))
                }
            }
            return (depth, ones)
        }()
    }
}
