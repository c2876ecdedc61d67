import HearthCore

/// How a Listen stream's messages are encoded on its transport: protobuf over gRPC
/// (`ListenProtobufCodec`), proto3 JSON over WebChannel (`ListenJSONCodec`). The session
/// decides what to send; the codec only writes it.
protocol ListenCodec: Sendable {
    /// Which encoding this is: streams with the same kind share a commit's encoded
    /// changes (`SharedListenEncodings`).
    var kind: ListenCodecKind { get }
    func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> ListenMessages.Request
    func targetChange(_ type: ListenMessages.ChangeType, targetIDs: [Int32], cause: FirestoreError?,
                      resumeToken: [UInt8]?, readTime: Timestamp?) -> [UInt8]
    func documentChange(_ doc: Document, database: DatabaseID, targetIDs: [Int32]) -> [UInt8]
    func documentDelete(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8]
    func documentRemove(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8]
    func existenceFilter(targetID: Int32, count: Int) -> [UInt8]
}

extension ListenCodec {
    func targetChange(_ type: ListenMessages.ChangeType, targetIDs: [Int32], cause: FirestoreError? = nil,
                      resumeToken: [UInt8]? = nil, readTime: Timestamp? = nil) -> [UInt8] {
        targetChange(type, targetIDs: targetIDs, cause: cause, resumeToken: resumeToken, readTime: readTime)
    }
}

/// The encodings a Listen stream's messages come in.
enum ListenCodecKind: Hashable, Sendable {
    case protobuf, json
}

/// The gRPC encoding (firestore.proto).
struct ListenProtobufCodec: ListenCodec {
    var kind: ListenCodecKind { .protobuf }

    func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> ListenMessages.Request {
        try ListenMessages.decodeRequest(bytes)
    }

    func targetChange(_ type: ListenMessages.ChangeType, targetIDs: [Int32], cause: FirestoreError?,
                      resumeToken: [UInt8]?, readTime: Timestamp?) -> [UInt8] {
        ListenMessages.encodeTargetChange(type, targetIDs: targetIDs, cause: cause, resumeToken: resumeToken, readTime: readTime)
    }

    func documentChange(_ doc: Document, database: DatabaseID, targetIDs: [Int32]) -> [UInt8] {
        ListenMessages.encodeDocumentChange(doc, database: database, targetIDs: targetIDs)
    }

    func documentDelete(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        ListenMessages.encodeDocumentDelete(path, database: database, removedTargetIDs: removedTargetIDs, readTime: readTime)
    }

    func documentRemove(_ path: ResourcePath, database: DatabaseID, removedTargetIDs: [Int32], readTime: Timestamp) -> [UInt8] {
        ListenMessages.encodeDocumentRemove(path, database: database, removedTargetIDs: removedTargetIDs, readTime: readTime)
    }

    func existenceFilter(targetID: Int32, count: Int) -> [UInt8] {
        ListenMessages.encodeExistenceFilter(targetID: targetID, count: count)
    }
}
