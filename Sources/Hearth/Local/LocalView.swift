import Dispatch
import HearthCore
import HearthLock
import Synchronization

/// What one `Firestore` instance sees of its database beyond the committed documents, as
/// the SDK keeps it per instance: its own writes not yet acknowledged (latency
/// compensation), its cache (`getDocument(source: .cache)`), and what bundles loaded into it.
///
/// Pending writes live in the engine as the instance's client overlay
/// (`Database.applyLocally`), so the instance's listeners move through one order of events
/// with every commit, and its reads see them too.
///
/// Every write commits on the caller's thread, in issue order and at the time it was issued
/// (other instances, transactions and a `ManualClock` see it at once). What differs is when
/// the instance itself sees it acknowledged, as the SDK's write stream would answer:
/// - fire-and-forget and completion-handler writes (`setData(_:)`, `setData(_:completion:)`,
///   `batch.commit(completion:)`…) stay pending in the instance's own view until the
///   callback queue's next turn, where they are acknowledged and the completion runs — or
///   until a read from the server (`getDocument()`, `getDocuments()`), which the SDK
///   answers once the server has. So a listener added right after such a call (on the
///   callback queue, as app code on the main queue is) first sees the write pending, with
///   its server timestamps unknown, then acknowledged — the SDK's two snapshots; a cache
///   read in between sees it pending;
/// - `async` writes (`try await setData(_:)`…) return acknowledged (shown to the instance's
///   listeners first when it has any), and acknowledge every earlier write with them.
/// At most `maxUnacknowledged` writes wait; past that the oldest is acknowledged at once, so
/// a callback queue that is never serviced cannot make the overlay grow without bound.
/// With `LocalWriteEvents.afterCommit`, writes are never pending.
final class LocalView: Sendable {
    let database: Database
    private let client = HearthMutex<ListenClientID?>(nil)
    /// Listeners started through this instance and not yet removed.
    private let listeners = Atomic<Int>(0)
    /// `settings.localWriteEvents == .latencyCompensated`.
    private let compensating = Atomic<Bool>(true)
    /// Writes committed and not yet acknowledged, oldest first.
    private let unacknowledged = HearthMutex<[LocalBatchID]>([])
    private let pendingCount = Atomic<Int>(0)
    /// Completions dispatched to the callback queue and not yet run: `drain` waits for them
    /// too, so `waitForPendingWrites()` returns after every earlier write's completion.
    private let undelivered = Atomic<Int>(0)
    static let maxUnacknowledged = 256
    let cache: LocalCache
    /// The watch stream's online state under Listen faults (`Firestore.watchStreamFailed`).
    let watch = WatchStream()

    init(database: Database) {
        self.database = database
        cache = LocalCache(database: database)
    }

    deinit {
        if let id = client.withLock({ $0 }) { database.removeListenClient(id) }
    }

    func setLocalWriteEvents(_ mode: LocalWriteEvents) {
        compensating.store(mode == .latencyCompensated, ordering: .releasing)
    }

    /// This instance as a client of the database, registered on first use.
    private var registeredClient: ListenClientID {
        client.withLock { id in
            if let id { return id }
            let new = database.registerListenClient()
            id = new
            return new
        }
    }

    /// The client a new listener registers its target with (nil: it sees commits only).
    func listenerStarted() -> ListenClientID? {
        listeners.wrappingAdd(1, ordering: .acquiringAndReleasing)
        guard compensating.load(ordering: .acquiring) else { return nil }
        return registeredClient
    }

    func listenerRemoved() {
        listeners.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }

    /// The targets this instance's listeners watch, with how many listen to each: a second
    /// listener of a target shares the first one's synced view, as the SDK's listeners of
    /// one query share its `QueryView`.
    private let activeTargets = HearthMutex<[ListenTarget: Int]>([:])

    /// Counts a listener of `target`; returns whether another one listens to it already.
    func retainTarget(_ target: ListenTarget) -> Bool {
        activeTargets.withLock { t in
            t[target, default: 0] += 1
            return t[target]! > 1
        }
    }

