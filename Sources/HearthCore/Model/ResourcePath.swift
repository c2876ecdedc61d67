import Foundation

/// A `/`-separated path of collection IDs and document IDs relative to the database root
/// (`users/alice/posts/p1`). Collection paths have an odd number of segments, document paths
/// an even number (docs/semantics.md#paths-and-ids).
public struct ResourcePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var segments: [String]

    public init(segments: [String]) { self.segments = segments }

    public static let root = ResourcePath(segments: [])

    /// Splits on `/`, ignoring one leading and trailing slash as the SDK's parser does;
    /// an empty segment in the middle (`a//b`) is an error.
    public static func parse(_ path: String) throws(FirestoreError) -> ResourcePath {
        var parts = slashSeparated(path)
        if parts.first == "" { parts.removeFirst() }
        if parts.last == "" { parts.removeLast() }
        if parts.contains("") {
            throw .invalidArgument("Invalid path (\(path)). Paths must not contain // in them.")
        }
        return ResourcePath(segments: parts)
    }

    /// `text` cut at every `/`, empty parts kept (`"a//b"` → `["a", "", "b"]`). The UTF-8
    /// bytes are scanned, not Characters: `/` is one byte that occurs inside no other
    /// character's encoding, and a grapheme-aware `split` costs ten times as much on every
    /// resource name a request carries. (A `/` followed by a combining mark is a cut here,
    /// as in production, where names are bytes.)
    public static func slashSeparated(_ text: String) -> [String] {
        var text = text
        return text.withUTF8 { utf8 in
            var parts: [String] = []
            var start = 0
            for i in utf8.indices where utf8[i] == 0x2F {
                parts.append(String(decoding: UnsafeBufferPointer(rebasing: utf8[start..<i]), as: UTF8.self))
                start = i + 1
            }
            parts.append(String(decoding: UnsafeBufferPointer(rebasing: utf8[start...]), as: UTF8.self))
            return parts
        }
    }

    public var isEmpty: Bool { segments.isEmpty }
    public var count: Int { segments.count }
    public var isDocument: Bool { !segments.isEmpty && segments.count % 2 == 0 }
    public var isCollection: Bool { segments.count % 2 == 1 }
    public var lastSegment: String { segments.last ?? "" }

    public var parent: ResourcePath { ResourcePath(segments: Array(segments.dropLast())) }

    public func appending(_ segment: String) -> ResourcePath {
        ResourcePath(segments: segments + [segment])
    }

    public func appending(_ other: ResourcePath) -> ResourcePath {
        ResourcePath(segments: segments + other.segments)
    }

    public func isPrefix(of other: ResourcePath) -> Bool {
        guard segments.count <= other.segments.count else { return false }
        for i in segments.indices where !utf8Equal(segments[i], other.segments[i]) { return false }
        return true
    }

    public var description: String { segments.joined(separator: "/") }

    /// Segment-wise order with Firestore's document-ID order per segment; a prefix sorts first.
    public static func < (a: ResourcePath, b: ResourcePath) -> Bool {
        compare(a, b) < 0
    }

    public static func == (a: ResourcePath, b: ResourcePath) -> Bool { utf8Equal(a.segments, b.segments) }

    public func hash(into hasher: inout Hasher) { hashUTF8(segments, into: &hasher) }

    public static func compare(_ a: ResourcePath, _ b: ResourcePath) -> Int {
        let n = min(a.segments.count, b.segments.count)
        for i in 0..<n {
            let c = compareSegments(a.segments[i], b.segments[i])
            if c != 0 { return c }
        }
        return a.segments.count == b.segments.count ? 0 : (a.segments.count < b.segments.count ? -1 : 1)
    }

    /// Document-ID order (docs/semantics.md#value-order): numeric IDs `__id<int64>__` first by value, then the
    /// rest by UTF-8 bytes.
    public static func compareSegments(_ a: String, _ b: String) -> Int {
        let na = numericID(a), nb = numericID(b)
        switch (na, nb) {
        case let (x?, y?): return x == y ? 0 : (x < y ? -1 : 1)
        case (_?, nil): return -1
        case (nil, _?): return 1
        case (nil, nil): return compareUTF8(a, b)
        }
    }

    /// The value of a `__id<int64>__` segment, or nil.
    public static func numericID(_ s: String) -> Int64? {
        let u = s.utf8
        guard u.count > 6, u.starts(with: "__id".utf8), u.reversed().starts(with: "__".utf8) else { return nil }
        let body = s.dropFirst(4).dropLast(2)
        guard let first = body.utf8.first, first == UInt8(ascii: "-") || (first >= 48 && first <= 57),
              let v = Int64(body) else { return nil }
        // Reject non-canonical spellings (`__id007__`, `__id-0__`) so each number has one ID.
        return String(v) == body ? v : nil
    }

    // MARK: Validation (server rules, docs/semantics.md#paths-and-ids)

    /// Checks every segment as a collection ID or document ID, as the server does on write.
    public func validateSegments() throws(FirestoreError) {
        for (i, s) in segments.enumerated() { try Self.validateID(s, collection: i % 2 == 0) }
    }

    /// Checked on every write's path, so on the UTF-8 bytes: no `String` comparisons. The
    /// texts are the official emulator's, which name a collection id and a document id
    /// ("resource id") apart.
    public static func validateID(_ id: String, collection: Bool = false) throws(FirestoreError) {
        enum Problem { case none, empty, tooLong, slash, reserved, maybeReserved }
        var id = id
        let problem = id.withUTF8 { b -> Problem in
            let n = b.count
            if n == 0 { return .empty }
            if n > 1500 { return .tooLong }
            if b.contains(UInt8(ascii: "/")) { return .slash }
            let dot = UInt8(ascii: "."), underscore = UInt8(ascii: "_")
            if b[0] == dot && (n == 1 || (n == 2 && b[1] == dot)) { return .reserved }
            if n >= 4 && b[0] == underscore && b[1] == underscore && b[n - 2] == underscore && b[n - 1] == underscore {
                return .maybeReserved
            }
            return .none
        }
        let what = collection ? "Collection id" : "Resource id"
        switch problem {
        case .none: return
        case .empty: throw .invalidArgument("\(what) must not be empty.")
        case .tooLong:
            // The emulator's (Datastore's) words: a collection id is a key's "kind", a
            // document id its "name".
            throw .invalidArgument("The key path element \(collection ? "kind" : "name") is longer than 1500 bytes.")
        case .slash: throw .invalidArgument("\(what) \"\(id)\" is invalid because it contains \"/\".")
        case .reserved: throw .invalidArgument("\(what) \"\(id)\" is invalid because it is reserved.")
        case .maybeReserved:
            if numericID(id) == nil { throw .invalidArgument("\(what) \"\(id)\" is invalid because it is reserved.") }
        }
    }

    static func truncatedForMessage(_ s: String) -> String {
        s.utf8.count <= 64 ? s : String(s.prefix(60)) + "…"
    }
}

