import Foundation
import HearthCore
import HearthGRPC
import HearthProtobuf

/// `google.firestore.v1.Value`, `MapValue` and `ArrayValue` ⇄ `HearthCore.Value`.
///
/// Value is a oneof: a member that is set is always encoded, even when it holds its
/// default (`boolean_value = false` → `08 00`); on decoding, the last member on the wire
/// wins. Vectors travel as production stores them: a map
/// `{"__type__": "__vector__", "value": [doubles]}`. The pipeline-only members
/// (field 19–22) are rejected.
enum ValueMessage {
    static func decode(_ reader: inout ProtoReader) throws(FirestoreError) -> Value {
        var value: Value?
        while let key = try reader.next() {
            switch key.number {
            case 11:
                _ = try reader.readInt32(key)  // google.protobuf.NullValue has one member.
                value = .null
            case 1: value = .boolean(try reader.readBool(key))
            case 2: value = .integer(try reader.readInt64(key))
            case 3: value = .double(try reader.readDouble(key))
            case 10:
                var sub = try reader.readMessage(key)
                value = .timestamp(try WellKnownMessages.decodeTimestamp(&sub))
            case 17: value = .string(try reader.readString(key))
            case 18: value = .bytes(Data(try reader.readBytes(key)))
            case 5: value = .reference(try DocumentName.parseReference(try reader.readString(key)))
            case 8:
                var sub = try reader.readMessage(key)
                value = .geoPoint(try WellKnownMessages.decodeLatLng(&sub))
            case 9:
                var sub = try reader.readMessage(key)
                value = .array(try decodeArray(&sub))
            case 6:
                var sub = try reader.readMessage(key)
                value = try Value.vectorOrMap(try decodeMap(&sub))
            case 19, 20, 21, 22:
                throw .invalidArgument("Value field \(key.number) (pipeline expressions) is not supported (byte offset \(key.offset)).")
            default:
                try reader.skip(key)
            }
        }
        guard let value else { throw .invalidArgument("Cannot convert firestore.v1.Value with type unset.") }
        return value
    }

    /// `ArrayValue` {values = 1}.
    static func decodeArray(_ reader: inout ProtoReader) throws(FirestoreError) -> [Value] {
        var values: [Value] = []
        while let key = try reader.next() {
            if key.number == 1 {
                var sub = try reader.readMessage(key)
                values.append(try decode(&sub))
            } else {
                try reader.skip(key)
            }
        }
        return values
    }

    /// `MapValue` {fields = 1 (map<string, Value>)}.
    static func decodeMap(_ reader: inout ProtoReader) throws(FirestoreError) -> MapValue {
        var pairs: [(String, Value)] = []
        while let key = try reader.next() {
            if key.number == 1 {
                pairs.append(try decodeMapEntry(&reader, key))
            } else {
                try reader.skip(key)
            }
        }
        return MapValue(pairs)
    }

    /// One `map<string, Value>` entry {key = 1, value = 2}; a missing key is "".
    static func decodeMapEntry(_ reader: inout ProtoReader, _ key: ProtoFieldKey) throws(FirestoreError) -> (String, Value) {
        var entry = try reader.readMessage(key)
        var name = ""
        var value: Value?
        while let k = try entry.next() {
            switch k.number {
            case 1: name = try entry.readString(k)
            case 2:
                var sub = try entry.readMessage(k)
                value = try decode(&sub)
            default: try entry.skip(k)
            }
        }
        guard let value else {
            throw .invalidArgument("Cannot convert firestore.v1.Value with type unset (map entry \"\(name)\" at byte offset \(key.offset)).")
        }
        return (name, value)
    }

    // MARK: Encoding

    static func encode(_ value: Value, into w: inout ProtoWriter) {
        switch value {
        case .null: w.writeUInt64(11, 0)
        case .boolean(let b): w.writeBool(1, b)
        case .integer(let i): w.writeInt64(2, i)
        case .double(let d): w.writeDouble(3, d)
        case .timestamp(let t): WellKnownMessages.writeTimestamp(10, t, into: &w)
        case .string(let s): w.writeString(17, s)
        case .bytes(let d): w.writeBytes(18, d)
        case .reference(let name): w.writeString(5, name.description)
        case .geoPoint(let g): w.writeMessage(8) { WellKnownMessages.encodeLatLng(g, into: &$0) }
        case .array(let items): w.writeMessage(9) { encodeArray(items, into: &$0) }
        case .map(let m): w.writeMessage(6) { encodeMap(m, into: &$0) }
        case .vector(let ds): w.writeMessage(6) { encodeMap(Value.vectorFields(ds), into: &$0) }
        }
    }

    static func writeValue(_ field: Int, _ value: Value, into w: inout ProtoWriter) {
        w.writeMessage(field) { encode(value, into: &$0) }
    }

    static func encodeArray(_ items: [Value], into w: inout ProtoWriter) {
        for item in items { writeValue(1, item, into: &w) }
    }

    static func encodeMap(_ m: MapValue, into w: inout ProtoWriter) {
        encodeFields(m, field: 1, into: &w)
    }

    /// The entries of a `map<string, Value>` field numbered `field`.
    static func encodeFields(_ m: MapValue, field: Int, into w: inout ProtoWriter) {
        for entry in m.entries { writeMapEntry(field, entry.key, entry.value, into: &w) }
    }

    static func writeMapEntry(_ field: Int, _ key: String, _ value: Value, into w: inout ProtoWriter) {
        w.writeMessage(field) { e in
            if !key.isEmpty { e.writeString(1, key) }
            writeValue(2, value, into: &e)
        }
    }

    // MARK: Whole messages

    /// Decodes a serialized `Value`.
    static func decode(_ bytes: [UInt8]) throws(FirestoreError) -> Value {
        var r = ProtoReader(bytes)
        return try decode(&r)
    }

    /// Serializes a `Value`.
    static func serialize(_ value: Value) -> [UInt8] {
        var w = ProtoWriter()
        encode(value, into: &w)
        return w.bytes
    }
}
