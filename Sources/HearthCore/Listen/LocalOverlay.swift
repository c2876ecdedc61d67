/// Identifies a client of a database that has a local view of its own (a mobile SDK
/// instance: `Database.registerListenClient()`).
public struct ListenClientID: Sendable, Hashable {
    public let rawValue: Int
}

/// Identifies a client's batch of writes applied locally and not yet acknowledged.
public struct LocalBatchID: Sendable, Hashable {
    public let rawValue: Int
}

/// The writes a client has applied to its own view and not yet seen acknowledged, oldest
/// first: what the mobile SDKs call the mutation queue. A client's listen targets show the
/// database's documents with these on top, so its own writes appear at once (latency
/// compensation).
///
/// Each batch keeps the documents as it left them (`Write.applyLocally` over what the client
/// saw when it was applied): the batch may already be committed while it waits for its
/// acknowledgement, and applying it again over the committed document would apply it twice
/// (an increment, say). A document with pending batches therefore shows its latest batch's
/// result, whatever commits meanwhile; it shows the database's version again once the last
/// of them is acknowledged or rejected. Lookups are O(1) per document.
struct LocalOverlay: Sendable {
    struct Batch: Sendable {
        let id: Int
        let localWriteTime: Timestamp
        /// Each written document once, in first-write order.
        let keys: [DocumentKey]
    }

    private(set) var batches: [Batch] = []
    /// Per document, the batches that wrote it (oldest first) with the document each left.
    private var shown: [DocumentKey: [(batch: Int, document: Document?)]] = [:]

    var isEmpty: Bool { batches.isEmpty }

    var paths: Set<ResourcePath> { Set(shown.keys.lazy.map(\.path)) }

    func contains(_ key: DocumentKey) -> Bool { shown[key] != nil }

    /// The document at `key` as the client sees it: the latest pending batch's result, or
    /// `base` (the database's version) when no batch writes it.
    func document(_ key: DocumentKey, over base: Document?) -> Document? {
        guard let stack = shown[key] else { return base }
        return stack[stack.count - 1].document
    }

    /// Applies `writes` on top of what the client sees (`base` gives the database's
    /// documents) and keeps the result as a new batch.
    mutating func apply(_ writes: [Write], id: Int, localWriteTime: Timestamp, base: (DocumentKey) -> Document?) {
        var keys: [DocumentKey] = []
        var results: [DocumentKey: Document?] = [:]
        for w in writes {
            let current = results[w.key] ?? document(w.key, over: base(w.key))
            if results[w.key] == nil { keys.append(w.key) }
            results[w.key] = .some(w.applyLocally(to: current, localWriteTime: localWriteTime))
        }
        for key in keys { shown[key, default: []].append((id, results[key]!)) }
        batches.append(Batch(id: id, localWriteTime: localWriteTime, keys: keys))
    }

    /// Removes a batch; returns it, or nil when it is not pending.
    @discardableResult
    mutating func remove(_ id: Int) -> Batch? {
        guard let i = batches.firstIndex(where: { $0.id == id }) else { return nil }
        let batch = batches.remove(at: i)
        forget(batch)
        return batch
    }

    /// Stops showing what `batch` wrote.
    private mutating func forget(_ batch: Batch) {
        for key in batch.keys where shown[key] != nil {
            shown[key]?.removeAll { $0.batch == batch.id }
            if shown[key]?.isEmpty == true { shown[key] = nil }
        }
    }

    /// Stops showing this client's pending writes to `key`: a commit that did not come from
    /// them changed the document after they were committed (or while they were about to
    /// be), and the newer version supersedes them. Their batches stay (for the rest of
    /// their documents) until acknowledged.
    mutating func supersede(_ key: DocumentKey) {
        shown[key] = nil
    }

    /// Removes a batch and every batch older than it (an acknowledgement covers the writes
    /// issued before: the client's writes commit in order). Batches are kept in id order, so
    /// these are a prefix.
    mutating func remove(through id: Int) {
        let count = batches.firstIndex { $0.id > id } ?? batches.count
        for batch in batches[..<count] { forget(batch) }
        batches.removeFirst(count)
    }

    /// `state` with every pending batch applied on top (indexes included), for views that
    /// re-run their query on what the client sees. Overlay documents are new documents, so
    /// their index entries are rewritten whole: an entry left pointing at the database's
    /// version would be taken for the head, since that version is still current there.
    func applied(to state: DatabaseState) -> DatabaseState {
        guard !batches.isEmpty else { return state }
        var out = state
        for (key, stack) in shown {
            let base = state.documents[key]?.document
            let local = stack[stack.count - 1].document
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
