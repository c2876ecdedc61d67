/// The HPACK Huffman code (RFC 7541 Appendix B).
///
/// Appendix B's code is canonical: codes are assigned in order of increasing bit length,
/// and among codes of the same length in order of symbol value. So the table is fully
/// given by each symbol's code length, listed here for symbols 0…255 and EOS (256); the
/// codes themselves (`0x1ff8`/13 for symbol 0, `0x3fffffff`/30 for EOS…) are derived at
/// start-up and checked against Appendix B values in the tests.
enum HPACKHuffmanTable {
    /// Bit length of each symbol's code, symbol 0…256 (256 is EOS).
    static let codeLengths: [UInt8] = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,  // 0–15
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,  // 16–31
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,  // 32–47  ' ' … '/'
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,  // 48–63  '0' … '?'
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,  // 64–79  '@' … 'O'
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,  // 80–95  'P' … '_'
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,  // 96–111 '`' … 'o'
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,  // 112–127 'p' … DEL
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,  // 128–143
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,  // 144–159
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,  // 160–175
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,  // 176–191
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,  // 192–207
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,  // 208–223
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,  // 224–239
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,  // 240–255
        30,  // 256 EOS
    ]

    /// The EOS symbol.
    static let eos = 256

    /// Each symbol's code, right-aligned in the low `codeLengths[s]` bits.
    static let codes: [UInt32] = {
        let order = (0...256).sorted { (codeLengths[$0], $0) < (codeLengths[$1], $1) }
        var codes = [UInt32](repeating: 0, count: 257)
        var code: UInt32 = 0
        var previousLength = codeLengths[order[0]]
        for (i, symbol) in order.enumerated() {
            let length = codeLengths[symbol]
            if i > 0 { code = (code + 1) << UInt32(length - previousLength) }
            previousLength = length
            codes[symbol] = code
        }
        return codes
    }()

    /// Decoding tree as a flat array: node `n` has children `tree[2n]` (bit 0) and
    /// `tree[2n+1]` (bit 1); a child value ≥ 0x8000 is a leaf holding `symbol | 0x8000`,
    /// 0 means no code (never reached for a complete code), anything else the next node.
    static let tree: [UInt16] = {
        var tree: [UInt16] = [0, 0]
        for symbol in 0...256 {
            let length = Int(codeLengths[symbol])
            let code = codes[symbol]
            var node = 0
            for bitIndex in stride(from: length - 1, through: 0, by: -1) {
                let bit = Int((code >> UInt32(bitIndex)) & 1)
                let slot = 2 * node + bit
                if bitIndex == 0 {
                    tree[slot] = UInt16(symbol) | 0x8000
                } else {
                    if tree[slot] == 0 {
                        tree[slot] = UInt16(tree.count / 2)
                        tree.append(contentsOf: [0, 0])
                    }
                    node = Int(tree[slot])
                }
            }
        }
        return tree
    }()
}
