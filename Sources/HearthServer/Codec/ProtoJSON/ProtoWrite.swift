import Foundation
import HearthCore

/// Documents, writes, transforms, masks and preconditions ⇄ JSON.
enum ProtoWrite {
    // MARK: Documents

    /// A `Document` message; `mask` keeps only those fields (nil: all).
    static func encode(_ doc: Document, database: DatabaseID, mask: [FieldPath]? = nil) -> JSON {
        var pairs: [(String, JSON)] = [("name", .string(database.resourceName(doc.path)))]
        var fields = doc.fields
        if let mask {
            var projected = MapValue()
            for f in mask where !f.isDocumentName { if let v = fields.value(at: f) { projected.setValue(v, at: f) } }
            fields = projected
        }
        if !fields.isEmpty { pairs.append(("fields", ProtoValue.encodeFields(fields))) }
        pairs.append(("createTime", .string(doc.createTime.rfc3339)))
        pairs.append(("updateTime", .string(doc.updateTime.rfc3339)))
        return .object(pairs)
    }

    /// A document name in `database`, as a path (`projects/p/databases/d/documents/c/id`).
    static func documentPath(_ name: String, database: DatabaseID, context: String) throws(FirestoreError) -> ResourcePath {
        let parsed = try DocumentName.parse(name)
        guard parsed.database == database else {
            throw .invalidArgument("Document \"\(name)\" (at '\(context)') is not in the request's database \"\(database.name)\".")
        }
        return parsed.path
    }

