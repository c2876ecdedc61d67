import Foundation

/// The storage order of documents: by parent collection path, then by document ID (§2 ID
/// order), so each collection's documents are contiguous and in `__name__` order.
///
/// The key carries an order-preserving byte encoding of that order, so the B-tree compares
/// keys with one `memcmp` instead of segment-by-segment string work:
/// each segment is `0x01` + the 8-byte big-endian biased value for a numeric ID
/// (`__id<int64>__`, which sorts first), or `0x02` + its UTF-8 bytes with `0x00` escaped as
/// `0x00 0xFF` + the terminator `0x00 0x01`; a `0x00` separates the collection path from
/// the document ID (so a shorter collection path sorts first). Because the separator
/// directly follows the collection's segments, the keys of one collection's documents are
/// exactly those starting with `prefix(of:)` — deeper collections never interleave.
public struct DocumentKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let path: ResourcePath
    let encoded: [UInt8]
    /// How many leading bytes of `encoded` are the collection's prefix (`prefix(of:)`).
    let collectionPrefixLength: Int

    /// `path` must be a document path.
    public init(_ path: ResourcePath) {
        self.path = path
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.segments.reduce(4) { $0 + $1.utf8.count + 3 })
        var prefixLength = 0
        for (i, segment) in path.segments.enumerated() {
            if i == path.segments.count - 1 {
                bytes.append(0x00)
                prefixLength = bytes.count
            }
            Self.encode(segment, into: &bytes)
        }
        encoded = bytes
        collectionPrefixLength = prefixLength
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
        for b in segment.utf8 {
            bytes.append(b)
            if b == 0 { bytes.append(0xFF) }
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
        DocumentKey(path: collection, encoded: prefix(of: collection))
    }

    private init(path: ResourcePath, encoded: [UInt8]) {
        self.path = path
        self.encoded = encoded
        collectionPrefixLength = encoded.count
    }

    public static func < (a: DocumentKey, b: DocumentKey) -> Bool {
        a.encoded.withUnsafeBufferPointer { pa in
            b.encoded.withUnsafeBufferPointer { pb in
                let n = min(pa.count, pb.count)
                let c = n == 0 ? 0 : memcmp(pa.baseAddress!, pb.baseAddress!, n)
                return c != 0 ? c < 0 : pa.count < pb.count
            }
        }
    }

    public static func == (a: DocumentKey, b: DocumentKey) -> Bool { a.encoded == b.encoded }

    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }
}
