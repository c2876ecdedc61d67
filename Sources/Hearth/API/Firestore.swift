import Foundation
import HearthCore
import HearthLock

/// The entry point, shaped like the Firebase SDK's `Firestore`, running on an in-process
/// Hearth database. Writes commit synchronously; completion handlers run on
/// `settings.dispatchQueue`.
public final class Firestore: @unchecked Sendable {
    /// The engine database this instance reads and writes.
    let database: Database
    private let state: HearthMutex<InstanceState>
    /// Listener callbacks queued and not yet run (`waitUntilIdle()`).
    let listenerDeliveries = ListenerDeliveries()

    private struct InstanceState {
        var settings = FirestoreSettings()
        var started = false
        var terminated = false
    }

    /// Whose rights this instance uses (admin unless it is an `authenticated` /
    /// `unauthenticated` view) and the database's rules.
    let access: AccessControl

    /// This instance's pending writes, cache and bundles.
    let local: LocalView

    /// Faults on demand for this instance's operations (docs/faults.md#in-the-embedded-api).
    public let faults = FirestoreFaults()

    /// The data directory this instance's database lives in (`open(directory:)`), held
    /// open until the instance is terminated or released.
    let directory: DataDirectoryLease?

    init(database: Database, access: AccessControl = .admin(), directory: DataDirectoryLease? = nil) {
        self.database = database
        self.access = access
        self.directory = directory
        state = HearthMutex(InstanceState())
        local = LocalView(database: database)
    }

    /// A new engine database for this API. The SDK reads nothing at a past read time, so
    /// its databases keep no past versions: an update frees the version it replaces
    /// (`hearth serve` keeps production's hour for the RPCs that read at one).
    static func engineDatabase(_ id: DatabaseID, clock: any HearthClock = SystemClock(),
                               indexes: IndexConfiguration? = nil, indexMode: IndexMode? = nil) -> Database {
        Database(id: id, clock: clock, versionRetention: 0, indexes: indexes, indexMode: indexMode)
    }

    /// The project id this instance belongs to.
    public var projectID: String { database.id.project }
    /// The database id (`"(default)"` unless named).
    public var databaseID: String { database.id.database }

    // MARK: Shared instances

    /// The project used by `firestore()` and `inMemory()` when none is given.
    public static let defaultProjectID = "demo-hearth"

    private static let shared = HearthMutex<[String: Firestore]>([:])
    @TaskLocal static var taskDefault: Firestore?

    /// The default database's shared instance (inside `withDefault`, the instance given there).
    public static func firestore() -> Firestore {
        if let override = taskDefault { return override }
        return firestore(database: DatabaseID.defaultDatabase)
    }

    /// The shared instance of a named database of the default project.
    public static func firestore(database: String) -> Firestore {
        if let override = taskDefault, override.databaseID == database { return override }
        return shared.withLock { instances in
            if let db = instances[database], !db.isTerminated { return db }
            let db = Firestore(database: engineDatabase(DatabaseID(project: defaultProjectID, database: database)))
            instances[database] = db
            return db
        }
    }

    // MARK: Settings

    /// Copy semantics, like the SDK. Setting it after the instance was used is a
    /// programmer error.
    public var settings: FirestoreSettings {
        get { state.withLock { $0.settings.copy() as! FirestoreSettings } }
        set {
            let value = newValue.copy() as! FirestoreSettings
            state.withLock { s in
                if s.started {
                    programmerError("Firestore instance has already been started and its settings can no longer be changed. You can only set settings before calling any other methods on a Firestore instance.")
                }
                s.settings = value
            }
            local.setLocalWriteEvents(value.localWriteEvents)
            local.cache.setEagerCollection(value.usesEagerGC)
        }
    }

    /// Marks the instance as started; every operation calls it (settings freeze then).
    @inline(__always)
    func ensureActive() {
        state.withLock { s in
            if s.terminated { programmerError("The client has already been terminated.") }
            s.started = true
        }
    }

    var isTerminated: Bool { state.withLock { $0.terminated } }

    var callbackQueue: DispatchQueue { state.withLock { $0.settings.dispatchQueue } }

    /// Runs a completion handler on the settings' dispatch queue.
    func deliver(_ body: @escaping @Sendable () -> Void) {
        callbackQueue.async(execute: body)
    }

