import HearthCore
import HearthLock

/// What `getDocument(source: .cache)` and `getDocuments(source: .cache)` read: the documents
/// one `Firestore` instance has seen, as the SDK's (default, persistent) cache holds them.
///
/// Seen means: read from the server (`getDocument`, `getDocuments`), listened to, written
/// whole (`setData` with or without merge, `delete`, batches — not `updateData`, whose
/// acknowledgement tells the SDK nothing about the rest of the document), or loaded from a
/// bundle. Online, Hearth's listeners are always in sync, so the cache serves the current
/// committed version of what the instance has seen rather than the version it saw (offline,
/// the version of the moment it went offline: `lookup(_:base:)`); a bundle's document is served instead when it is newer (by update time)
/// or when the database does not hold the document at all.
///
/// Reads and writes record a document's storage key (one set insertion: the key's hash is
/// four words and a length, where a path's would walk every segment's characters — a third
/// of an insert's time went to hashing paths) and queries record the query, not their
/// results: a cache read then takes every current document a recorded query matches
/// (ignoring its limit) as seen.
final class LocalCache: Sendable {
    /// A document a bundle loaded: its contents (nil: the bundle says it does not exist) and
    /// its version (update time, or the bundle's read time for a missing document).
    struct BundledDocument: Sendable {
        let document: Document?
        let version: HearthCore.Timestamp
    }

    enum Lookup {
        /// In the cache; nil: known not to exist.
        case document(Document?)
        /// Not in the cache.
        case absent
    }

    private struct State: Sendable {
        var seen: Set<DocumentKey> = []
        var seenQueries: Set<StructuredQuery> = []
        var bundled: [ResourcePath: BundledDocument] = [:]
        /// Loaded bundles: id → create time.
        var bundles: [String: HearthCore.Timestamp] = [:]
        var namedQueries: [String: BundleNamedQuery] = [:]
    }

    let database: Database
    private let state = HearthMutex(State())

    init(database: Database) { self.database = database }

    // MARK: Recording

    func recordRead(_ key: DocumentKey) {
        state.withLock { _ = $0.seen.insert(key) }
    }

    /// Sets, merges and deletes put their documents in the cache; `updateData` (an update
    /// that requires the document to exist) does not.
    func recordWrites(_ writes: [Write]) {
        var whole = false
        for w in writes where w.precondition != .exists(true) { whole = true; break }
        guard whole else { return }
        state.withLock { s in
            for w in writes where w.precondition != .exists(true) {
                if case .verify = w.operation { continue }
                s.seen.insert(w.key)
            }
        }
    }

    func recordQuery(_ query: StructuredQuery) {
        state.withLock { _ = $0.seenQueries.insert(query) }
    }

    func recordTarget(_ target: ListenTarget) {
        switch target {
        case .documents(let paths):
            let keys = paths.map(DocumentKey.init)
            state.withLock { $0.seen.formUnion(keys) }
        case .query(let query): recordQuery(query)
        }
    }

    /// Loads a bundle's documents: each replaces what the cache holds unless that is newer.
    func loadBundled(_ documents: [(path: ResourcePath, document: BundledDocument)]) {
        state.withLock { s in
            for (path, doc) in documents {
                if let held = s.bundled[path], held.version > doc.version { continue }
                s.bundled[path] = doc
            }
        }
    }

    /// Whether a bundle with this id and a create time as late was loaded already (the
    /// SDK then skips loading it again).
    func hasBundle(_ metadata: BundleMetadata) -> Bool {
        state.withLock { s in s.bundles[metadata.id].map { $0 >= metadata.createTime } ?? false }
    }

    /// Records a loaded bundle: its documents (each replacing what the cache holds unless
    /// that is newer), its named queries (a later read of a name replaces an earlier one) and
    /// its id.
    func loadBundle(_ metadata: BundleMetadata, documents: [BundleLoader.LoadedDocument], namedQueries: [BundleNamedQuery]) {
        loadBundled(documents.map { ($0.path, BundledDocument(document: $0.document, version: $0.version)) })
        state.withLock { s in
            for q in namedQueries where s.namedQueries[q.name].map({ $0.readTime <= q.readTime }) ?? true {
                s.namedQueries[q.name] = q
            }
            s.bundles[metadata.id] = metadata.createTime
        }
    }

