extension DatabaseState {
    /// The ids of the collections directly under `parent` (the root, or a document) that
    /// hold at least one existing document at any depth — what ListCollectionIds answers —
    /// sorted as Firestore orders collection ids; with `time`, as of that retained read time.
    ///
    /// Every key below `parent` begins with the encoding of `parent`'s segments followed by
    /// the collection id's, so this reads one key per collection and then seeks past that
    /// collection's prefix: the cost follows the number of collections (and of deleted
    /// documents passed over), not of documents — a 100,000-document collection is one step.
    public func collectionIDs(under parent: ResourcePath, at time: Timestamp? = nil) -> [String] {
        var prefix: [UInt8] = []
        for segment in parent.segments { DocumentKey.encode(segment, into: &prefix) }
        let depth = parent.segments.count
        var ids: [String] = []
        var seek = DocumentKey.bound(prefix)
        while true {
            var it = documents.elements(from: seek, inclusive: true, descending: false)
            guard let (key, _) = it.next(), key.path.segments.count > depth, key.path.segments.starts(with: parent.segments) else { break }
            let id = key.path.segments[depth]
            var collection = prefix
            DocumentKey.encode(id, into: &collection)
            let scope = DocumentKey.bound(collection)
            // The first key of the collection may be a deleted document; look on for a live one.
            var live = false
            var walk = documents.elements(from: scope, inclusive: true, descending: false)
            while let (k, version) = walk.next(), k.hasPrefix(scope) {
                if (time.map { version.version(at: $0)?.document } ?? version.document) != nil { live = true; break }
            }
            if live { ids.append(id) }
            // 0x03 sorts after every byte that can follow a segment's encoding (0x00 ends the
            // collection path, 0x01 and 0x02 start a segment), so this skips the collection.
            seek = DocumentKey.bound(collection + [0x03])
        }
        return ids.sorted { ResourcePath.compareSegments($0, $1) < 0 }
    }
}

/// Where a page of a collection starts, by document ID (keyset paging).
public enum DocumentPageStart: Sendable, Equatable {
    /// The collection's first documents.
    case first
    /// The documents after this ID.
    case after(String)
    /// The documents from this ID on (it included, when it exists).
    case from(String)
    /// The documents just before this ID (the page that ends before it).
    case before(String)
}

extension DatabaseState {
    /// Up to `limit` existing documents directly in `collection`, in ID (`__name__`) order,
    /// from `start`. Reads the storage order itself — each collection's documents are
    /// contiguous there and in ID order — forwards or, for `.before`, backwards, so any page
    /// of any collection costs O(log n + limit) (deleted documents passed over aside). With
    /// `time`, the documents as they were then (a read within the version history).
    public func documents(in collection: ResourcePath, start: DocumentPageStart, limit: Int, at time: Timestamp? = nil) -> [Document] {
        guard limit > 0 else { return [] }
        let scope = DocumentKey.start(of: collection)
        var it: PersistentSortedMap<DocumentKey, DocumentVersion>.Iterator
        switch start {
        case .first: it = documents.elements(from: scope, inclusive: true, descending: false)
        case .after(let id): it = documents.elements(from: DocumentKey(collection.appending(id)), inclusive: false, descending: false)
        case .from(let id): it = documents.elements(from: DocumentKey(collection.appending(id)), inclusive: true, descending: false)
        case .before(let id): it = documents.elements(from: DocumentKey(collection.appending(id)), inclusive: false, descending: true)
        }
        var out: [Document] = []
        while out.count < limit, let (key, version) = it.next(), key.hasPrefix(scope) {
            if let doc = time.map({ version.version(at: $0)?.document }) ?? version.document { out.append(doc) }
        }
        if case .before = start { out.reverse() }
        return out
    }
}
