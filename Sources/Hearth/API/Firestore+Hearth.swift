import Foundation
import HearthCore

/// The source of commit times and server timestamps; see `ManualClock`.
public typealias HearthClock = HearthCore.HearthClock
/// A deterministic clock for tests: `ManualClock(now: Timestamp(...))`, `advance(by:)`, `set(_:)`.
public typealias ManualClock = HearthCore.ManualClock
/// An O(1) capture of a whole database, for `Firestore.restore(_:)`.
public typealias DatabaseSnapshot = HearthCore.DatabaseSnapshot
/// Declared indexes, in the shape of `firestore.indexes.json`: `IndexConfiguration(json:)`
/// parses a file, `.json` writes one.
public typealias IndexConfiguration = HearthCore.IndexConfiguration
/// What a query that production would reject for a missing composite index does:
/// `.enforce` (fail with FAILED_PRECONDITION), `.warn` (log once), `.off`, `.learn` (record).
public typealias IndexMode = HearthCore.IndexMode
/// Where the engine's warnings go (a query production would reject in `.warn` mode…):
/// standard error unless `HearthLog.setHandler` routes them elsewhere.
public typealias HearthLog = HearthCore.HearthLog

extension HearthCore.ManualClock {
    public convenience init(now: Timestamp) { self.init(now: now.core) }

    public func set(_ time: Timestamp) { set(time.core) }
}

/// Hearth's additions to the SDK surface (docs/embedded-api.md#hearths-additions).
extension Firestore {
    /// A fresh, isolated, empty database (admin access, like the server SDKs), for tests.
    /// - Parameters:
    ///   - projectID: the project id used in resource names and references.
    ///   - clock: the source of commit times and server timestamps (default: system clock).
    ///   - indexes: the declared indexes (`firestore.indexes.json` content).
    ///   - indexMode: what a query needing an undeclared composite index does (default:
    ///     `.enforce` when `indexes` is given, else `.warn`).
    public static func inMemory(projectID: String = defaultProjectID, clock: (any HearthClock)? = nil,
                                indexes: IndexConfiguration? = nil, indexMode: IndexMode? = nil) -> Firestore {
        Firestore(database: engineDatabase(DatabaseID(project: projectID), clock: clock ?? SystemClock(),
                                           indexes: indexes, indexMode: indexMode))
    }

    /// A database kept in `directory` (created if needed): it survives the process. Every
    /// write is on disk before it completes (synced; concurrent writers share syncs), and
    /// opening the directory again — in a later process — brings back every document with
    /// its create and update times. The directory holds every project and database opened
    /// in it; a second process opening it is refused while this one has it open (instances
    /// of this process share it). It stays open until every instance opened on it is
    /// terminated or released. Damage the files cannot explain (anything but a write cut off
    /// by a crash) throws, naming the file, the offset and what to do.
    /// - Parameters: as for `inMemory`; `database` names a database other than `(default)`.
    ///   Opening a database already open in this process returns an instance on the same
    ///   engine database, with the clock and indexes it was first opened with.
    public static func open(directory: String, projectID: String = defaultProjectID, database: String = DatabaseID.defaultDatabase,
                            clock: (any HearthClock)? = nil, indexes: IndexConfiguration? = nil,
                            indexMode: IndexMode? = nil) throws -> Firestore {
        let lease = try DataDirectoryLease.acquire(directory)
        let db = lease.store.database(DatabaseID(project: projectID, database: database), clock: clock ?? SystemClock(),
                                      versionRetention: 0, indexes: indexes, indexMode: indexMode)
        return Firestore(database: db, directory: lease)
    }

    /// Runs `body` with `Firestore.firestore()` returning `db` (task-local), so app code
    /// that calls `Firestore.firestore()` itself can be tested in parallel.
    public static func withDefault<T>(_ db: Firestore, _ body: () async throws -> T) async rethrows -> T {
        try await $taskDefault.withValue(db) { try await body() }
    }

    /// Writes every document of a Hearth JSON documents file (docs/formats.md#hearth-json: `{"users/alice":
    /// {...}}` with `$timestamp`, `$reference`… tags) in one atomic commit, bypassing the
    /// rules — how tests and the emulator load `Seeds/<app>/documents.json`. Malformed input
    /// throws `FirestoreErrorCode.invalidArgument` naming what is wrong; nothing is written.
    public func importDocuments(hearthJSON data: Data) throws {
        ensureActive()
        do {
            let documents = try HearthJSON.documents(data, database: database.id)
            try database.commit(documents.map { Write.set($0.path, $0.fields) })
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    /// O(1) capture of the whole database.
    public func snapshot() -> DatabaseSnapshot { database.snapshot() }

    /// O(1): the database's documents become exactly those of `snapshot`.
    public func restore(_ snapshot: DatabaseSnapshot) { database.restore(snapshot) }

    /// O(1) independent copy: same documents now, its own future.
    public func fork() -> Firestore { Firestore(database: database.fork(), access: access.forked()) }

    /// Returns when every write issued so far is acknowledged and every listener callback for
    /// every commit made so far has run (or was skipped because its listener was removed), so
    /// tests can check what listeners saw without sleeping. Callbacks run on `settings.dispatchQueue`: don't call this while
    /// blocking that queue.
    public func waitUntilIdle() async {
        // Acknowledgements still waiting on the callback queue first: they raise events too.
        await local.drain(on: callbackQueue)
        await listenerDeliveries.waitUntilIdle()
    }

    /// The composite indexes the queries run so far needed and the configuration lacked, as
    /// a configuration to write out with `.json` (collect with `indexMode: .learn`).
    public func learnedIndexes() -> IndexConfiguration { database.learnedIndexes() }
}
