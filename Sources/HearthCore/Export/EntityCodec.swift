import Foundation
import HearthProtobuf

/// A document as an export holds it: where it belongs and its fields. Exports carry no
/// create or update times; an import gives documents new ones.
public struct ExportedDocument: Sendable, Equatable {
    public var database: DatabaseID
    public var path: ResourcePath
    public var fields: MapValue

    public init(database: DatabaseID, path: ResourcePath, fields: MapValue) {
        self.database = database
        self.path = path
        self.fields = fields
    }
}

/// A document ⇄ one export record: a legacy Datastore `EntityProto` whose key is the
/// document path and whose properties are the fields (docs/export-format.md has the mapping).
///
/// Field numbers, as the official emulator's descriptor has them:
/// EntityProto{13 key, 14 property (empty arrays), 15 raw_property, 16 entity_group};
/// Reference{13 app, 14 path, 20 name_space, 23 database_id}; Path{group 1 Element{2 type,
/// 3 id, 4 name}}; Property{1 meaning, 3 name, 4 multiple, 5 value, 6 stashed};
/// PropertyValue{1 int64, 2 bool, 3 string/bytes/embedded entity, 4 double, group 5 point{6
/// lat, 7 lng}, group 12 reference{13 app, group 14 element{15 type, 16 id, 17 name}, 23
/// database_id}}.
public enum EntityCodec {
    /// Meaning codes Firestore data uses.
    enum Meaning {
        static let timestamp: Int64 = 7        // GD_WHEN
        static let geoPoint: Int64 = 9         // GEORSS_POINT
        static let blob: Int64 = 14            // bytes
        static let text: Int64 = 15            // Datastore TEXT (kept as a legacy value)
        static let byteString: Int64 = 16      // Datastore BYTESTRING (kept as a legacy value)
        static let embeddedEntity: Int64 = 19  // a map
        static let emptyList: Int64 = 24
        static let vector: Int64 = 31
    }

    /// How the emulator shows a property with a Datastore-only meaning (15, 16…):
    /// `{"__type__": "__legacy_meaning_value__", "value": …, "meaning": n}`; written back as
    /// that meaning.
    static let legacyMeaningType = "__legacy_meaning_value__"

    /// Maps nested deeper than this are refused (Firestore allows 20 levels).
    static let maxDepth = 100

    // MARK: Encoding

    /// The record for a document of `database`.
    public static func encode(path: ResourcePath, fields: MapValue, database: DatabaseID) throws(FirestoreError) -> [UInt8] {
        var w = ProtoWriter(capacity: 64 + fields.count * 24)
        try w.writeMessage(13) { (k: inout ProtoWriter) throws(FirestoreError) in
            k.writeString(13, app(database.project))
            try k.writeMessage(14) { (p: inout ProtoWriter) throws(FirestoreError) in writeElements(path.segments, keyFields, into: &p) }
            if database.database != DatabaseID.defaultDatabase { k.writeString(23, database.database) }
        }
        try writeProperties(fields, into: &w, depth: 0)
        try w.writeMessage(16) { (p: inout ProtoWriter) throws(FirestoreError) in writeElements(Array(path.segments.prefix(2)), keyFields, into: &p) }
        return w.bytes
    }

    /// The key app the emulator writes for a project.
    static func app(_ project: String) -> String { "dev~" + project }

    /// The field numbers of a path element: in a key's `Path` (group 1 {2 type, 3 id, 4 name})
    /// and in a reference value (group 14 {15 type, 16 id, 17 name}).
    typealias ElementFields = (group: Int, type: Int, id: Int, name: Int)
    static let keyFields: ElementFields = (1, 2, 3, 4)
    static let referenceFields: ElementFields = (14, 15, 16, 17)

