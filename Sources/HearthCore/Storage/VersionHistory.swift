import Synchronization

/// How much memory the past versions of documents (kept for reads at an earlier read time)
/// may take, shared by every database of a process: a hot document updated in a loop would
/// otherwise keep an hour of versions — a million small updates are some 300 MB.
///
/// Within the limit, each database keeps the retention window (production: one hour).
/// Past it, the committing database drops its oldest versions until the process is back
/// under three quarters of the limit; a read at a read time older than what is left is
/// refused like one older than the window (FAILED_PRECONDITION, "The requested snapshot
/// version is too old."), a Listen resume from there resets the target, and transactions
/// already open keep reading the state they began on (it holds its versions itself).
public final class VersionHistoryBudget: Sendable {
    /// 128 MiB: some 350,000 past versions of small documents, an hour of a hundred commits
    /// a second.
    public static let defaultLimit = 128 << 20

    /// The most bytes past versions may take, by `estimatedBytes`.
    public let limit: Int
    private let used = Atomic<Int>(0)

    public init(limit: Int = VersionHistoryBudget.defaultLimit) {
        self.limit = max(0, limit)
    }

    /// The limit as people read it (`128 MiB`, `64 KiB`, `500 bytes`), for error messages.
    public var limitDescription: String {
        if limit >= 1 << 20 && limit % (1 << 20) == 0 { return "\(limit >> 20) MiB" }
        if limit >= 1 << 10 && limit % (1 << 10) == 0 { return "\(limit >> 10) KiB" }
        return "\(limit) bytes"
    }

    /// The estimated bytes past versions take now, over every database using this budget.
    public var usedBytes: Int { used.load(ordering: .relaxed) }

    func add(_ bytes: Int) { used.add(bytes, ordering: .relaxed) }
    func subtract(_ bytes: Int) { used.subtract(bytes, ordering: .relaxed) }

    /// The memory one past version takes beyond what the current version shares with it:
    /// its chain node, its `Document`, the copied field map, its entry in the log, and what
    /// the allocator loses to them. Measured on Linux x86-64: 385 bytes for a one-field
    /// document in the engine alone (`hearth-bench --history --limit none`, one thread);
    /// `hearth serve` under 4 concurrent writers holds about 1.6× that (malloc's per-thread
    /// arenas, the log's spare capacity), so the fixed part is sized for the server and a
    /// limit holds there; the engine alone keeps a little less than it could. A field map
    /// costs a little over twice its Firestore size (docs/semantics.md#document-size-and-limits).
    static func estimatedBytes(fieldsSize: Int) -> Int { 640 + 2 * fieldsSize }
}

/// One database's past versions in the order they were superseded, so the oldest can be
/// dropped first, a batch at a time: dropping rebuilds the part of a chain that is kept
/// (chains are immutable, shared with states readers hold), so each drop is of a quarter
/// of the log or more, which keeps the rebuilding to a few nodes per dropped version.
struct VersionHistoryLog: Sendable {
    private struct Entry: Sendable {
        /// The commit time from which the version is hidden by a newer one.
        let supersededAt: Timestamp
        let key: DocumentKey
        let bytes: Int
    }

    private var entries: [Entry] = []
    private var head = 0
    /// The bytes of the entries from `head` on.
    private(set) var bytes = 0
    /// Reads before this time find versions dropped for the budget (the window alone may
    /// keep less: see `Database.state(readTime:)`).
    private(set) var floor = Timestamp(seconds: Timestamp.minSeconds, nanos: 0)

    var count: Int { entries.count - head }

    /// Records that the version `version` of `key` is hidden from `time` on.
    mutating func superseded(_ version: DocumentVersion, of key: DocumentKey, at time: Timestamp, budget: VersionHistoryBudget) {
        let size = VersionHistoryBudget.estimatedBytes(fieldsSize: version.fieldsSize)
        entries.append(Entry(supersededAt: time, key: key, bytes: size))
        bytes += size
        budget.add(size)
    }

    /// Drops the versions no read at or after `horizon` (now minus the retention) can see,
    /// and more, oldest first, while the budget is exceeded; `floor` moves to the oldest
    /// read time still answered exactly.
    mutating func trim(_ state: inout DatabaseState, horizon: Timestamp, budget: VersionHistoryBudget) {
        guard count > 0 else { return }
        let overBudget = budget.usedBytes > budget.limit
        if !overBudget {
            // Wait until a quarter of the log (or, for a short log, any of it) is due.
            let probe = count < 64 ? head : head + count / 4
            guard entries[probe].supersededAt <= horizon else { return }
        }
        var end = head, freed = 0
        while end < entries.count, entries[end].supersededAt <= horizon {
            freed += entries[end].bytes
            end += 1
        }
        var target = horizon
        if overBudget {
            let goal = budget.limit - budget.limit / 4
            while end < entries.count, budget.usedBytes - freed > goal {
                freed += entries[end].bytes
                end += 1
            }
            // A horizon is a time: every version superseded at that commit goes too.
            while end < entries.count, entries[end].supersededAt == entries[end - 1].supersededAt {
                freed += entries[end].bytes
                end += 1
            }
            if end > head { target = max(target, entries[end - 1].supersededAt) }
        }
        guard end > head else { return }
        var done = Set<DocumentKey>()
        for entry in entries[head..<end] where done.insert(entry.key).inserted {
            guard let (chain, position) = state.documents.lookup(entry.key) else { continue }
            let kept = chain.pruned(before: target)
            guard kept !== chain else { continue }
            if let position { state.documents.replaceValue(at: position, with: kept) }
            else { state.documents.updateValue(kept, forKey: entry.key) }
        }
        head = end
        bytes -= freed
        budget.subtract(freed)
        floor = max(floor, target)
        if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    /// Gives the bytes back to the budget (the database is going away or starts over).
    mutating func release(_ budget: VersionHistoryBudget) {
        budget.subtract(bytes)
        bytes = 0
        entries = []
        head = 0
    }
}
