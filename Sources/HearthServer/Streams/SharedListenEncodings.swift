import HearthCore
import HearthLock

/// A commit's change encoded once per codec and target ids, and the bytes shared by every
/// Listen stream that receives it. With 10,000 streams watching one document a commit is
/// 10,000 deliveries of the same DocumentChange and the same NO_CHANGE; encoding each for
/// each stream (protobuf, or proto3 JSON for WebChannel) was most of the server's CPU per
/// delivery. The bytes depend only on the document version, the database, the codec and
/// the target ids, so streams whose targets share an id (clients number their targets
/// alike: the Web SDK's first is 2) share one encoding; others get one each.
///
/// A document's encodings live in its front-end slot (`Document.frontEndCache`): a lookup
/// is one lock and a pointer, no hashing of paths, and they go when a commit replaces the
/// document. Only a commit's changes are shared, not initial results (a query's whole
/// result would otherwise be kept twice); what a shared document holds is bounded by
/// `maxVariants` encodings of it. Two streams missing at once both encode and one
/// encoding is kept: that costs an encoding, never a wrong byte.
enum SharedListenEncodings {
    /// Encodings kept per document version (codec × database × target ids); past it the
    /// oldest goes.
    static let maxVariants = 8

    /// The slot's owner (`Document.frontEndCache(for:)`).
    private final class Owner: Sendable {}
    private static let owner = Owner()

    private final class Encodings: Sendable {
        struct Variant {
            // The document's name and times as encoded: a document changed in place (held
            // by no one else) keeps its slot when only these change.
            let path: ResourcePath
            let createTime: Timestamp
            let updateTime: Timestamp
            let codec: ListenCodecKind
            let database: DatabaseID
            let targetIDs: [Int32]
            let bytes: [UInt8]
        }
        let variants = HearthMutex<[Variant]>([])
    }

    /// The DocumentChange for `doc` on `targetIDs`, encoded by `codec` once for every
    /// stream asking for the same.
    static func documentChange(_ doc: Document, database: DatabaseID, targetIDs: [Int32], codec: any ListenCodec) -> [UInt8] {
        let kind = codec.kind
        let encodings: Encodings
        if let cached = doc.frontEndCache(for: owner) as? Encodings {
            encodings = cached
            let hit = encodings.variants.withLock { variants -> [UInt8]? in
                for v in variants where v.codec == kind && v.targetIDs == targetIDs && v.database == database
                    && v.updateTime == doc.updateTime && v.createTime == doc.createTime && v.path == doc.path { return v.bytes }
                return nil
            }
            if let hit { return hit }
        } else {
            encodings = Encodings()
            doc.setFrontEndCache(encodings, for: owner)
        }
        let bytes = codec.documentChange(doc, database: database, targetIDs: targetIDs)
        encodings.variants.withLock { variants in
            if variants.count >= maxVariants { variants.removeFirst() }
            variants.append(.init(path: doc.path, createTime: doc.createTime, updateTime: doc.updateTime,
                                  codec: kind, database: database, targetIDs: targetIDs, bytes: bytes))
        }
        return bytes
    }

    /// The last NO_CHANGE each codec encoded (its read time and bytes): every stream sends
    /// the same one after a commit's changes.
    private static let noChanges = HearthMutex<[ListenCodecKind: (readTime: Timestamp, bytes: [UInt8])]>([:])

    /// The global NO_CHANGE at `readTime` with its resume token, encoded by `codec` once for
    /// every stream sending the same.
    static func noChange(_ readTime: Timestamp, codec: any ListenCodec) -> [UInt8] {
        let kind = codec.kind
        if let hit = noChanges.withLock({ $0[kind].flatMap { $0.readTime == readTime ? $0.bytes : nil } }) { return hit }
        let bytes = codec.targetChange(.noChange, targetIDs: [], resumeToken: ListenResumeToken.encode(readTime), readTime: readTime)
        noChanges.withLock { $0[kind] = (readTime, bytes) }
        return bytes
    }
}
