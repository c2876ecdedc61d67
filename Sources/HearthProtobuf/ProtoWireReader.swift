/// What a `ProtoWireReader` reports a malformation in: each decoder family picks its own
/// error type (the Firestore service throws its `FirestoreError`, so its decoders have one
/// error type from wire bytes to semantics), and the reader stays free of any service.
public protocol ProtoDecodingFailure: Error {
    /// The error for malformed wire bytes; `description` names what is wrong, the field
    /// number and the byte offset (e.g. "Invalid protobuf message: truncated varint (field 2
    /// at byte offset 7).").
    static func malformedProtobuf(_ description: String) -> Self
}

/// Reads one protobuf message from its wire bytes, field by field.
///
/// The reader never traps on bad input: every malformation (truncated varint, a varint
/// longer than 10 bytes, a length past the end, an invalid or group wire type, a field
/// number of 0, a wire type that does not fit the field, invalid UTF-8 in a string,
/// nesting deeper than `maxDepth`) throws `Failure.malformedProtobuf` naming the field
/// number and the byte offset from the start of the top-level message.
///
/// Usage: `while let key = try reader.next() { switch key.number { case 1: x = try reader.readString(key) … default: try reader.skip(key) } }`.
/// Sub-messages are read with `readMessage(key)`, which shares the buffer (no copy).
/// Every method is `@inlinable` so that decoders in other modules get it specialised for
/// their error type and inlined, as when the reader lived beside them.
public struct ProtoWireReader<Failure: ProtoDecodingFailure>: Sendable {
    /// Nested messages deeper than this are rejected (Value → map → Value … recursion).
    public static var maxDepth: Int { 100 }

    public let bytes: [UInt8]
    /// The next byte to read, as an index into `bytes` (so also the absolute offset).
    @inlinable public var offset: Int { _offset }
    @usableFromInline var _offset: Int
    /// One past the last byte of this message.
    public let end: Int
    /// Nesting depth of this message (0 for the top level).
    public let depth: Int
    /// Whether proto2 groups are read (the export format's entity keys use them); proto3
    /// messages never hold them, so the Firestore API's readers reject them.
    public let acceptsGroups: Bool

    @inlinable
    public init(_ bytes: [UInt8], acceptsGroups: Bool = false) {
        self.bytes = bytes
        self._offset = 0
        self.end = bytes.count
        self.depth = 0
        self.acceptsGroups = acceptsGroups
    }

    @inlinable
    init(bytes: [UInt8], offset: Int, end: Int, depth: Int, acceptsGroups: Bool) {
        self.bytes = bytes
        self._offset = offset
        self.end = end
        self.depth = depth
        self.acceptsGroups = acceptsGroups
    }

