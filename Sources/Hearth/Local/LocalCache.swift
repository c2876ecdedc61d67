import HearthCore
import HearthLock
import Synchronization

/// What `getDocument(source: .cache)`, `getDocuments(source: .cache)` and every read of an
/// offline instance read: the documents one `Firestore` instance has received, each at the
/// version it last received, as the SDK's cache (its remote document cache) holds them.
///
/// Received means: read from the server (`getDocument`, each result of `getDocuments`),
/// delivered to one of its listeners (a listener's first result and each change after it; a
/// document that leaves a query is held at the version that made it leave, a deleted one as
/// known missing), written and acknowledged (`setData` with or without merge, `delete`,
/// batches: the version the commit left; `updateData` only for a document the cache holds,
/// since its acknowledgement tells the SDK nothing about the rest of a document it never saw
/// — FIRDatabaseTests testCanUpdateAnUnknownDocument), or loaded from a bundle (unless the
/// cache holds a newer version). What `settings.cacheSettings` selects, as the SDK's
/// `FirestoreClient::Initialize` does:
/// - `PersistentCacheSettings` (the default on iOS) and `MemoryCacheSettings` with an LRU
///   collector of a finite size (`MemoryCacheSettings()`'s default): everything received
///   stays. Their collectors evict least recently used documents only once the cache passes
///   its size (100 MB by default), which Hearth does not model: nothing is evicted.
/// - `MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())` (or an LRU
///   collector of unlimited size, or the deprecated `isPersistenceEnabled = false` with an
///   unlimited `cacheSizeBytes`): the SDK's `MemoryEagerReferenceDelegate` drops a document
///   as soon as no active target holds it, so only documents held by the instance's
///   listeners (a document listener holds its path, a query listener its results) are
///   kept, from their snapshots; reads, query results, acknowledged writes and bundles add
///   nothing that outlives them, and no query is remembered (`eager`).
///
/// A listener's versions come from its snapshots, under the commit lock: one map update per
/// changed document (a listener's first result is kept whole and folded later, as a query's
/// results are). A local version (a pending write shown before its commit) is never
/// recorded: the commit's own version is.
///
/// A query's results are not put in the map one by one (a `DocumentKey` encoded and a map
/// update per result cost c_eq_warm more than half its speed, docs/local-view.md#cost):
/// the query keeps its last results as the array the engine returned (`Received`, O(1)),
/// and they are folded into the map only when the cache is read, or once the unfolded
/// results outnumber what the map holds (so memory stays bounded by the documents received,
/// amortised O(1) per result). Running the same query again replaces its array; of the
/// earlier array only documents the new one does not hold at the same position are folded
/// (none, when the result kept its members and order, however their versions moved). Every
/// receipt takes the next number of `seq`, and a fold never replaces a later receipt of a
/// document: what a read sees is exactly what folding every receipt at once would hold.
final class LocalCache: Sendable {
    /// One held document: its contents (nil: known not to exist), its version (update
    /// time; for a missing one, the read time it was known missing at) and the receipt it
    /// came with (`State.seq`).
    struct Entry: Sendable {
        let document: Document?
        let version: HearthCore.Timestamp
        let seq: Int
    }

    /// A query's last results read from the server that are not folded into the map yet
    /// (empty once folded), or a listener's first result, and the receipt they came with.
    private struct Received: Sendable {
        var seq: Int
        var results: [Document] = []
        var view: RankedDocumentList? = nil

        var count: Int { view?.count ?? results.count }

        func fold(into s: inout State) {
            for doc in results { s.fold(doc, seq: seq) }
            // A listener's result shows the instance's pending writes: not received.
            if let view { for doc in view where !doc.isLocalVersion { s.fold(doc, seq: seq) } }
        }
    }

    enum Lookup {
        /// In the cache; nil: known not to exist.
        case document(Document?)
        /// Not in the cache.
        case absent
    }

