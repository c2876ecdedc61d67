/// The protobuf wire types (the low three bits of a field key). Groups (3 and 4) are
/// proto2's; readers reject them unless told to accept them (the export format).
public enum ProtoWireType: UInt8, Sendable, CustomStringConvertible {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5

    public var description: String {
        switch self {
        case .varint: "varint"
        case .fixed64: "fixed64"
        case .lengthDelimited: "length-delimited"
        case .startGroup: "start-group"
        case .endGroup: "end-group"
        case .fixed32: "fixed32"
        }
    }
}

/// One field key read from the wire: the field number, its wire type and the byte offset
/// (from the start of the top-level message) where the key began — used in error messages.
public struct ProtoFieldKey: Sendable, Equatable {
    public var number: Int
    public var wireType: ProtoWireType
    public var offset: Int

    @inlinable
    public init(number: Int, wireType: ProtoWireType, offset: Int) {
        self.number = number
        self.wireType = wireType
        self.offset = offset
    }
}

/// Zigzag mapping of signed integers (`sint32`/`sint64`) onto unsigned varints.
public enum ProtoZigZag {
    @inlinable public static func encode(_ n: Int64) -> UInt64 { UInt64(bitPattern: (n << 1) ^ (n >> 63)) }
    @inlinable public static func decode(_ n: UInt64) -> Int64 { Int64(bitPattern: n >> 1) ^ -Int64(bitPattern: n & 1) }
    @inlinable public static func encode32(_ n: Int32) -> UInt32 { UInt32(bitPattern: (n << 1) ^ (n >> 31)) }
    @inlinable public static func decode32(_ n: UInt32) -> Int32 { Int32(bitPattern: n >> 1) ^ -Int32(bitPattern: n & 1) }
}
