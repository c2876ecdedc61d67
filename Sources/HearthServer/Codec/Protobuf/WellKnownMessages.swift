import HearthCore
import HearthGRPC
import HearthProtobuf

/// `google.protobuf.Timestamp` {seconds = 1, nanos = 2}, the wrapper types
/// (`Int32Value`, `Int64Value`, `DoubleValue`: value = 1) and `google.type.LatLng`
/// {latitude = 1, longitude = 2}.
enum WellKnownMessages {
    // MARK: Timestamp

    /// Decodes a Timestamp, rejecting values outside 0001-01-01…9999-12-31 and nanos
    /// outside 0…999,999,999 as Firestore does.
    static func decodeTimestamp(_ reader: inout ProtoReader) throws(FirestoreError) -> Timestamp {
        var seconds: Int64 = 0
        var nanos: Int32 = 0
        while let key = try reader.next() {
            switch key.number {
            case 1: seconds = try reader.readInt64(key)
            case 2: nanos = try reader.readInt32(key)
            default: try reader.skip(key)
            }
        }
        return try Timestamp.validated(seconds: seconds, nanos: nanos)
    }

    static func encodeTimestamp(_ t: Timestamp, into w: inout ProtoWriter) {
        if t.seconds != 0 { w.writeInt64(1, t.seconds) }
        if t.nanos != 0 { w.writeInt32(2, t.nanos) }
    }

    static func writeTimestamp(_ field: Int, _ t: Timestamp, into w: inout ProtoWriter) {
        w.writeMessage(field) { encodeTimestamp(t, into: &$0) }
    }

    // MARK: Wrappers

    static func decodeInt32Value(_ reader: inout ProtoReader) throws(FirestoreError) -> Int32 {
        var value: Int32 = 0
        while let key = try reader.next() {
            if key.number == 1 { value = try reader.readInt32(key) } else { try reader.skip(key) }
        }
        return value
    }

    static func decodeInt64Value(_ reader: inout ProtoReader) throws(FirestoreError) -> Int64 {
        var value: Int64 = 0
        while let key = try reader.next() {
            if key.number == 1 { value = try reader.readInt64(key) } else { try reader.skip(key) }
        }
        return value
    }

    static func decodeDoubleValue(_ reader: inout ProtoReader) throws(FirestoreError) -> Double {
        var value: Double = 0
        while let key = try reader.next() {
            if key.number == 1 { value = try reader.readDouble(key) } else { try reader.skip(key) }
        }
        return value
    }

    static func writeInt32Value(_ field: Int, _ value: Int32, into w: inout ProtoWriter) {
        w.writeMessage(field) { if value != 0 { $0.writeInt32(1, value) } }
    }

    static func writeInt64Value(_ field: Int, _ value: Int64, into w: inout ProtoWriter) {
        w.writeMessage(field) { if value != 0 { $0.writeInt64(1, value) } }
    }

    static func writeDoubleValue(_ field: Int, _ value: Double, into w: inout ProtoWriter) {
        w.writeMessage(field) { if value.bitPattern != 0 { $0.writeDouble(1, value) } }
    }

    // MARK: LatLng

    static func decodeLatLng(_ reader: inout ProtoReader) throws(FirestoreError) -> GeoPoint {
        var lat = 0.0
        var lng = 0.0
        while let key = try reader.next() {
            switch key.number {
            case 1: lat = try reader.readDouble(key)
            case 2: lng = try reader.readDouble(key)
            default: try reader.skip(key)
            }
        }
        return try GeoPoint.validated(latitude: lat, longitude: lng)
    }

    static func encodeLatLng(_ g: GeoPoint, into w: inout ProtoWriter) {
        if g.latitude.bitPattern != 0 { w.writeDouble(1, g.latitude) }
        if g.longitude.bitPattern != 0 { w.writeDouble(2, g.longitude) }
    }
}
