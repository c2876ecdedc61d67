import Foundation

/// A byte string ordered as `memcmp` orders bytes (a proper prefix sorts first): the sort key
/// of the engine's persistent sorted maps — documents (`DocumentKey`) and index entries
/// (`IndexKey`).
///
/// The first 32 bytes are kept inline as four big-endian words and only the rest in a
/// buffer. A B-tree node holds its keys in one array, so a binary search compares words
/// already in the node instead of following each probed key to its bytes, and most keys
/// need no buffer at all (`users/<auto-ID>` is 32 bytes; an index entry of a collection is
/// its collection's path, the indexed values and a document ID).
struct OrderedBytes: Sendable, Hashable, Comparable {
    /// Bytes 0..<32, big-endian, zero-padded.
    private let head: (UInt64, UInt64, UInt64, UInt64)
    /// Bytes from 32 on (empty for most keys: no allocation).
    private let tail: [UInt8]
    private let length: Int32

    init(_ bytes: [UInt8]) {
        length = Int32(bytes.count)
        head = bytes.withUnsafeBufferPointer { b in
            (bigEndianWord(b, at: 0), bigEndianWord(b, at: 8), bigEndianWord(b, at: 16), bigEndianWord(b, at: 24))
        }
        tail = bytes.count > 32 ? Array(bytes[32...]) : []
    }

    var count: Int { Int(length) }

    @inline(__always)
    private func word(_ i: Int) -> UInt64 {
        switch i {
        case 0: head.0
        case 1: head.1
        case 2: head.2
        default: head.3
        }
    }

    /// Appends the bytes in `range` to `out`.
    func appendBytes(_ range: Range<Int>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + range.count)
        if range.lowerBound < 32 {
            let words = (head.0.bigEndian, head.1.bigEndian, head.2.bigEndian, head.3.bigEndian)
            withUnsafeBytes(of: words) { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[range.lowerBound..<min(range.upperBound, 32)])) }
        }
        if range.upperBound > 32 { out.append(contentsOf: tail[(max(range.lowerBound, 32) - 32)..<(range.upperBound - 32)]) }
    }

    /// The bytes, for tests and diagnostics.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        appendBytes(0..<count, to: &out)
        return out
    }

    /// Three-way comparison: the inline heads first, the buffers only past them.
    @inline(__always)
    static func compare(_ a: OrderedBytes, _ b: OrderedBytes) -> Int {
        if a.head.0 != b.head.0 { return a.head.0 < b.head.0 ? -1 : 1 }
        if a.head.1 != b.head.1 { return a.head.1 < b.head.1 ? -1 : 1 }
        if a.head.2 != b.head.2 { return a.head.2 < b.head.2 ? -1 : 1 }
        if a.head.3 != b.head.3 { return a.head.3 < b.head.3 ? -1 : 1 }
        // Equal heads: when both fit in them, zero padding made the shorter one a prefix of
        // the longer; otherwise compare the rest.
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

    /// Three-way comparison of plain byte arrays in the same order (scan bounds).
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                let n = min(pa.count, pb.count)
                let c = n == 0 ? 0 : memcmp(pa.baseAddress!, pb.baseAddress!, n)
                if c != 0 { return c < 0 ? -1 : 1 }
                return pa.count == pb.count ? 0 : (pa.count < pb.count ? -1 : 1)
            }
        }
    }

    static func < (a: OrderedBytes, b: OrderedBytes) -> Bool { compare(a, b) < 0 }

    static func == (a: OrderedBytes, b: OrderedBytes) -> Bool {
        a.head == b.head && a.length == b.length && (a.length <= 32 || a.tail == b.tail)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(head.0)
        hasher.combine(head.1)
        hasher.combine(head.2)
        hasher.combine(head.3)
        hasher.combine(length)
        if length > 32 { tail.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    /// Whether the first `n` bytes of `self` and `other` compare as `-1`, `0` or `1`
    /// (`n` at most both lengths). Decided in the heads when `n` fits them.
    @inline(__always)
    private func compareLeading(_ n: Int, with other: OrderedBytes) -> Int {
        for i in 0..<4 {
            let covered = n - 8 * i
            if covered <= 0 { return 0 }
            // The word's leading `covered` bytes.
            let mask: UInt64 = covered >= 8 ? ~0 : ~(~0 >> UInt64(8 * covered))
            let x = word(i) & mask, y = other.word(i) & mask
            if x != y { return x < y ? -1 : 1 }
        }
        if n <= 32 { return 0 }
        let c = tail.withUnsafeBufferPointer { p in
            other.tail.withUnsafeBufferPointer { q in memcmp(p.baseAddress!, q.baseAddress!, n - 32) }
        }
        return c == 0 ? 0 : (c < 0 ? -1 : 1)
    }

    /// Whether the bytes begin with `prefix`'s.
    func hasPrefix(_ prefix: OrderedBytes) -> Bool {
        length >= prefix.length && compareLeading(prefix.count, with: prefix) == 0
    }

    /// True when the leading bytes (as many as `bound` has) sort after `bound`: a scan
    /// bounded by `bound` has passed it.
    func sortsAfter(_ bound: OrderedBytes) -> Bool {
        compareLeading(Int(min(length, bound.length)), with: bound) > 0
    }
}

extension OrderedBytes {
    /// Appends `bytes` so that the order of byte strings is kept and no result is a prefix of
    /// another: `0x00` escaped as `0x00 0xFF`, then the terminator `0x00 0x01` (which sorts
    /// before any continuation). How strings and bytes appear in document and index keys.
    static func appendEscaped<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8]) {
        for b in bytes {
            out.append(b)
            if b == 0 { out.append(0xFF) }
        }
        out.append(0x00)
        out.append(0x01)
    }

    /// A string's UTF-8 bytes, escaped: copied whole when they hold no `0x00` (almost always).
    static func appendEscaped(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            if utf8.contains(0) {
                appendEscaped(utf8, to: &out)
            } else {
                out.append(contentsOf: utf8)
                out.append(0x00)
                out.append(0x01)
            }
        }
    }
}
