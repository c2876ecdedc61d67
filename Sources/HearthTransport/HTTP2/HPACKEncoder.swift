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
    // A change of how fields are encoded forgets the reused blocks.
    var useHuffman: Bool { didSet { reused = [] } }
    var useIndexing: Bool { didSet { reused = [] } }
    var sensitiveNames: Set<String> = [] { didSet { reused = [] } }
    /// Size updates owed to the peer, announced at the start of the next block.
    private var pendingSizeUpdates: [Int] = []
    /// Blocks encoded without changing the table, kept while the table stays as it was: a
    /// server answers with the same few header lists (a gRPC call's response headers and
    /// `grpc-status: 0`), and once their fields are in the table, encoding one again gives
    /// the same bytes. Reusing them saves the table lookups (~2,500 instructions a field,
    /// ~12,000 a gRPC call) and the block's allocation. At most `reusedCapacity` lists.
    private var reused: [(headers: [HTTP2Header], block: [UInt8], version: Int)] = []
    private var nextReused = 0
    static let reusedCapacity = 4

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
        // A list encoded before with the table as it is now: the same bytes. (Comparing a
        // list with itself — the shared arrays a server answers with — is an identity check.)
        let version = table.version
        if pendingSizeUpdates.isEmpty {
            for r in reused where r.version == version && r.headers == headers { return r.block }
        }
        var out: [UInt8] = []
        for size in pendingSizeUpdates {
            HPACKPrimitives.encodeInteger(size, prefixBits: 5, firstByteFlags: 0x20, into: &out)
        }
        pendingSizeUpdates = []
        for h in headers { encode(h, into: &out) }
        if table.version == version {
            // Nothing was added: the next block of these fields is these bytes, until the
            // table changes.
            if reused.count < Self.reusedCapacity {
                reused.append((headers, out, version))
            } else {
                reused[nextReused] = (headers, out, version)
                nextReused = (nextReused + 1) % Self.reusedCapacity
            }
        }
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
