import Foundation

/// The storage order of documents: by parent collection path, then by document ID (§2 ID
/// order), so each collection's documents are contiguous and in `__name__` order.
///
/// The key carries an order-preserving byte encoding of that order, so the B-tree compares
/// keys as bytes instead of segment-by-segment string work:
/// each segment is `0x01` + the 8-byte big-endian biased value for a numeric ID
/// (`__id<int64>__`, which sorts first), or `0x02` + its UTF-8 bytes with `0x00` escaped as
/// `0x00 0xFF` + the terminator `0x00 0x01`; a `0x00` separates the collection path from
/// the document ID (so a shorter collection path sorts first). Because the separator
/// directly follows the collection's segments, the keys of one collection's documents are
/// exactly those starting with `prefix(of:)` — deeper collections never interleave.
///
/// The first 32 encoded bytes are kept inline as four big-endian words and only the rest
/// in a buffer: a B-tree node holds its keys in one array, so a binary search compares
/// words already in the node instead of following each probed key to its bytes, and most
/// keys (`users/<auto-ID>` is 32 bytes) need no buffer at all.
public struct DocumentKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let path: ResourcePath
    /// The encoding's bytes 0..<32, big-endian, zero-padded.
    private let head: (UInt64, UInt64, UInt64, UInt64)
    /// The encoding's bytes from 32 on (empty for most keys: no allocation).
    private let tail: [UInt8]
    /// The encoding's length.
    private let length: Int32
    /// How many leading bytes of the encoding are the collection's prefix (`prefix(of:)`).
    private let prefixLength: Int32

    var collectionPrefixLength: Int { Int(prefixLength) }
    var encodedLength: Int { Int(length) }

    /// `path` must be a document path.
    public init(_ path: ResourcePath) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.segments.reduce(4) { $0 + $1.utf8.count + 3 })
        var prefixLength = 0
        let last = path.segments.count - 1
        for i in path.segments.indices {
            if i == last {
                bytes.append(0x00)
                prefixLength = bytes.count
            }
            Self.encode(path.segments[i], into: &bytes)
        }
        self.init(path: path, encoded: bytes, prefixLength: prefixLength)
    }

    private init(path: ResourcePath, encoded: [UInt8], prefixLength: Int) {
        self.path = path
        self.prefixLength = Int32(prefixLength)
        length = Int32(encoded.count)
        head = encoded.withUnsafeBufferPointer { b in
            (bigEndianWord(b, at: 0), bigEndianWord(b, at: 8), bigEndianWord(b, at: 16), bigEndianWord(b, at: 24))
        }
        tail = encoded.count > 32 ? Array(encoded[32...]) : []
    }

    @inline(__always)
    private func headWord(_ i: Int) -> UInt64 {
        switch i {
        case 0: head.0
        case 1: head.1
        case 2: head.2
        default: head.3
        }
    }

    /// Appends the encoding's bytes in `range` to `out`: `..<collectionPrefixLength` is the
    /// collection's part, `collectionPrefixLength..<encodedLength` the ID's.
    func appendBytes(_ range: Range<Int>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + range.count)
        if range.lowerBound < 32 {
            let words = (head.0.bigEndian, head.1.bigEndian, head.2.bigEndian, head.3.bigEndian)
            withUnsafeBytes(of: words) { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[range.lowerBound..<min(range.upperBound, 32)])) }
        }
        if range.upperBound > 32 { out.append(contentsOf: tail[(max(range.lowerBound, 32) - 32)..<(range.upperBound - 32)]) }
    }

    public var collection: ResourcePath { path.parent }
    public var id: String { path.lastSegment }
    public var description: String { path.description }

    static func encode(_ segment: String, into bytes: inout [UInt8]) {
        if let n = ResourcePath.numericID(segment) {
            bytes.append(0x01)
            let biased = UInt64(bitPattern: n) ^ 0x8000_0000_0000_0000
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: biased >> UInt64(shift))) }
            return
        }
        bytes.append(0x02)
        var segment = segment
        segment.withUTF8 { utf8 in
            if !utf8.contains(0) {
                bytes.append(contentsOf: utf8)
            } else {
                for b in utf8 {
                    bytes.append(b)
                    if b == 0 { bytes.append(0xFF) }
                }
            }
        }
        bytes.append(0x00)
        bytes.append(0x01)
    }

    /// The encoded prefix shared by every document directly in `collection`; it sorts
    /// before all of them.
    static func prefix(of collection: ResourcePath) -> [UInt8] {
        var bytes: [UInt8] = []
        for segment in collection.segments { encode(segment, into: &bytes) }
        bytes.append(0x00)
        return bytes
    }

    /// A bound key that sorts just before the first document of `collection`.
    public static func start(of collection: ResourcePath) -> DocumentKey {
        let bytes = prefix(of: collection)
        return DocumentKey(path: collection, encoded: bytes, prefixLength: bytes.count)
    }

    /// Whether this key's bytes begin with `other`'s (a collection's `start(of:)` key
    /// prefixes exactly the keys of its documents).
    func hasPrefix(_ other: DocumentKey) -> Bool {
        let n = Int(other.length)
        guard length >= other.length else { return false }
        // Whole words of the prefix, then its last partial word (the other's padding is zero).
        for w in 0..<4 {
            let bits = min(max(n - 8 * w, 0), 8) * 8
            if bits == 0 { break }
            let mask: UInt64 = bits == 64 ? ~0 : ~(~0 >> UInt64(bits))
            if headWord(w) & mask != other.headWord(w) { return false }
        }
        return n <= 32 || tail.starts(with: other.tail)
    }

    /// Byte-wise three-way comparison: the inline heads first, the buffers only past them.
    @inline(__always)
    private static func compare(_ a: DocumentKey, _ b: DocumentKey) -> Int {
        if a.head.0 != b.head.0 { return a.head.0 < b.head.0 ? -1 : 1 }
        if a.head.1 != b.head.1 { return a.head.1 < b.head.1 ? -1 : 1 }
        if a.head.2 != b.head.2 { return a.head.2 < b.head.2 ? -1 : 1 }
        if a.head.3 != b.head.3 { return a.head.3 < b.head.3 ? -1 : 1 }
        // Equal heads: when both keys fit in them, zero padding made the shorter one a
        // prefix of the longer; otherwise compare the rest.
        if a.length > 32 && b.length > 32 {
            let c = a.tail.withUnsafeBufferPointer { pa in
                b.tail.withUnsafeBufferPointer { pb in
                    memcmp(pa.baseAddress!, pb.baseAddress!, Int(min(a.length, b.length)) - 32)
                }
            }
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return a.length == b.length ? 0 : (a.length < b.length ? -1 : 1)
    }

    public static func < (a: DocumentKey, b: DocumentKey) -> Bool { compare(a, b) < 0 }

    public static func == (a: DocumentKey, b: DocumentKey) -> Bool {
        a.head == b.head && a.length == b.length && (a.length <= 32 || a.tail == b.tail)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(head.0)
        hasher.combine(head.1)
        hasher.combine(head.2)
        hasher.combine(head.3)
        hasher.combine(length)
        if length > 32 { tail.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
