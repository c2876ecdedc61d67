/// The protobuf binary encoding as the export format uses it: varints (negative int64 as
/// ten-byte two's complement, no ZigZag), little-endian doubles, length-delimited strings and
/// messages, and proto2 groups (start/end keys with no length). HearthCore cannot use the
/// server's protobuf codec (the engine does not depend on its front ends), and that codec has
/// no groups; this one is the small part the entity and metadata messages need.
struct WireWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func key(_ field: Int, _ wireType: UInt8) { varint(UInt64(field) << 3 | UInt64(wireType)) }

    mutating func int64(_ field: Int, _ value: Int64) {
        key(field, 0)
        varint(UInt64(bitPattern: value))
    }

    mutating func bool(_ field: Int, _ value: Bool) {
        key(field, 0)
        bytes.append(value ? 1 : 0)
    }

    mutating func double(_ field: Int, _ value: Double) {
        key(field, 1)
        let bits = value.bitPattern
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
    }

    mutating func bytes<C: Collection>(_ field: Int, _ value: C) where C.Element == UInt8 {
        key(field, 2)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ field: Int, _ value: String) {
        var s = value
        s.withUTF8 { bytes(field, $0) }
    }

    /// A length-delimited sub-message written by `body`; the length is patched in after.
    mutating func message(_ field: Int, _ body: (inout WireWriter) throws(FirestoreError) -> Void) throws(FirestoreError) {
        key(field, 2)
        let lengthAt = bytes.count
        bytes.append(0)
        try body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        var prefix: [UInt8] = []
        var v = UInt64(length)
        while v >= 0x80 { prefix.append(UInt8(truncatingIfNeeded: v) | 0x80); v >>= 7 }
        prefix.append(UInt8(v))
        bytes.replaceSubrange(lengthAt..<(lengthAt + 1), with: prefix)
    }

    /// A group: start key, the members `body` writes, end key.
    mutating func group(_ field: Int, _ body: (inout WireWriter) -> Void) {
        key(field, 3)
        body(&self)
        key(field, 4)
    }
}

/// Reads protobuf fields (groups included) from a byte range, never trapping: malformed
/// input throws INVALID_ARGUMENT naming the field and byte offset within the record.
///
/// It reads through a pointer valid for `read(_:_:)`'s body, so readers of sub-messages
/// are plain values (no reference counting per field: decoding a record costs a few
/// hundred nanoseconds, not microseconds).
struct WireReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var offset: Int
    let end: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
    }

    /// Runs `body` with a reader over all of `bytes`.
    static func read<T>(_ bytes: [UInt8], _ body: (inout WireReader) throws(FirestoreError) -> T) throws(FirestoreError) -> T {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(FirestoreError) -> T in
                var reader = WireReader(buffer, range: 0..<buffer.count)
                return try body(&reader)
            }
        }.get()
    }

    /// The bytes of `range`, as a buffer of their own.
    func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }

    struct Key {
        let field: Int
        let wireType: UInt8
        let offset: Int
    }

    static func malformed(_ what: String, field: Int?, offset: Int) -> FirestoreError {
        .invalidArgument("Malformed protobuf: \(what)" + (field.map { " (field \($0) at byte \(offset))" } ?? " (at byte \(offset))") + ".")
    }

    var isAtEnd: Bool { offset >= end }

    /// The next key, or nil at the end of the range.
    mutating func next() throws(FirestoreError) -> Key? {
        guard offset < end else { return nil }
        let start = offset
        let raw = try varint(field: nil)
        let field = Int(truncatingIfNeeded: raw >> 3), wireType = UInt8(raw & 7)
        guard field >= 1, raw >> 3 <= 536_870_911, wireType <= 5 else {
            throw Self.malformed("invalid key \(raw)", field: nil, offset: start)
        }
        return Key(field: field, wireType: wireType, offset: start)
    }

    mutating func varint(field: Int?) throws(FirestoreError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw Self.malformed("truncated varint", field: field, offset: start) }
            let byte = bytes[offset]
            offset += 1
            if shift == 63 && byte > 1 { throw Self.malformed("varint longer than 64 bits", field: field, offset: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    private func expect(_ key: Key, _ wireType: UInt8) throws(FirestoreError) {
        guard key.wireType == wireType else {
            throw Self.malformed("wire type \(key.wireType) where \(wireType) was expected", field: key.field, offset: key.offset)
        }
    }

    mutating func int64(_ key: Key) throws(FirestoreError) -> Int64 {
        try expect(key, 0)
        return Int64(bitPattern: try varint(field: key.field))
    }

    mutating func double(_ key: Key) throws(FirestoreError) -> Double {
        try expect(key, 1)
        guard end - offset >= 8 else { throw Self.malformed("truncated double", field: key.field, offset: key.offset) }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return Double(bitPattern: bits)
    }

    /// The range of a length-delimited field's payload.
    mutating func lengthDelimited(_ key: Key) throws(FirestoreError) -> Range<Int> {
        try expect(key, 2)
        let length = try varint(field: key.field)
        guard length <= UInt64(end - offset) else {
            throw Self.malformed("length \(length) runs past the end", field: key.field, offset: key.offset)
        }
        let range = offset..<(offset + Int(length))
        offset = range.upperBound
        return range
    }

    mutating func string(_ key: Key) throws(FirestoreError) -> String {
        let range = try lengthDelimited(key)
        guard let s = String(validating: slice(range), as: UTF8.self) else {
            throw Self.malformed("a string that is not UTF-8", field: key.field, offset: key.offset)
        }
        return s
    }

    mutating func message(_ key: Key) throws(FirestoreError) -> WireReader {
        WireReader(bytes, range: try lengthDelimited(key))
    }

    /// The members of a group up to its matching end key; the reader moves past the end key.
    mutating func group(_ key: Key) throws(FirestoreError) -> WireReader {
        try expect(key, 3)
        let start = offset
        var depth = 0
        while true {
            guard let k = try next() else { throw Self.malformed("group without its end", field: key.field, offset: key.offset) }
            if k.wireType == 4 {
                if depth == 0 {
                    guard k.field == key.field else {
                        throw Self.malformed("group \(key.field) closed by field \(k.field)", field: k.field, offset: k.offset)
                    }
                    return WireReader(bytes, range: start..<k.offset)
                }
                depth -= 1
            } else if k.wireType == 3 {
                depth += 1
                guard depth < 100 else { throw Self.malformed("groups nested too deeply", field: k.field, offset: k.offset) }
            } else {
                try skipValue(k)
            }
        }
    }

    /// Skips a field the message does not use.
    mutating func skip(_ key: Key) throws(FirestoreError) {
        if key.wireType == 3 { _ = try group(key) } else { try skipValue(key) }
    }

    private mutating func skipValue(_ key: Key) throws(FirestoreError) {
        switch key.wireType {
        case 0: _ = try varint(field: key.field)
        case 1, 5:
            let width = key.wireType == 1 ? 8 : 4
            guard end - offset >= width else { throw Self.malformed("truncated fixed value", field: key.field, offset: key.offset) }
            offset += width
        case 2: _ = try lengthDelimited(key)
        default: throw Self.malformed("unexpected end of group", field: key.field, offset: key.offset)
        }
    }
}
