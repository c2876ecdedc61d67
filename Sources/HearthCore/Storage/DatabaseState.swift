/// One immutable version of a database's contents. Copying it is O(1) (the document tree is
/// persistent and structurally shared), so any number of readers, snapshots and forks can
/// hold versions while commits produce new ones.
public struct DatabaseState: Sendable {
    public let database: DatabaseID
    /// The commit time of the last commit applied to this state.
    public internal(set) var readTime: Timestamp
    /// Every document key with its history (including recently deleted ones).
    var documents: PersistentSortedMap<DocumentKey, DocumentVersion>
    /// Number of documents that currently exist.
    public internal(set) var documentCount: Int
    /// The indexes materialised so far, in step with `documents`.
    var indexes = IndexStore()

    init(database: DatabaseID, readTime: Timestamp) {
        self.database = database
        self.readTime = readTime
        documents = PersistentSortedMap()
        documentCount = 0
    }

    /// A state holding `documents` (recovered from a data directory).
    init(database: DatabaseID, readTime: Timestamp, documents: PersistentSortedMap<DocumentKey, DocumentVersion>, documentCount: Int) {
        self.database = database
        self.readTime = readTime
        self.documents = documents
        self.documentCount = documentCount
    }

    /// The document at `path` as of this state.
    public func document(_ path: ResourcePath) -> Document? {
        documents[DocumentKey(path)]?.document
    }

    /// The document at `path` as of an earlier read time still retained.
    public func document(_ path: ResourcePath, at time: Timestamp) -> Document? {
        documents[DocumentKey(path)]?.version(at: time)?.document
    }

    /// The documents directly in `collection`, in document-ID order; with `time`, as of
    /// that retained read time.
    public func documents(in collection: ResourcePath, at time: Timestamp? = nil) -> [Document] {
        var out: [Document] = []
        let start = DocumentKey.start(of: collection)
        var it = documents.elements(from: start, inclusive: true, descending: false)
        while let (key, version) = it.next(), key.hasPrefix(start) {
            let doc = time.map { version.version(at: $0)?.document } ?? version.document
            if let doc { out.append(doc) }
        }
        return out
    }

    /// Every existing document, in storage order (by collection, then ID).
    public func allDocuments(at time: Timestamp? = nil) -> [Document] {
        var out: [Document] = []
        out.reserveCapacity(documentCount)
        for (_, version) in documents {
            let doc = time.map { version.version(at: $0)?.document } ?? version.document
            if let doc { out.append(doc) }
        }
        return out
    }

    /// True when both states hold the same document tree (O(1)).
    public func hasSameDocuments(as other: DatabaseState) -> Bool {
        documents.isIdentical(to: other.documents)
    }

    /// The documents that differ between `older` and this state, as (before, after) pairs;
    /// shared subtrees are skipped, so the cost follows the number of changes.
    public func changes(since older: DatabaseState) -> [(path: ResourcePath, before: Document?, after: Document?)] {
        documents.differences(from: older.documents, isSame: { $0 === $1 })
            .compactMap { entry in
                let before = entry.old?.document, after = entry.new?.document
                if before == nil && after == nil { return nil }
                if let b = before, let a = after, b == a { return nil }
                return (entry.key.path, before, after)
            }
    }
}

/// An O(1) capture of a whole database, for `restore`.
public struct DatabaseSnapshot: Sendable {
    public let state: DatabaseState
}

extension DatabaseState {
    /// A state holding exactly `documents` (each at its own update time, no history), as of
    /// `readTime`: what an SDK instance's cache holds, for views and reads that see only
    /// that (`Database.setListenClientOffline(_:_:holding:)`). Indexes are materialised on
    /// demand by whoever reads them. O(n log n).
    public static func holding(_ documents: some Sequence<Document>, database: DatabaseID, readTime: Timestamp) -> DatabaseState {
        var map = PersistentSortedMap<DocumentKey, DocumentVersion>()
        var count = 0
        for doc in documents {
            let previous = map.updateValue(DocumentVersion(document: doc, since: doc.updateTime, older: nil), forKey: DocumentKey(doc.path))
            if previous == nil { count += 1 }
        }
        return DatabaseState(database: database, readTime: readTime, documents: map, documentCount: count)
    }
}

extension Document {
    /// Whether this is a client's local version (a pending write applied by
    /// `Write.applyLocally`, whose update time has an odd nanosecond count) rather than one
    /// the database committed (commit times are whole microseconds).
    public var isLocalVersion: Bool { updateTime.nanos & 1 == 1 }
}
