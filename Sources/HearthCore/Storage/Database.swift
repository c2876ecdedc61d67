import Foundation
import HearthLock

/// One Firestore database (a project id + database id): the current immutable state, the
/// serialised commit pipeline and the open server-side transactions.
///
/// Reads take the current `DatabaseState` (an O(1) copy under a short lock) and run on it
/// without locks; commits are serialised in one short critical section and produce a new
/// state with a strictly increasing commit time.
public final class Database: Sendable {
    public let id: DatabaseID
    public let clock: any HearthClock
    /// How long past versions stay readable, in seconds (production: one hour; 0 keeps
    /// only the current versions).
    public let versionRetention: Double
    /// The memory the past versions may take (shared with the other databases given it).
    public let historyBudget: VersionHistoryBudget

    private struct Core: Sendable {
        var state: DatabaseState
        var lastCommit: Timestamp
        var transactions: [TransactionID: ServerTransaction] = [:]
        /// Transactions committed or rolled back lately, so rolling one back again succeeds
        /// (as on the official emulator). Bounded: the oldest are forgotten first.
        var ended = EndedTransactions()
        /// Deletions in commit order, to drop tombstones once no retained read time sees them.
        var tombstones: [(time: Timestamp, key: DocumentKey)] = []
        var tombstoneHead = 0
        /// Past versions in the order they were superseded, for dropping the oldest.
        var history = VersionHistoryLog()
        var indexing: IndexingState
        /// `indexing.configuration.declaredDefinitions`, kept beside it: the state always has
        /// these materialised (built at configuration or start-up, restored states rebuilt).
        var declared: [IndexDefinition] = []
        /// Who sees every commit (CommitObserver), if anyone.
        var observer: (any CommitObserver)?
    }

    /// The declared indexes, how missing ones are reported, and what was learned.
    struct IndexingState: Sendable {
        var configuration: IndexConfiguration
        var mode: IndexMode
        /// Composite indexes queries needed (learn mode), in first-seen order.
        var learned: [IndexDefinition] = []
        /// Missing indexes already logged (warn mode logs each once).
        var warned: Set<IndexDefinition> = []
    }

    private let core: HearthMutex<Core>
    /// The listen targets; fed one ChangeSet per commit under the commit lock.
    let hub = ListenerHub()
    /// Runs around every commit's and restore's critical section, whoever commits. The
    /// server passes its transport's deferred wake-ups, so the snapshots a commit hands to
    /// open Listen streams wake each event loop once when the lock is released, not once per
    /// stream; being here, no commit path can forget it. Nil: the section runs as it is.
    public typealias CommitScope = @Sendable (_ section: () -> Void) -> Void
    let commitScope: CommitScope?
    /// The log of a data directory (`DurableStore`): each commit's changes are queued in it
    /// inside the commit lock and the commit returns once they are synced. Nil in memory.
    let journal: WriteAheadLog?

    /// - Parameters:
    ///   - indexes: the declared indexes (`firestore.indexes.json`).
    ///   - indexMode: what a query that production would reject for a missing composite
    ///     index does (default: `.enforce` when indexes are declared, else `.warn`).
    ///   - historyBudget: the memory past versions may take (default: a budget of this
    ///     database's own, `VersionHistoryBudget.defaultLimit`).
    public convenience init(id: DatabaseID, clock: any HearthClock = SystemClock(), versionRetention: Double = 3600,
                            historyBudget: VersionHistoryBudget = VersionHistoryBudget(),
                            indexes: IndexConfiguration? = nil, indexMode: IndexMode? = nil, commitScope: CommitScope? = nil) {
        self.init(id: id, clock: clock, versionRetention: versionRetention, historyBudget: historyBudget,
                  indexes: indexes, indexMode: indexMode, journal: nil, recovered: nil, commitScope: commitScope)
    }