    func releaseTarget(_ target: ListenTarget) {
        activeTargets.withLock { t in
            guard let n = t[target] else { return }
            t[target] = n > 1 ? n - 1 : nil
        }
    }

    /// Whether the instance listens to more than one target (one of them a listener's that
    /// is starting): the others keep the watch stream Online.
    var listensToOtherTargets: Bool { activeTargets.withLock { $0.count > 1 } }

    /// What a Listen request for every target the instance listens to names (a target's
    /// documents, or its query's collection): what a reconnected stream sends again.
    func activeTargetPaths() -> [ResourcePath] {
        activeTargets.withLock { t in
            t.keys.flatMap { target -> [ResourcePath] in
                switch target {
                case .documents(let paths): paths
                case .query(let query): [query.collectionPath]
                }
            }
        }
    }

    /// A document listener's view built from the cache alone, as the SDK's `View` starts
    /// from its local documents: each document the cache holds as existing (the version
    /// received, which may be older than the server's) or a pending write shows. A query
    /// listener's is built from its first result (`LocalCache.startView`). Call online,
    /// before the target's first result goes into the cache.
    struct CachedView: Sendable {
        let documents: [Document]
        let mutated: Set<ResourcePath>
    }

    func cachedView(of paths: [ResourcePath]) -> CachedView {
        var documents: [Document] = [], mutated = Set<ResourcePath>()
        for path in paths {
            let key = DocumentKey(path)
            if let local = pendingDocument(key) {
                if let doc = local.document {
                    documents.append(doc)
                    mutated.insert(path)
                }
            } else if case .document(let held?) = cache.lookup(key), held.path == path {
                // A document the cache holds as missing gives the view no document.
                documents.append(held)
            }
        }
        return CachedView(documents: documents, mutated: mutated)
    }

    /// The document at `key` as the cache holds it (not its pending writes: `pendingDocument`).
    func cachedDocument(_ key: DocumentKey) -> LocalCache.Lookup {
        cache.lookup(key)
    }

    /// The cached documents `query` returns, with the instance's pending writes on top
    /// (`local`: the database as the instance sees it; `pending`: the paths they write).
    func cachedDocuments(matching query: StructuredQuery, local: DatabaseState,
                         pending: Set<ResourcePath>) throws(FirestoreError) -> [Document] {
        try cache.documents(matching: query, local: local, pending: pending)
    }

    /// Whether some write of this instance is applied locally and not yet committed (reads
    /// then look through the overlay). One atomic load.
    var hasQueuedWrites: Bool { pendingCount.load(ordering: .acquiring) > 0 }

    /// The client's view of `key` when one of its writes to it is pending, else nil.
    func pendingDocument(_ key: DocumentKey) -> (document: Document?, pending: Bool)? {
        guard let id = client.withLock({ $0 }) else { return nil }
        let local = database.localDocument(key, client: id)
        return local.pending ? local : nil
    }

    /// The database as this instance sees it (its pending writes applied; offline, its cache
    /// as it was when the instance went offline), and the paths that show a pending write.
    func localState() -> (state: DatabaseState, pending: Set<ResourcePath>) {
        if isOffline { return database.localState(client: registeredClient) }
        guard hasQueuedWrites || listeners.load(ordering: .acquiring) > 0, let id = client.withLock({ $0 }) else {
            return (database.state(), [])
        }
        return database.localState(client: id)
    }

    /// Acknowledges every write issued so far, before a read from the server: the SDK's
    /// server reads wait for the server, whose write stream has answered the earlier writes
    /// by then. One atomic load when none waits.
    func acknowledgeAll() {
        guard hasQueuedWrites, let id = client.withLock({ $0 }) else { return }
        let batches = unacknowledged.withLock { list -> [LocalBatchID] in
            defer { list.removeAll() }
            pendingCount.wrappingSubtract(list.count, ordering: .releasing)
            return list
        }
        for batch in batches { database.removeLocalBatch(batch, client: id) }
    }