/// Byte-wise equality of UTF-8 strings. Swift's `==` compares by canonical equivalence
/// ("é" == "e\u{301}"), which is not Firestore's equality.
@inline(__always)
/// Segment lists (paths, field paths) equal segment by segment, by UTF-8 bytes.
public func utf8Equal(_ a: [String], _ b: [String]) -> Bool {
    guard a.count == b.count else { return false }
    for i in a.indices where !utf8Equal(a[i], b[i]) { return false }
    return true
}

/// Hashes a segment list consistently with `utf8Equal(_:_:)` on lists.
public func hashUTF8(_ segments: [String], into hasher: inout Hasher) {
    hasher.combine(segments.count)
    for s in segments { hashUTF8(s, into: &hasher) }
}

public func utf8Equal(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in
        pa.count == pb.count && (pa.count == 0 || memcmpBytes(pa, pb, pa.count) == 0)
    } }
}

/// Unsigned lexicographic comparison of UTF-8 bytes: -1, 0 or 1.
@inline(__always)
public func compareUTF8(_ a: String, _ b: String) -> Int {
    var b = b
    return b.withUTF8 { compareUTF8(a, $0) }
}

/// `compareUTF8` against bytes already in hand.
@inline(__always)
public func compareUTF8(_ a: String, _ pb: UnsafeBufferPointer<UInt8>) -> Int {
    var a = a
    return a.withUTF8 { pa in
        let n = min(pa.count, pb.count)
        let c = n == 0 ? 0 : memcmpBytes(pa, pb, n)
        if c != 0 { return c < 0 ? -1 : 1 }
        return pa.count == pb.count ? 0 : (pa.count < pb.count ? -1 : 1)
    }
}

/// Eight bytes of `b` from `offset` as a big-endian word, zero-padded past the end: words
/// compare as the bytes do (up to the padding), so byte strings can be ordered by their
/// leading words before their buffers are read.
@inline(__always)
func bigEndianWord(_ b: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
    if offset + 8 <= b.count {
        return UInt64(bigEndian: UnsafeRawPointer(b.baseAddress! + offset).loadUnaligned(as: UInt64.self))
    }
    var w: UInt64 = 0
    for i in 0..<8 {
        w <<= 8
        if offset + i < b.count { w |= UInt64(b[offset + i]) }
    }
    return w
}

@inline(__always)
func memcmpBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ n: Int) -> Int32 {
    memcmp(a.baseAddress!, b.baseAddress!, n)
}

/// Hashes the UTF-8 bytes, consistent with `utf8Equal`.
@inline(__always)
public func hashUTF8(_ s: String, into hasher: inout Hasher) {
    var s = s
    s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    hasher.combine(0xFF as UInt8)
}