    /// A database of a data directory (`DurableStore.database`): its recovered documents,
    /// its commit clock continuing after their last commit, its commits logged.
    init(id: DatabaseID, clock: any HearthClock, versionRetention: Double, historyBudget: VersionHistoryBudget,
         indexes: IndexConfiguration?, indexMode: IndexMode?, journal: WriteAheadLog?, recovered: RecoveredDatabase?,
         commitScope: CommitScope?) {
        self.id = id
        self.commitScope = commitScope
        self.clock = clock
        self.versionRetention = versionRetention
        self.historyBudget = historyBudget
        self.journal = journal
        let start = recovered?.lastCommit ?? Timestamp(seconds: Timestamp.minSeconds, nanos: 0)
        let state = recovered.map { DatabaseState(database: id, readTime: start, documents: $0.documents, documentCount: $0.documentCount) }
            ?? DatabaseState(database: id, readTime: start)
        let indexing = IndexingState(configuration: indexes ?? IndexConfiguration(), mode: indexMode ?? (indexes == nil ? .warn : .enforce))
        var initial = Core(state: state, lastCommit: start, indexing: indexing)
        // Declared indexes are built now, over the recovered documents if any (start-up
        // pays once, on two threads), so no query after it does.
        Self.materializeDeclared(&initial, indexing.configuration.declaredDefinitions)
        core = HearthMutex(initial)
    }

    /// A fork: in memory, whatever the original's storage.
    private init(id: DatabaseID, clock: any HearthClock, versionRetention: Double, historyBudget: VersionHistoryBudget,
                 state: DatabaseState, lastCommit: Timestamp, indexing: IndexingState, commitScope: CommitScope?) {
        self.id = id
        self.commitScope = commitScope
        self.clock = clock
        self.versionRetention = versionRetention
        self.historyBudget = historyBudget
        self.journal = nil
        var initial = Core(state: state, lastCommit: lastCommit, indexing: indexing)
        Self.materializeDeclared(&initial, indexing.configuration.declaredDefinitions)
        core = HearthMutex(initial)
    }

    deinit {
        core.withLock { $0.history.release(historyBudget) }
    }

    /// The current version, for lock-free reads.
    public func state() -> DatabaseState { core.withLock { $0.state } }

    /// The document at `path` now.
    public func document(_ path: ResourcePath) -> Document? {
        document(DocumentKey(path))
    }

    /// The current version of the document stored under `key`, read in place (no copy of
    /// the state).
    public func document(_ key: DocumentKey) -> Document? {
        core.withLock { $0.state.documents[key]?.document }
    }

    /// The state to read at `readTime`: the current state, checked to still retain it.
    /// Older than the retention window, or than the versions the history budget left, is
    /// production's answer to a read time past its retention: FAILED_PRECONDITION.
    public func state(readTime: Timestamp) throws(FirestoreError) -> DatabaseState {
        let (s, lastCommit, floor) = core.withLock { ($0.state, $0.lastCommit, $0.history.floor) }
        // History is pruned relative to commit times, which run ahead of a clock that went
        // backwards; measure the horizon from the later of the two so no pruned time passes.
        let horizon = Self.horizon(from: max(clock.now(), lastCommit), retention: versionRetention)
        if readTime < horizon {
            throw FirestoreError(.failedPrecondition,
                "The requested snapshot version is too old. The read time \(readTime.rfc3339) is older than the oldest retained version; versions are kept for \(Int(versionRetention)) seconds.")
        }
        if readTime < floor {
            throw FirestoreError(.failedPrecondition,
                "The requested snapshot version is too old. The read time \(readTime.rfc3339) is older than the oldest retained version (\(floor.rfc3339)); past versions are kept within \(historyBudget.limitDescription).")
        }
        return s
    }

    // MARK: Commit

    /// A check run inside the commit, after the writes are applied to a working copy and
    /// before anything is installed: it sees the state before the commit, the commit time and
    /// each touched document's final contents (nil = deleted), and throws to refuse the
    /// whole commit (how security rules authorize a batch atomically).
    public typealias CommitAuthorizer = (_ before: DatabaseState, _ commitTime: Timestamp,
                                         _ after: [(path: ResourcePath, document: Document?)]) throws(FirestoreError) -> Void

