import HearthCore
import HearthGRPC
import HearthProtobuf

/// `google.firestore.v1.Write` ⇄ `HearthCore.Write`, with `Precondition`, `DocumentMask`,
/// `DocumentTransform` / `DocumentTransform.FieldTransform` and `WriteResult`.
///
/// Write {oneof operation: update = 1 (Document), delete = 2, verify = 5 (the mobile
/// SDKs' field), transform = 6 (DocumentTransform); update_mask = 3,
/// current_document = 4, update_transforms = 7}. Semantics mirror the REST mapping:
/// exactly one operation; update_mask and update_transforms only with update.
enum WriteMessage {
    static func decode(_ reader: inout ProtoReader, database: DatabaseID) throws(FirestoreError) -> Write {
        enum Operation { case update(DocumentMessage.Decoded), delete(String), verify(String), transform(String, [FieldTransform]) }
        var operations: [Operation] = []
        var mask: [FieldPath]?
        var transforms: [FieldTransform]?
        var precondition: Precondition?
        while let key = try reader.next() {
            switch key.number {
            case 1:
                var sub = try reader.readMessage(key)
                operations.append(.update(try DocumentMessage.decode(&sub)))
            case 2: operations.append(.delete(try reader.readString(key)))
            case 5: operations.append(.verify(try reader.readString(key)))
            case 6:
                var sub = try reader.readMessage(key)
                let (document, fieldTransforms) = try decodeDocumentTransform(&sub)
                operations.append(.transform(document, fieldTransforms))
            case 3:
                var sub = try reader.readMessage(key)
                mask = (mask ?? []) + (try decodeDocumentMask(&sub))
            case 4:
                var sub = try reader.readMessage(key)
                precondition = try decodePrecondition(&sub)
            case 7:
                var sub = try reader.readMessage(key)
                transforms = (transforms ?? []) + [try decodeFieldTransform(&sub)]
            default:
                try reader.skip(key)
            }
        }
        guard operations.count == 1, let operation = operations.first else {
            throw operations.isEmpty ? .emptyWriteOperation : .invalidArgument("Multiple values for oneof operation in a write.")
        }
        var isUpdate = false
        if case .update = operation { isUpdate = true }
        if transforms != nil && !isUpdate { throw .invalidArgument("update_transforms can only be set with an update.") }
        if mask != nil && !isUpdate { throw .invalidArgument("update_mask can only be set with an update.") }
        switch operation {
        case .update(let doc):
            guard !doc.name.isEmpty else { throw .invalidArgument("Document name is required (in write.update.name).") }
            let path = try DocumentMessage.documentPath(doc.name, database: database, field: "write.update.name")
            if let mask {
                return Write(path: path, operation: .update(doc.fields, mask: mask.filter { !$0.isDocumentName }),
                             transforms: transforms ?? [], precondition: precondition)
            }
            return Write(path: path, operation: .set(doc.fields), transforms: transforms ?? [], precondition: precondition)
        case .delete(let name):
            return Write(path: try DocumentMessage.documentPath(name, database: database, field: "write.delete"),
                         operation: .delete, precondition: precondition)
        case .verify(let name):
            return Write(path: try DocumentMessage.documentPath(name, database: database, field: "write.verify"),
                         operation: .verify, precondition: precondition)
        case .transform(let name, let fieldTransforms):
            guard !name.isEmpty else { throw .invalidArgument("Document name is required (in write.transform.document).") }
            return Write(path: try DocumentMessage.documentPath(name, database: database, field: "write.transform.document"),
                         operation: .transformOnly, transforms: fieldTransforms, precondition: precondition)
        }
    }

    static func encode(_ write: Write, database: DatabaseID, into w: inout ProtoWriter) {
        let name = database.resourceName(write.path)
        switch write.operation {
        case .set(let fields):
            w.writeMessage(1) { DocumentMessage.encode(.init(name: name, fields: fields), into: &$0) }
        case .update(let fields, let mask):
            w.writeMessage(1) { DocumentMessage.encode(.init(name: name, fields: fields), into: &$0) }
            w.writeMessage(3) { encodeDocumentMask(mask, into: &$0) }
        case .delete:
            w.writeString(2, name)
        case .verify:
            w.writeString(5, name)
        case .transformOnly:
            w.writeMessage(6) { t in
                t.writeString(1, name)
                for ft in write.transforms { t.writeMessage(2) { encodeFieldTransform(ft, into: &$0) } }
            }
        }
        if let p = write.precondition { w.writeMessage(4) { encodePrecondition(p, into: &$0) } }
        if write.operation != .transformOnly {
            for ft in write.transforms { w.writeMessage(7) { encodeFieldTransform(ft, into: &$0) } }
        }
    }

    // MARK: Precondition {oneof: exists = 1, update_time = 2}