    /// One element per (collection, document id) pair; a `__id<N>__` id as the number N.
    private static func writeElements(_ segments: [String], _ fields: ElementFields, into w: inout ProtoWriter) {
        var i = 0
        while i + 1 < segments.count {
            let collection = segments[i], id = segments[i + 1]
            w.writeGroup(fields.group) { e in
                e.writeString(fields.type, collection)
                if let n = ResourcePath.numericID(id) { e.writeInt64(fields.id, n) } else { e.writeString(fields.name, id) }
            }
            i += 2
        }
    }

    /// The properties of a document or embedded entity: empty arrays in list 14, the rest
    /// in list 15 (as the emulator writes them).
    private static func writeProperties(_ fields: MapValue, into w: inout ProtoWriter, depth: Int) throws(FirestoreError) {
        guard depth < maxDepth else { throw .invalidArgument("Maps are nested deeper than \(maxDepth) levels.") }
        for (name, value) in fields where value == .array([]) {
            try w.writeMessage(14) { (p: inout ProtoWriter) throws(FirestoreError) in
                p.writeInt64(1, Meaning.emptyList)
                p.writeString(3, name)
                p.writeBool(4, false)
                try p.writeMessage(5) { (_: inout ProtoWriter) throws(FirestoreError) in }
            }
        }
        for (name, value) in fields {
            switch value {
            case .array(let elements):
                for element in elements {
                    if case .array = element { throw .invalidArgument("Field \(name) holds an array directly inside an array, which Firestore does not allow.") }
                    try writeProperty(name, element, multiple: true, into: &w, depth: depth)
                }
            case .vector(let components):
                for d in components {
                    try w.writeMessage(15) { (p: inout ProtoWriter) throws(FirestoreError) in
                        p.writeInt64(1, Meaning.vector)
                        p.writeString(3, name)
                        p.writeBool(4, true)
                        try p.writeMessage(5) { (v: inout ProtoWriter) throws(FirestoreError) in v.writeDouble(4, d) }
                    }
                }
            default:
                try writeProperty(name, value, multiple: false, into: &w, depth: depth)
            }
        }
    }

    private static func writeProperty(_ name: String, _ value: Value, multiple: Bool, into w: inout ProtoWriter, depth: Int) throws(FirestoreError) {
        try w.writeMessage(15) { (p: inout ProtoWriter) throws(FirestoreError) in
            let meaning = meaning(of: value)
            if meaning != 0 { p.writeInt64(1, meaning) }
            p.writeString(3, name)
            p.writeBool(4, multiple)
            try p.writeMessage(5) { (v: inout ProtoWriter) throws(FirestoreError) in try writeValue(value, into: &v, depth: depth) }
        }
    }

    private static func meaning(of value: Value) -> Int64 {
        switch value {
        case .timestamp: Meaning.timestamp
        case .bytes: Meaning.blob
        case .geoPoint: Meaning.geoPoint
        case .vector: Meaning.vector
        case .map(let m): legacyMeaning(m)?.meaning ?? Meaning.embeddedEntity
        default: 0
        }
    }

    /// The meaning and value of a legacy-meaning map, if `m` is one.
    private static func legacyMeaning(_ m: MapValue) -> (meaning: Int64, value: Value)? {
        guard m.count == 3, case .string(let type)? = m["__type__"], type == legacyMeaningType,
              case .integer(let meaning)? = m["meaning"], let value = m["value"],
              ![0, Meaning.timestamp, Meaning.geoPoint, Meaning.blob, Meaning.embeddedEntity, Meaning.emptyList, Meaning.vector].contains(meaning)
        else { return nil }
        switch value {
        case .string, .bytes, .integer, .boolean, .double, .null: return (meaning, value)
        default: return nil
        }
    }