    /// Applies `writes` atomically with one commit time, or none of them. With a
    /// transaction, first validates that nothing it read has changed (ABORTED otherwise);
    /// with `authorize`, lets it refuse the commit once the final documents are known.
    /// `acknowledging`: these writes are that client's pending local batch
    /// (`applyLocally`), which leaves its overlay — with the client's older batches — as the
    /// commit is published (on failure the caller rolls it back with `removeLocalBatch`).
    /// With `keepingPending`, the batch stays pending for its client (the commit does not
    /// supersede it) until `removeLocalBatch` acknowledges it.
    @discardableResult
    public func commit(_ writes: [Write], transaction: TransactionID? = nil,
                       authorize: CommitAuthorizer? = nil,
                       acknowledging: (client: ListenClientID, batch: LocalBatchID)? = nil,
                       keepingPending: Bool = false) throws(FirestoreError) -> CommitResult {
        let writes = try writes.map { w throws(FirestoreError) in try w.validated(database: id) }
        if writes.count > 1 {
            // Other writes to one document apply in order; two creates cannot both succeed.
            var created = Set<ResourcePath>()
            for w in writes where w.precondition == .exists(false) && !created.insert(w.path).inserted {
                throw .invalidArgument("Cannot insert then insert an entity in the same request.")
            }
        }
        return try commitValidated(writes, transaction: transaction, authorize: authorize, acknowledging: acknowledging,
                                   keepingPending: keepingPending)
    }

    /// Upserts documents as an import does: each replaces the stored document whole (one
    /// commit, one commit time). Paths are checked; field names are not, since exports carry
    /// what the emulator stored, such as its `__type__` maps for Datastore-only meanings.
    @discardableResult
    public func importDocuments(_ documents: [(path: ResourcePath, fields: MapValue)]) throws(FirestoreError) -> CommitResult {
        var writes: [Write] = []
        writes.reserveCapacity(documents.count)
        for (path, fields) in documents {
            try DocumentLimits.validateDocumentPath(path, database: id)
            writes.append(.set(path, fields))
        }
        return try commitValidated(writes, transaction: nil, authorize: nil, acknowledging: nil, keepingPending: false)
    }

    private func commitValidated(_ writes: [Write], transaction: TransactionID?, authorize: CommitAuthorizer?,
                                 acknowledging: (client: ListenClientID, batch: LocalBatchID)?,
                                 keepingPending: Bool) throws(FirestoreError) -> CommitResult {
        let now = clock.now().truncatedToMicroseconds
        var ticket: UInt64?
        let result = try inCommitScope { () throws(FirestoreError) -> CommitResult in try core.withLock { (core: inout Core) throws(FirestoreError) -> CommitResult in
            try journal?.checkWritable()
            if let transaction { try Self.endTransaction(transaction, writing: !writes.isEmpty, in: &core) }
            let commitTime = max(now, Timestamp(microseconds: core.lastCommit.microseconds + 1))
            // Changes are only collected while someone listens or a log records them.
            let publishing = hub.isActive || acknowledging != nil
            var changed: [ChangeSet.Entry]? = publishing || journal != nil ? [] : nil
            let observer = core.observer.flatMap { $0.observesCommits ? $0 : nil }
            var observed: [CommittedDocuments.Entry]? = observer == nil ? nil : []
            let result = try Self.apply(writes, to: &core.state, commitTime: commitTime, database: id,
                                        keepsHistory: versionRetention > 0, history: &core.history, budget: historyBudget,
                                        tombstones: &core.tombstones, changed: &changed, observed: &observed,
                                        authorize: authorize)
            core.lastCommit = commitTime
            core.state.readTime = commitTime
            core.history.trim(&core.state, horizon: Self.horizon(from: commitTime, retention: versionRetention), budget: historyBudget)
            purgeTombstones(&core, now: commitTime)
            if let journal, !writes.isEmpty {
                // Logged even when nothing changed: the commit time must not go backwards
                // after a restart.
                ticket = journal.append(DurableRecord.Commit(database: id, commitTime: commitTime,
                                                             changes: changed!.map { ($0.key.path, $0.after) }))
            }
            if publishing, let changed, !changed.isEmpty || acknowledging != nil {
                hub.publish(ChangeSet(commitTime: commitTime, entries: changed, state: core.state), acknowledging: acknowledging,
                            keepingPending: keepingPending)
            }
            if let observer, let observed, !observed.isEmpty {
                observer.committed(CommittedDocuments(database: id, commitTime: commitTime, entries: observed))
            }
            return result
        } }
        // Acknowledged only once durable (a group of concurrent commits shares one sync).
        if let journal, let ticket { try journal.waitDurable(ticket) }
        return result
    }

