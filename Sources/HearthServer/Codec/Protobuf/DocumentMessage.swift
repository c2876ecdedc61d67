import HearthCore
import HearthGRPC
import HearthProtobuf

/// `google.firestore.v1.Document` {name = 1, fields = 2 (map<string, Value>),
/// create_time = 3, update_time = 4} ⇄ `HearthCore.Document`.
enum DocumentMessage {
    /// A decoded Document message: its name is checked only for shape here; the caller
    /// resolves it against the request's database (`documentPath`).
    struct Decoded: Sendable, Equatable {
        var name: String
        var fields: MapValue
        var createTime: Timestamp? = nil
        var updateTime: Timestamp? = nil
    }

    static func decode(_ reader: inout ProtoReader) throws(FirestoreError) -> Decoded {
        var doc = Decoded(name: "", fields: MapValue(), createTime: nil, updateTime: nil)
        var pairs: [(String, Value)] = []
        while let key = try reader.next() {
            switch key.number {
            case 1: doc.name = try reader.readString(key)
            case 2: pairs.append(try ValueMessage.decodeMapEntry(&reader, key))
            case 3:
                var sub = try reader.readMessage(key)
                doc.createTime = try WellKnownMessages.decodeTimestamp(&sub)
            case 4:
                var sub = try reader.readMessage(key)
                doc.updateTime = try WellKnownMessages.decodeTimestamp(&sub)
            default: try reader.skip(key)
            }
        }
        doc.fields = MapValue(pairs)
        return doc
    }

    /// Encodes a stored document; `mask` keeps only those fields (nil: all).
    static func encode(_ doc: Document, database: DatabaseID, mask: [FieldPath]? = nil, into w: inout ProtoWriter) {
        writeName(1, doc.path, in: database, into: &w)
        var fields = doc.fields
        if let mask {
            var projected = MapValue()
            for f in mask where !f.isDocumentName { if let v = fields.value(at: f) { projected.setValue(v, at: f) } }
            fields = projected
        }
        ValueMessage.encodeFields(fields, field: 2, into: &w)
        WellKnownMessages.writeTimestamp(3, doc.createTime, into: &w)
        WellKnownMessages.writeTimestamp(4, doc.updateTime, into: &w)
    }

    /// A document's resource name (`projects/p/databases/d/documents/<path>`) as string
    /// field `field`, written piece by piece rather than built as a String first: every
    /// document of every answer carries one.
    static func writeName(_ field: Int, _ path: ResourcePath, in database: DatabaseID, into w: inout ProtoWriter) {
        var length = "projects/".utf8.count + database.project.utf8.count + "/databases/".utf8.count
            + database.database.utf8.count + "/documents".utf8.count
        for segment in path.segments { length += 1 + segment.utf8.count }
        w.writeKey(field, .lengthDelimited)
        w.writeRawVarint(UInt64(length))
        w.bytes.append(contentsOf: "projects/".utf8)
        w.bytes.append(contentsOf: database.project.utf8)
        w.bytes.append(contentsOf: "/databases/".utf8)
        w.bytes.append(contentsOf: database.database.utf8)
        w.bytes.append(contentsOf: "/documents".utf8)
        for segment in path.segments {
            w.bytes.append(0x2F)
            w.bytes.append(contentsOf: segment.utf8)
        }
    }

    /// A first guess at a stored document's encoded size, to size a writer's buffer once:
    /// its name, and some 40 bytes a field (most fields are short; a long one grows it).
    static func estimatedSize(_ doc: Document) -> Int {
        96 + doc.path.segments.reduce(0) { $0 + $1.utf8.count + 1 } + 40 * doc.fields.count
    }

    /// Encodes a decoded (client-side) document, as a Write's `update` carries it.
    static func encode(_ doc: Decoded, into w: inout ProtoWriter) {
        if !doc.name.isEmpty { w.writeString(1, doc.name) }
        ValueMessage.encodeFields(doc.fields, field: 2, into: &w)
        if let t = doc.createTime { WellKnownMessages.writeTimestamp(3, t, into: &w) }
        if let t = doc.updateTime { WellKnownMessages.writeTimestamp(4, t, into: &w) }
    }

    /// A document name in `database`, as a path; a name in another database is rejected.
    static func documentPath(_ name: String, database: DatabaseID, field: String) throws(FirestoreError) -> ResourcePath {
        let parsed = try DocumentName.parse(name)
        guard parsed.database == database else {
            throw .invalidArgument("Document \"\(name)\" (in \(field)) is not in the request's database \"\(database.name)\".")
        }
        return parsed.path
    }
}
