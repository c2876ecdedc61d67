import Foundation
import HearthCore

/// Turns engine values into what the SDK hands app code on Apple platforms: NSNumber for
/// numbers and booleans (so `as? Int`, `as? Double`, `as? Bool` work on Linux too),
/// `Timestamp`, `GeoPoint`, `Data`, `DocumentReference`, `VectorValue`, `NSNull`, and
/// `[Any]` / `[String: Any]`.
struct UserDataWriter {
    let firestore: Firestore

    // NSNumbers are immutable, so the common small values are shared (as Apple's tagged
    // pointers make them free there); allocating one costs ~70 ns on Linux.
    private static let smallMin: Int64 = -128
    private static let smallMax: Int64 = 1024
    private static let smallIntegers: [NSNumber] = (smallMin...smallMax).map { NSNumber(value: $0) }
    private static let trueNumber = NSNumber(value: true)
    private static let falseNumber = NSNumber(value: false)

    /// `serverTimestamps`: how to read pending server timestamps (`PendingServerTimestamp`
    /// maps, found only in documents with pending writes); nil reads maps as maps.
    func value(_ v: Value, serverTimestamps: ServerTimestampBehavior?) -> Any {
        guard let behavior = serverTimestamps else { return value(v) }
        switch v {
        case .map(let m):
            if let pending = PendingServerTimestamp.decode(v) {
                switch behavior {
                case .none: return NSNull()
                case .estimate: return Timestamp(pending.localWriteTime)
                case .previous: return pending.previous.map { value($0, serverTimestamps: behavior) } ?? NSNull()
                }
            }
            return fields(m, serverTimestamps: behavior)
        case .array(let a): return a.map { value($0, serverTimestamps: behavior) }
        default: return value(v)
        }
    }

    /// A map's fields read with `serverTimestamps` (see `value(_:serverTimestamps:)`).
    func fields(_ m: MapValue, serverTimestamps: ServerTimestampBehavior) -> [String: Any] {
        var out: [String: Any] = Dictionary(minimumCapacity: m.count)
        for e in m.entries { out[e.key] = value(e.value, serverTimestamps: serverTimestamps) }
        return out
    }

    func value(_ v: Value) -> Any {
        switch v {
        case .null: return NSNull()
        case .boolean(let b): return b ? Self.trueNumber : Self.falseNumber
        case .integer(let i): return i >= Self.smallMin && i <= Self.smallMax ? Self.smallIntegers[Int(i - Self.smallMin)] : NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .timestamp(let t): return Timestamp(t)
        case .string(let s): return s
        case .bytes(let d): return d
        case .reference(let r): return DocumentReference(firestore: firestore, path: r.path)
        case .geoPoint(let g): return GeoPoint(latitude: g.latitude, longitude: g.longitude)
        case .array(let a): return a.map(value)
        case .map(let m): return fields(m)
        case .vector(let d): return VectorValue(d)
        }
    }

    /// The document's fields, converted once per stored version and `Firestore` instance and
    /// kept in the document's front-end cache (dictionaries are values, so every caller still
    /// gets its own copy on mutation).
    func memoizedFields(_ document: Document) -> [String: Any] {
        // A type check and an unchecked cast: `as?` on the existential is a runtime dynamic
        // cast, paid on every data() of every result (c_eq_warm ran ~35% slower with it).
        if let cached = document.frontEndCache(for: firestore), type(of: cached) == BridgedFields.self {
            return unsafeDowncast(cached, to: BridgedFields.self).fields
        }
        let made = BridgedFields(fields(document.fields))
        document.setFrontEndCache(made, for: firestore)
        return made.fields
    }

    func fields(_ m: MapValue) -> [String: Any] {
        guard m.count >= FieldNameLayouts.minimumCount && m.count <= FieldNameLayouts.maximumCount else {
            var out: [String: Any] = Dictionary(minimumCapacity: m.count)
            for e in m.entries { out[e.key] = value(e.value) }
            return out
        }
        // Laid out as the last maps with these names were: no name hashed again.
        let positions = FieldNameLayouts.positions(of: m)
        return m.entries.withUnsafeBufferPointer { entries in positions.mapValues { value(entries[$0].value) } }
    }
}

/// What the Swift API keeps in a stored document's front-end cache: the fields as `data()`
/// hands them out. Immutable, so any thread may read it.
final class BridgedFields: @unchecked Sendable {
    let fields: [String: Any]
    init(_ fields: [String: Any]) { self.fields = fields }
}