    /// Runs `section` inside `commitScope`, if any.
    private func inCommitScope<T, E: Error>(_ section: () throws(E) -> T) throws(E) -> T {
        guard let commitScope else { return try section() }
        var outcome: Result<T, E>?
        commitScope { outcome = Result { () throws(E) -> T in try section() } }
        return try outcome!.get()
    }

    /// Ends `transaction` for its commit: it must be open, read-only ones may not write, and
    /// what it read (documents and queries) must not have changed since (else ABORTED).
    private static func endTransaction(_ transaction: TransactionID, writing: Bool, in core: inout Core) throws(FirestoreError) {
        guard let txn = core.transactions.removeValue(forKey: transaction) else { throw .invalidTransaction }
        core.ended.insert(transaction)
        if txn.mode == .readOnly && writing {
            throw .invalidArgument("Cannot modify entities in a read-only transaction.")
        }
        for (key, seen) in txn.reads where core.state.documents[key]?.document?.updateTime != seen {
            throw .contention
        }
        for query in txn.queries where query.invalidated(by: core.state) { throw .contention }
    }

    /// A document touched by a commit: its stored version and the working copy.
    private struct Touched {
        let key: DocumentKey
        /// The stored version the commit found (nil: the key was never written).
        let head: DocumentVersion?
        /// Where in the document tree `head` is, for installing its successor.
        let position: PersistentSortedMap<DocumentKey, DocumentVersion>.Position?
        var original: Document? { head?.document }
        var current: Document?
        var deletedInCommit = false
        /// Some write other than a verify targets it (what authorization looks at).
        var written = false
        /// The commit leaves it as it was (nothing to install).
        var unchanged = false
        /// The field paths the commit's writes can have changed; nil once a write replaced
        /// or deleted the whole document. Fields outside them are the original's.
        var changedPaths: [FieldPath]? = []
        /// The final document's fields size, once measured.
        var fieldsSize: Int?
    }