    private struct State: Sendable {
        var documents: [DocumentKey: Entry] = [:]
        /// Queries read or listened to (the SDK keeps such a target, with a resume token, in
        /// its cache: a later listener starts from its cached results), each with its last
        /// results not yet folded into `documents`.
        var queries: [StructuredQuery: Received] = [:]
        /// Listeners' first results, not yet folded into `documents`.
        var views: [Received] = []
        /// Σ `queries[_].results.count` and the documents of `views`.
        var unfolded = 0
        /// The last receipt's number: what was received later wins.
        var seq = 0
        /// Each query's last result as received (a read's, or a listener's first), kept
        /// after folding: the candidates of a later listener's cached view besides its
        /// server result (`startView`, as the SDK's query engine starts from a target's
        /// remote keys). Dropped whole once it holds more documents than the map (and
        /// 65,536), so it stays within a constant factor of what was received.
        var lastResults: [StructuredQuery: [Document]] = [:]
        var lastResultsCount = 0
        /// Loaded bundles: id → create time.
        var bundles: [String: HearthCore.Timestamp] = [:]
        var namedQueries: [String: BundleNamedQuery] = [:]
        /// Eager collection only: how many listeners hold each document, and what each
        /// listener (by `listenerID`) holds.
        var holders: [DocumentKey: Int] = [:]
        var held: [Int: Set<DocumentKey>] = [:]

        /// Eager collection: `listener` holds `key` (or lets it go); a document nobody holds
        /// leaves the cache.
        mutating func nextSeq() -> Int {
            seq += 1
            return seq
        }

        /// `doc` as received with receipt `seq`, unless the map holds a later receipt of it.
        mutating func fold(_ doc: Document, seq: Int) {
            let key = DocumentKey(doc.path)
            if let held = documents[key], held.seq > seq { return }
            documents[key] = Entry(document: doc, version: doc.updateTime, seq: seq)
        }

        /// Folds every query's unfolded results into the map, oldest receipt first. Call
        /// before the map is read.
        mutating func foldAll() {
            guard unfolded > 0 else { return }
            var pending: [Received] = []
            // By index, not `indices` (which would hold a copy of the map while it changes).
            var i = queries.values.startIndex
            while i != queries.values.endIndex {
                if queries.values[i].count > 0 {
                    pending.append(queries.values[i])
                    queries.values[i].results = []
                    queries.values[i].view = nil
                }
                i = queries.values.index(after: i)
            }
            pending += views
            views = []
            pending.sort { $0.seq < $1.seq }
            for received in pending { received.fold(into: &self) }
            unfolded = 0
        }

        /// Keeps `results` as `query`'s last result.
        mutating func keepLast(_ query: StructuredQuery, _ results: [Document]) {
            let earlier = lastResults.updateValue(results, forKey: query)?.count ?? 0
            lastResultsCount += results.count - earlier
            if lastResultsCount > max(65_536, documents.count) {
                lastResults = [:]
                lastResultsCount = 0
            }
        }

        mutating func hold(_ key: DocumentKey, by listener: Int, _ holding: Bool) {
            if holding {
                guard held[listener, default: []].insert(key).inserted else { return }
                holders[key, default: 0] += 1
            } else {
                guard held[listener]?.remove(key) != nil, let n = holders[key] else { return }
                if n > 1 { holders[key] = n - 1 } else { holders[key] = nil; documents[key] = nil }
            }
        }
    }

    let database: Database
    private let state = HearthMutex(State())
    /// Eager garbage collection (see the type's comment); set before the instance is used.
    private let eager = Atomic<Bool>(false)

    func setEagerCollection(_ on: Bool) { eager.store(on, ordering: .relaxed) }

    private var isEager: Bool { eager.load(ordering: .relaxed) }

    init(database: Database) { self.database = database }

    // MARK: Recording

    /// A document read from the server (`document` nil: missing at `readTime`).
    func record(_ key: DocumentKey, _ document: Document?, readTime: @autoclosure () -> HearthCore.Timestamp) {
        guard !isEager else { return }
        let version = document?.updateTime ?? readTime()
        state.withLock { s in s.documents[key] = Entry(document: document, version: version, seq: s.nextSeq()) }
    }

