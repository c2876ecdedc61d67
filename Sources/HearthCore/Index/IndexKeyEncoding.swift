import Foundation

/// An order-preserving, prefix-free byte encoding of values: for any two values,
/// `memcmp` of their encodings orders them exactly as `Value.compare` (docs/semantics.md#value-order) does, and equal
/// values (`1` and `1.0`, `-0.0` and `0.0`) encode identically. Index entries are built
/// from these encodings, so index scans are byte-range scans of a sorted map.
///
/// Layout: a type tag, then the body. Numbers (integers and doubles share one bracket) are
/// the order-preserving bits of the nearest double plus the integer's exact residual in two
/// bytes, so large int64s and doubles interleave exactly. Strings and bytes escape `0x00` as
/// `0x00 0xFF` and end with `0x00 0x01`; arrays and maps prefix each element with `0x01`
/// and end with `0x00`. Because the encoding is prefix-free, inverting every byte gives the
/// descending order.
enum IndexKeyEncoding {
    static let nullTag: UInt8 = 0x05
    static let booleanTag: UInt8 = 0x0A
    static let nanTag: UInt8 = 0x0E
    static let numberTag: UInt8 = 0x0F
    static let timestampTag: UInt8 = 0x14
    static let stringTag: UInt8 = 0x19
    static let bytesTag: UInt8 = 0x1E
    static let referenceTag: UInt8 = 0x23
    static let geoPointTag: UInt8 = 0x28
    static let arrayTag: UInt8 = 0x2D
    static let vectorTag: UInt8 = 0x32
    static let mapTag: UInt8 = 0x37

    /// The first tag byte of a value's type bracket (NaN excluded: range filters never
    /// match it) and the byte just past the bracket, for type-bracketed range scans.
    static func bracket(of value: Value) -> (start: UInt8, end: UInt8) {
        switch value {
        case .null: (nullTag, nullTag + 1)
        case .boolean: (booleanTag, booleanTag + 1)
        case .integer, .double: (numberTag, numberTag + 1)
        case .timestamp: (timestampTag, timestampTag + 1)
        case .string: (stringTag, stringTag + 1)
        case .bytes: (bytesTag, bytesTag + 1)
        case .reference: (referenceTag, referenceTag + 1)
        case .geoPoint: (geoPointTag, geoPointTag + 1)
        case .array: (arrayTag, arrayTag + 1)
        case .vector: (vectorTag, vectorTag + 1)
        case .map: (mapTag, mapTag + 1)
        }
    }

    static func encode(_ value: Value, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(nullTag)
        case .boolean(let b): out.append(booleanTag); out.append(b ? 1 : 0)
        case .integer(let i):
            out.append(numberTag)
            let d = Double(i)
            appendUInt64(orderedBits(d), &out)
            // The exact residual i - d. Rounding to the nearest double moves an int64 by at most
            // half the spacing of doubles below 2^63 (2^10), so |residual| <= 512 fits 16 bits;
            // d = 2^63 itself (rounded up from near Int64.max) wraps to Int64.min.
            let base: Int64 = d >= 9_223_372_036_854_775_808.0 ? Int64.min : Int64(d)
            appendResidual(Int16(truncatingIfNeeded: i &- base), &out)
        case .double(let d):
            if d.isNaN { out.append(nanTag); return }
            out.append(numberTag)
            appendUInt64(orderedBits(d), &out)
            appendResidual(0, &out)
        case .timestamp(let t):
            out.append(timestampTag)
            appendUInt64(UInt64(bitPattern: t.seconds) ^ 0x8000_0000_0000_0000, &out)
            let n = UInt32(t.nanos)
            out.append(UInt8(n >> 24)); out.append(UInt8(truncatingIfNeeded: n >> 16))
            out.append(UInt8(truncatingIfNeeded: n >> 8)); out.append(UInt8(truncatingIfNeeded: n))
        case .string(let s):
            out.append(stringTag)
            OrderedBytes.appendEscaped(s, to: &out)
        case .bytes(let data):
            out.append(bytesTag)
            OrderedBytes.appendEscaped(data, to: &out)
        case .reference(let name):
            out.append(referenceTag)
            OrderedBytes.appendEscaped(name.database.project, to: &out)
            OrderedBytes.appendEscaped(name.database.database, to: &out)
            encodePath(name.path, into: &out)
        case .geoPoint(let g):
            out.append(geoPointTag)
            appendUInt64(orderedBits(g.latitude), &out)
            appendUInt64(orderedBits(g.longitude), &out)
        case .array(let elements):
            out.append(arrayTag)
            for e in elements { out.append(0x01); encode(e, into: &out) }
            out.append(0x00)
        case .vector(let v):
            out.append(vectorTag)
            appendUInt64(UInt64(v.count), &out)
            for d in v { appendUInt64(orderedBits(d), &out) }
        case .map(let m):
            out.append(mapTag)
            for (k, v) in m.entries {
                out.append(0x01)
                OrderedBytes.appendEscaped(k, to: &out)
                encode(v, into: &out)
            }
            out.append(0x00)
        }
    }

    static func encode(_ value: Value, descending: Bool, into out: inout [UInt8]) {
        guard descending else { encode(value, into: &out); return }
        let start = out.count
        encode(value, into: &out)
        invert(&out, from: start)
    }

    /// A document path in `ResourcePath.compare` order (segment-wise, numeric IDs first,
    /// shorter prefixes first): each segment, then `0x00`.
    static func encodePath(_ path: ResourcePath, into out: inout [UInt8]) {
        for segment in path.segments { DocumentKey.encode(segment, into: &out) }
        out.append(0x00)
    }

    static func invert(_ out: inout [UInt8], from start: Int) {
        for i in start..<out.count { out[i] = ~out[i] }
    }

    /// Bits of `d` whose unsigned order is the numeric order; `-0.0` as `0.0`, NaN lowest.
    static func orderedBits(_ d: Double) -> UInt64 {
        if d.isNaN { return 0 }
        let bits = (d == 0 ? 0.0 : d).bitPattern
        return bits & 0x8000_0000_0000_0000 != 0 ? ~bits : bits | 0x8000_0000_0000_0000
    }

    @inline(__always)
    static func appendUInt64(_ v: UInt64, _ out: inout [UInt8]) {
        var be = v.bigEndian
        withUnsafeBytes(of: &be) { out.append(contentsOf: $0) }
    }

    /// A number's residual, biased so its unsigned big-endian order is the signed order.
    @inline(__always)
    private static func appendResidual(_ r: Int16, _ out: inout [UInt8]) {
        let biased = UInt16(bitPattern: r) ^ 0x8000
        out.append(UInt8(biased >> 8))
        out.append(UInt8(truncatingIfNeeded: biased))
    }
}

/// An index entry's key: `[collection path] + field encodings + document name`.
typealias IndexKey = OrderedBytes