    /// The write pipeline inside the commit lock: apply in order against a working set,
    /// check limits on the final documents, then install new versions.
    private static func apply(_ writes: [Write], to state: inout DatabaseState, commitTime: Timestamp,
                              database: DatabaseID, keepsHistory: Bool,
                              history: inout VersionHistoryLog, budget: VersionHistoryBudget,
                              tombstones: inout [(time: Timestamp, key: DocumentKey)],
                              changed: inout [ChangeSet.Entry]?,
                              observed: inout [CommittedDocuments.Entry]?,
                              authorize: CommitAuthorizer?) throws(FirestoreError) -> CommitResult
    {
        var touched: [Touched] = []
        // Small commits find their documents by linear search; larger ones get an index.
        var index: [DocumentKey: Int]? = writes.count > 8 ? [:] : nil
        func slot(_ key: DocumentKey) -> Int {
            if let found = index.map({ $0[key] }) ?? touched.firstIndex(where: { $0.key == key }) { return found }
            let found = state.documents.lookupWithStoredKey(key)
            // The stored key, not the request's: the history log and every later version then
            // share one copy of the path (a request decodes its own; each version kept
            // holding one was memory the history budget does not count).
            touched.append(Touched(key: found?.storedKey ?? key, head: found?.value, position: found?.position,
                                   current: found?.value.document))
            index?[key] = touched.count - 1
            return touched.count - 1
        }
        var afterEach: [(slot: Int, document: Document?, transforms: [Value])] = []
        afterEach.reserveCapacity(writes.count)
        for write in writes {
            let i = slot(write.key)
            if touched[i].current == nil, write.precondition == .exists(true), touched[i].deletedInCommit {
                // Production refuses an update of a document this commit deleted (docs/semantics.md#transactions, #error-codes).
                throw .invalidArgument("Cannot update document \(database.resourceName(write.path)): it is deleted earlier in the same commit.")
            }
            let (doc, transformResults) = try write.apply(to: touched[i].current, commitTime: commitTime, database: database)
            touched[i].current = doc
            switch write.operation {
            case .set, .delete: touched[i].changedPaths = nil
            case .update(_, let mask): touched[i].changedPaths?.append(changed: mask)
            case .verify, .transformOnly: break
            }
            if !write.transforms.isEmpty { touched[i].changedPaths?.append(changed: write.transforms.map(\.path)) }
            if case .delete = write.operation { touched[i].deletedInCommit = true }
            if case .verify = write.operation {} else { touched[i].written = true }
            afterEach.append((i, doc, transformResults))
        }
        // Final documents: limits, and "unchanged" when the content ends as it began.
        for i in touched.indices {
            guard let doc = touched[i].current else {
                touched[i].unchanged = touched[i].original == nil
                continue
            }
            if let head = touched[i].head, let original = head.document, original.createTime == doc.createTime {
                // Updates only: just the top-level fields they name can differ.
                if let paths = touched[i].changedPaths {
                    touched[i].fieldsSize = try DocumentLimits.validateChange(
                        path: doc.path, fields: doc.fields, database: database,
                        original: original.fields, originalSize: head.fieldsSize, within: paths)
                    if touched[i].fieldsSize != nil { continue }
                } else if original.fields != doc.fields {
                    touched[i].fieldsSize = try DocumentLimits.validate(path: doc.path, fields: doc.fields, database: database)
                    continue
                }
                touched[i].current = original
                touched[i].unchanged = true
            } else {
                touched[i].fieldsSize = try DocumentLimits.validate(path: doc.path, fields: doc.fields, database: database)
            }
        }
        if let authorize {
            try authorize(state, commitTime, touched.filter(\.written).map { ($0.key.path, $0.current) })
        }
        // Nothing changed the tree since `slot` read each head: install over it, at the
        // position found then until a new document changes the tree's shape.
        // By index: each field is read where it is, not the whole entry copied out.
        var reshaped = false
        for i in touched.indices where !touched[i].unchanged {
            let original = touched[i].original, current = touched[i].current
            original?.markReplaced()
            // The replaced version stays readable at earlier read times until the history log
            // drops it (the retention window and the budget).
            var older: DocumentVersion? = nil
            if keepsHistory, let head = touched[i].head {
                older = head
                history.superseded(head, of: touched[i].key, at: commitTime, budget: budget)
            }
            let version = DocumentVersion(document: current, since: commitTime, older: older, fieldsSize: touched[i].fieldsSize)
            if let position = touched[i].position, !reshaped {
                state.documents.replaceValue(at: position, with: version)
            } else if state.documents.updateValue(version, forKey: touched[i].key) == nil {
                reshaped = true
            }
            state.indexes.update(touched[i].key, from: original, to: current, changedPaths: touched[i].changedPaths)
            changed?.append(ChangeSet.Entry(key: touched[i].key, before: original, after: current))
            if original == nil { state.documentCount += 1 }
            if current == nil {
                state.documentCount -= 1
                tombstones.append((commitTime, touched[i].key))
            }
        }
        if observed != nil {
            for t in touched where t.written {
                observed!.append(CommittedDocuments.Entry(key: t.key, before: t.original, after: t.current, changed: !t.unchanged))
            }
        }
        let results = afterEach.map { entry -> WriteResult in
            guard let doc = entry.document else { return WriteResult(updateTime: nil, transformResults: entry.transforms) }
            // A document the commit left unchanged reports its previous update time.
            if let final = touched[entry.slot].current, final.updateTime < commitTime {
                return WriteResult(updateTime: final.updateTime, transformResults: entry.transforms)
            }
            return WriteResult(updateTime: doc.updateTime, transformResults: entry.transforms)
        }
        return CommitResult(commitTime: commitTime, writeResults: results, documents: afterEach.map { touched[$0.slot].current })
    }