    // MARK: Writes

    /// A fire-and-forget or completion-handler write: committed now, acknowledged (and
    /// `completion` called) on `queue`'s next turn; a failure is rolled back at once and
    /// reported on `queue`.
    func enqueue(_ writes: [Write], authorize: Database.CommitAuthorizer?, queue: DispatchQueue,
                 completion: @escaping @Sendable (Result<CommitResult, FirestoreError>) -> Void) {
        if isOffline, queueOffline(writes, authorize: authorize, onQueue: true, completion: completion) { return }
        guard compensating.load(ordering: .acquiring) else {
            let result = Result { () throws(FirestoreError) in try database.commit(writes, authorize: authorize) }
            deliver(on: queue) { completion(result) }
            return
        }
        let id = registeredClient
        let batch = database.applyLocally(writes, client: id)
        let result: Result<CommitResult, FirestoreError>
        do {
            result = .success(try database.commit(writes, authorize: authorize, acknowledging: (id, batch), keepingPending: true))
        } catch {
            database.removeLocalBatch(batch, client: id)
            deliver(on: queue) { completion(.failure(error)) }
            return
        }
        let overflow = unacknowledged.withLock { list -> LocalBatchID? in
            list.append(batch)
            pendingCount.wrappingAdd(1, ordering: .releasing)
            guard list.count > Self.maxUnacknowledged else { return nil }
            pendingCount.wrappingSubtract(1, ordering: .releasing)
            return list.removeFirst()
        }
        if let overflow { database.removeLocalBatch(overflow, client: id) }
        deliver(on: queue) { [self] in
            acknowledge(batch, client: id)
            completion(result)
        }
    }

    /// Runs `body` on `queue`'s next turn, counted in `undelivered` until it has run.
    private func deliver(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) {
        undelivered.wrappingAdd(1, ordering: .releasing)
        queue.async { [self] in
            body()
            undelivered.wrappingSubtract(1, ordering: .releasing)
        }
    }

    /// An `async` write: returns committed and acknowledged, with every write issued before it.
    func commit(_ writes: [Write], authorize: Database.CommitAuthorizer?) throws(FirestoreError) -> CommitResult {
        let compensate = compensating.load(ordering: .acquiring)
        guard compensate, listeners.load(ordering: .acquiring) > 0 || hasQueuedWrites, let id = client.withLock({ $0 }) else {
            return try database.commit(writes, authorize: authorize)
        }
        let batch = database.applyLocally(writes, client: id)
        do {
            let result = try database.commit(writes, authorize: authorize, acknowledging: (id, batch))
            // The commit acknowledged the earlier batches too.
            unacknowledged.withLock { list in
                pendingCount.wrappingSubtract(list.count, ordering: .releasing)
                list.removeAll()
            }
            return result
        } catch {
            database.removeLocalBatch(batch, client: id)
            throw error
        }
    }

    /// Acknowledges a committed batch (and nothing when a later write did already).
    private func acknowledge(_ batch: LocalBatchID, client id: ListenClientID) {
        let pending = unacknowledged.withLock { list -> Bool in
            guard let i = list.firstIndex(of: batch) else { return false }
            list.remove(at: i)
            pendingCount.wrappingSubtract(1, ordering: .releasing)
            return true
        }
        if pending { database.removeLocalBatch(batch, client: id) }
    }

    /// Returns once every write issued so far is acknowledged (after `queue`'s turn); with
    /// `offlineWrites`, while offline with writes queued, once they are committed on
    /// reconnection (`waitForPendingWrites`; `waitUntilIdle` does not wait for the network).
    func drain(on queue: DispatchQueue, offlineWrites: Bool = false) async {
        guard hasQueuedWrites || undelivered.load(ordering: .acquiring) > 0 else { return }
        await withHandOffContinuation { (c: HandOffContinuation<Void, Never>) in
            if offlineWrites { whenWritesAcknowledged(on: queue) { c.resume() } } else { queue.async { c.resume() } }
        }
    }

