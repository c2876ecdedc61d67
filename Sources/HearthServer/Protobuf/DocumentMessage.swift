import HearthCore
import HearthGRPC

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
        w.writeString(1, database.resourceName(doc.path))
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