    private func purgeTombstones(_ core: inout Core, now: Timestamp) {
        let horizon = max(Self.horizon(from: now, retention: versionRetention), core.history.floor)
        while core.tombstoneHead < core.tombstones.count, core.tombstones[core.tombstoneHead].time < horizon {
            let (time, key) = core.tombstones[core.tombstoneHead]
            core.tombstoneHead += 1
            if let head = core.state.documents[key], head.document == nil, head.since == time {
                core.state.documents.removeValue(forKey: key)
            }
        }
        if core.tombstoneHead > 1024, core.tombstoneHead * 2 > core.tombstones.count {
            core.tombstones.removeFirst(core.tombstoneHead)
            core.tombstoneHead = 0
        }
    }

    static func horizon(from now: Timestamp, retention: Double) -> Timestamp {
        Timestamp(microseconds: now.microseconds - Int64(retention * 1_000_000))
    }

    /// Reports every later commit (and restore) to `observer` (nil: to nobody), in commit order.
    public func observeCommits(_ observer: (any CommitObserver)?) {
        core.withLock { $0.observer = observer }
    }

    // MARK: Snapshots

    /// O(1) capture of the whole database.
    public func snapshot() -> DatabaseSnapshot { DatabaseSnapshot(state: state()) }

    /// O(1): the database's documents become those of `snapshot`. Commit times keep
    /// increasing; reads at read times before the restore see the restored history.
    /// Returns the state before and after, so callers can publish the differences.
    @discardableResult
    public func restore(_ snapshot: DatabaseSnapshot) -> (before: DatabaseState, after: DatabaseState) {
        let now = clock.now().truncatedToMicroseconds
        var ticket: UInt64?
        let result = inCommitScope { core.withLock { core in
            let before = core.state
            let commitTime = max(now, Timestamp(microseconds: core.lastCommit.microseconds + 1))
            var restored = snapshot.state
            restored.readTime = commitTime
            // A snapshot taken before the indexes were declared (or an empty one, as a clear
            // restores) lacks them: built here, once, as a configuration change would.
            restored.indexes.materialize(core.declared, from: restored.documents)
            if hub.isActive {
                // Views re-run their queries on the restored state, which may predate
                // their indexes.
                restored.indexes.materialize(hub.requiredIndexes, from: restored.documents)
            }
            core.state = restored
            core.lastCommit = commitTime
            core.transactions.removeAll()
            // The log's versions belong to the chains just replaced; the restored chains'
            // own past versions are the snapshot's (it holds them whatever happens here).
            core.history.release(historyBudget)
            let observer = core.observer.flatMap { $0.observesCommits ? $0 : nil }
            if hub.isActive || journal != nil || observer != nil {
                let changes = restored.changes(since: before)
                // A log records the restore as a commit of its differences.
                if let journal, journal.isWritable {
                    ticket = journal.append(DurableRecord.Commit(database: id, commitTime: commitTime, changes: changes.map { ($0.path, $0.after) }))
                }
                let entries = changes.map { ChangeSet.Entry(key: DocumentKey($0.path), before: $0.before, after: $0.after) }
                if hub.isActive, !entries.isEmpty { hub.publish(ChangeSet(commitTime: commitTime, entries: entries, state: restored)) }
                if let observer, !changes.isEmpty {
                    observer.committed(CommittedDocuments(database: id, commitTime: commitTime, entries: changes.map {
                        CommittedDocuments.Entry(key: DocumentKey($0.path), before: $0.before, after: $0.after, changed: true)
                    }))
                }
            }
            return (before, restored)
        } }
        // A restore cannot fail for its callers; a failed log refuses the commits after it.
        if let journal, let ticket { try? journal.waitDurable(ticket) }
        return result
    }