    /// Runs `body` on `queue` once every write issued so far is acknowledged: on the queue's
    /// next turn (after the completions waiting there), or, while the instance is offline
    /// with writes queued, after their completions once they are committed on reconnection
    /// (the SDK's `waitForPendingWrites`, FIRDatabaseTests testWaitForPendingWritesCompletes;
    /// with nothing queued it completes offline too, …CompletesWhenOfflineIfNoPending).
    func whenWritesAcknowledged(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) {
        let waiting = network.withLock { n -> Bool in
            guard n.offline, !n.queued.isEmpty else { return false }
            n.waiters.append(body)
            return true
        }
        if !waiting { queue.async(execute: body) }
    }

    // MARK: Network (disableNetwork / enableNetwork)

    /// A write issued while the instance is offline: applied to its view at once, committed
    /// in issue order once it is back online. Unchecked: the rules authorizer is a plain
    /// closure over immutable rules state, called only by `enableNetwork` under `network`'s
    /// lock.
    private struct QueuedWrite: @unchecked Sendable {
        let writes: [Write]
        let batch: LocalBatchID
        let authorize: Database.CommitAuthorizer?
        let completion: @Sendable (Result<CommitResult, FirestoreError>) -> Void
        /// Completion handlers run on the callback queue; `async` callers resume at once.
        let onQueue: Bool
    }

    private struct Network: Sendable {
        var offline = false
        var queued: [QueuedWrite] = []
        /// `waitForPendingWrites` calls waiting for the queued writes.
        var waiters: [@Sendable () -> Void] = []
    }

    private let network = HearthMutex(Network())
    /// `network.offline`, readable with one atomic load (every read and write checks it).
    private let offline = Atomic<Bool>(false)
    /// How a listener's sync state changes (`SnapshotListener`): `.offline` (out of sync,
    /// raised at once), `.online` (back in sync: the snapshots after it are not from the
    /// cache) and `.settled` (reconnection's catch-up is delivered: raise the in-sync
    /// snapshot unless one was raised since `.online`).
    enum SyncEvent: Sendable { case offline, online, settled }

    /// The instance's listeners, told when the instance goes offline or comes back.
    private let syncObservers = HearthMutex<[Int: @Sendable (SyncEvent) -> Void]>([:])
    private let nextObserver = Atomic<Int>(0)

    /// Whether `disableNetwork()` took the instance offline.
    var isOffline: Bool { offline.load(ordering: .acquiring) }

    /// Registers a listener's sync-state observer; returns its id for `removeSyncObserver`.
    func addSyncObserver(_ observer: @escaping @Sendable (SyncEvent) -> Void) -> Int {
        let id = nextObserver.wrappingAdd(1, ordering: .relaxed).newValue
        syncObservers.withLock { $0[id] = observer }
        return id
    }

    func removeSyncObserver(_ id: Int) {
        syncObservers.withLock { _ = $0.removeValue(forKey: id) }
    }

    func notifySync(_ event: SyncEvent) {
        for observer in syncObservers.withLock({ Array($0.values) }) { observer(event) }
    }

    /// Takes the instance offline: its listeners and reads see what its cache holds, at the
    /// versions it last received (`Database.setListenClientOffline(_:_:holding:)`), writes
    /// queue. Nothing when already offline.
    func disableNetwork() {
        let id = registeredClient
        let changed = network.withLock { n -> Bool in
            guard !n.offline else { return false }
            n.offline = true
            // The instance's listeners and reads see only what its cache holds.
            database.setListenClientOffline(id, true, holding: cache.existingDocuments())
            offline.store(true, ordering: .releasing)
            return true
        }
        if changed { notifySync(.offline) }
    }

