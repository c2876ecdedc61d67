import Foundation

/// The binary encoding of documents in Hearth's own log and snapshot files: compact, fast
/// to read back, and exact (every value keeps its type and bits, timestamps their
/// nanoseconds, maps their entry order). Lengths and counts are LEB128 varints; integers,
/// doubles and timestamps are fixed-width little-endian.
///
/// A value is a tag byte and its body: 0 null, 1 false, 2 true, 3 integer (8 bytes),
/// 4 double (8), 5 timestamp (8 seconds + 4 nanos), 6 string (length + UTF-8), 7 bytes
/// (length + bytes), 8 reference (project, database, path), 9 geopoint (8 + 8), 10 array
/// (count + values), 11 map (count + name/value pairs, in the map's order), 12 vector
/// (count + doubles). Decoding checks every length against the record, so a record that
/// passed its checksum but is malformed throws instead of trapping.
struct RecordWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func varint(_ value: Int) {
        var v = UInt64(value)
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            varint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func timestamp(_ t: Timestamp) {
        fixed64(UInt64(bitPattern: t.seconds))
        fixed32(UInt32(bitPattern: t.nanos))
    }

    mutating func path(_ p: ResourcePath) {
        varint(p.segments.count)
        for s in p.segments { string(s) }
    }

    mutating func databaseID(_ id: DatabaseID) {
        string(id.project)
        string(id.database)
    }

    mutating func document(_ d: Document) {
        path(d.path)
        timestamp(d.createTime)
        timestamp(d.updateTime)
        map(d.fields)
    }

    mutating func map(_ m: MapValue) {
        varint(m.count)
        for (k, v) in m.entries {
            string(k)
            value(v)
        }
    }

    mutating func value(_ v: Value) {
        switch v {
        case .null: byte(0)
        case .boolean(let b): byte(b ? 2 : 1)
        case .integer(let i): byte(3); fixed64(UInt64(bitPattern: i))
        case .double(let d): byte(4); fixed64(d.bitPattern)
        case .timestamp(let t): byte(5); timestamp(t)
        case .string(let s): byte(6); string(s)
        case .bytes(let d):
            byte(7)
            varint(d.count)
            bytes.append(contentsOf: d)
        case .reference(let r):
            byte(8)
            databaseID(r.database)
            path(r.path)
        case .geoPoint(let g):
            byte(9)
            fixed64(g.latitude.bitPattern)
            fixed64(g.longitude.bitPattern)
        case .array(let a):
            byte(10)
            varint(a.count)
            for e in a { value(e) }
        case .map(let m):
            byte(11)
            map(m)
        case .vector(let ds):
            byte(12)
            varint(ds.count)
            for d in ds { fixed64(d.bitPattern) }
        }
    }
}

