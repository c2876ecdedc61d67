import Foundation
import HearthCore

/// The Listen stream's messages in the proto3 JSON mapping, as WebChannel carries them:
/// the same `ListenMessages.Request` the protobuf decoder makes, and the same responses,
/// written with the REST API's value and document codec.
struct ListenJSONCodec: ListenCodec {
    var kind: ListenCodecKind { .json }

    func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> ListenMessages.Request {
        var o = try ProtoObject(parseJSON(bytes), context: "")
        var request = ListenMessages.Request()
        if let d = o.take("database") { request.database = try ProtoJSON.string(d, context: "database") }
        let add = o.take("addTarget")
        let remove = o.take("removeTarget")
        _ = o.take("labels")
        try o.finish()
        if add != nil && remove != nil { throw ProtoJSON.invalid("Multiple values for oneof target_change", context: nil) }
        if let remove { request.change = .remove(try ProtoJSON.int32(remove, context: "remove_target")) }
        if let add { request.change = .add(try target(add)) }
        return request
    }

    private func target(_ json: JSON) throws(FirestoreError) -> ListenMessages.TargetRequest {
        let context = "add_target"
        var o = try ProtoObject(json, context: context)
        var t = ListenMessages.TargetRequest()
        if let q = o.take("query") {
            var qo = try ProtoObject(q, context: context + ".query")
            let parent = try qo.take("parent").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: context + ".query.parent") } ?? ""
            let structured = qo.take("structuredQuery")
            try qo.finish()
            t.kind = .query(parent: parent, structuredQuery: structured.map(StreamMessage.json))
        }
        if let d = o.take("documents") {
            var docsObject = try ProtoObject(d, context: context + ".documents")
            var names: [String] = []
            if let list = docsObject.take("documents") {
                guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".documents.documents", type: "TYPE_STRING") }
                for (i, item) in items.enumerated() {
                    names.append(try ProtoJSON.string(item, context: "\(context).documents.documents[\(i)]"))
                }
            }
            try docsObject.finish()
            if t.kind != nil { throw ProtoJSON.invalid("Multiple values for oneof target_type", context: context) }
            t.kind = .documents(names)
        }
        if let r = o.take("resumeToken") { t.resumeToken = Array(try ProtoJSON.bytes(r, context: context + ".resume_token")) }
        if let r = o.take("readTime") { t.readTime = try ProtoJSON.timestamp(r, context: context + ".read_time") }
        if t.resumeToken != nil && t.readTime != nil { throw ProtoJSON.invalid("Multiple values for oneof resume_type", context: context) }
        if let id = o.take("targetId") { t.targetID = try ProtoJSON.int32(id, context: context + ".target_id") }
        if let once = o.take("once") { t.once = try ProtoJSON.bool(once, context: context + ".once") }
        if let c = o.take("expectedCount") { t.expectedCount = try ProtoJSON.int32(ProtoJSON.unwrap(c), context: context + ".expected_count") }
        try o.finish()
        return t
    }

    func targetChange(_ type: ListenMessages.ChangeType, targetIDs: [Int32], cause: FirestoreError?,
                      resumeToken: [UInt8]?, readTime: Timestamp?) -> [UInt8] {
        var m: [(String, JSON)] = []
        let names: [ListenMessages.ChangeType: String] = [.add: "ADD", .remove: "REMOVE", .current: "CURRENT", .reset: "RESET"]
        if let name = names[type] { m.append(("targetChangeType", .string(name))) }
        if !targetIDs.isEmpty { m.append(("targetIds", .array(targetIDs.map(JSON.int)))) }
        if let cause {
            var status: [(String, JSON)] = [("code", .int(cause.code.rawValue))]
            if !cause.message.isEmpty { status.append(("message", .string(cause.message))) }
            m.append(("cause", .object(status)))
        }
        if let resumeToken { m.append(("resumeToken", ProtoJSON.base64(Data(resumeToken)))) }
        if let readTime { m.append(("readTime", .string(readTime.rfc3339))) }
        return JSON.object([("targetChange", .object(m))]).bytes
    }

    func documentChange(_ doc: Document, database: DatabaseID, targetIDs: [Int32]) -> [UInt8] {
        JSON.object([("documentChange", .object([
            ("document", ProtoWrite.encode(doc, database: database)),
            ("targetIds", .array(targetIDs.map(JSON.int))),
        ]))]).bytes
    }

    func documentDelete(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        gone("documentDelete", path, database: database, removedTargetIDs: removedTargetIDs, readTime: readTime)
    }

    func documentRemove(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        gone("documentRemove", path, database: database, removedTargetIDs: removedTargetIDs, readTime: readTime)
    }

    private func gone(_ kind: String, _ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        JSON.object([(kind, .object([
            ("document", .string(database.resourceName(path))),
            ("removedTargetIds", .array(removedTargetIDs.map(JSON.int))),
            ("readTime", .string(readTime.rfc3339)),
        ]))]).bytes
    }

    func existenceFilter(targetID: Int32, count: Int) -> [UInt8] {
        JSON.object([("filter", .object([("targetId", .int(targetID)), ("count", .int(Int32(clamping: count)))]))]).bytes
    }
}

/// The Write stream's messages in the proto3 JSON mapping.
struct WriteJSONCodec: WriteCodec {
    func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> WriteStreamMessages.Request {
        var o = try ProtoObject(parseJSON(bytes), context: "")
        var request = WriteStreamMessages.Request()
        if let d = o.take("database") { request.database = try ProtoJSON.string(d, context: "database") }
        if let s = o.take("streamId") { request.streamID = try ProtoJSON.string(s, context: "stream_id") }
        if let t = o.take("streamToken") { request.streamToken = Array(try ProtoJSON.bytes(t, context: "stream_token")) }
        if let w = o.take("writes") {
            guard case .array(let items) = w else { throw ProtoJSON.badValue(w, context: "writes", type: "TYPE_MESSAGE") }
            request.writes = items.map(StreamMessage.json)
        }
        _ = o.take("labels")
        try o.finish()
        return request
    }

    func response(streamID: String, streamToken: [UInt8], result: CommitResult?) -> [UInt8] {
        var m: [(String, JSON)] = (streamID.isEmpty ? [] : [("streamId", .string(streamID))]) + [("streamToken", ProtoJSON.base64(Data(streamToken)))]
        if let result {
            m.append(("writeResults", .array(result.writeResults.map(ProtoWrite.encode))))
            m.append(("commitTime", .string(result.commitTime.rfc3339)))
        }
        return JSON.object(m).bytes
    }
}

/// A stream message's JSON text; malformed JSON is INVALID_ARGUMENT, as over REST.
private func parseJSON(_ bytes: [UInt8]) throws(FirestoreError) -> JSON {
    do {
        return try JSON.parse(bytes)
    } catch {
        throw .invalidArgument("Invalid JSON payload received. \(error)")
    }
}
