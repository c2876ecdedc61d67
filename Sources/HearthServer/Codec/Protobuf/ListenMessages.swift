import HearthCore
import HearthGRPC
import HearthProtobuf

/// The Listen stream's messages (firestore.proto, write.proto):
/// ListenRequest {database = 1, add_target = 2 | remove_target = 3, labels = 4};
/// Target {query = 2 {parent = 1, structured_query = 2} | documents = 3 {documents = 2},
/// resume_token = 4 | read_time = 11, target_id = 5, once = 6, expected_count = 12} →
/// ListenResponse {target_change = 2 {target_change_type = 1, target_ids = 2, cause = 3
/// (google.rpc.Status {code = 1, message = 2}), resume_token = 4, read_time = 6} |
/// document_change = 3 {document = 1, target_ids = 5, removed_target_ids = 6} |
/// document_delete = 4 {document = 1, removed_target_ids = 6, read_time = 4} |
/// document_remove = 6 {document = 1, removed_target_ids = 2, read_time = 4} |
/// filter = 5 (ExistenceFilter {target_id = 1, count = 2})}.
enum ListenMessages {
    /// A decoded `Target`. Names and the query stay undecoded text / bytes until the
    /// session resolves them, so a bad target is reported on that target (REMOVE with a
    /// cause) rather than ending the stream.
    struct TargetRequest: Sendable {
        enum Kind: Sendable {
            case documents([String])
            case query(parent: String, structuredQuery: StreamMessage?)
        }

        var targetID: Int32 = 0
        var kind: Kind?
        var resumeToken: [UInt8]?
        var readTime: Timestamp?
        var once = false
        /// The number of documents the client holds for a resumed target (Int32Value).
        var expectedCount: Int32?
    }

    /// A decoded `ListenRequest`.
    struct Request: Sendable {
        enum Change: Sendable {
            case add(TargetRequest)
            case remove(Int32)
        }

        var database = ""
        var change: Change?
    }

    /// `TargetChange.TargetChangeType`.
    enum ChangeType: UInt64, Sendable {
        case noChange = 0, add = 1, remove = 2, current = 3, reset = 4
    }

    static func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> Request {
        var r = ProtoReader(bytes)
        var req = Request()
        while let key = try r.next() {
            switch key.number {
            case 1: req.database = try r.readString(key)
            case 2:
                var sub = try r.readMessage(key)
                req.change = .add(try decodeTarget(&sub))
            case 3: req.change = .remove(try r.readInt32(key))
            default: try r.skip(key)
            }
        }
        return req
    }

    static func decodeTarget(_ r: inout ProtoReader) throws(FirestoreError) -> TargetRequest {
        var t = TargetRequest()
        while let key = try r.next() {
            switch key.number {
            case 2:
                var sub = try r.readMessage(key)
                var parent = ""
                var query: StreamMessage?
                while let k = try sub.next() {
                    switch k.number {
                    case 1: parent = try sub.readString(k)
                    case 2: query = .protobuf(try sub.readMessage(k))
                    default: try sub.skip(k)
                    }
                }
                t.kind = .query(parent: parent, structuredQuery: query)
            case 3:
                var sub = try r.readMessage(key)
                var names: [String] = []
                while let k = try sub.next() {
                    if k.number == 2 { names.append(try sub.readString(k)) } else { try sub.skip(k) }
                }
                t.kind = .documents(names)
            case 4: t.resumeToken = try r.readBytes(key); t.readTime = nil
            case 11:
                var sub = try r.readMessage(key)
                t.readTime = try WellKnownMessages.decodeTimestamp(&sub); t.resumeToken = nil
            case 5: t.targetID = try r.readInt32(key)
            case 6: t.once = try r.readBool(key)
            case 12:
                var sub = try r.readMessage(key)
                t.expectedCount = try WellKnownMessages.decodeInt32Value(&sub)
            default: try r.skip(key)
            }
        }
        return t
    }