    private static func writeValue(_ value: Value, into v: inout ProtoWriter, depth: Int) throws(FirestoreError) {
        switch value {
        case .null: break
        case .boolean(let b): v.writeBool(2, b)
        case .integer(let i): v.writeInt64(1, i)
        case .double(let d): v.writeDouble(4, d)
        case .timestamp(let t): v.writeInt64(1, t.microseconds)
        case .string(let s): v.writeString(3, s)
        case .bytes(let d): v.writeBytes(3, d)
        case .geoPoint(let g):
            v.writeGroup(5) { p in
                p.writeDouble(6, g.latitude)
                p.writeDouble(7, g.longitude)
            }
        case .reference(let name):
            v.writeGroup(12) { r in
                r.writeString(13, app(name.database.project))
                writeElements(name.path.segments, referenceFields, into: &r)
                if name.database.database != DatabaseID.defaultDatabase { r.writeString(23, name.database.database) }
            }
        case .map(let m):
            if let (_, legacy) = legacyMeaning(m) {
                try writeValue(legacy, into: &v, depth: depth)
                return
            }
            // An embedded entity with an empty key and entity group, as the emulator writes.
            try v.writeMessage(3) { (e: inout ProtoWriter) throws(FirestoreError) in
                e.bytes.append(contentsOf: [0x6A, 0x04, 0x6A, 0x00, 0x72, 0x00])
                try writeProperties(m, into: &e, depth: depth + 1)
                e.bytes.append(contentsOf: [0x82, 0x01, 0x00])
            }
        case .array, .vector:
            throw .invalidArgument("An array or vector cannot be an element of an array.")
        }
    }

    // MARK: Decoding

    /// The document a record holds. `record` names the record in errors (file and offset).
    public static func decode(_ bytes: [UInt8], record: String) throws(FirestoreError) -> ExportedDocument? {
        do {
            var r = EntityReader(bytes, acceptsGroups: true)
            return try decodeEntity(&r)
        } catch {
            throw .invalidArgument("\(record): \(error.message)")
        }
    }

    /// nil for an entity in a namespace: it imports into a namespace no Firestore API shows.
    private static func decodeEntity(_ r: inout EntityReader) throws(FirestoreError) -> ExportedDocument? {
        let entity = r
        var key: EntityReader?
        var sawEntityGroup = false
        while let k = try r.next() {
            switch k.number {
            case 13: key = try r.readMessage(k)
            case 16: _ = try r.readLengthDelimitedRange(k); sawEntityGroup = true
            default: try r.skip(k)
            }
        }
        guard var key else { throw .invalidArgument("the entity has no key") }
        guard sawEntityGroup else { throw .invalidArgument("the entity has no entity_group (a required field)") }
        var appName: String?, pathReader: EntityReader?, namespace: String?, databaseID = DatabaseID.defaultDatabase
        while let k = try key.next() {
            switch k.number {
            case 13: appName = try key.readString(k)
            case 14: pathReader = try key.readMessage(k)
            case 20: namespace = try key.readString(k)
            case 23: databaseID = try key.readString(k)
            default: try key.skip(k)
            }
        }
        guard let appName else { throw .invalidArgument("the entity key has no app (a required field)") }
        guard var pathReader else { throw .invalidArgument("the entity key has no path") }
        if let namespace, !namespace.isEmpty { return nil }
        var segments: [String] = []
        while let k = try pathReader.next() {
            guard k.number == keyFields.group, k.wireType == .startGroup else { try pathReader.skip(k); continue }
            var element = try pathReader.readGroup(k)
            try readElement(&element, keyFields, into: &segments)
        }
        let path = ResourcePath(segments: segments)
        guard path.isDocument else { throw .invalidArgument("the entity key has an empty path") }
        let fields = try readProperties(of: entity, depth: 0)
        return ExportedDocument(database: DatabaseID(project: project(fromApp: appName), database: databaseID),
                                path: path, fields: fields)
    }

    /// The project an app names: the text after the first `~`, or all of it.
    static func project(fromApp app: String) -> String {
        if let tilde = app.firstIndex(of: "~") { return String(app[app.index(after: tilde)...]) }
        return app
    }

