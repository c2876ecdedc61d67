/// What one commit (or one `restore`) changed: the version before and after of every
/// document whose content changed, and the database state the commit produced. The
/// database publishes exactly one per commit, in commit order, while at least one listen
/// target is registered; listeners never see part of a batch.
public struct ChangeSet: Sendable {
    /// One changed document: `before` nil = created, `after` nil = deleted.
    public struct Entry: Sendable {
        public let key: DocumentKey
        public let before: Document?
        public let after: Document?

        public init(key: DocumentKey, before: Document?, after: Document?) {
            self.key = key
            self.before = before
            self.after = after
        }
    }

    /// The commit time (the read time of `state`).
    public let commitTime: Timestamp
    /// Each changed document once, in the order the commit first touched it.
    public let entries: [Entry]
    /// The state right after the commit: views that lose documents from a full limit
    /// window refill from its indexes.
    public let state: DatabaseState
}
