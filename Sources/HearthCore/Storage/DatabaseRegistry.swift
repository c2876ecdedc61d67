import HearthLock

/// Every database of a running emulator or embedded process, keyed by project id and
/// database id, created on first use with a shared clock and one memory budget for their
/// past versions.
public final class DatabaseRegistry: Sendable {
    public let clock: any HearthClock
    public let historyBudget: VersionHistoryBudget
    /// The data directory every database lives in (nil: in memory).
    public let store: DurableStore?
    /// Runs around each database's commits (`Database.CommitScope`).
    public let commitScope: Database.CommitScope?
    /// Sees every commit of every database here, from its creation (Cloud Functions triggers).
    public let commitObserver: (any CommitObserver)?
    private let databases = HearthMutex<[DatabaseID: Database]>([:])

    /// With `store`, every database the directory holds is opened at once.
    public init(clock: any HearthClock = SystemClock(), historyBudget: VersionHistoryBudget = VersionHistoryBudget(),
                store: DurableStore? = nil, commitScope: Database.CommitScope? = nil,
                commitObserver: (any CommitObserver)? = nil) {
        self.clock = clock
        self.commitScope = commitScope
        self.historyBudget = historyBudget
        self.store = store
        self.commitObserver = commitObserver
        for id in store?.databaseIDs ?? [] { _ = database(id) }
    }

    /// The database with this id, created empty if it does not exist yet.
    public func database(_ id: DatabaseID) -> Database {
        databases.withLock { dbs in
            if let db = dbs[id] { return db }
            let db = store?.database(id, clock: clock, historyBudget: historyBudget, commitScope: commitScope)
                ?? Database(id: id, clock: clock, historyBudget: historyBudget, commitScope: commitScope)
            if let commitObserver { db.observeCommits(commitObserver) }
            dbs[id] = db
            return db
        }
    }

    /// Replaces (or installs) the database for `id`, e.g. with a fork.
    public func install(_ database: Database) {
        if let commitObserver { database.observeCommits(commitObserver) }
        databases.withLock { $0[database.id] = database }
    }

    /// Drops every database of `project` (the emulator's "clear data").
    public func removeAll(project: String) {
        databases.withLock { dbs in dbs = dbs.filter { $0.key.project != project } }
    }

    public var all: [Database] { databases.withLock { Array($0.values) } }
}