    /// Brings the instance back online: its listeners catch up with what others committed
    /// (their snapshots from then on are not from the cache; one that raised nothing in the
    /// catch-up raises its in-sync snapshot with metadata changes), then the queued writes
    /// commit in issue order, each acknowledged or (refused: a precondition, the rules)
    /// rolled back out of the instance's view; their completions run in that order on
    /// `queue`, then the `waitForPendingWrites` calls that waited complete.
    func enableNetwork(queue: DispatchQueue) {
        let id = registeredClient
        let (flushed, waiters) = network.withLock { n -> ([(QueuedWrite, Result<CommitResult, FirestoreError>)], [@Sendable () -> Void]) in
            guard n.offline else { return ([], []) }
            // The listeners' queues get `.online` before the catch-up's snapshots, and
            // `.settled` after them: the catch-up is raised as in sync, as the SDK raises a
            // resumed target's changes with its CURRENT. While the watch stream is failing
            // (Listen faults) they stay out of sync until it comes back
            // (`Firestore.reconnectWatch`).
            let inSync = !watch.isDown
            if inSync { notifySync(.online) }
            database.setListenClientOffline(id, false)
            if inSync { notifySync(.settled) }
            var flushed: [(QueuedWrite, Result<CommitResult, FirestoreError>)] = []
            for q in n.queued {
                do throws(FirestoreError) {
                    flushed.append((q, .success(try database.commit(q.writes, authorize: q.authorize, acknowledging: (id, q.batch)))))
                } catch {
                    database.removeLocalBatch(q.batch, client: id)
                    flushed.append((q, .failure(error)))
                }
            }
            pendingCount.wrappingSubtract(n.queued.count, ordering: .releasing)
            let waiters = n.waiters
            n = Network()
            offline.store(false, ordering: .releasing)
            return (flushed, waiters)
        }
        for (q, result) in flushed {
            if q.onQueue { deliver(on: queue) { q.completion(result) } } else { q.completion(result) }
        }
        for waiter in waiters { deliver(on: queue, waiter) }
    }

    /// Queues a write while the instance is offline: applied to its view now (listeners see
    /// it pending), committed by `enableNetwork`. False when the instance is online (the
    /// caller commits as usual).
    private func queueOffline(_ writes: [Write], authorize: Database.CommitAuthorizer?, onQueue: Bool,
                              completion: @escaping @Sendable (Result<CommitResult, FirestoreError>) -> Void) -> Bool {
        let id = registeredClient
        return network.withLock { n -> Bool in
            guard n.offline else { return false }
            let batch = database.applyLocally(writes, client: id)
            n.queued.append(QueuedWrite(writes: writes, batch: batch, authorize: authorize, completion: completion, onQueue: onQueue))
            pendingCount.wrappingAdd(1, ordering: .releasing)
            return true
        }
    }

    /// An `async` write while the instance is offline: queued, and returns once committed
    /// (or refused) on reconnection. nil when the instance is online.
    func commitWhenOnline(_ writes: [Write], authorize: Database.CommitAuthorizer?) async -> Result<CommitResult, FirestoreError>? {
        guard isOffline else { return nil }
        return await withHandOffContinuation { (c: HandOffContinuation<Result<CommitResult, FirestoreError>?, Never>) in
            if !queueOffline(writes, authorize: authorize, onQueue: false, completion: { c.resume(returning: $0) }) {
                c.resume(returning: nil)
            }
        }
    }

    /// Drops the writes still queued (`terminate()` while offline): as in the SDK, their
    /// completions are never called; the SDK's persistent cache would send them from the
    /// next instance, Hearth's in-memory one forgets them.
    func dropQueuedWrites() {
        guard isOffline else { return }
        let id = registeredClient
        network.withLock { n in
            for q in n.queued.reversed() { database.removeLocalBatch(q.batch, client: id) }
            pendingCount.wrappingSubtract(n.queued.count, ordering: .releasing)
            n.queued = []
            n.waiters = []
        }
    }

    /// Forgets the cache, loaded bundles and named queries (`clearPersistence()`).
    func clear() {
        cache.clear()
    }
}
