import Foundation
import HearthCore
import HearthTransport
import HearthLock
import Synchronization

/// Everything the emulator process keeps besides the documents themselves: the databases
/// (created on first use with the configured indexes), the clock, named snapshots and the
/// security rules of each project. (Transactions live in the engine's databases.)
public final class EmulatorState: Sendable {
    public let clock: EmulatorClock
    public let registry: DatabaseRegistry
    /// Security rules per project (all databases of a project share them).
    public let rules = RulesRegistry()
    /// The requests the front ends served, recorded while someone (the console) watches.
    public let requestLog = RequestLog()
    /// The open Listen and Write streams and WebChannel sessions, with their targets.
    public let streams = OpenStreams()
    /// Faults on demand (HearthCore/Faults, docs/faults.md): the rules every front end
    /// consults; one atomic load per request while none is set.
    public let faults = FaultInjector()
    /// Cloud Functions triggers: what the Functions emulator registered and the delivery of
    /// their events (Emulator/Triggers). Sees every commit of every database.
    public let triggers: CloudFunctionsTriggers
    private let indexSetup: HearthMutex<IndexSetup>
    private let snapshots = HearthMutex<[String: (DatabaseID, DatabaseSnapshot)]>([:])
    private let snapshotCounter = Atomic<Int>(0)
    /// The JAR's --single_project_mode: the one project expected, and the others already warned about.
    private let singleProject = HearthMutex<(expected: String?, warned: Set<String>)>((nil, []))

    private struct IndexSetup {
        var configuration: IndexConfiguration?
        var mode: IndexMode?
        var perProject: [String: IndexConfiguration] = [:]
        var perDatabase: [DatabaseID: IndexConfiguration] = [:]
        var configured: Set<DatabaseID> = []
    }

    /// Whether a commit is acknowledged only once it is on disk (a data directory): the
    /// server then runs writes on its worker pool, never on an event loop.
    public let commitsWaitForDisk: Bool

    /// - Parameters:
    ///   - indexes: declared composite indexes for every database (`--indexes`).
    ///   - indexMode: how missing indexes are reported (`--index-mode`); the core default
    ///     when nil (`enforce` with declared indexes, else `warn`).
    ///   - historyLimit: the bytes every database's past versions may take together
    ///     (`--history-limit`).
    ///   - store: the data directory (`--data-dir`) every database lives in; nil in memory.
    ///   - functionsEmulator: where trigger events go (`host:port`, the official emulator's
    ///     `--functions_emulator`); nil: nowhere until `triggers.configure` names it.
    ///   - triggersPaused: start with trigger delivery paused (events queue until resumed).
    public init(indexes: IndexConfiguration? = nil, indexMode: IndexMode? = nil,
                historyLimit: Int = VersionHistoryBudget.defaultLimit, store: DurableStore? = nil,
                functionsEmulator: String? = nil, triggersPaused: Bool = false) {
        commitsWaitForDisk = store != nil
        clock = EmulatorClock()
        triggers = CloudFunctionsTriggers(requestLog: requestLog, functionsEmulator: functionsEmulator, paused: triggersPaused)
        // Every commit's fan-out to Listen streams wakes each event loop once, whoever commits;
        // every commit reaches the triggers.
        registry = DatabaseRegistry(clock: clock, historyBudget: VersionHistoryBudget(limit: historyLimit), store: store,
                                    commitScope: { section in EventLoop.deferringWakeUps(section) }, commitObserver: triggers)
        indexSetup = HearthMutex(IndexSetup(configuration: indexes, mode: indexMode))
    }

    /// Declares indexes for one project's databases (e.g. a documented app's seed).
    public func setIndexes(_ configuration: IndexConfiguration, forProject project: String) {
        indexSetup.withLock { $0.perProject[project] = configuration }
    }

    /// Declares indexes for one database (firebase.json's list form).
    public func setIndexes(_ configuration: IndexConfiguration, forDatabase id: DatabaseID) {
        indexSetup.withLock { $0.perDatabase[id] = configuration }
    }

