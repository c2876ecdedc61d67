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

extension DatabaseState {
    /// What ListDocuments with `showMissing` lists, a page at a time: from after the document
    /// ID `after` (nil: the start), up to `limit` IDs of `collection` in ID order, each with
    /// its document, or with nil when it has none but documents exist beneath it (a
    /// "missing" document). With `time`, as of that retained read time.
    ///
    /// Two runs of the storage order are merged: the collection's own documents (the keys
    /// after its `prefix(of:)`), and its deeper documents, which all begin with the
    /// collection's segments followed by an ID's — grouped by that ID, in ID order. Each ID
    /// there costs one seek and a walk to its first live document (deleted ones passed
    /// over), so a page costs O(limit · log n), however many documents lie beneath.
    public func listing(in collection: ResourcePath, after: String?, limit: Int, at time: Timestamp? = nil) -> [(path: ResourcePath, document: Document?)] {
        guard limit > 0 else { return [] }
        func live(_ version: DocumentVersion) -> Document? { time.map { version.version(at: $0)?.document } ?? version.document }
        let scope = DocumentKey.start(of: collection)
        var own = after.map { documents.elements(from: DocumentKey(collection.appending($0)), inclusive: false, descending: false) }
            ?? documents.elements(from: scope, inclusive: true, descending: false)
        func nextOwn() -> Document? {
            while let (key, version) = own.next(), key.hasPrefix(scope) {
                if let doc = live(version) { return doc }
            }
            return nil
        }
        var base: [UInt8] = []
        for segment in collection.segments { DocumentKey.encode(segment, into: &base) }
        let deeper = DocumentKey.bound(base)
        // 0x01 sorts after the 0x00 that ends the collection's own keys and before every
        // segment's encoding; 0x03 after every byte that can follow a segment's encoding.
        var seek: DocumentKey
        if let after { var p = base; DocumentKey.encode(after, into: &p); p.append(0x03); seek = .bound(p) } else { seek = .bound(base + [0x01]) }
        func nextParent() -> String? {
            while true {
                var it = documents.elements(from: seek, inclusive: true, descending: false)
                guard let (key, _) = it.next(), key.hasPrefix(deeper) else { return nil }
                let id = key.path.segments[collection.count]
                var parent = base
                DocumentKey.encode(id, into: &parent)
                let subtree = DocumentKey.bound(parent)
                seek = .bound(parent + [0x03])
                var walk = documents.elements(from: subtree, inclusive: true, descending: false)
                while let (k, version) = walk.next(), k.hasPrefix(subtree) {
                    if live(version) != nil { return id }
                }
            }
        }
        var out: [(path: ResourcePath, document: Document?)] = []
        var doc = nextOwn(), parent = nextParent()
        while out.count < limit {
            switch (doc, parent) {
            case (nil, nil):
                return out
            case (let d?, nil):
                out.append((d.path, d)); doc = nextOwn()
            case (nil, let p?):
                out.append((collection.appending(p), nil)); parent = nextParent()
            case (let d?, let p?):
                let order = ResourcePath.compareSegments(d.path.lastSegment, p)
                if order <= 0 { out.append((d.path, d)); doc = nextOwn() } else { out.append((collection.appending(p), nil)); parent = nextParent() }
                if order == 0 { parent = nextParent() }
            }
        }
        return out
    }
}
