/// One header field: lower-case name and value, as bytes turned into Strings.
public struct HTTP2Header: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): \(value)" }
}

/// Decodes HPACK header blocks (RFC 7541), keeping the dynamic table between blocks of
/// one connection.
///
/// Limits against header bombs: the decoded header list (RFC 9113 §6.5.2 size: name +
/// value + 32 per field) may not exceed `maxHeaderListSize`, no string may exceed it
/// either (so Huffman expansion is bounded), and the dynamic table never grows beyond the
/// size this side advertised (`SETTINGS_HEADER_TABLE_SIZE`).
struct HPACKDecoder: Sendable {
    private(set) var table: HPACKDynamicTable
    /// The largest table size the encoder may choose (our SETTINGS_HEADER_TABLE_SIZE).
    var maxTableSizeLimit: Int
    var maxHeaderListSize: Int
    /// The last `:path` sent as a literal without indexing, as it was encoded and decoded:
    /// nghttp2 (h2load, and the clients built on it) never indexes `:path`, so every request
    /// of a client calling one method carries the same Huffman-coded bytes, decoded again
    /// each time (~2,500 instructions and two allocations). Equal bytes are the same path.
    private var lastPath: (raw: [UInt8], value: [UInt8], header: HTTP2Header, maxLength: Int)?

    init(maxTableSize: Int = 4096, maxHeaderListSize: Int = 64 * 1024) {
        table = HPACKDynamicTable(maxSize: maxTableSize)
        maxTableSizeLimit = maxTableSize
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// Decodes one complete header block.
    ///
    /// When the list grows past `maxHeaderListSize` decoding still runs to the end (so the
    /// dynamic table stays in step with the peer's encoder) but drops the fields and
    /// throws `.headerListTooLarge` afterwards.
    mutating func decode(_ block: [UInt8]) throws(HPACKError) -> [HTTP2Header] {
        var headers: [HTTP2Header] = []
        var offset = 0
        let end = block.count
        var listSize = 0
        var tooLarge = false
        var sawField = false
        // A single string is bounded by the list limit; a block full of tiny strings is
        // bounded by the block size itself.
        let maxString = maxHeaderListSize
        while offset < end {
            let first = block[offset]
            var name: [UInt8]
            var value: [UInt8]
            if first & 0x80 != 0 {
                // §6.1 Indexed header field: the table's own Strings, nothing decoded again.
                let index = try HPACKPrimitives.decodeInteger(block, &offset, end: end, prefixBits: 7)
                let (header, octets) = try lookupHeader(index)
                sawField = true
                listSize += octets + 32
                if listSize > maxHeaderListSize { tooLarge = true }
                if !tooLarge { headers.append(header) }
                continue
            } else if first & 0xE0 == 0x20 {
                // §6.3 Dynamic table size update: only before the first field.
                guard !sawField else { throw .tableSizeUpdateNotAtStart }
                let newSize = try HPACKPrimitives.decodeInteger(block, &offset, end: end, prefixBits: 5)
                guard newSize <= maxTableSizeLimit else {
                    throw .tableSizeUpdateTooLarge(requested: newSize, allowed: maxTableSizeLimit)
                }
                table.setMaxSize(newSize)
                continue
            } else {
                // §6.2 Literal: with incremental indexing (01), without indexing (0000),
                // never indexed (0001).
                let incremental = first & 0xC0 == 0x40
                let prefixBits = incremental ? 6 : 4
                let index = try HPACKPrimitives.decodeInteger(block, &offset, end: end, prefixBits: prefixBits)
                if index == Self.pathIndex && !incremental {
                    let (header, octets) = try literalPath(block, &offset, end: end, maxLength: maxString)
                    sawField = true
                    listSize += octets + 32
                    if listSize > maxHeaderListSize { tooLarge = true }
                    if !tooLarge { headers.append(header) }
                    continue
                }
                if index == 0 {
                    name = try HPACKPrimitives.decodeString(block, &offset, end: end, maxLength: maxString)
                } else {
                    name = try lookup(index).name
                }
                value = try HPACKPrimitives.decodeString(block, &offset, end: end, maxLength: maxString)
                if incremental { table.add(name: name, value: value) }
            }
            sawField = true
            listSize += name.count + value.count + 32
            if listSize > maxHeaderListSize { tooLarge = true }
            if !tooLarge {
                headers.append(HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        if tooLarge { throw .headerListTooLarge(maxHeaderListSize) }
        return headers
    }

    /// The static table's `:path` (RFC 7541 Appendix A, index 4).
    static let pathIndex = 4

    /// A `:path` literal's value (not indexed): the last one's field when the bytes are the
    /// same, else decoded (and remembered). Returns the field and its octets as sent.
    private mutating func literalPath(_ block: [UInt8], _ offset: inout Int, end: Int, maxLength: Int) throws(HPACKError) -> (HTTP2Header, Int) {
        let start = offset
        if let last = lastPath, last.maxLength == maxLength, end - start >= last.raw.count,
           block[start..<(start + last.raw.count)].elementsEqual(last.raw) {
            // The same length prefix and bytes: the same string, ending where it did.
            var peek = start
            let length = try HPACKPrimitives.decodeInteger(block, &peek, end: end, prefixBits: 7)
            if peek + length - start == last.raw.count {
                offset = start + last.raw.count
                return (last.header, 5 + last.value.count)
            }
        }
        let value = try HPACKPrimitives.decodeString(block, &offset, end: end, maxLength: maxLength)
        let header = HTTP2Header(HPACKStaticTable.headers[Self.pathIndex - 1].name, String(decoding: value, as: UTF8.self))
        lastPath = (Array(block[start..<offset]), value, header, maxLength)
        return (header, 5 + value.count)
    }

    /// The field at `index` as Strings, and its name and value's length in octets as sent
    /// (what the list size counts; a String repairs invalid UTF-8, which changes its length).
    private func lookupHeader(_ index: Int) throws(HPACKError) -> (HTTP2Header, octets: Int) {
        if index >= 1 && index <= HPACKStaticTable.count {
            let e = HPACKStaticTable.entryBytes[index - 1]
            return (HPACKStaticTable.headers[index - 1], e.name.count + e.value.count)
        }
        guard index > HPACKStaticTable.count, let e = table.entry(index - HPACKStaticTable.count - 1),
              let h = table.header(index - HPACKStaticTable.count - 1) else {
            throw .invalidIndex(index)
        }
        return (h, e.name.count + e.value.count)
    }

    private func lookup(_ index: Int) throws(HPACKError) -> (name: [UInt8], value: [UInt8]) {
        if index >= 1 && index <= HPACKStaticTable.count {
            return HPACKStaticTable.entryBytes[index - 1]
        }
        guard index > HPACKStaticTable.count, let e = table.entry(index - HPACKStaticTable.count - 1) else {
            throw .invalidIndex(index)
        }
        return e
    }
}