    /// A query's results read from the server: kept as they are, folded later (see the
    /// type's comment).
    func record(_ query: StructuredQuery, results: [Document]) {
        guard !isEager else { return }
        state.withLock { s in
            let seq = s.nextSeq()
            let received = Received(seq: seq, results: results)
            Self.replace(&s, query, with: received)
            s.keepLast(query, results)
        }
    }

    /// Replaces the unfolded receipt of a query (at `i` in `queries`) with a newer one. The
    /// earlier receipt's documents that the new one does not hold at the same position keep
    /// the version received then (a document the new one holds is received again, later);
    /// comparing paths by position, a result that kept its members in their order folds
    /// nothing.
    private static func replace(_ s: inout State, _ query: StructuredQuery, with received: Received) {
        // One hash, in place (`values[index] = ` copied the whole map here).
        guard let earlier = s.queries.updateValue(received, forKey: query) else {
            s.unfolded += received.count
            return foldIfLarge(&s)
        }
        s.unfolded += received.count - earlier.count
        if let view = earlier.view {
            supersede(view, by: received, seq: earlier.seq, in: &s)
        } else {
            supersede(earlier.results, by: received, seq: earlier.seq, in: &s)
        }
        foldIfLarge(&s)
    }

    private static func supersede(_ earlier: some Sequence<Document>, by received: Received, seq: Int, in s: inout State) {
        if let view = received.view {
            supersede(earlier, by: view, seq: seq, in: &s)
        } else {
            supersede(earlier, by: received.results, seq: seq, in: &s)
        }
    }

    private static func supersede(_ earlier: some Sequence<Document>, by newer: some Sequence<Document>, seq: Int, in s: inout State) {
        var later = newer.makeIterator()
        for doc in earlier {
            // (A local version in the newer result was not received: it supersedes nothing.)
            // The same stored version (a result that did not change: a pointer compare)
            // supersedes it without reading either's path.
            if let next = later.next(), next.isIdentical(to: doc) || (next.path == doc.path && !next.isLocalVersion) { continue }
            // Left, or moved: its version as received then (a local version was never received).
            if !doc.isLocalVersion { s.fold(doc, seq: seq) }
        }
    }

    /// Folds once the unfolded results outnumber the map (and a floor, so small caches do
    /// not fold at every query): each result is folded at most once, and what the queries
    /// keep alive stays within a constant factor of the documents received.
    private static func foldIfLarge(_ s: inout State) {
        if s.unfolded > max(65_536, s.documents.count) { s.foldAll() }
    }

    /// Acknowledged writes: each document a set, merge or delete wrote, at the version the
    /// commit left; an update (`updateData`) only when the cache holds its document.
    func record(_ writes: [Write], result: CommitResult) {
        guard !isEager else { return }
        state.withLock { s in
            let seq = s.nextSeq()
            for (i, w) in writes.enumerated() where i < result.documents.count {
                if case .verify = w.operation { continue }
                if w.precondition == .exists(true) && s.documents[w.key] == nil {
                    // An update of a document only a query's unfolded results may hold.
                    s.foldAll()
                    guard s.documents[w.key] != nil else { continue }
                }
                let doc = result.documents[i]
                s.documents[w.key] = Entry(document: doc, version: doc?.updateTime ?? result.commitTime, seq: seq)
            }
        }
    }