    /// O(1) independent copy: same documents now, its own future.
    public func fork(as newID: DatabaseID? = nil) -> Database {
        let (state, last, indexing) = core.withLock { ($0.state, $0.lastCommit, $0.indexing) }
        return Database(id: newID ?? id, clock: clock, versionRetention: versionRetention, historyBudget: historyBudget,
                        state: state, lastCommit: last, indexing: indexing, commitScope: commitScope)
    }

    // MARK: Indexes

    /// The current state with `definitions` materialised (built once, under the commit lock,
    /// and from then on maintained by every commit).
    func materializing(_ definitions: [IndexDefinition]) -> DatabaseState {
        core.withLock { core in
            core.state.indexes.materialize(definitions, from: core.state.documents)
            return core.state
        }
    }

    /// Makes `definitions` the declared indexes and materialises those the state lacks.
    private static func materializeDeclared(_ core: inout Core, _ definitions: [IndexDefinition]) {
        core.declared = definitions
        // All in one pass over the documents (a restart builds every declared index here).
        core.state.indexes.materialize(definitions, from: core.state.documents)
    }

    /// Replaces the index settings and builds the declared indexes the state lacks, under
    /// the commit lock (commits after it maintain them).
    func configureIndexing(_ configuration: IndexConfiguration, mode: IndexMode) {
        core.withLock { core in
            core.indexing.configuration = configuration
            core.indexing.mode = mode
            Self.materializeDeclared(&core, configuration.declaredDefinitions)
        }
    }

    /// Runs `body` on the current state under the commit lock, so no commit falls between
    /// what `body` reads and what it registers (a listener's initial result and its first
    /// ChangeSet). `body` may add indexes to the state.
    func withCommitLock<T>(_ body: (inout DatabaseState) throws(FirestoreError) -> T) throws(FirestoreError) -> T {
        try core.withLock { (core: inout Core) throws(FirestoreError) -> T in try body(&core.state) }
    }

    /// `withCommitLock` for a body that cannot fail.
    func underCommitLock<T>(_ body: (inout DatabaseState) -> T) -> T {
        core.withLock { body(&$0.state) }
    }

    /// Reads or updates the index settings under the lock.
    func withIndexing<T>(_ body: (inout IndexingState) -> T) -> T {
        core.withLock { body(&$0.indexing) }
    }

    // MARK: Server-side transactions

    /// Starts a transaction. Read-only ones read a fixed state: `readTime` if given (it must
    /// still be retained), else the current one. `retrying` (a read-write retry) must name a
    /// transaction this server issued — it may have ended — else INVALID_ARGUMENT.
    public func beginTransaction(readOnly: Bool = false, readTime: Timestamp? = nil,
                                 retrying: TransactionID? = nil) throws(FirestoreError) -> TransactionID {
        if readTime != nil && !readOnly {
            throw .invalidArgument("Read time can only be set for read-only transactions.")
        }
        // Empty is proto3's "not set".
        if let retrying, !retrying.bytes.isEmpty, !retrying.wasIssuedHere { throw .invalidTransaction }
        let readState = try readTime.map { t throws(FirestoreError) in try state(readTime: t) } ?? state()
        let id = TransactionID.random()
        core.withLock {
            $0.transactions[id] = ServerTransaction(mode: readOnly ? .readOnly : .readWrite, readState: readState, readTime: readTime)
        }
        return id
    }