    /// `DocumentMask.field_paths`.
    static func mask(_ json: JSON, context: String) throws(FirestoreError) -> [FieldPath] {
        var o = try ProtoObject(json, context: context)
        var paths: [FieldPath] = []
        if let list = o.take("fieldPaths") {
            guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".field_paths", type: "TYPE_STRING") }
            for (i, item) in items.enumerated() {
                paths.append(try FieldPath.parseServerFormat(try ProtoJSON.string(item, context: "\(context).field_paths[\(i)]")))
            }
        }
        try o.finish()
        return paths
    }

    static func precondition(_ json: JSON, context: String) throws(FirestoreError) -> Precondition? {
        var o = try ProtoObject(json, context: context)
        let exists = o.take("exists")
        let updateTime = o.take("updateTime")
        try o.finish()
        if exists != nil && updateTime != nil {
            throw ProtoJSON.invalid("Multiple values for oneof condition_type", context: context)
        }
        if let exists { return .exists(try ProtoJSON.bool(exists, context: context + ".exists")) }
        if let updateTime { return .updateTime(try ProtoJSON.timestamp(updateTime, context: context + ".update_time")) }
        return nil
    }

    // MARK: Writes

    static func decodeWrite(_ json: JSON, database: DatabaseID, context: String) throws(FirestoreError) -> Write {
        var o = try ProtoObject(json, context: context)
        let update = o.take("update")
        let delete = o.take("delete")
        let transform = o.take("transform")
        let verify = o.take("verify")
        let updateMask = o.take("updateMask")
        let updateTransforms = o.take("updateTransforms")
        let currentDocument = o.take("currentDocument")
        try o.finish()
        let operations = [update, delete, transform, verify].compactMap { $0 }
        guard operations.count == 1 else {
            if operations.isEmpty { throw .emptyWriteOperation }
            throw ProtoJSON.invalid("Multiple values for oneof operation", context: context)
        }
        var transforms: [FieldTransform] = []
        if let updateTransforms {
            guard update != nil else {
                throw .invalidArgument("update_transforms can only be set with an update (at '\(context)').")
            }
            transforms = try decodeTransforms(updateTransforms, context: context + ".update_transforms")
        }
        if updateMask != nil && update == nil {
            throw .invalidArgument("update_mask can only be set with an update (at '\(context)').")
        }
        let precondition = try currentDocument.flatMap { c throws(FirestoreError) in try Self.precondition(c, context: context + ".current_document") }
        if let update {
            var d = try ProtoObject(update, context: context + ".update")
            // An absent name is the empty name, whose parse says what it lacks (as the official
            // emulator answers).
            let name = try d.take("name").map { n throws(FirestoreError) in try ProtoJSON.string(n, context: context + ".update.name") } ?? ""
            let path = try documentPath(name, database: database, context: context + ".update.name")
            let fields = try d.take("fields").map { f throws(FirestoreError) in try ProtoValue.decodeFields(f, context: context + ".update.fields") } ?? MapValue()
            _ = d.take("createTime")
            _ = d.take("updateTime")
            try d.finish()
            if let updateMask {
                let paths = try mask(updateMask, context: context + ".update_mask").filter { !$0.isDocumentName }
                return Write(path: path, operation: .update(fields, mask: paths), transforms: transforms, precondition: precondition)
            }
            return Write(path: path, operation: .set(fields), transforms: transforms, precondition: precondition)
        }
        if let delete {
            let path = try documentPath(try ProtoJSON.string(delete, context: context + ".delete"), database: database, context: context + ".delete")
            return Write(path: path, operation: .delete, precondition: precondition)
        }
        if let verify {
            let path = try documentPath(try ProtoJSON.string(verify, context: context + ".verify"), database: database, context: context + ".verify")
            return Write(path: path, operation: .verify, precondition: precondition)
        }
        // The legacy `transform` operation (DocumentTransform).
        var t = try ProtoObject(transform!, context: context + ".transform")
        guard let doc = t.take("document") else { throw .invalidArgument("Document name is required (at '\(context).transform.document').") }
        let path = try documentPath(try ProtoJSON.string(doc, context: context + ".transform.document"), database: database, context: context + ".transform.document")
        let fieldTransforms = try t.take("fieldTransforms").map { j throws(FirestoreError) in try decodeTransforms(j, context: context + ".transform.field_transforms") } ?? []
        try t.finish()
        return Write(path: path, operation: .transformOnly, transforms: fieldTransforms, precondition: precondition)
    }

    static func decodeTransforms(_ json: JSON, context: String) throws(FirestoreError) -> [FieldTransform] {
        guard case .array(let items) = json else { throw ProtoJSON.badValue(json, context: context, type: "TYPE_MESSAGE") }
        var out: [FieldTransform] = []
        for (i, item) in items.enumerated() {
            let ctx = "\(context)[\(i)]"
            var o = try ProtoObject(item, context: ctx)
            guard let fp = o.take("fieldPath") else { throw .invalidArgument("A field transform needs a field_path (at '\(ctx)').") }
            let path = try FieldPath.parseServerFormat(try ProtoJSON.string(fp, context: ctx + ".field_path"))
            var kinds: [FieldTransform.Kind] = []
            if let v = o.take("setToServerValue") {
                let n = try ProtoJSON.enumCase(v, context: ctx + ".set_to_server_value", names: ["SERVER_VALUE_UNSPECIFIED": 0, "REQUEST_TIME": 1])
                guard n == 1 else { throw .invalidArgument("Unsupported server value for field \(path.serverFormat) (at '\(ctx)').") }
                kinds.append(.serverTimestamp)
            }
            if let v = o.take("increment") { kinds.append(.increment(try ProtoValue.decode(v, context: ctx + ".increment"))) }
            if let v = o.take("maximum") { kinds.append(.maximum(try ProtoValue.decode(v, context: ctx + ".maximum"))) }
            if let v = o.take("minimum") { kinds.append(.minimum(try ProtoValue.decode(v, context: ctx + ".minimum"))) }
            if let v = o.take("appendMissingElements") {
                kinds.append(.appendMissingElements(try arrayElements(v, context: ctx + ".append_missing_elements")))
            }
            if let v = o.take("removeAllFromArray") {
                kinds.append(.removeAllFromArray(try arrayElements(v, context: ctx + ".remove_all_from_array")))
            }
            try o.finish()
            guard kinds.count == 1 else {
                if kinds.isEmpty { throw .missingTransformType }
                throw ProtoJSON.invalid("Multiple values for oneof transform_type", context: ctx)
            }
            out.append(FieldTransform(path: path, kind: kinds[0]))
        }
        return out
    }

    /// An `ArrayValue` message: `{"values": [...]}`.
    private static func arrayElements(_ json: JSON, context: String) throws(FirestoreError) -> [Value] {
        var o = try ProtoObject(json, context: context)
        var values: [Value] = []
        if let list = o.take("values") {
            guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".values", type: "TYPE_MESSAGE") }
            for (i, item) in items.enumerated() { values.append(try ProtoValue.decode(item, context: "\(context).values[\(i)]")) }
        }
        try o.finish()
        return values
    }

    static func encode(_ result: WriteResult) -> JSON {
        var pairs: [(String, JSON)] = []
        if let t = result.updateTime { pairs.append(("updateTime", .string(t.rfc3339))) }
        if !result.transformResults.isEmpty { pairs.append(("transformResults", .array(result.transformResults.map(ProtoValue.encode)))) }
        return .object(pairs)
    }
}
