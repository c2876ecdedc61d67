import Foundation

/// A byte string ordered as `memcmp` orders bytes (a proper prefix sorts first): the sort key
/// of every persistent sorted map in the engine — documents (`DocumentKey`) and index entries
/// (`IndexKey`).
///
/// The first 32 bytes are also kept inline as four big-endian words, with the length: a
/// B-tree node holds its keys in one array, so a binary search compares words already in the
/// node instead of following each probed key to its byte buffer. Most keys are decided
/// within 32 bytes (`users/<auto-ID>`; a collection prefix, an indexed value and the start
/// of a document ID).
struct OrderedBytes: Sendable, Hashable, Comparable {
    let bytes: [UInt8]
    /// `bytes[0..<32]`, big-endian, zero-padded.
    private let head: (UInt64, UInt64, UInt64, UInt64)
    /// `bytes.count`, kept inline with the head.
    private let length: Int32

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        length = Int32(bytes.count)
        head = bytes.withUnsafeBufferPointer { b in
            (bigEndianWord(b, at: 0), bigEndianWord(b, at: 8), bigEndianWord(b, at: 16), bigEndianWord(b, at: 24))
        }
    }

    var count: Int { Int(length) }

    /// Three-way comparison: the inline heads first, the buffers only past them.
    @inline(__always)
    static func compare(_ a: OrderedBytes, _ b: OrderedBytes) -> Int {
        if a.head.0 != b.head.0 { return a.head.0 < b.head.0 ? -1 : 1 }
        if a.head.1 != b.head.1 { return a.head.1 < b.head.1 ? -1 : 1 }
        if a.head.2 != b.head.2 { return a.head.2 < b.head.2 ? -1 : 1 }
        if a.head.3 != b.head.3 { return a.head.3 < b.head.3 ? -1 : 1 }
        // Equal heads: when both keys fit in them, zero padding made the shorter one a
        // prefix of the longer; otherwise compare the rest.
        if a.length > 32 && b.length > 32 {
            let c = a.bytes.withUnsafeBufferPointer { pa in
                b.bytes.withUnsafeBufferPointer { pb in
                    memcmp(pa.baseAddress! + 32, pb.baseAddress! + 32, Int(min(a.length, b.length)) - 32)
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
        a.head == b.head && a.length == b.length && (a.length <= 32 || a.bytes == b.bytes)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(head.0)
        hasher.combine(head.1)
        hasher.combine(head.2)
        hasher.combine(head.3)
        hasher.combine(length)
        if length > 32 { bytes[32...].withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    /// True when the bytes begin with `prefix`.
    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        count >= prefix.count && bytes.withUnsafeBufferPointer { p in
            prefix.withUnsafeBufferPointer { q in q.count == 0 || memcmp(p.baseAddress!, q.baseAddress!, q.count) == 0 }
        }
    }

    /// True when the leading bytes (as many as `bound` has) sort after `bound`: a scan
    /// bounded by `bound` has passed it. Decided in the heads when the shorter key fits them.
    func sortsAfter(_ bound: OrderedBytes) -> Bool {
        let n = Int(min(length, bound.length))
        if n == 0 { return false }
        if n <= 32 {
            for i in 0..<4 {
                let covered = n - 8 * i
                if covered <= 0 { return false }
                // The word's leading `covered` bytes.
                let mask: UInt64 = covered >= 8 ? ~0 : ~(~0 >> UInt64(8 * covered))
                let x = word(i) & mask, y = bound.word(i) & mask
                if x != y { return x > y }
            }
            return false
        }
        return bytes.withUnsafeBufferPointer { p in
            bound.bytes.withUnsafeBufferPointer { q in memcmp(p.baseAddress!, q.baseAddress!, n) > 0 }
        }
    }

    @inline(__always)
    private func word(_ i: Int) -> UInt64 {
        switch i {
        case 0: head.0
        case 1: head.1
        case 2: head.2
        default: head.3
        }
    }
}
