/// Storage-size computation and the Standard edition's limits (docs/semantics.md#document-size-and-limits).
public enum DocumentLimits {
    public static let maxDocumentSize = 1_048_576
    public static let maxNestingDepth = 20
    public static let maxIDBytes = 1500
    public static let maxDocumentNameBytes = 6 * 1024
    public static let maxPathDepth = 100
    /// The most bytes one string or bytes value may hold (1 MiB − 89, as the official
    /// emulator enforces it; production documents the limit as 1 MiB − 89 bytes too).
    public static let maxValueBytes = 1_048_487

    /// UTF-8 bytes + 1.
    @inline(__always)
    public static func stringSize(_ s: String) -> Int { s.utf8.count + 1 }

    /// Σ sizes of every collection ID and document ID in the path + 16.
    public static func nameSize(_ path: ResourcePath) -> Int {
        path.segments.reduce(16) { $0 + stringSize($1) }
    }

    public static func valueSize(_ value: Value) -> Int {
        switch value {
        case .null, .boolean: return 1
        case .integer, .double, .timestamp: return 8
        case .geoPoint: return 16
        case .bytes(let d): return d.count
        case .string(let s): return stringSize(s)
        case .reference(let r): return nameSize(r.path)
        case .array(let a): return a.reduce(0) { $0 + valueSize($1) }
        case .map(let m): return fieldsSize(m)
        case .vector(let v): return 8 * v.count
        }
    }

    /// Σ(field name size + value size).
    public static func fieldsSize(_ fields: MapValue) -> Int {
        fields.entries.reduce(0) { $0 + stringSize($1.key) + valueSize($1.value) }
    }

    /// Document size = name size + Σ fields + 32.
    public static func documentSize(path: ResourcePath, fields: MapValue) -> Int {
        documentSize(path: path, fieldsSize: fieldsSize(fields))
    }

    static func documentSize(path: ResourcePath, fieldsSize: Int) -> Int {
        nameSize(path) + fieldsSize + 32
    }

    /// Rejects a document that production would refuse to store (over 1 MiB, or nested
    /// deeper than 20 maps/arrays) and returns its fields' size.
    @discardableResult
    public static func validate(path: ResourcePath, fields: MapValue, database: DatabaseID) throws(FirestoreError) -> Int {
        var measured = Measured(size: 0)
        for entry in fields.entries { measured.add(entry) }
        try measured.check(path: path, database: database)
        return measured.size
    }

    /// `validate` for a document written over a stored one (`original`, whose fields
    /// measured `originalSize`) by writes that can only have changed the top-level fields of
    /// `paths`: only those are compared and measured, the others are the original's, already
    /// within the limits. Nil when every one of them is as it was: the writes left the
    /// document unchanged.
    public static func validateChange(path: ResourcePath, fields: MapValue, database: DatabaseID,
                                      original: MapValue, originalSize: Int, within paths: [FieldPath]) throws(FirestoreError) -> Int? {
        var measured = Measured(size: originalSize)
        var changed = false
        for (i, p) in paths.enumerated() {
            // Each top-level field once (masks are short: earlier paths are scanned).
            guard let top = p.segments.first,
                  !paths[..<i].contains(where: { $0.segments.first.map { utf8Equal($0, top) } ?? false }) else { continue }
            let old = original[top], new = fields[top]
            if old == new { continue }
            changed = true
            if let old { measured.size -= stringSize(top) + valueSize(old) }
            if let new { measured.add((top, new)) }
        }
        guard changed else { return nil }
        try measured.check(path: path, database: database)
        return measured.size
    }

    /// The size of the fields measured so far, and the first (in field-name order) that
    /// nests too deep, for the message.
    private struct Measured {
        var size: Int
        var deepField: MapValue.Entry? = nil
        /// The first field (in field-name order) holding a string or bytes value over
        /// `maxValueBytes`.
        var longField: MapValue.Entry? = nil

        mutating func add(_ entry: MapValue.Entry) {
            var tooDeep = false
            let valueSize = measure(entry.value, depth: 1, tooDeep: &tooDeep)
            size += stringSize(entry.key) + valueSize
            if tooDeep, deepField.map({ compareUTF8(entry.key, $0.key) < 0 }) ?? true { deepField = entry }
            // Only a value this big can hold one over the limit.
            if valueSize > maxValueBytes, hasLongValue(entry.value), longField.map({ compareUTF8(entry.key, $0.key) < 0 }) ?? true {
                longField = entry
            }
        }