    /// Resolves a target's names and query in `database`: INVALID_ARGUMENT for a missing
    /// target type, a malformed name, a name in another database or a malformed query.
    static func resolve(_ kind: TargetRequest.Kind?, database: DatabaseID) throws(FirestoreError) -> ListenTarget {
        switch kind {
        case nil:
            throw .invalidArgument("A target needs a query or documents.")
        case .documents(let names)?:
            guard !names.isEmpty else { throw .invalidArgument("A documents target needs at least one document name.") }
            var paths: [ResourcePath] = []
            for name in names {
                let (db, path) = try ResourceNameFields.document(name)
                guard db == database else {
                    throw .invalidArgument("Document \"\(name)\" is not in the request's database \"\(database.name)\".")
                }
                paths.append(path)
            }
            return .documents(paths)
        case .query(let parent, let bytes)?:
            let (db, parentPath) = try ResourceNameFields.parent(parent)
            guard db == database else {
                throw .invalidArgument("Query parent \"\(parent)\" is not in the request's database \"\(database.name)\".")
            }
            switch bytes {
            case nil: throw .invalidArgument("A query target needs a structured_query.")
            case .protobuf(var sub)?: return .query(try StructuredQueryMessage.decode(&sub, parent: parentPath))
            case .json(let json)?: return .query(try ProtoQuery.decode(json, parent: parentPath, context: "add_target.query.structured_query"))
            }
        }
    }

    // MARK: Responses

    static func encodeTargetChange(_ type: ChangeType, targetIDs: [Int32], cause: FirestoreError? = nil,
                                   resumeToken: [UInt8]? = nil, readTime: Timestamp? = nil) -> [UInt8] {
        var w = ProtoWriter()
        w.writeMessage(2) { m in
            if type != .noChange { m.writeUInt64(1, type.rawValue) }
            m.writePackedInt32(2, targetIDs)
            if let cause {
                m.writeMessage(3) { s in
                    s.writeInt32(1, Int32(cause.code.rawValue))
                    if !cause.message.isEmpty { s.writeString(2, cause.message) }
                }
            }
            if let resumeToken { m.writeBytes(4, resumeToken) }
            if let readTime { WellKnownMessages.writeTimestamp(6, readTime, into: &m) }
        }
        return w.bytes
    }

    static func encodeDocumentChange(_ doc: Document, database: DatabaseID, targetIDs: [Int32], removedTargetIDs: [Int32] = []) -> [UInt8] {
        var w = ProtoWriter(capacity: 32 + DocumentMessage.estimatedSize(doc))
        w.writeMessage(3) { m in
            m.writeMessage(1) { DocumentMessage.encode(doc, database: database, into: &$0) }
            m.writePackedInt32(5, targetIDs)
            m.writePackedInt32(6, removedTargetIDs)
        }
        return w.bytes
    }

    /// DocumentDelete: the document was deleted at `readTime`.
    static func encodeDocumentDelete(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        encodeDocumentGone(response: 4, targetsField: 6, path, database: database, removedTargetIDs: removedTargetIDs, readTime: readTime)
    }

    /// DocumentRemove: the document still exists but left the targets.
    static func encodeDocumentRemove(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        encodeDocumentGone(response: 6, targetsField: 2, path, database: database, removedTargetIDs: removedTargetIDs, readTime: readTime)
    }

    /// DocumentDelete and DocumentRemove carry the same three fields — the document's name
    /// (1), the targets it left, the read time (4) — at the response's field `response`,
    /// the targets at `targetsField`; written in field-number order.
    private static func encodeDocumentGone(response: Int, targetsField: Int, _ path: ResourcePath, database: DatabaseID,
                                           removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        var w = ProtoWriter()
        w.writeMessage(response) { m in
            m.writeString(1, database.resourceName(path))
            if targetsField < 4 { m.writePackedInt32(targetsField, removedTargetIDs) }
            WellKnownMessages.writeTimestamp(4, readTime, into: &m)
            if targetsField > 4 { m.writePackedInt32(targetsField, removedTargetIDs) }
        }
        return w.bytes
    }

    /// ExistenceFilter: how many documents match target `targetID` (the client compares it
    /// with what it holds; a mismatch makes it re-listen from scratch).
    static func encodeExistenceFilter(targetID: Int32, count: Int) -> [UInt8] {
        var w = ProtoWriter()
        w.writeMessage(5) { m in
            m.writeInt32(1, targetID)
            m.writeInt32(2, Int32(clamping: count))
        }
        return w.bytes
    }
}
