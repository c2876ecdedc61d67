/// Something outside the engine that must see every commit of a database, in commit order,
/// with nothing able to bypass it: the emulator's Cloud Functions triggers. Every way a
/// database changes — `commit` (any front end, batches, transactions, imports) and `restore`
/// (clearing a database) — reports here, under the commit lock.
///
/// Cost: one load of `observesCommits` per commit while nobody observes; while someone
/// does, the touched documents are collected (references to versions the commit builds
/// anyway) and `committed` runs inside the commit lock, so it must only hand them on.
public protocol CommitObserver: AnyObject, Sendable {
    /// Whether commits are reported now (read once per commit: keep it an atomic load).
    var observesCommits: Bool { get }
    /// One commit's documents; called under the database's commit lock, in commit order.
    func committed(_ commit: CommittedDocuments)
}

/// What one commit did to each document a write of it named (verifies excepted).
public struct CommittedDocuments: Sendable {
    public struct Entry: Sendable {
        public let key: DocumentKey
        /// The stored version before the commit (nil: none).
        public let before: Document?
        /// The version after it (nil: deleted or still missing). For a write that changed
        /// nothing, the unchanged stored version (its update time is the earlier one).
        public let after: Document?
        /// The content changed: false for a write that left the document as it was, or the
        /// delete of a missing document.
        public let changed: Bool

        public init(key: DocumentKey, before: Document?, after: Document?, changed: Bool) {
            self.key = key
            self.before = before
            self.after = after
            self.changed = changed
        }
    }

    public let database: DatabaseID
    public let commitTime: Timestamp
    /// Each document once, in the order the commit first touched it.
    public let entries: [Entry]

    public init(database: DatabaseID, commitTime: Timestamp, entries: [Entry]) {
        self.database = database
        self.commitTime = commitTime
        self.entries = entries
    }
}