    // MARK: References

    /// A collection at a slash-separated path (odd number of segments).
    @discardableResult
    public func collection(_ collectionPath: String) -> CollectionReference {
        ensureActive()
        return CollectionReference(firestore: self, path: requireValid { () throws(FirestoreError) in
            try Self.parseCollectionPath(collectionPath)
        })
    }

    /// A document at a slash-separated path (even number of segments).
    @discardableResult
    public func document(_ documentPath: String) -> DocumentReference {
        ensureActive()
        return DocumentReference(firestore: self, path: requireValid { () throws(FirestoreError) in
            try Self.parseDocumentPath(documentPath)
        })
    }

    /// Every collection with this ID, at any depth, as one query. An empty ID or one
    /// containing `/` is a programmer error.
    @discardableResult
    public func collectionGroup(_ collectionID: String) -> Query {
        ensureActive()
        requireValid { () throws(FirestoreError) in try Self.validateCollectionGroupID(collectionID) }
        return Query(firestore: self, definition: QueryDefinition(collectionGroup: collectionID))
    }

    static func validateCollectionGroupID(_ id: String) throws(FirestoreError) {
        if id.isEmpty { throw .invalidArgument("Collection ID cannot be empty.") }
        if id.utf8.contains(UInt8(ascii: "/")) {
            throw .invalidArgument("Invalid collection ID (\(id)). Collection IDs must not contain / in them.")
        }
    }

    static func parseCollectionPath(_ p: String) throws(FirestoreError) -> ResourcePath {
        if p.isEmpty { throw .invalidArgument("Collection path cannot be empty.") }
        let path = try ResourcePath.parse(p)
        guard path.isCollection else {
            throw .invalidArgument("Invalid collection reference. Collection references must have an odd number of segments, but \(path) has \(path.count)")
        }
        return path
    }

    static func parseDocumentPath(_ p: String) throws(FirestoreError) -> ResourcePath {
        if p.isEmpty { throw .invalidArgument("Document path cannot be empty.") }
        let path = try ResourcePath.parse(p)
        guard path.isDocument else {
            throw .invalidArgument("Invalid document reference. Document references must have an even number of segments, but \(path) has \(path.count)")
        }
        return path
    }

    // MARK: Writes

    /// A new batch of writes committed atomically.
    @discardableResult
    public func batch() -> WriteBatch {
        ensureActive()
        return WriteBatch(firestore: self)
    }

    /// Commits the writes of a fire-and-forget or completion-handler `setData`,
    /// `updateData`, `delete` or batch: committed now, acknowledged to this instance (and
    /// `completion` called) on the callback queue's next turn (`LocalView`); the documents
    /// the commit left go into the cache then (`LocalCache.record(_:result:)`).
    func commit(_ writes: [Write], completion: (@Sendable (Error?) -> Void)?) {
        // Injected faults (one atomic load while none is set): retried attempts, or a lost
        // answer — committed once, then sent again as the SDK resends the batch.
        switch writeFault(writes) {
        case .success(false): break
        case .success(true): _ = try? database.commit(writes, authorize: access.commitAuthorizer(for: database))
        case .failure(let error):
            callbackQueue.async { completion?(FirestoreErrorCode(error)) }
            return
        }
        local.enqueue(writes, authorize: access.commitAuthorizer(for: database), queue: callbackQueue) { [self] result in
            switch result {
            case .success(let committed):
                local.cache.record(writes, result: committed)
                completion?(nil)
            case .failure(let failure):
                completion?(FirestoreErrorCode(failure))
            }
        }
    }

