import HearthCore
import HearthGRPC
import HearthProtobuf

/// The single-document and listing RPCs' messages (google/firestore/v1/firestore.proto):
/// GetDocumentRequest {name = 1, mask = 2, transaction = 3, read_time = 5},
/// CreateDocumentRequest {parent = 1, collection_id = 2, document_id = 3, document = 4, mask = 5},
/// UpdateDocumentRequest {document = 1, update_mask = 2, mask = 3, current_document = 4},
/// DeleteDocumentRequest {name = 1, current_document = 2},
/// ListDocumentsRequest {parent = 1, collection_id = 2, page_size = 3, page_token = 4,
/// order_by = 6, mask = 7, transaction = 8, read_time = 10, show_missing = 12} →
/// {documents = 1, next_page_token = 2}, and ListCollectionIdsRequest {parent = 1,
/// page_size = 2, page_token = 3, read_time = 4} → {collection_ids = 1, next_page_token = 2}.
/// A present but empty `mask` means "no fields" (nil: every field).
enum DocumentRequestMessages {
    struct GetRequest {
        var name = ""
        var mask: [FieldPath]?
        var consistency: ReadConsistency = .current
    }

    static func decodeGet(_ bytes: [UInt8]) throws(FirestoreError) -> GetRequest {
        var r = ProtoReader(bytes)
        var req = GetRequest()
        while let key = try r.next() {
            if try TransactionMessages.readConsistency(key, &r, into: &req.consistency, transaction: 3, newTransaction: nil, readTime: 5) { continue }
            switch key.number {
            case 1: req.name = try r.readString(key)
            case 2: req.mask = try readMask(key, &r, into: req.mask)
            default: try r.skip(key)
            }
        }
        return req
    }

    struct CreateRequest {
        var parent = ""
        var collectionID = ""
        var documentID = ""
        var document: DocumentMessage.Decoded?
        var mask: [FieldPath]?
    }

    static func decodeCreate(_ bytes: [UInt8]) throws(FirestoreError) -> CreateRequest {
        var r = ProtoReader(bytes)
        var req = CreateRequest()
        while let key = try r.next() {
            switch key.number {
            case 1: req.parent = try r.readString(key)
            case 2: req.collectionID = try r.readString(key)
            case 3: req.documentID = try r.readString(key)
            case 4:
                var sub = try r.readMessage(key)
                req.document = try DocumentMessage.decode(&sub)
            case 5: req.mask = try readMask(key, &r, into: req.mask)
            default: try r.skip(key)
            }
        }
        return req
    }

    struct UpdateRequest {
        var document: DocumentMessage.Decoded?
        var updateMask: [FieldPath]?
        var mask: [FieldPath]?
        var precondition: Precondition?
    }

    static func decodeUpdate(_ bytes: [UInt8]) throws(FirestoreError) -> UpdateRequest {
        var r = ProtoReader(bytes)
        var req = UpdateRequest()
        while let key = try r.next() {
            switch key.number {
            case 1:
                var sub = try r.readMessage(key)
                req.document = try DocumentMessage.decode(&sub)
            case 2: req.updateMask = try readMask(key, &r, into: req.updateMask)
            case 3: req.mask = try readMask(key, &r, into: req.mask)
            case 4:
                var sub = try r.readMessage(key)
                req.precondition = try WriteMessage.decodePrecondition(&sub)
            default: try r.skip(key)
            }
        }
        return req
    }

    static func decodeDelete(_ bytes: [UInt8]) throws(FirestoreError) -> (name: String, precondition: Precondition?) {
        var r = ProtoReader(bytes)
        var name = ""
        var precondition: Precondition?
        while let key = try r.next() {
            switch key.number {
            case 1: name = try r.readString(key)
            case 2:
                var sub = try r.readMessage(key)
                precondition = try WriteMessage.decodePrecondition(&sub)
            default: try r.skip(key)
            }
        }
        return (name, precondition)
    }

    struct ListRequest {
        var parent = ""
        var collectionID = ""
        var pageSize: Int32 = 0
        var pageToken = ""
        var orderBy = ""
        var mask: [FieldPath]?
        var consistency: ReadConsistency = .current
        var showMissing = false
    }

    static func decodeList(_ bytes: [UInt8]) throws(FirestoreError) -> ListRequest {
        var r = ProtoReader(bytes)
        var req = ListRequest()
        while let key = try r.next() {
            if try TransactionMessages.readConsistency(key, &r, into: &req.consistency, transaction: 8, newTransaction: nil, readTime: 10) { continue }
            switch key.number {
            case 1: req.parent = try r.readString(key)
            case 2: req.collectionID = try r.readString(key)
            case 3: req.pageSize = try r.readInt32(key)
            case 4: req.pageToken = try r.readString(key)
            case 6: req.orderBy = try r.readString(key)
            case 7: req.mask = try readMask(key, &r, into: req.mask)
            case 12: req.showMissing = try r.readBool(key)
            default: try r.skip(key)
            }
        }
        return req
    }

    /// ListDocumentsResponse: documents (missing ones carry only their name).
    static func encodeListResponse(_ entries: [ListedDocument], nextPageToken: String?, database: DatabaseID,
                                   mask: [FieldPath]?) -> [UInt8] {
        var w = ProtoWriter()
        for entry in entries {
            switch entry {
            case .document(let d): w.writeMessage(1) { DocumentMessage.encode(d, database: database, mask: mask, into: &$0) }
            case .missing(let p): w.writeMessage(1) { $0.writeString(1, database.resourceName(p)) }
            }
        }
        if let nextPageToken { w.writeString(2, nextPageToken) }
        return w.bytes
    }

    struct ListCollectionIdsRequest {
        var parent = ""
        var pageSize: Int32 = 0
        var pageToken = ""
        var readTime: Timestamp?
    }

    static func decodeListCollectionIds(_ bytes: [UInt8]) throws(FirestoreError) -> ListCollectionIdsRequest {
        var r = ProtoReader(bytes)
        var req = ListCollectionIdsRequest()
        while let key = try r.next() {
            switch key.number {
            case 1: req.parent = try r.readString(key)
            case 2: req.pageSize = try r.readInt32(key)
            case 3: req.pageToken = try r.readString(key)
            case 4:
                var sub = try r.readMessage(key)
                req.readTime = try WellKnownMessages.decodeTimestamp(&sub)
            default: try r.skip(key)
            }
        }
        return req
    }

    static func encodeListCollectionIdsResponse(_ ids: [String], nextPageToken: String?) -> [UInt8] {
        var w = ProtoWriter()
        for id in ids { w.writeString(1, id) }
        if let nextPageToken { w.writeString(2, nextPageToken) }
        return w.bytes
    }

    /// A DocumentMask field: repeated occurrences merge (protobuf message semantics).
    static func readMask(_ key: ProtoFieldKey, _ reader: inout ProtoReader, into existing: [FieldPath]?) throws(FirestoreError) -> [FieldPath] {
        var sub = try reader.readMessage(key)
        return (existing ?? []) + (try WriteMessage.decodeDocumentMask(&sub))
    }
}