    /// What a listener's snapshot delivered. `missingPaths`: a document listener's paths,
    /// recorded as known missing when its first snapshot does not hold them (the SDK's
    /// cache learns of a missing document from Watch). `listener`: with eager collection,
    /// a query listener (by `listenerID`) whose results hold their documents.
    /// `query`: the query a query listener listens to (its first result is that query's
    /// latest result).
    func record(_ snapshot: ViewSnapshot, query: StructuredQuery? = nil, missingPaths: [ResourcePath] = [], holdingResultsFor listener: Int? = nil) {
        let eager = isEager
        state.withLock { s in
            let seq = s.nextSeq()
            defer {
                if eager, let listener {
                    if snapshot.isInitial {
                        for doc in snapshot.documents { s.hold(DocumentKey(doc.path), by: listener, true) }
                    } else {
                        for change in snapshot.changes where change.kind != .modified {
                            s.hold(DocumentKey(change.document.path), by: listener, change.kind == .added)
                        }
                    }
                }
            }
            func put(_ doc: Document) {
                guard !doc.isLocalVersion else { return }
                s.documents[DocumentKey(doc.path)] = Entry(document: doc, version: doc.updateTime, seq: seq)
            }
            if snapshot.isInitial {
                if eager {
                    for doc in snapshot.documents { put(doc) }
                } else if !snapshot.documents.isEmpty {
                    // Kept as delivered (an O(1) copy), folded later like a query's results.
                    let received = Received(seq: seq, view: snapshot.documents)
                    if let query {
                        // A query listener's first result replaces what the query last received.
                        Self.replace(&s, query, with: received)
                        s.keepLast(query, snapshot.mutatedKeys.isEmpty ? Array(snapshot.documents) : snapshot.documents.filter { !$0.isLocalVersion })
                    } else {
                        s.views.append(received)
                        s.unfolded += received.count
                        Self.foldIfLarge(&s)
                    }
                }
                for path in missingPaths where !snapshot.documents.contains(where: { $0.path == path }) {
                    s.documents[DocumentKey(path)] = Entry(document: nil, version: snapshot.readTime, seq: seq)
                }
                return
            }
            for change in snapshot.changes {
                switch change.kind {
                case .added, .modified: put(change.document)
                case .removed:
                    guard let successor = change.departedVersion else { continue }
                    if let doc = successor { put(doc) } else {
                        s.documents[DocumentKey(change.document.path)] = Entry(document: nil, version: snapshot.readTime, seq: seq)
                    }
                }
            }
        }
    }

    /// A query listened to.
    func recordQuery(_ query: StructuredQuery) {
        guard !isEager else { return }
        state.withLock { s in
            if s.queries[query] == nil { s.queries[query] = Received(seq: 0, results: []) }
        }
    }

    /// Eager collection: a document listener (by `listenerID`) holds its paths from its
    /// start. Call before it starts.
    func hold(_ paths: [ResourcePath], by listener: Int) {
        guard isEager else { return }
        state.withLock { s in for path in paths { s.hold(DocumentKey(path), by: listener, true) } }
    }