    /// A reader over `range` of the same bytes (a payload read with
    /// `readLengthDelimitedRange`), one level deeper.
    @inlinable
    public func reader(over range: Range<Int>) -> ProtoWireReader {
        ProtoWireReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound, depth: depth + 1, acceptsGroups: acceptsGroups)
    }

    @inlinable
    public var isAtEnd: Bool { offset >= end }

    /// The error every malformation throws.
    @inlinable
    static func malformed(_ what: String, field: Int?, offset: Int) -> Failure {
        let place = field.map { "field \($0) at byte offset \(offset)" } ?? "byte offset \(offset)"
        return Failure.malformedProtobuf("Invalid protobuf message: \(what) (\(place)).")
    }

    // MARK: Keys

    /// The next field key, or nil at the end of the message.
    @inlinable
    public mutating func next() throws(Failure) -> ProtoFieldKey? {
        guard offset < end else { return nil }
        let start = offset
        let raw = try readRawVarint(field: nil)
        guard raw <= UInt64(UInt32.max) else {
            throw Self.malformed("field key \(raw) out of range", field: nil, offset: start)
        }
        let number = Int(raw >> 3)
        guard let wireType = ProtoWireType(rawValue: UInt8(raw & 7)) else {
            throw Self.malformed("invalid wire type \(raw & 7)", field: number, offset: start)
        }
        guard number >= 1, number <= 536_870_911 else {
            throw Self.malformed("invalid field number \(number)", field: number, offset: start)
        }
        if (wireType == .startGroup || wireType == .endGroup) && !acceptsGroups {
            throw Self.malformed("groups (wire type \(wireType.rawValue)) are not supported", field: number, offset: start)
        }
        return ProtoFieldKey(number: number, wireType: wireType, offset: start)
    }

    // MARK: Raw primitives

    @inlinable
    mutating func readRawVarint(field: Int?) throws(Failure) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw Self.malformed("truncated varint", field: field, offset: start) }
            let byte = bytes[offset]
            _offset += 1
            if shift == 63 {
                // The tenth byte may carry only the top bit of a 64-bit value.
                if byte & 0x80 != 0 { throw Self.malformed("varint longer than 10 bytes", field: field, offset: start) }
                if byte > 1 { throw Self.malformed("varint overflows 64 bits", field: field, offset: start) }
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    @inlinable
    mutating func readRawFixed(_ count: Int, field: Int) throws(Failure) -> UInt64 {
        guard end - offset >= count else {
            throw Self.malformed("truncated fixed\(count * 8) value", field: field, offset: offset)
        }
        var v: UInt64 = 0
        for i in 0..<count { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        _offset += count
        return v
    }

    /// The byte range of a length-delimited payload, after checking it lies in the message.
    @inlinable
    public mutating func readLengthDelimitedRange(_ key: ProtoFieldKey) throws(Failure) -> Range<Int> {
        try expect(key, .lengthDelimited)
        let lengthOffset = offset
        let length = try readRawVarint(field: key.number)
        guard length <= UInt64(end - offset) else {
            throw Self.malformed("length \(length) runs past the end of the message", field: key.number, offset: lengthOffset)
        }
        let range = offset..<(offset + Int(length))
        _offset = range.upperBound
        return range
    }

    @inlinable
    func expect(_ key: ProtoFieldKey, _ wireType: ProtoWireType) throws(Failure) {
        guard key.wireType == wireType else {
            throw Self.malformed("wire type \(key.wireType) where \(wireType) was expected", field: key.number, offset: key.offset)
        }
    }

    // MARK: Scalars

    @inlinable
    public mutating func readUInt64(_ key: ProtoFieldKey) throws(Failure) -> UInt64 {
        try expect(key, .varint)
        return try readRawVarint(field: key.number)
    }

    @inlinable
    public mutating func readInt64(_ key: ProtoFieldKey) throws(Failure) -> Int64 { Int64(bitPattern: try readUInt64(key)) }

    /// `int32` and enums: a varint truncated to 32 bits (negatives arrive sign-extended).
    @inlinable
    public mutating func readInt32(_ key: ProtoFieldKey) throws(Failure) -> Int32 { Int32(truncatingIfNeeded: try readUInt64(key)) }

    @inlinable
    public mutating func readUInt32(_ key: ProtoFieldKey) throws(Failure) -> UInt32 { UInt32(truncatingIfNeeded: try readUInt64(key)) }

    @inlinable
    public mutating func readBool(_ key: ProtoFieldKey) throws(Failure) -> Bool { try readUInt64(key) != 0 }

    @inlinable
    public mutating func readSInt64(_ key: ProtoFieldKey) throws(Failure) -> Int64 { ProtoZigZag.decode(try readUInt64(key)) }

    @inlinable
    public mutating func readSInt32(_ key: ProtoFieldKey) throws(Failure) -> Int32 {
        ProtoZigZag.decode32(UInt32(truncatingIfNeeded: try readUInt64(key)))
    }

    @inlinable
    public mutating func readFixed64(_ key: ProtoFieldKey) throws(Failure) -> UInt64 {
        try expect(key, .fixed64)
        return try readRawFixed(8, field: key.number)
    }

    @inlinable
    public mutating func readFixed32(_ key: ProtoFieldKey) throws(Failure) -> UInt32 {
        try expect(key, .fixed32)
        return UInt32(try readRawFixed(4, field: key.number))
    }

    @inlinable
    public mutating func readSFixed64(_ key: ProtoFieldKey) throws(Failure) -> Int64 { Int64(bitPattern: try readFixed64(key)) }

    @inlinable
    public mutating func readSFixed32(_ key: ProtoFieldKey) throws(Failure) -> Int32 { Int32(bitPattern: try readFixed32(key)) }

    @inlinable
    public mutating func readDouble(_ key: ProtoFieldKey) throws(Failure) -> Double { Double(bitPattern: try readFixed64(key)) }

    @inlinable
    public mutating func readFloat(_ key: ProtoFieldKey) throws(Failure) -> Float { Float(bitPattern: try readFixed32(key)) }

    // MARK: Length-delimited

    @inlinable
    public mutating func readBytes(_ key: ProtoFieldKey) throws(Failure) -> [UInt8] {
        Array(bytes[try readLengthDelimitedRange(key)])
    }

    /// A `string` field; invalid UTF-8 is rejected as proto3 requires.
    @inlinable
    public mutating func readString(_ key: ProtoFieldKey) throws(Failure) -> String {
        let range = try readLengthDelimitedRange(key)
        guard let s = String(validating: bytes[range], as: UTF8.self) else {
            throw Self.malformed("string is not valid UTF-8", field: key.number, offset: key.offset)
        }
        return s
    }

    /// A reader over an embedded message, one level deeper.
    @inlinable
    public mutating func readMessage(_ key: ProtoFieldKey) throws(Failure) -> ProtoWireReader {
        guard depth < Self.maxDepth else {
            throw Self.malformed("messages nested deeper than \(Self.maxDepth) levels", field: key.number, offset: key.offset)
        }
        let range = try readLengthDelimitedRange(key)
        return ProtoWireReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound, depth: depth + 1, acceptsGroups: acceptsGroups)
    }

    // MARK: Repeated scalars

    /// Appends the values of a repeated varint field, accepting both the packed
    /// (length-delimited) and the unpacked (one varint per key) encodings.
    @inlinable
    public mutating func readRepeatedVarints(_ key: ProtoFieldKey, into values: inout [UInt64]) throws(Failure) {
        if key.wireType == .varint {
            values.append(try readRawVarint(field: key.number))
            return
        }
        let range = try readLengthDelimitedRange(key)
        var packed = ProtoWireReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound, depth: depth, acceptsGroups: false)
        while !packed.isAtEnd { values.append(try packed.readRawVarint(field: key.number)) }
    }

    /// A repeated `int32` field (packed or not).
    @inlinable
    public mutating func readRepeatedInt32(_ key: ProtoFieldKey, into values: inout [Int32]) throws(Failure) {
        var raw: [UInt64] = []
        try readRepeatedVarints(key, into: &raw)
        values.append(contentsOf: raw.map { Int32(truncatingIfNeeded: $0) })
    }

    /// Appends the values of a repeated fixed-width field (`double`, `fixed64`, `float`,
    /// `fixed32`…) as raw bit patterns, packed or not; `width` is 4 or 8.
    @inlinable
    public mutating func readRepeatedFixed(_ key: ProtoFieldKey, width: Int, into values: inout [UInt64]) throws(Failure) {
        let scalarType: ProtoWireType = width == 8 ? .fixed64 : .fixed32
        if key.wireType == scalarType {
            values.append(try readRawFixed(width, field: key.number))
            return
        }
        let range = try readLengthDelimitedRange(key)
        guard range.count % width == 0 else {
            throw Self.malformed("packed fixed\(width * 8) length \(range.count) is not a multiple of \(width)", field: key.number, offset: key.offset)
        }
        var packed = ProtoWireReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound, depth: depth, acceptsGroups: false)
        while !packed.isAtEnd { values.append(try packed.readRawFixed(width, field: key.number)) }
    }

    // MARK: Skipping

    /// Skips the value of a field the message does not know (a whole group, where groups
    /// are read).
    @inlinable
    public mutating func skip(_ key: ProtoFieldKey) throws(Failure) {
        switch key.wireType {
        case .varint: _ = try readRawVarint(field: key.number)
        case .fixed64: _ = try readRawFixed(8, field: key.number)
        case .fixed32: _ = try readRawFixed(4, field: key.number)
        case .lengthDelimited: _ = try readLengthDelimitedRange(key)
        case .startGroup where acceptsGroups: _ = try readGroup(key)
        case .endGroup where acceptsGroups:
            throw Self.malformed("end of group \(key.number) without its start", field: key.number, offset: key.offset)
        case .startGroup, .endGroup:
            throw Self.malformed("groups are not supported", field: key.number, offset: key.offset)
        }
    }

    // MARK: Groups (proto2; only where `acceptsGroups`)

    /// A reader over a group's members, up to its matching end key; this reader moves past
    /// the end key.
    @inlinable
    public mutating func readGroup(_ key: ProtoFieldKey) throws(Failure) -> ProtoWireReader {
        try expect(key, .startGroup)
        let start = offset
        var depth = 0
        while true {
            guard let k = try next() else {
                throw Self.malformed("group without its end", field: key.number, offset: key.offset)
            }
            switch k.wireType {
            case .endGroup where depth == 0:
                guard k.number == key.number else {
                    throw Self.malformed("group \(key.number) closed by field \(k.number)", field: k.number, offset: k.offset)
                }
                return ProtoWireReader(bytes: bytes, offset: start, end: k.offset, depth: self.depth + 1, acceptsGroups: true)
            case .endGroup:
                depth -= 1
            case .startGroup:
                depth += 1
                guard depth + self.depth < Self.maxDepth else {
                    throw Self.malformed("groups nested deeper than \(Self.maxDepth) levels", field: k.number, offset: k.offset)
                }
            default:
                try skip(k)
            }
        }
    }
}