        func check(path: ResourcePath, database: DatabaseID) throws(FirestoreError) {
            // The per-value limit first, with the official emulator's texts: a map holding
            // the long value is "an invalid nested entity".
            if let entry = longField {
                if hasLongValue(entry.value, outsideMaps: true) {
                    throw .invalidArgument("The value of property \"\(entry.key)\" is longer than \(maxValueBytes) bytes.")
                }
                throw .invalidArgument("Property \(entry.key) contains an invalid nested entity.")
            }
            let total = documentSize(path: path, fieldsSize: size)
            if total > maxDocumentSize {
                throw .invalidArgument("Document '\(database.resourceName(path))' cannot be written because its size (\(grouped(total)) bytes) exceeds the maximum allowed size of \(grouped(maxDocumentSize)) bytes.")
            }
            if let entry = deepField {
                let deepest = [entry.key] + deepestPath(entry.value, depth: 1)
                throw .invalidArgument("Document '\(database.resourceName(path))' cannot be written because field '\(FieldPath(deepest).dotted)' exceeds the maximum nesting depth of \(maxNestingDepth) maps and arrays.")
            }
        }
    }

    /// A value's size, and whether it nests maps and arrays deeper than the limit (a
    /// top-level field's container is depth 1): one walk for both checks.
    private static func measure(_ v: Value, depth: Int, tooDeep: inout Bool) -> Int {
        switch v {
        case .map(let m):
            if depth > maxNestingDepth { tooDeep = true }
            var size = 0
            for e in m.entries { size += stringSize(e.key) + measure(e.value, depth: depth + 1, tooDeep: &tooDeep) }
            return size
        case .array(let a):
            if depth > maxNestingDepth { tooDeep = true }
            var size = 0
            for e in a { size += measure(e, depth: depth + 1, tooDeep: &tooDeep) }
            return size
        default:
            return valueSize(v)
        }
    }

    /// Whether `v` holds a string or bytes value over `maxValueBytes` (not counting those
    /// inside maps, with `outsideMaps`).
    private static func hasLongValue(_ v: Value, outsideMaps: Bool = false) -> Bool {
        switch v {
        case .string(let s): return s.utf8.count > maxValueBytes
        case .bytes(let b): return b.count > maxValueBytes
        case .array(let a): return a.contains { hasLongValue($0, outsideMaps: outsideMaps) }
        case .map(let m): return !outsideMaps && m.entries.contains { hasLongValue($0.value) }
        default: return false
        }
    }

    /// Whether a container nests deeper than the limit (a top-level map or array is depth 1).
    private static func exceedsDepth(_ v: Value, depth: Int) -> Bool {
        switch v {
        case .map(let m):
            return depth > maxNestingDepth || m.entries.contains { exceedsDepth($0.value, depth: depth + 1) }
        case .array(let a):
            return depth > maxNestingDepth || a.contains { exceedsDepth($0, depth: depth + 1) }
        default:
            return false
        }
    }

    /// The path below `v` to the first container past the limit, for the error message.
    private static func deepestPath(_ v: Value, depth: Int) -> [String] {
        if depth > maxNestingDepth { return [] }
        switch v {
        case .map(let m):
            for e in m.entries where exceedsDepth(e.value, depth: depth + 1) { return [e.key] + deepestPath(e.value, depth: depth + 1) }
        case .array(let a):
            for (i, e) in a.enumerated() where exceedsDepth(e, depth: depth + 1) { return [String(i)] + deepestPath(e, depth: depth + 1) }
        default:
            break
        }
        return []
    }

    /// 1060109 → "1,060,109", as production writes byte counts.
    static func grouped(_ n: Int) -> String {
        var digits = Array(String(n))
        var out: [Character] = []
        while digits.count > 3 {
            out.insert(contentsOf: [","] + digits.suffix(3), at: 0)
            digits.removeLast(3)
        }
        return String(digits + out)
    }

    /// Checks a document path as the server does when writing: even segment count, valid IDs,
    /// name length and depth.
    public static func validateDocumentPath(_ path: ResourcePath, database: DatabaseID) throws(FirestoreError) {
        guard path.isDocument else {
            throw .invalidArgument("Document path must have an even number of segments, but \(path) has \(path.count).")
        }
        try path.validateSegments()
        if path.count / 2 > maxPathDepth {
            throw .invalidArgument("Document '\(database.resourceName(path))' is nested more than \(maxPathDepth) subcollections deep.")
        }
        if nameSize(path) - 16 > maxDocumentNameBytes {
            throw .invalidArgument("Document name '\(ResourcePath.truncatedForMessage(path.description))' is longer than \(maxDocumentNameBytes) bytes.")
        }
    }
}