/// Reads what `RecordWriter` wrote; any inconsistency throws `RecordReader.Malformed`.
struct RecordReader {
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        let what: String
        var description: String { "\(what) at byte \(offset) of the record" }
    }

    let bytes: [UInt8]
    private(set) var offset = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    private func fail(_ what: String) -> Malformed { Malformed(offset: offset, what: what) }

    mutating func byte() throws(Malformed) -> UInt8 {
        guard offset < bytes.count else { throw fail("unexpected end") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws(Malformed) -> Int {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 63 else { throw fail("varint too long") }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { break }
            shift += 7
        }
        guard result <= UInt64(Int.max) else { throw fail("varint out of range") }
        return Int(result)
    }

    /// A count or length, checked against what is left (each item takes at least `unit` bytes).
    mutating func count(unit: Int = 1) throws(Malformed) -> Int {
        let n = try varint()
        guard n <= (bytes.count - offset) / max(unit, 1) else { throw fail("count \(n) larger than the record") }
        return n
    }

    mutating func fixed64() throws(Malformed) -> UInt64 {
        guard bytes.count - offset >= 8 else { throw fail("unexpected end") }
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        offset += 8
        return UInt64(littleEndian: v)
    }

    mutating func fixed32() throws(Malformed) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw fail("unexpected end") }
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        offset += 4
        return UInt32(littleEndian: v)
    }

    mutating func string() throws(Malformed) -> String {
        let n = try count()
        let range = offset..<(offset + n)
        offset += n
        // Through a buffer pointer: validating an array slice goes through generic code
        // several times slower. And ASCII (field names, IDs, most values) needs no
        // validation: `String(validating:as:)` is not specialised for UTF8 and looked up
        // generic metadata for every string, a fifth of a restart's CPU.
        let s = bytes.withUnsafeBufferPointer { whole -> String? in
            let utf8 = UnsafeBufferPointer(rebasing: whole[range])
            if Self.isASCII(utf8) { return String(decoding: utf8, as: UTF8.self) }
            return String(validating: utf8, as: UTF8.self)
        }
        guard let s else { throw fail("a string that is not UTF-8") }
        return s
    }

    /// Whether every byte is below 0x80, eight at a time.
    @inline(__always)
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        var high: UInt64 = 0
        while i + 8 <= bytes.count {
            high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            high |= UInt64(bytes[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    mutating func timestamp() throws(Malformed) -> Timestamp {
        let seconds = Int64(bitPattern: try fixed64())
        let nanos = Int32(bitPattern: try fixed32())
        return Timestamp(seconds: seconds, nanos: nanos)
    }

    mutating func path() throws(Malformed) -> ResourcePath {
        let n = try count()
        var segments: [String] = []
        segments.reserveCapacity(n)
        for _ in 0..<n { segments.append(try string()) }
        return ResourcePath(segments: segments)
    }

    mutating func databaseID() throws(Malformed) -> DatabaseID {
        let project = try string()
        return DatabaseID(project: project, database: try string())
    }

    mutating func document() throws(Malformed) -> Document {
        let p = try path()
        guard p.isDocument else { throw fail("a document path with \(p.count) segments") }
        let created = try timestamp()
        let updated = try timestamp()
        return Document(path: p, fields: try map(), createTime: created, updateTime: updated)
    }

    mutating func map() throws(Malformed) -> MapValue {
        let n = try count(unit: 2)
        var entries: [MapValue.Entry] = []
        entries.reserveCapacity(n)
        for _ in 0..<n {
            let k = try string()
            entries.append((k, try value()))
        }
        return MapValue(sortedEntries: entries)
    }

    mutating func value() throws(Malformed) -> Value {
        let tag = try byte()
        switch tag {
        case 0: return .null
        case 1: return .boolean(false)
        case 2: return .boolean(true)
        case 3: return .integer(Int64(bitPattern: try fixed64()))
        case 4: return .double(Double(bitPattern: try fixed64()))
        case 5: return .timestamp(try timestamp())
        case 6: return .string(try string())
        case 7:
            let n = try count()
            defer { offset += n }
            return .bytes(Data(bytes[offset..<(offset + n)]))
        case 8:
            let db = try databaseID()
            return .reference(DocumentName(database: db, path: try path()))
        case 9:
            let lat = Double(bitPattern: try fixed64())
            return .geoPoint(GeoPoint(latitude: lat, longitude: Double(bitPattern: try fixed64())))
        case 10, 11:
            depth += 1
            defer { depth -= 1 }
            guard depth <= 200 else { throw fail("values nested too deeply") }
            if tag == 11 { return .map(try map()) }
            let n = try count()
            var a: [Value] = []
            a.reserveCapacity(n)
            for _ in 0..<n { a.append(try value()) }
            return .array(a)
        case 12:
            let n = try count(unit: 8)
            var ds: [Double] = []
            ds.reserveCapacity(n)
            for _ in 0..<n { ds.append(Double(bitPattern: try fixed64())) }
            return .vector(ds)
        default:
            offset -= 1
            throw fail("unknown value tag \(tag)")
        }
    }
}
