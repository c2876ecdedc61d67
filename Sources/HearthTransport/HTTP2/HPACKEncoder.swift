/// Encodes header lists with HPACK (RFC 7541), keeping its dynamic table in step with
/// the peer's decoder.
///
/// Fields found whole in the static or dynamic table are sent indexed; others as
/// literals "with incremental indexing" (or "without indexing" when `useIndexing` is
/// false, or "never indexed" for names in `sensitiveNames`), strings Huffman-coded when
/// that is shorter and `useHuffman` is set. A change of the peer's
/// `SETTINGS_HEADER_TABLE_SIZE` is announced by a size update at the start of the next
/// block (§4.2).
struct HPACKEncoder: Sendable {
    private(set) var table: HPACKDynamicTable
    var useHuffman: Bool
    var useIndexing: Bool
    var sensitiveNames: Set<String> = []
    /// Size updates owed to the peer, announced at the start of the next block.
    private var pendingSizeUpdates: [Int] = []

    init(maxTableSize: Int = 4096, useHuffman: Bool = true, useIndexing: Bool = true) {
        table = HPACKDynamicTable(maxSize: maxTableSize)
        self.useHuffman = useHuffman
        self.useIndexing = useIndexing
    }

    /// Applies the peer's new SETTINGS_HEADER_TABLE_SIZE.
    mutating func setMaxTableSize(_ size: Int) {
        guard size != table.maxSize || !pendingSizeUpdates.isEmpty else { return }
        // If the size shrinks and grows again before the next block, the minimum must be
        // announced first (§4.2).
        if let smallest = pendingSizeUpdates.min(), smallest < size {
            pendingSizeUpdates = [smallest, size]
        } else {
            pendingSizeUpdates = [size]
        }
        table.setMaxSize(size)
    }

    mutating func encode(_ headers: [HTTP2Header]) -> [UInt8] {
        var out: [UInt8] = []
        for size in pendingSizeUpdates {
            HPACKPrimitives.encodeInteger(size, prefixBits: 5, firstByteFlags: 0x20, into: &out)
        }
        pendingSizeUpdates = []
        for h in headers { encode(h, into: &out) }
        return out
    }

    private mutating func encode(_ h: HTTP2Header, into out: inout [UInt8]) {
        // The name and value are copied to arrays only for a literal: a field found in a
        // table (most of a gRPC call's headers and trailers) costs no allocation.
        let sensitive = !sensitiveNames.isEmpty && sensitiveNames.contains(h.name)
        if !sensitive, let i = HPACKStaticTable.fullIndex[h.name]?[h.value] {
            HPACKPrimitives.encodeInteger(i, prefixBits: 7, firstByteFlags: 0x80, into: &out)
            return
        }
        let dynamic = table.find(name: h.name.utf8, value: h.value.utf8)
        if !sensitive, let i = dynamic.full {
            HPACKPrimitives.encodeInteger(i + HPACKStaticTable.count + 1, prefixBits: 7, firstByteFlags: 0x80, into: &out)
            return
        }
        let name = Array(h.name.utf8)
        let value = Array(h.value.utf8)
        let nameIndex = HPACKStaticTable.nameIndex[h.name] ?? dynamic.nameOnly.map { $0 + HPACKStaticTable.count + 1 } ?? 0
        let index = useIndexing && !sensitive
        if index {
            HPACKPrimitives.encodeInteger(nameIndex, prefixBits: 6, firstByteFlags: 0x40, into: &out)
        } else {
            HPACKPrimitives.encodeInteger(nameIndex, prefixBits: 4, firstByteFlags: sensitive ? 0x10 : 0x00, into: &out)
        }
        if nameIndex == 0 { HPACKPrimitives.encodeString(name, huffman: useHuffman, into: &out) }
        HPACKPrimitives.encodeString(value, huffman: useHuffman, into: &out)
        if index { table.add(name: name, value: value, header: h) }
    }
}