    private static func readElement(_ e: inout EntityReader, _ fields: ElementFields, into segments: inout [String]) throws(FirestoreError) {
        var type: String?, id: String?
        while let k = try e.next() {
            switch k.number {
            case fields.type: type = try e.readString(k)
            case fields.id: id = "__id\(try e.readInt64(k))__"
            case fields.name: id = try e.readString(k)
            default: try e.skip(k)
            }
        }
        guard let type, !type.isEmpty else { throw .invalidArgument("a path element has no type (collection id)") }
        guard let id, !id.isEmpty else { throw .invalidArgument("the path element of collection \(type) has no id or name") }
        segments.append(type)
        segments.append(id)
    }

    /// A field being assembled from its properties.
    private enum Pending {
        case single(Value)
        case array([Value])
        case vector([Double])
    }

    /// The fields of an entity (a document or an embedded map): its `property` list (14)
    /// first, then its `raw_property` list (15), each in file order, as the emulator's import
    /// reads them (an array split over both lists keeps that order).
    private static func readProperties(of entity: EntityReader, depth: Int) throws(FirestoreError) -> MapValue {
        guard depth < maxDepth else { throw .invalidArgument("maps nested deeper than \(maxDepth) levels") }
        var fields: [(name: String, pending: Pending)] = []
        for list in 14...15 {
            var r = entity
            while let k = try r.next() {
                guard k.number == list else { try r.skip(k); continue }
                var p = try r.readMessage(k)
                try readProperty(&p, into: &fields, depth: depth)
            }
        }
        var entries: [MapValue.Entry] = []
        entries.reserveCapacity(fields.count)
        for (name, pending) in fields {
            switch pending {
            case .single(let v): entries.append((name, v))
            case .array(let vs): entries.append((name, .array(vs)))
            case .vector(let ds): entries.append((name, .vector(ds)))
            }
        }
        return MapValue(unsortedEntries: entries)
    }

    private static func readProperty(_ p: inout EntityReader, into fields: inout [(name: String, pending: Pending)], depth: Int) throws(FirestoreError) {
        var meaning: Int64 = 0, name: String?, multiple: Bool?, value: EntityReader?
        while let k = try p.next() {
            switch k.number {
            case 1: meaning = try p.readInt64(k)
            case 3: name = try p.readString(k)
            case 4: multiple = try p.readInt64(k) != 0
            case 5: value = try p.readMessage(k)
            case 6: throw .invalidArgument("Property \"\(name ?? "")\" has field stashed")
            default: try p.skip(k)
            }
        }
        guard let name else { throw .invalidArgument("a property has no name (a required field)") }
        guard let multiple else { throw .invalidArgument("property \"\(name)\" has no multiple (a required field)") }
        guard var value else { throw .invalidArgument("property \"\(name)\" has no value (a required field)") }
        // Elements of one array (or vector) are usually adjacent: look back from the end.
        func existing() -> Int? { fields.lastIndex { utf8Equal($0.name, name) } }
        if meaning == Meaning.emptyList {
            if existing() == nil { fields.append((name, .array([]))) }
            return
        }
        if meaning == Meaning.vector {
            let component = try vectorComponent(&value, name: name)
            if let i = existing(), case .vector(var ds) = fields[i].pending {
                fields[i].pending = .single(.null)  // lets `ds` be appended to in place
                ds.append(component)
                fields[i].pending = .vector(ds)
            } else {
                fields.append((name, .vector([component])))
            }
            return
        }
        let element = try readValue(&value, meaning: meaning, name: name, depth: depth)
        guard multiple else {
            fields.append((name, .single(element)))  // a repeated name: the later one wins (MapValue)
            return
        }
        if let i = existing(), case .array(var values) = fields[i].pending {
            fields[i].pending = .single(.null)
            values.append(element)
            fields[i].pending = .array(values)
        } else {
            fields.append((name, .array([element])))
        }
    }

    private static func vectorComponent(_ value: inout EntityReader, name: String) throws(FirestoreError) -> Double {
        var component: Double?
        while let k = try value.next() {
            if k.number == 4 { component = try value.readDouble(k) } else {
                try value.skip(k)
                throw .invalidArgument("property \"\(name)\": all values in a vector must be doubles")
            }
        }
        guard let component else { throw .invalidArgument("property \"\(name)\": all values in a vector must be doubles") }
        return component
    }

