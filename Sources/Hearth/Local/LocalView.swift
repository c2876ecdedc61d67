import HearthCore
import Synchronization

/// What one `Firestore` instance sees of its database beyond the committed documents, as
/// the SDK keeps it per instance: its own writes not yet committed (latency compensation),
/// its cache (`getDocument(source: .cache)`), and what bundles loaded into it.
///
/// Pending writes live in the engine as the instance's client overlay
/// (`Database.applyLocally`), so the instance's listeners move through one order of events
/// with every commit. Hearth commits each write as soon as it is issued, so a write is
/// pending only between its latency-compensated snapshot and its commit; the instance
/// registers as a client only once it has a listener, and with none a write costs one
/// atomic load more than a plain commit.
final class LocalView: Sendable {
    let database: Database
    private let client = Mutex<ListenClientID?>(nil)
    /// Listeners started through this instance and not yet removed.
    private let listeners = Atomic<Int>(0)
    /// `settings.localWriteEvents == .latencyCompensated`.
    private let compensating = Atomic<Bool>(true)
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

    /// The client a new listener registers its target with (nil: it sees commits only).
    func listenerStarted() -> ListenClientID? {
        listeners.wrappingAdd(1, ordering: .acquiringAndReleasing)
        guard compensating.load(ordering: .acquiring) else { return nil }
        return client.withLock { id in
            if let id { return id }
            let new = database.registerListenClient()
            id = new
            return new
        }
    }

    func listenerRemoved() {
        listeners.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }

    /// The client whose listeners a write is shown to before it commits, or nil when no
    /// listener would see it (or latency compensation is off).
    private var compensatingClient: ListenClientID? {
        guard listeners.load(ordering: .acquiring) > 0, compensating.load(ordering: .acquiring) else { return nil }
        return client.withLock { $0 }
    }

    /// The client's view of `key` when one of its writes to it is pending, else nil.
    func pendingDocument(_ key: DocumentKey) -> (document: Document?, pending: Bool)? {
        guard let id = client.withLock({ $0 }) else { return nil }
        let local = database.localDocument(key, client: id)
        return local.pending ? local : nil
    }

    /// Forgets the cache, loaded bundles and named queries (`clearPersistence()`).
    func clear() {
        cache.clear()
    }

    /// Commits `writes` the way the SDK's write pipeline does: shown at once to this
    /// instance's listeners as a pending batch, then committed (acknowledged) or rejected
    /// (rolled back, and the error thrown).
    func commit(_ writes: [Write], authorize: Database.CommitAuthorizer?) throws(FirestoreError) -> CommitResult {
        guard let id = compensatingClient else { return try database.commit(writes, authorize: authorize) }
        let batch = database.applyLocally(writes, client: id)
        do {
            return try database.commit(writes, authorize: authorize, acknowledging: (id, batch))
        } catch {
            database.rejectLocalBatch(batch, client: id)
            throw error
        }
    }
}
