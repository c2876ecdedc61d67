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
