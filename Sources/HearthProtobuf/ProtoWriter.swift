/// Builds protobuf wire bytes. Embedded messages are written with `writeMessage`, which
/// reserves the length prefix and back-patches it, so nested messages cost one buffer.
/// Every method is `@inlinable`, as in the reader, so encoders in other modules inline them.
public struct ProtoWriter: Sendable {
    /// The message written so far.
    public var bytes: [UInt8] = []

    @inlinable
    public init() {}

    /// A writer whose buffer holds `capacity` bytes before it grows (an encoder that knows
    /// roughly how long its message is saves the buffer's doublings).
    @inlinable
    public init(capacity: Int) { bytes.reserveCapacity(capacity) }

    // MARK: Raw primitives

    @inlinable
    public mutating func writeRawVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    @inlinable
    public mutating func writeKey(_ field: Int, _ wireType: ProtoWireType) {
        writeRawVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    @inlinable
    mutating func writeRawFixed(_ value: UInt64, width: Int) {
        for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    /// Number of bytes `value` takes as a varint.
    @inlinable
    public static func varintSize(_ value: UInt64) -> Int {
        var n = 1
        var v = value
        while v >= 0x80 { v >>= 7; n += 1 }
        return n
    }

    // MARK: Fields (always written: callers decide whether a default is omitted)

    @inlinable
    public mutating func writeUInt64(_ field: Int, _ value: UInt64) {
        writeKey(field, .varint)
        writeRawVarint(value)
    }

    @inlinable
    public mutating func writeInt64(_ field: Int, _ value: Int64) { writeUInt64(field, UInt64(bitPattern: value)) }

    /// `int32` and enums: negatives are sign-extended to 10 bytes, as the spec requires.
    @inlinable
    public mutating func writeInt32(_ field: Int, _ value: Int32) { writeUInt64(field, UInt64(bitPattern: Int64(value))) }

    @inlinable
    public mutating func writeUInt32(_ field: Int, _ value: UInt32) { writeUInt64(field, UInt64(value)) }

    @inlinable
    public mutating func writeBool(_ field: Int, _ value: Bool) { writeUInt64(field, value ? 1 : 0) }

    @inlinable
    public mutating func writeSInt64(_ field: Int, _ value: Int64) { writeUInt64(field, ProtoZigZag.encode(value)) }

    @inlinable
    public mutating func writeSInt32(_ field: Int, _ value: Int32) { writeUInt64(field, UInt64(ProtoZigZag.encode32(value))) }

    @inlinable
    public mutating func writeFixed64(_ field: Int, _ value: UInt64) {
        writeKey(field, .fixed64)
        writeRawFixed(value, width: 8)
    }

    @inlinable
    public mutating func writeFixed32(_ field: Int, _ value: UInt32) {
        writeKey(field, .fixed32)
        writeRawFixed(UInt64(value), width: 4)
    }

    @inlinable
    public mutating func writeDouble(_ field: Int, _ value: Double) { writeFixed64(field, value.bitPattern) }

    @inlinable
    public mutating func writeFloat(_ field: Int, _ value: Float) { writeFixed32(field, value.bitPattern) }

    @inlinable
    public mutating func writeBytes<C: Collection>(_ field: Int, _ value: C) where C.Element == UInt8 {
        writeKey(field, .lengthDelimited)
        writeRawVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    @inlinable
    public mutating func writeString(_ field: Int, _ value: String) {
        var s = value
        s.withUTF8 { writeBytes(field, $0) }
    }

    /// An embedded message whose body `body` writes; the length is patched in afterwards.
    /// One byte is reserved for it, which fits a body under 128 bytes (most values and map
    /// entries); a longer body is moved up by the extra length bytes. Nothing is allocated:
    /// an embedded message per value makes this the encoders' innermost step.
    @inlinable
    public mutating func writeMessage<E: Error>(_ field: Int, _ body: (inout ProtoWriter) throws(E) -> Void) throws(E) {
        writeKey(field, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        try body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(truncatingIfNeeded: length)
            return
        }
        bytes.insert(contentsOf: repeatElement(0, count: Self.varintSize(UInt64(length)) - 1), at: lengthAt + 1)
        var v = UInt64(length), at = lengthAt
        while v >= 0x80 {
            bytes[at] = UInt8(truncatingIfNeeded: v) | 0x80
            v >>= 7
            at += 1
        }
        bytes[at] = UInt8(truncatingIfNeeded: v)
    }

    /// A proto2 group: its start key, the members `body` writes, its end key (the export
    /// format's entity keys; proto3 messages have none).
    @inlinable
    public mutating func writeGroup(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        writeKey(field, .startGroup)
        body(&self)
        writeKey(field, .endGroup)
    }

    /// A packed repeated varint field (omitted when empty, as proto3 does).
    @inlinable
    public mutating func writePackedVarints(_ field: Int, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        writeKey(field, .lengthDelimited)
        writeRawVarint(UInt64(values.reduce(0) { $0 + Self.varintSize($1) }))
        for v in values { writeRawVarint(v) }
    }

    /// A packed repeated `int32` field.
    @inlinable
    public mutating func writePackedInt32(_ field: Int, _ values: [Int32]) {
        writePackedVarints(field, values.map { UInt64(bitPattern: Int64($0)) })
    }

    /// A packed repeated `double` field.
    @inlinable
    public mutating func writePackedDoubles(_ field: Int, _ values: [Double]) {
        guard !values.isEmpty else { return }
        writeKey(field, .lengthDelimited)
        writeRawVarint(UInt64(values.count * 8))
        for v in values { writeRawFixed(v.bitPattern, width: 8) }
    }
}
