import HearthCore
import HearthLock
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
///
/// Before any lock, each thread looks at what it last encoded or found (`LastEncodings`,
/// thread-local): a commit's deliveries on one event loop ask for the same DocumentChange
/// and the same NO_CHANGE stream after stream, so nearly every lookup ends there, with no
/// lock and nothing shared between the loops (a NO_CHANGE is encoded once a commit per
/// thread, not once for all — a few encodings a commit instead of one lock a delivery).
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
        let last = LastEncodings.current
        if let hit = last.change(doc, database: database, targetIDs: targetIDs, codec: kind) { return hit }
        let bytes = sharedDocumentChange(doc, database: database, targetIDs: targetIDs, codec: codec)
        last.keep(doc, database: database, targetIDs: targetIDs, codec: kind, bytes: bytes)
        return bytes
    }

    private static func sharedDocumentChange(_ doc: Document, database: DatabaseID, targetIDs: [Int32], codec: any ListenCodec) -> [UInt8] {
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

    /// The global NO_CHANGE at `readTime` with its resume token, encoded by `codec` once a
    /// commit on each thread that sends it.
    static func noChange(_ readTime: Timestamp, codec: any ListenCodec) -> [UInt8] {
        let kind = codec.kind
        let last = LastEncodings.current
        if let hit = last.noChange(readTime, codec: kind) { return hit }
        let bytes = codec.targetChange(.noChange, targetIDs: [], resumeToken: ListenResumeToken.encode(readTime), readTime: readTime)
        last.keep(noChange: readTime, codec: kind, bytes: bytes)
        return bytes
    }

    /// One thread's last DocumentChange and NO_CHANGE per codec (touched by that thread only).
    private final class LastEncodings {
        struct Change {
            /// The version encoded: held here, so it is never changed in place (a change
            /// would copy it) and a pointer compare finds it again.
            let document: Document
            let codec: ListenCodecKind
            let database: DatabaseID
            let targetIDs: [Int32]
            let bytes: [UInt8]
        }
        private var changes: [Change] = []
        private var noChanges: [(codec: ListenCodecKind, readTime: Timestamp, bytes: [UInt8])] = []

        func change(_ doc: Document, database: DatabaseID, targetIDs: [Int32], codec: ListenCodecKind) -> [UInt8]? {
            for c in changes where c.codec == codec {
                guard c.document.isIdentical(to: doc), c.targetIDs == targetIDs, c.database == database else { return nil }
                return c.bytes
            }
            return nil
        }

        func keep(_ doc: Document, database: DatabaseID, targetIDs: [Int32], codec: ListenCodecKind, bytes: [UInt8]) {
            changes.removeAll { $0.codec == codec }
            changes.append(Change(document: doc, codec: codec, database: database, targetIDs: targetIDs, bytes: bytes))
        }

        func noChange(_ readTime: Timestamp, codec: ListenCodecKind) -> [UInt8]? {
            for n in noChanges where n.codec == codec { return n.readTime == readTime ? n.bytes : nil }
            return nil
        }

        func keep(noChange readTime: Timestamp, codec: ListenCodecKind, bytes: [UInt8]) {
            noChanges.removeAll { $0.codec == codec }
            noChanges.append((codec, readTime, bytes))
        }

        /// Released with its thread.
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            #if canImport(Glibc)
            pthread_key_create(&key) { pointer in
                if let pointer { Unmanaged<LastEncodings>.fromOpaque(pointer).release() }
            }
            #else
            pthread_key_create(&key) { pointer in Unmanaged<LastEncodings>.fromOpaque(pointer).release() }
            #endif
            return key
        }()

        static var current: LastEncodings {
            if let pointer = pthread_getspecific(key) { return Unmanaged<LastEncodings>.fromOpaque(pointer).takeUnretainedValue() }
            let made = LastEncodings()
            pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
            return made
        }
    }
}
