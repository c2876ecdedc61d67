/// A path to a field inside a document: a list of literal field names (`["address", "zip"]`).
/// The special single-segment path `__name__` denotes the document's name (its ID).
public struct FieldPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var segments: [String]

    public init(_ segments: [String]) { self.segments = segments }

    /// The document name pseudo-field (`FieldPath.documentID()` in the SDK).
    public static let documentName = FieldPath(["__name__"])

    public var isDocumentName: Bool { segments.count == 1 && segments[0] == "__name__" }
    public var count: Int { segments.count }
    public var isEmpty: Bool { segments.isEmpty }
    public var first: String? { segments.first }
    public var parent: FieldPath { FieldPath(Array(segments.dropLast())) }
    public var last: String? { segments.last }

    public func appending(_ segment: String) -> FieldPath { FieldPath(segments + [segment]) }

    /// True when `self` equals `other` or is an ancestor of it.
    public func isPrefix(of other: FieldPath) -> Bool {
        guard segments.count <= other.segments.count else { return false }
        for i in segments.indices where !utf8Equal(segments[i], other.segments[i]) { return false }
        return true
    }

    /// True when either path is a prefix of (or equal to) the other: a change at one can
    /// change the value at the other.
    public func overlaps(_ other: FieldPath) -> Bool {
        segments.withUnsafeBufferPointer { a in
            other.segments.withUnsafeBufferPointer { b in
                for i in 0..<min(a.count, b.count) where !utf8Equal(a[i], b[i]) { return false }
                return true
            }
        }
    }

    /// Parses the client SDK's dotted form (`whereField`, `updateData` keys, `mergeFields`).
    /// No quoting: backticks are ordinary characters (docs/semantics.md#field-paths).
    public static func parseDotted(_ path: String) throws(FirestoreError) -> FieldPath {
        if path == "__name__" { return .documentName }
        // One pass over the bytes (the forbidden characters and '.' are ASCII, so they never
        // occur inside a multi-byte sequence).
        var dots = 0, previousWasDot = true, emptySegment = false
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "~"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"):
                throw .invalidArgument("Invalid field path (\(path)). Paths must not contain '~', '*', '/', '[', or ']'")
            case UInt8(ascii: "."):
                if previousWasDot { emptySegment = true }
                dots += 1
                previousWasDot = true
            default:
                previousWasDot = false
            }
        }
        if emptySegment || previousWasDot {
            throw .invalidArgument("Invalid field path (\(path)). Paths must not be empty, begin with '.', end with '.', or contain '..'")
        }
        if dots == 0 { return FieldPath([path]) }
        return FieldPath(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// Parses the server's canonical form: dot-separated segments, each either a simple name
    /// (`[A-Za-z_][A-Za-z0-9_]*`) or a backtick-quoted name with `\`` and `\\` escaped.
    public static func parseServerFormat(_ path: String) throws(FirestoreError) -> FieldPath {
        var segments: [String] = []
        var current: [UInt8] = []
        var bytes = Array(path.utf8)[...]
        // The official emulator's texts: one for an empty path, one (naming the grammar)
        // for any other malformed one.
        func fail(_ why: String) -> FirestoreError {
            .invalidArgument("Invalid property path \"\(path)\". Unquoted property paths must match regex ([a-zA-Z_][a-zA-Z_0-9]*), "
                             + "and quoted property paths must match regex (`(?:[^`\\\\]|(?:\\\\.))+`)")
        }
        guard !bytes.isEmpty else { throw .invalidArgument("Invalid empty property path string.") }
        while true {
            current.removeAll(keepingCapacity: true)
            if bytes.first == UInt8(ascii: "`") {
                bytes.removeFirst()
                var closed = false
                while let b = bytes.popFirst() {
                    if b == UInt8(ascii: "\\") {
                        guard let e = bytes.popFirst() else { throw fail("Trailing escape character is not allowed.") }
                        current.append(e)
                    } else if b == UInt8(ascii: "`") {
                        closed = true
                        break
                    } else {
                        current.append(b)
                    }
                }
                guard closed else { throw fail("Unterminated ` in field path.") }
                guard !current.isEmpty else { throw fail("Empty field names are not allowed.") }
            } else {
                while let b = bytes.first, b != UInt8(ascii: ".") {
                    let simple = b == UInt8(ascii: "_") || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
                        || (!current.isEmpty && b >= 48 && b <= 57)
                    guard simple else {
                        throw fail("Non-simple field names must be quoted with backticks (`).")
                    }
                    current.append(b)
                    bytes.removeFirst()
                }
                guard !current.isEmpty else { throw fail("Empty field names are not allowed.") }
            }
            segments.append(String(decoding: current, as: UTF8.self))
            guard let next = bytes.popFirst() else { break }
            guard next == UInt8(ascii: ".") else { throw fail("Unexpected character after quoted field name.") }
            guard !bytes.isEmpty else { throw fail("Field paths must not end with '.'.") }
        }
        return FieldPath(segments)
    }

    /// The canonical server form, quoting segments that are not simple names.
    public var serverFormat: String {
        segments.map { s -> String in
            var simple = !s.isEmpty
            for (i, b) in s.utf8.enumerated() {
                let ok = b == UInt8(ascii: "_") || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (i > 0 && b >= 48 && b <= 57)
                if !ok { simple = false; break }
            }
            if simple { return s }
            var out = "`"
            for ch in s.unicodeScalars {
                if ch == "`" || ch == "\\" { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(ch)
            }
            return out + "`"
        }.joined(separator: ".")
    }

    /// The dotted form used in SDK messages (segments joined by `.`, unquoted).
    public var dotted: String { segments.joined(separator: ".") }

    public var description: String { serverFormat }

    public static func == (a: FieldPath, b: FieldPath) -> Bool { utf8Equal(a.segments, b.segments) }

    public func hash(into hasher: inout Hasher) { hashUTF8(segments, into: &hasher) }

    /// Segment-wise by UTF-8 bytes; a prefix sorts first.
    public static func < (a: FieldPath, b: FieldPath) -> Bool {
        let n = min(a.segments.count, b.segments.count)
        for i in 0..<n {
            let c = compareUTF8(a.segments[i], b.segments[i])
            if c != 0 { return c < 0 }
        }
        return a.segments.count < b.segments.count
    }

    /// Rules for field names that are written (docs/semantics.md#field-paths, #document-size-and-limits): non-empty, not
    /// reserved `__x__`, at most 1,500 bytes each and in total.
    public func validateForWrite() throws(FirestoreError) {
        var total = 0
        for s in segments {
            let n = s.utf8.count
            if n == 0 { throw .invalidArgument("Invalid data. Document fields must not be empty") }
            if n >= 4, s.utf8.starts(with: "__".utf8), s.utf8.reversed().starts(with: "__".utf8) {
                throw .invalidArgument("Invalid data. Document fields cannot begin and end with \"__\" (found in field \(dotted))")
            }
            if n > 1500 {
                throw .invalidArgument("Field name is longer than 1500 bytes (found in field \(ResourcePath.truncatedForMessage(dotted))).")
            }
            total += n
        }
        if total + max(0, segments.count - 1) > 1500 {
            throw .invalidArgument("Field path is longer than 1500 bytes (found in field \(ResourcePath.truncatedForMessage(dotted))).")
        }
    }
}