    /// Eager collection: a listener stopped; the documents only it held leave the cache.
    func release(_ listener: Int) {
        guard isEager else { return }
        state.withLock { s in
            for key in s.held[listener] ?? [] { s.hold(key, by: listener, false) }
            s.held[listener] = nil
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
        let eager = isEager
        state.withLock { s in
            s.foldAll()
            let seq = s.nextSeq()
            for doc in documents where !eager || s.holders[DocumentKey(doc.path)] != nil {
                let key = DocumentKey(doc.path)
                if let held = s.documents[key], held.version > doc.version { continue }
                s.documents[key] = Entry(document: doc.document, version: doc.version, seq: seq)
            }
            for q in namedQueries where s.namedQueries[q.name].map({ $0.readTime <= q.readTime }) ?? true {
                s.namedQueries[q.name] = q
            }
            s.bundles[metadata.id] = metadata.createTime
        }
    }

    /// Whether the instance read or listened to `query` before.
    func hasRecorded(_ query: StructuredQuery) -> Bool {
        state.withLock { $0.queries[query] != nil }
    }

    /// A query listener's first view from the cache: the cached versions (the instance's
    /// pending writes shown as the engine shows them) of the documents that can be in it,
    /// matched at those versions, in query order after its limit. Call with the target's
    /// first result before it is recorded. The candidates are that result and the query's
    /// last result as received (`State.lastResults`: a document that matched when received
    /// and matches no more), as the SDK's query engine starts from the target's remote keys
    /// (core/src/local/query_engine.cc, PerformQueryUsingRemoteKeys); a cached document the
    /// query never returned is not a candidate. A scan of the whole cache per
    /// listener (what the SDK's memory cache does over a collection) cost 13-20 s for 1,000
    /// equality listeners over 10,000 cached documents. O(result) lookups; a document cached
    /// at the version the result holds is not matched again. `sameAsResult`: the view is
    /// exactly `result` (nothing stale, nothing missing): the caller raises `result` itself
    /// (`documents` is then left empty).
    func startView(of query: StructuredQuery, result: RankedDocumentList, mutated: Set<ResourcePath>,
                   database: DatabaseID) -> (documents: [Document], sameAsResult: Bool) {
        state.withLock { s in
            let previous = s.lastResults[query] ?? []
            // The query's last result is the server's, document for document (the same
            // stored versions): the cache holds each at that version (a later receipt
            // cannot be older), so the view is the result. O(n) pointer compares, no
            // folding, no lookups: a 10,000-document listener started again pays nothing
            // more than before.
            if mutated.isEmpty, previous.count == result.count,
               zip(previous, result).allSatisfy({ $0.isIdentical(to: $1) }) {
                return ([], true)
            }
            s.foldAll()
            var evaluator: DocumentSetQuery?
            var evaluatorFailed = false
            func matches(_ doc: Document) -> Bool {
                if evaluator == nil && !evaluatorFailed {
                    evaluator = try? DocumentSetQuery(query, database: database)
                    evaluatorFailed = evaluator == nil
                }
                return evaluator?.matchesIgnoringCursors(doc) ?? false
            }
            var out: [Document] = []
            var same = true
            var inResult = Set<ResourcePath>()
            for doc in result {
                if !previous.isEmpty { inResult.insert(doc.path) }
                // A pending write shows the same local version in both views.
                if mutated.contains(doc.path) { out.append(doc); continue }
                guard let cached = s.documents[DocumentKey(doc.path)]?.document else { same = false; continue }
                if cached.isIdentical(to: doc) || cached.updateTime == doc.updateTime {
                    out.append(cached)
                } else {
                    same = false
                    if matches(cached) { out.append(cached) }
                }
            }
            for doc in previous where !inResult.contains(doc.path) && !mutated.contains(doc.path) {
                guard let cached = s.documents[DocumentKey(doc.path)]?.document, matches(cached) else { continue }
                out.append(cached)
                same = false
            }
            if same { return ([], true) }
            if evaluator == nil && !evaluatorFailed { evaluator = try? DocumentSetQuery(query, database: database) }
            return (evaluator?.results(out) ?? out, false)
        }
    }

    func namedQuery(_ name: String) -> BundleNamedQuery? {
        state.withLock { $0.namedQueries[name] }
    }

    /// Forgets everything (`clearPersistence()`).
    func clear() {
        state.withLock { $0 = State() }
    }

    // MARK: Reading

    /// The cached version of the document at `key`.
    func lookup(_ key: DocumentKey) -> Lookup {
        guard let entry = state.withLock({ s in s.foldAll(); return s.documents[key] }) else { return .absent }
        return .document(entry.document)
    }

    /// Every document the cache holds as existing (what an offline instance's listeners and
    /// reads start from: `Database.setListenClientOffline(_:_:holding:)`).
    func existingDocuments() -> [Document] {
        state.withLock { s in
            s.foldAll()
            return s.documents.values.compactMap(\.document)
        }
    }

    /// The cached documents that `query` returns, in query order (after its limit), with
    /// the instance's pending writes on top: `local` is the database as the instance sees it
    /// with them applied, `pending` the paths they write (their versions are taken from
    /// `local`, as the SDK's local documents view applies them over its cache).
    func documents(matching query: StructuredQuery, local: DatabaseState, pending: Set<ResourcePath>) throws(FirestoreError) -> [Document] {
        let evaluator = try DocumentSetQuery(query, database: database.id)
        var candidates: [Document] = state.withLock { s in
            s.foldAll()
            return s.documents.values.compactMap { entry in
                guard let doc = entry.document, !pending.contains(doc.path), evaluator.matchesIgnoringCursors(doc) else { return nil }
                return doc
            }
        }
        for path in pending {
            if let doc = local.document(path), evaluator.matchesIgnoringCursors(doc) { candidates.append(doc) }
        }
        return evaluator.results(candidates)
    }
}
