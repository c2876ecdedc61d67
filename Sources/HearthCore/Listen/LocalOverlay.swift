/// Identifies a client of a database that has a local view of its own (a mobile SDK
/// instance: `Database.registerListenClient()`).
public struct ListenClientID: Sendable, Hashable {
    public let rawValue: Int
}

/// Identifies a client's batch of writes applied locally and not yet committed or rejected.
public struct LocalBatchID: Sendable, Hashable {
    public let rawValue: Int
}

/// The writes a client has applied to its own view and the database has not yet committed
/// (or rejected), oldest first: what the mobile SDKs call the mutation queue. A client's
/// listen targets show the database's documents with these writes applied on top, so its
/// own writes appear at once, before any commit (latency compensation).
struct LocalOverlay: Sendable {
    struct Batch: Sendable {
        let id: Int
        let writes: [Write]
        let localWriteTime: Timestamp
        /// Each written document once, in first-write order.
        let keys: [DocumentKey]
    }

    private(set) var batches: [Batch] = []

    var isEmpty: Bool { batches.isEmpty }

    /// Every document some pending batch writes.
    var keys: Set<DocumentKey> { Set(batches.flatMap(\.keys)) }

    var paths: Set<ResourcePath> { Set(batches.flatMap { $0.keys.map(\.path) }) }

    mutating func append(_ batch: Batch) { batches.append(batch) }

    /// Removes a batch; returns it, or nil when it is not pending.
    @discardableResult
    mutating func remove(_ id: Int) -> Batch? {
        guard let i = batches.firstIndex(where: { $0.id == id }) else { return nil }
        return batches.remove(at: i)
    }

    func contains(_ key: DocumentKey) -> Bool { batches.contains { $0.keys.contains(key) } }

    /// `base` (the database's document, nil when missing) with every pending write to `key`
    /// applied in order, as the client sees it.
    func document(_ key: DocumentKey, over base: Document?) -> Document? {
        var doc = base
        for batch in batches where batch.keys.contains(key) {
            for write in batch.writes where write.key == key {
                doc = write.applyLocally(to: doc, localWriteTime: batch.localWriteTime)
            }
        }
        return doc
    }

    /// `state` with every pending write applied on top (indexes included), for views that
    /// re-run their query on what the client sees. Overlay documents are new documents, so
    /// their index entries are rewritten whole: an entry left pointing at the database's
    /// version would be taken for the head, since that version is still current there.
    func applied(to state: DatabaseState) -> DatabaseState {
        guard !batches.isEmpty else { return state }
        var out = state
        for key in keys {
            let base = state.documents[key]?.document
            let local = document(key, over: base)
            if base == local { continue }
            out.install(local, for: key, replacing: base)
        }
        return out
    }
}

extension DatabaseState {
    /// Replaces the document under `key` (`old` is the one there now) in this state only,
    /// keeping its indexes in step; the database's own state is not touched.
    mutating func install(_ document: Document?, for key: DocumentKey, replacing old: Document?) {
        if let document {
            _ = documents.updateValue(DocumentVersion(document: document, since: document.updateTime, older: nil), forKey: key)
        } else {
            _ = documents.removeValue(forKey: key)
        }
        indexes.update(key, from: old, to: nil)
        indexes.update(key, from: nil, to: document)
        documentCount += (document == nil ? 0 : 1) - (old == nil ? 0 : 1)
    }
}