    private static func readValue(_ v: inout EntityReader, meaning: Int64, name: String, depth: Int) throws(FirestoreError) -> Value {
        var int: Int64?, bool: Bool?, double: Double?, string: Range<Int>?
        var point: EntityReader?, reference: EntityReader?
        while let k = try v.next() {
            switch k.number {
            case 1: int = try v.readInt64(k)
            case 2: bool = try v.readInt64(k) != 0
            case 3: string = try v.readLengthDelimitedRange(k)
            case 4: double = try v.readDouble(k)
            case 5 where k.wireType == .startGroup: point = try v.readGroup(k)
            case 12 where k.wireType == .startGroup: reference = try v.readGroup(k)
            default: try v.skip(k)
            }
        }
        if meaning == Meaning.embeddedEntity {
            guard let string else { throw .invalidArgument("property \"\(name)\" is an embedded entity without bytes") }
            return .map(try readProperties(of: v.reader(over: string), depth: depth + 1))
        }
        if ![0, Meaning.timestamp, Meaning.geoPoint, Meaning.blob].contains(meaning) {
            // A Datastore meaning Firestore does not write: kept, shown as the emulator does.
            let inner: Value
            if let string {
                let bytes = v.bytes[string]
                if meaning != Meaning.byteString, let s = String(validating: bytes, as: UTF8.self) { inner = .string(s) } else { inner = .bytes(Data(bytes)) }
            } else if let int { inner = .integer(int) } else if let bool { inner = .boolean(bool) } else if let double { inner = .double(double) } else { inner = .null }
            return .map(MapValue([("__type__", .string(legacyMeaningType)), ("value", inner), ("meaning", .integer(meaning))]))
        }
        if var reference { return .reference(try readReference(&reference, name: name)) }
        if var point {
            var lat: Double?, lng: Double?
            while let k = try point.next() {
                switch k.number {
                case 6: lat = try point.readDouble(k)
                case 7: lng = try point.readDouble(k)
                default: try point.skip(k)
                }
            }
            guard let lat, let lng else { throw .invalidArgument("property \"\(name)\": a point needs x and y") }
            return .geoPoint(GeoPoint(latitude: lat, longitude: lng))
        }
        if let int {
            if meaning == Meaning.timestamp {
                let seconds = Timestamp.floorDiv(int, 1_000_000)
                let micros = int - seconds * 1_000_000
                return .timestamp(try Timestamp.validated(seconds: seconds, nanos: Int32(micros * 1000)))
            }
            return .integer(int)
        }
        if let bool { return .boolean(bool) }
        if let double { return .double(double) }
        if let string {
            let bytes = v.bytes[string]
            if meaning == Meaning.blob { return .bytes(Data(bytes)) }
            guard let s = String(validating: bytes, as: UTF8.self) else {
                throw .invalidArgument("property \"\(name)\": a string value that is not UTF-8")
            }
            return .string(s)
        }
        return .null
    }

    private static func readReference(_ r: inout EntityReader, name: String) throws(FirestoreError) -> DocumentName {
        var appName = "", databaseID = DatabaseID.defaultDatabase
        var segments: [String] = []
        while let k = try r.next() {
            switch k.number {
            case 13: appName = try r.readString(k)
            case referenceFields.group where k.wireType == .startGroup:
                var element = try r.readGroup(k)
                try readElement(&element, referenceFields, into: &segments)
            case 23: databaseID = try r.readString(k)
            default: try r.skip(k)
            }
        }
        guard !segments.isEmpty else { throw .invalidArgument("property \"\(name)\": a reference without a path") }
        return DocumentName(database: DatabaseID(project: project(fromApp: appName), database: databaseID),
                            path: ResourcePath(segments: segments))
    }
}