    /// The `async` forms: returns committed and acknowledged (see `LocalView.commit`).
    @discardableResult
    func commit(_ writes: [Write]) async throws(FirestoreErrorCode) -> CommitResult {
        // Offline: queued, and returns once committed (or refused) on reconnection. Kept out
        // of line so the online path below is what it was before offline existed.
        if local.isOffline { return try await commitOffline(writes) }
        switch writeFault(writes) {
        case .success(false): break
        case .success(true): _ = try? database.commit(writes, authorize: access.commitAuthorizer(for: database))
        case .failure(let error): throw FirestoreErrorCode(error)
        }
        do {
            let result = try local.commit(writes, authorize: access.commitAuthorizer(for: database))
            local.cache.record(writes, result: result)
            return result
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    private func commitOffline(_ writes: [Write]) async throws(FirestoreErrorCode) -> CommitResult {
        let authorize = access.commitAuthorizer(for: database)
        do {
            let result: CommitResult
            if let offline = await local.commitWhenOnline(writes, authorize: authorize) {
                result = try offline.get()
            } else {
                // Back online meanwhile.
                result = try local.commit(writes, authorize: authorize)
            }
            local.cache.record(writes, result: result)
            return result
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    // MARK: Lifecycle

    /// Resolves once every write this instance issued so far is acknowledged: on the
    /// callback queue, after the acknowledgements waiting there; while offline with writes
    /// queued, once they are committed after `enableNetwork()`.
    public func waitForPendingWrites(completion: @escaping (Error?) -> Void) {
        ensureActive()
        let completion = sendable(completion)
        local.whenWritesAcknowledged(on: callbackQueue) { completion(nil) }
    }

    public func waitForPendingWrites() async throws {
        ensureActive()
        await local.drain(on: callbackQueue, offlineWrites: true)
    }

    /// Stops the instance; later calls on it are programmer errors, and `firestore()`
    /// hands out a fresh instance over the same data.
    /// Writes still queued offline are dropped, their completions never called (the SDK
    /// leaves them unresolved too; its persistent cache sends them from the next instance).
    public func terminate(completion: ((Error?) -> Void)? = nil) {
        state.withLock { $0.terminated = true }
        local.dropQueuedWrites()
        directory?.release()
        if let completion = completion.map(sendable) { callbackQueue.async { completion(nil) } }
    }

    public func terminate() async throws {
        state.withLock { $0.terminated = true }
        local.dropQueuedWrites()
        directory?.release()
    }

    /// Clears the instance's cache (what `source: .cache` reads, bundles and named queries
    /// included); the SDK's rule holds: the instance must be terminated (or unused).
    public func clearPersistence(completion: ((Error?) -> Void)? = nil) {
        let error = clearPersistenceError()
        if error == nil { local.clear() }
        if let completion = completion.map(sendable) { callbackQueue.async { completion(error) } }
    }

    public func clearPersistence() async throws {
        if let error = clearPersistenceError() { throw error }
        local.clear()
    }

    private func clearPersistenceError() -> FirestoreErrorCode? {
        let running = state.withLock { $0.started && !$0.terminated }
        return running ? FirestoreErrorCode(.failedPrecondition, message: "Persistence cannot be cleared while the client is running.") : nil
    }

    /// Brings the instance back online (docs/local-view.md#offline): its listeners catch up
    /// with what others committed and are in sync again (`isFromCache == false`), then the
    /// writes queued offline commit in issue order (a refused one is rolled back and its
    /// completion gets the error). The completion runs after the writes' completions.
    /// Calling it while online does nothing more.
    public func enableNetwork(completion: ((Error?) -> Void)? = nil) {
        ensureActive()
        local.enableNetwork(queue: callbackQueue)
        // A watch stream that failed (Listen faults) is opened again now.
        if local.watch.isDown { reconnectWatch() }
        if let completion = completion.map(sendable) { callbackQueue.async { completion(nil) } }
    }

    public func enableNetwork() async throws {
        ensureActive()
        local.enableNetwork(queue: callbackQueue)
        if local.watch.isDown { reconnectWatch() }
    }

    /// Takes the instance offline, as the SDK's `disableNetwork()` (docs/local-view.md#offline):
    /// writes apply locally and queue, reads come from the cache (`.server` fails with
    /// UNAVAILABLE), listeners raise a snapshot with `isFromCache == true` (with metadata
    /// changes) and see nothing others commit, transactions fail with UNAVAILABLE, and other
    /// instances see none of its writes until `enableNetwork()`.
    public func disableNetwork(completion: ((Error?) -> Void)? = nil) {
        ensureActive()
        local.disableNetwork()
        if let completion = completion.map(sendable) { callbackQueue.async { completion(nil) } }
    }

    public func disableNetwork() async throws {
        ensureActive()
        local.disableNetwork()
    }

    /// Accepted for source compatibility; the embedded engine has no network endpoint.
    public func useEmulator(withHost host: String, port: Int) {}

    /// Accepted for source compatibility.
    public static func enableLogging(_ logging: Bool) {}
}
