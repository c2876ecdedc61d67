import Foundation

/// The storage order of documents: by parent collection path, then by document ID (in the ID
/// order of docs/semantics.md#value-order), so each collection's documents are contiguous and
/// in `__name__` order.
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
/// The encoding is an `OrderedBytes`, whose first 32 bytes sit inline in the key: a B-tree
/// search compares words already in the node.
public struct DocumentKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let path: ResourcePath
    private let encoded: OrderedBytes
    /// How many leading bytes of the encoding are the collection's prefix (`prefix(of:)`).
    private let prefixLength: Int32

    var collectionPrefixLength: Int { Int(prefixLength) }
    var encodedLength: Int { encoded.count }

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
        self.encoded = OrderedBytes(encoded)
    }

    /// Appends the encoding's bytes in `range` to `out`: `..<collectionPrefixLength` is the
    /// collection's part, `collectionPrefixLength..<encodedLength` the ID's.
    func appendBytes(_ range: Range<Int>, to out: inout [UInt8]) {
        encoded.appendBytes(range, to: &out)
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
        OrderedBytes.appendEscaped(segment, to: &bytes)
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

    /// A bound key made of raw encoded bytes, for seeking (it names no document).
    static func bound(_ bytes: [UInt8]) -> DocumentKey {
        DocumentKey(path: .root, encoded: bytes, prefixLength: bytes.count)
    }

    /// Whether this key's bytes begin with `other`'s (a collection's `start(of:)` key
    /// prefixes exactly the keys of its documents).
    func hasPrefix(_ other: DocumentKey) -> Bool { encoded.hasPrefix(other.encoded) }

    public static func < (a: DocumentKey, b: DocumentKey) -> Bool { a.encoded < b.encoded }

    public static func == (a: DocumentKey, b: DocumentKey) -> Bool { a.encoded == b.encoded }

    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }
}
