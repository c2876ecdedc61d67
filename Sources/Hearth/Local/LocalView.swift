import Dispatch
import HearthCore
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
    private let client = Mutex<ListenClientID?>(nil)
    /// Listeners started through this instance and not yet removed.
    private let listeners = Atomic<Int>(0)
    /// `settings.localWriteEvents == .latencyCompensated`.
    private let compensating = Atomic<Bool>(true)
    /// Writes committed and not yet acknowledged, oldest first.
    private let unacknowledged = Mutex<[LocalBatchID]>([])
    private let pendingCount = Atomic<Int>(0)
    /// Completions dispatched to the callback queue and not yet run: `drain` waits for them
    /// too, so `waitForPendingWrites()` returns after every earlier write's completion.
    private let undelivered = Atomic<Int>(0)
    static let maxUnacknowledged = 256
    let cache: LocalCache

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

    /// Whether some write of this instance is applied locally and not yet committed (reads
    /// then look through the overlay). One atomic load.
    var hasQueuedWrites: Bool { pendingCount.load(ordering: .acquiring) > 0 }

    /// The client's view of `key` when one of its writes to it is pending, else nil.
    func pendingDocument(_ key: DocumentKey) -> (document: Document?, pending: Bool)? {
        guard let id = client.withLock({ $0 }) else { return nil }
        let local = database.localDocument(key, client: id)
        return local.pending ? local : nil
    }

    /// The database as this instance sees it (its pending writes applied), and the paths
    /// that show a pending write.
    func localState() -> (state: DatabaseState, pending: Set<ResourcePath>) {
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

    /// Returns once every write issued so far is acknowledged (after `queue`'s turn).
    func drain(on queue: DispatchQueue) async {
        guard hasQueuedWrites || undelivered.load(ordering: .acquiring) > 0 else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { c.resume() } }
    }

    /// Forgets the cache, loaded bundles and named queries (`clearPersistence()`).
    func clear() {
        cache.clear()
    }
}