    /// Where a transaction's query reads: the fixed state (and read time) of a read-only
    /// transaction, or nil for a read-write one (which reads the present).
    func queryReadPoint(_ transaction: TransactionID) throws(FirestoreError) -> (state: DatabaseState, readTime: Timestamp?)? {
        try core.withLock { (core: inout Core) throws(FirestoreError) -> (state: DatabaseState, readTime: Timestamp?)? in
            guard let txn = core.transactions[transaction] else { throw .invalidTransaction }
            return txn.mode == .readOnly ? (txn.readState, txn.readTime) : nil
        }
    }

    /// The read time a transaction's reads use: a read-only transaction's fixed time, nil
    /// for a read-write one (it reads the present). Throws for an unknown or ended one.
    public func readTime(of transaction: TransactionID) throws(FirestoreError) -> Timestamp? {
        try queryReadPoint(transaction).map { $0.readTime ?? $0.state.readTime }
    }

    /// Records a read-write transaction's query: the documents it returned (a change to any
    /// of them before the commit aborts it, as for a document read) and, when `query` is
    /// given, the query and the state it read, so a document that would newly match by the
    /// commit (a phantom) aborts it too.
    func recordReads(_ documents: [Document], query: ServerTransaction.QueryRead? = nil, transaction: TransactionID) throws(FirestoreError) {
        try core.withLock { (core: inout Core) throws(FirestoreError) in
            guard var txn = core.transactions[transaction] else { throw .invalidTransaction }
            for doc in documents {
                let key = DocumentKey(doc.path)
                if let seen = txn.reads[key], seen != doc.updateTime { throw .contention }
                txn.reads[key] = .some(doc.updateTime)
            }
            if let query { txn.queries.append(query) }
            core.transactions[transaction] = txn
        }
    }

    /// Reads a document inside a transaction, recording the version seen.
    public func document(_ path: ResourcePath, transaction: TransactionID) throws(FirestoreError) -> Document? {
        try core.withLock { (core: inout Core) throws(FirestoreError) -> Document? in
            guard var txn = core.transactions[transaction] else { throw .invalidTransaction }
            switch txn.mode {
            case .readOnly:
                return txn.readTime.map { txn.readState.document(path, at: $0) } ?? txn.readState.document(path)
            case .readWrite:
                let key = DocumentKey(path)
                let doc = core.state.documents[key]?.document
                if let seen = txn.reads[key], seen != doc?.updateTime { throw .contention }
                txn.reads[key] = .some(doc?.updateTime)
                core.transactions[transaction] = txn
                return doc
            }
        }
    }

    /// Abandons a transaction.
    public func rollback(_ transaction: TransactionID) throws(FirestoreError) {
        try core.withLock { (core: inout Core) throws(FirestoreError) in
            if core.transactions.removeValue(forKey: transaction) != nil {
                core.ended.insert(transaction)
            } else if !core.ended.contains(transaction) {
                throw .invalidTransaction
            }
        }
    }
}

private extension Array where Element == FieldPath {
    /// Adds a write's changed paths: the first write's array is taken as it is (appending
    /// to an empty array would copy it into a new buffer).
    mutating func append(changed paths: [FieldPath]) {
        if isEmpty { self = paths } else { append(contentsOf: paths) }
    }
}

/// Ids of transactions that ended lately, the newest `capacity` of them.
struct EndedTransactions: Sendable {
    static let capacity = 4096
    private var members = Set<TransactionID>()
    private var order: [TransactionID] = []
    private var head = 0

    func contains(_ id: TransactionID) -> Bool { members.contains(id) }

    mutating func insert(_ id: TransactionID) {
        guard members.insert(id).inserted else { return }
        if order.count < Self.capacity {
            order.append(id)
        } else {
            members.remove(order[head])
            order[head] = id
            head = (head + 1) % Self.capacity
        }
    }
}