    /// Applies the declared indexes to every database already open (a data directory's,
    /// recovered at start-up), so their declared indexes are built before the server
    /// listens rather than by the first request that reaches each database.
    public func configureOpenDatabases() {
        for db in registry.all { configure(db) }
    }

    /// The JAR's `--single_project_mode true`: requests to other projects are still served,
    /// and the first database used in each other project logs the JAR's warning. (The JAR
    /// warns on every request; once per project keeps firestore-debug.log readable.)
    public func expectOnlyProject(_ project: String) {
        singleProject.withLock { $0.expected = project }
    }

    /// The database for `id`, created and configured on first use.
    public func database(_ id: DatabaseID) -> Database {
        let db = registry.database(id)
        if configure(db), let expected = singleProject.withLock({ s -> String? in
            guard let e = s.expected, e != id.project, s.warned.insert(id.project).inserted else { return nil }
            return e
        }) {
            HearthLog.warning("Multiple projectIds are not recommended in single project mode. Requested project ID \(id.project), "
                + "but the emulator is configured for \(expected). To opt-out of single project mode add/set the "
                + "'\"singleProjectMode\": false' property in the firebase.json emulators config.")
        }
        return db
    }

    /// Gives `db` its indexes the first time it is seen; whether this was that time.
    @discardableResult
    private func configure(_ db: Database) -> Bool {
        let id = db.id
        let setup: (IndexConfiguration?, IndexMode?)? = indexSetup.withLock { s in
            guard s.configured.insert(id).inserted else { return nil }
            return (s.perDatabase[id] ?? s.perProject[id.project] ?? s.configuration, s.mode)
        }
        guard let (configuration, mode) = setup else { return false }
        if configuration != nil || mode != nil {
            let config = configuration ?? IndexConfiguration()
            db.configureIndexes(config, mode: mode ?? (configuration == nil ? .warn : .enforce))
        }
        return true
    }

    // MARK: Snapshots

    /// Captures a database; returns the snapshot's id.
    public func takeSnapshot(_ id: DatabaseID) -> String {
        let snapshot = database(id).snapshot()
        let n = snapshotCounter.add(1, ordering: .relaxed).newValue
        let name = "snapshot-\(n)"
        snapshots.withLock { $0[name] = (id, snapshot) }
        return name
    }

    /// The ids of the snapshots taken of a database, oldest first.
    public func snapshotIDs(of id: DatabaseID) -> [String] {
        snapshots.withLock { s in
            s.filter { $0.value.0 == id }.keys.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        }
    }

    /// Restores a snapshot taken of the same database.
    public func restoreSnapshot(_ name: String, into id: DatabaseID) throws(FirestoreError) {
        guard let (source, snapshot) = snapshots.withLock({ $0[name] }) else {
            throw FirestoreError(.notFound, "No snapshot named \"\(name)\".")
        }
        guard source == id else {
            throw FirestoreError(.invalidArgument, "Snapshot \"\(name)\" was taken of \(source.name), not \(id.name).")
        }
        database(id).restore(snapshot)
    }

    /// Deletes every document of a database (or of the subtree at `path`), as one commit
    /// per 500 documents so listeners see removals.
    public func clear(_ id: DatabaseID, under path: ResourcePath = .root) throws(FirestoreError) {
        let db = database(id)
        if path.isEmpty {
            db.restore(Database(id: id, clock: clock).snapshot())
            return
        }
        let doomed = db.state().allDocuments().filter { path.isPrefix(of: $0.path) }.map(\.path)
        var i = 0
        while i < doomed.count {
            let chunk = doomed[i..<min(i + 500, doomed.count)]
            try db.commit(chunk.map { Write.delete($0) })
            i += 500
        }
    }

    /// The composite indexes every database's queries needed so far, merged.
    public func learnedIndexes(project: String? = nil, database: String? = nil) -> IndexConfiguration {
        var merged = IndexConfiguration()
        for db in registry.all where (project == nil || db.id.project == project) && (database == nil || db.id.database == database) {
            for index in db.learnedIndexes().indexes { merged.insert(index) }
        }
        return merged
    }
}