    /// nil when the message sets neither member (no condition).
    static func decodePrecondition(_ reader: inout ProtoReader) throws(FirestoreError) -> Precondition? {
        var result: Precondition?
        while let key = try reader.next() {
            switch key.number {
            case 1: result = .exists(try reader.readBool(key))
            case 2:
                var sub = try reader.readMessage(key)
                result = .updateTime(try WellKnownMessages.decodeTimestamp(&sub))
            default: try reader.skip(key)
            }
        }
        return result
    }

    static func encodePrecondition(_ p: Precondition, into w: inout ProtoWriter) {
        switch p {
        case .exists(let b): w.writeBool(1, b)
        case .updateTime(let t): WellKnownMessages.writeTimestamp(2, t, into: &w)
        }
    }

    // MARK: DocumentMask {field_paths = 1}

    static func decodeDocumentMask(_ reader: inout ProtoReader) throws(FirestoreError) -> [FieldPath] {
        var paths: [FieldPath] = []
        while let key = try reader.next() {
            if key.number == 1 {
                paths.append(try FieldPath.parseServerFormat(try reader.readString(key)))
            } else {
                try reader.skip(key)
            }
        }
        return paths
    }

    static func encodeDocumentMask(_ paths: [FieldPath], into w: inout ProtoWriter) {
        for p in paths { w.writeString(1, p.serverFormat) }
    }

    // MARK: DocumentTransform {document = 1, field_transforms = 2}

    static func decodeDocumentTransform(_ reader: inout ProtoReader) throws(FirestoreError) -> (String, [FieldTransform]) {
        var document = ""
        var transforms: [FieldTransform] = []
        while let key = try reader.next() {
            switch key.number {
            case 1: document = try reader.readString(key)
            case 2:
                var sub = try reader.readMessage(key)
                transforms.append(try decodeFieldTransform(&sub))
            default: try reader.skip(key)
            }
        }
        return (document, transforms)
    }

    // MARK: FieldTransform {field_path = 1; oneof: set_to_server_value = 2 (REQUEST_TIME = 1),
    // increment = 3, maximum = 4, minimum = 5, append_missing_elements = 6, remove_all_from_array = 7}

    static func decodeFieldTransform(_ reader: inout ProtoReader) throws(FirestoreError) -> FieldTransform {
        var path: String?
        var kind: FieldTransform.Kind?
        var serverValue: Int32?
        while let key = try reader.next() {
            switch key.number {
            case 1: path = try reader.readString(key)
            case 2:
                serverValue = try reader.readInt32(key)
                kind = .serverTimestamp
            case 3, 4, 5:
                var sub = try reader.readMessage(key)
                let v = try ValueMessage.decode(&sub)
                kind = key.number == 3 ? .increment(v) : key.number == 4 ? .maximum(v) : .minimum(v)
                serverValue = nil
            case 6, 7:
                var sub = try reader.readMessage(key)
                let items = try ValueMessage.decodeArray(&sub)
                kind = key.number == 6 ? .appendMissingElements(items) : .removeAllFromArray(items)
                serverValue = nil
            default: try reader.skip(key)
            }
        }
        guard let path else { throw .invalidArgument("A field transform needs a field_path.") }
        let fieldPath = try FieldPath.parseServerFormat(path)
        guard let kind else { throw .missingTransformType }
        if let serverValue, serverValue != 1 {
            throw .invalidArgument("Unsupported server value for field \(fieldPath.serverFormat).")
        }
        return FieldTransform(path: fieldPath, kind: kind)
    }

    static func encodeFieldTransform(_ t: FieldTransform, into w: inout ProtoWriter) {
        w.writeString(1, t.path.serverFormat)
        switch t.kind {
        case .serverTimestamp: w.writeInt32(2, 1)
        case .increment(let v): ValueMessage.writeValue(3, v, into: &w)
        case .maximum(let v): ValueMessage.writeValue(4, v, into: &w)
        case .minimum(let v): ValueMessage.writeValue(5, v, into: &w)
        case .appendMissingElements(let items): w.writeMessage(6) { ValueMessage.encodeArray(items, into: &$0) }
        case .removeAllFromArray(let items): w.writeMessage(7) { ValueMessage.encodeArray(items, into: &$0) }
        }
    }

    // MARK: WriteResult {update_time = 1, transform_results = 2}

    static func encodeWriteResult(_ r: WriteResult, into w: inout ProtoWriter) {
        if let t = r.updateTime { WellKnownMessages.writeTimestamp(1, t, into: &w) }
        for v in r.transformResults { ValueMessage.writeValue(2, v, into: &w) }
    }

    static func decodeWriteResult(_ reader: inout ProtoReader) throws(FirestoreError) -> WriteResult {
        var result = WriteResult(updateTime: nil, transformResults: [])
        while let key = try reader.next() {
            switch key.number {
            case 1:
                var sub = try reader.readMessage(key)
                result.updateTime = try WellKnownMessages.decodeTimestamp(&sub)
            case 2:
                var sub = try reader.readMessage(key)
                result.transformResults.append(try ValueMessage.decode(&sub))
            default: try reader.skip(key)
            }
        }
        return result
    }
}