    /// Whether the instance read or listened to `query` before (the SDK keeps such a
    /// target's results, with a resume token, in its cache).
    func hasRecorded(_ query: StructuredQuery) -> Bool {
        state.withLock { $0.seenQueries.contains(query) }
    }

    /// Whether any of `documents` is in the cache: seen, or matched by a recorded query
    /// other than `query`. Stops at the first.
    func holdsAny(_ documents: some Sequence<Document>, besides query: StructuredQuery) -> Bool {
        let (seenKeys, queries) = state.withLock { ($0.seen, $0.seenQueries) }
        var evaluators: [DocumentSetQuery]?
        for doc in documents {
            if seenKeys.contains(DocumentKey(doc.path)) { return true }
            if evaluators == nil {
                evaluators = queries.filter { $0 != query }.compactMap { try? DocumentSetQuery($0, database: database.id) }
            }
            if evaluators!.contains(where: { $0.matchesIgnoringCursors(doc) }) { return true }
        }
        return false
    }

    func namedQuery(_ name: String) -> BundleNamedQuery? {
        state.withLock { $0.namedQueries[name] }
    }

    /// Forgets everything (`clearPersistence()`).
    func clear() {
        state.withLock { $0 = State() }
    }

    // MARK: Reading

    /// The cached version of the document at `key`; `base`: the state the instance reads
    /// (offline, the one it went offline at), else the database's current one.
    func lookup(_ key: DocumentKey, base: DatabaseState? = nil) -> Lookup {
        let current = base.map { $0.document(key.path) } ?? database.document(key)
        let (seenPath, queries, bundled) = state.withLock { s in
            (s.seen.contains(key), current != nil && !s.seen.contains(key) ? s.seenQueries : [], s.bundled[key.path])
        }
        var seen = seenPath
        if !seen, let current {
            seen = queries.contains { (try? DocumentSetQuery($0, database: database.id))?.matchesIgnoringCursors(current) == true }
        }
        return Self.newer(seen ? current : nil, seen: seen, bundled)
    }

    /// The cached documents that `query` returns, in query order (after its limit), read
    /// from `current`: the database as the instance sees it, its pending writes applied
    /// (the documents at `pending` are the instance's own writes, so in its cache).
    func documents(matching query: StructuredQuery, in current: DatabaseState,
                   pending: Set<ResourcePath> = []) throws(FirestoreError) -> [Document] {
        let evaluator = try DocumentSetQuery(query, database: database.id)
        let (seenKeys, queries, bundled) = state.withLock { ($0.seen, $0.seenQueries, $0.bundled) }
        let seenBy = queries.compactMap { try? DocumentSetQuery($0, database: database.id) }
        let inScope = query.allDescendants ? current.allDocuments() : current.documents(in: query.collectionPath)
        var candidates: [ResourcePath: Document] = [:]
        for doc in inScope where evaluator.matchesIgnoringCursors(doc) {
            if pending.contains(doc.path) || seenKeys.contains(DocumentKey(doc.path))
                || seenBy.contains(where: { $0.matchesIgnoringCursors(doc) }) {
                candidates[doc.path] = doc
            }
        }
        for (path, entry) in bundled {
            let held = current.document(path)
            let seen = seenKeys.contains(DocumentKey(path)) || held.map { doc in seenBy.contains { $0.matchesIgnoringCursors(doc) } } == true
            guard case .document(let chosen) = Self.newer(held, seen: seen, entry) else { continue }
            candidates[path] = chosen
        }
        return evaluator.results(Array(candidates.values))
    }

    /// The database's version (when seen) or the bundle's, whichever is newer.
    private static func newer(_ current: Document?, seen: Bool, _ bundled: BundledDocument?) -> Lookup {
        guard let bundled else { return seen ? .document(current) : .absent }
        // A document the database does not hold (or that was never seen): the bundle's.
        guard seen, let current else { return .document(bundled.document) }
        return .document(bundled.version > current.updateTime ? bundled.document : current)
    }
}
