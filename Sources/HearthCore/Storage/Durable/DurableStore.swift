import Foundation
import HearthLock

/// A data directory: every database's documents survive the process. Commits are logged
/// to `wal-N.log` segments and synced before they are acknowledged (group commit shares a
/// sync among concurrent writers); a background compaction folds the log into
/// `snapshot-N.hearth` without stalling commits; opening the directory replays the newest
/// snapshot and the log after it. `LOCK` keeps a second process out.
///
/// What recovery does with damage: a torn record at the end of the newest segment (an
/// append interrupted by a crash; never acknowledged) is cut off, with a notice saying so.
/// Damage anywhere else stops the open with the file, the offset and what to do — later
/// data is never dropped silently. docs/storage.md describes the files.
public final class DurableStore: @unchecked Sendable {
    // @unchecked: mutable state is in `shared` (a HearthMutex); the rest is set once.
    public let directory: String
    let wal: WriteAheadLog
    private let lockFile: PosixFile
    private let options: Options
    private let shared: HearthMutex<Shared>
    private let compactionDone = NSCondition()
    /// What opening found: counts, time taken, and any torn tail dropped.
    public let recoveryReport: RecoveryReport

    public struct Options: Sendable {
        /// Compact once the current log segment is larger than this many bytes.
        public var compactionThreshold: Int
        /// Open even when a log segment is damaged before later data: keep what precedes
        /// the damage and drop the rest (the commits after it are lost).
        public var truncateDamagedLog: Bool
        /// Where notices (a torn tail dropped, a failed background compaction) go (default:
        /// `HearthLog`).
        public var notice: @Sendable (String) -> Void

        public init(compactionThreshold: Int = 64 << 20, truncateDamagedLog: Bool = false,
                    notice: @escaping @Sendable (String) -> Void = { HearthLog.notice($0) }) {
            self.compactionThreshold = compactionThreshold
            self.truncateDamagedLog = truncateDamagedLog
            self.notice = notice
        }
    }

    public struct RecoveryReport: Sendable, CustomStringConvertible {
        public let databases: Int
        public let documents: Int
        public let snapshot: String?
        public let commitsReplayed: Int
        public let seconds: Double
        /// Lines about what recovery dropped (a torn tail, or damage with `truncateDamagedLog`).
        public let notices: [String]

        public var description: String {
            if databases == 0 && commitsReplayed == 0 && snapshot == nil { return "new data directory" }
            let from = [snapshot.map { "snapshot \($0)" }, commitsReplayed > 0 || snapshot == nil ? "\(commitsReplayed) logged commits" : nil]
                .compactMap { $0 }.joined(separator: " and ")
            return "recovered \(documents) documents in \(databases) database\(databases == 1 ? "" : "s") from \(from) in \(String(format: "%.2f", seconds)) s"
        }
    }

    private struct Shared {
        var recovered: [DatabaseID: RecoveredDatabase]
        var attached: [DatabaseID: Database] = [:]
        var compacting = false
        var closed = false
    }

    private init(directory: String, wal: WriteAheadLog, lockFile: PosixFile, options: Options,
                 recovered: [DatabaseID: RecoveredDatabase], report: RecoveryReport) {
        self.directory = directory
        self.wal = wal
        self.lockFile = lockFile
        self.options = options
        shared = HearthMutex(Shared(recovered: recovered))
        recoveryReport = report
        let notice = options.notice
        wal.onFailure = { notice($0) }
        wal.onWrite = { [weak self] size in
            guard let self, size > self.options.compactionThreshold else { return }
            self.compactInBackground()
        }
    }

    // MARK: Opening

    /// Opens (creating if needed) the data directory and recovers its databases.
    public static func open(directory: String, options: Options = Options()) throws(DurableStoreError) -> DurableStore {
        let started = Date()
        do {
            switch try PosixFile.kind(directory) {
            case .directory: break
            case .file: throw DurableStoreError("\(directory) exists and is not a directory.")
            case .missing:
                // Synced into its parent: otherwise a power loss soon after can drop the
                // directory with every commit acknowledged in it.
                try PosixFile.makeDirectory(directory, intermediate: true, syncingParents: true)
            }
        } catch let error as DurableStoreError {
            throw error
        } catch {
            throw DurableStoreError.io("Cannot create the data directory \(directory): \(error)")
        }
        let lockFile = try lock(directory)
        let opened = Result { () throws(DurableStoreError) -> DurableStore in
            let (recovered, lastSegment, report) = try recover(directory, options: options, started: started)
            let wal: WriteAheadLog
            do throws(FirestoreError) { wal = try WriteAheadLog(directory: directory, segment: lastSegment + 1) } catch {
                throw DurableStoreError.io(error.message)
            }
            for line in report.notices { options.notice(line) }
            return DurableStore(directory: directory, wal: wal, lockFile: lockFile, options: options, recovered: recovered, report: report)
        }
        if case .failure = opened { lockFile.close() }
        return try opened.get()
    }

    private static func lock(_ directory: String) throws(DurableStoreError) -> PosixFile {
        let path = (directory as NSString).appendingPathComponent("LOCK")
        do {
            let file = try PosixFile.openForUpdate(path)
            guard try file.tryLock() else {
                let holder = ((try? PosixFile.contents(path)).map { String(decoding: $0, as: UTF8.self) } ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                file.close()
                throw DurableStoreError("The data directory \(directory) is in use by another Hearth process\(holder.isEmpty ? "" : " (pid \(holder))"). Stop that process, or give this one another directory.")
            }
            try file.truncate(to: 0)
            try file.write(Array("\(getpid())\n".utf8))
            return file
        } catch let error as DurableStoreError {
            throw error
        } catch {
            throw DurableStoreError.io("Cannot lock the data directory: \(error)")
        }
    }

    /// Replays the newest snapshot and the log segments after it; returns the databases, the
    /// last segment's number (0 if none) and the report.
    private static func recover(_ directory: String, options: Options, started: Date) throws(DurableStoreError) -> ([DatabaseID: RecoveredDatabase], Int, RecoveryReport) {
        let names: [String]
        do { names = try PosixFile.list(directory) } catch {
            throw DurableStoreError.io("Cannot list the data directory \(directory): \(error)")
        }
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        // A compaction interrupted before its rename left a temporary file: never complete.
        for name in names where name.hasSuffix(".hearth.tmp") { try? PosixFile.remove(path(name)) }
        let snapshots = names.compactMap { DurableRecord.number(in: $0, prefix: "snapshot-", suffix: ".hearth") }.sorted()
        var segments = names.compactMap { DurableRecord.number(in: $0, prefix: "wal-", suffix: ".log") }.sorted()

        var databases: [DatabaseID: RecoveredDatabase] = [:]
        var firstSegment = 1
        var snapshotName: String?
        if let newest = snapshots.last {
            snapshotName = DurableRecord.snapshotName(newest)
            let (next, dbs) = try SnapshotFile.read(path(snapshotName!))
            databases = dbs
            firstSegment = next
            // Older snapshots and the segments this one replaced: a compaction was
            // interrupted before deleting them.
            for old in snapshots.dropLast() { try? PosixFile.remove(path(DurableRecord.snapshotName(old))) }
        }
        for stale in segments where stale < firstSegment { try? PosixFile.remove(path(DurableRecord.segmentName(stale))) }
        segments = segments.filter { $0 >= firstSegment }
        for (i, n) in segments.enumerated() where n != firstSegment + i {
            let missing = DurableRecord.segmentName(firstSegment + i)
            throw DurableStoreError("The data directory \(directory) is missing \(missing) (found \(DurableRecord.segmentName(n)) after it): the commits it held are gone. Restore the directory from a backup.")
        }

        var notices: [String] = []
        var replayed = 0
        var index = 0
        while index < segments.count {
            let number = segments[index]
            let file = path(DurableRecord.segmentName(number))
            let isLast = index == segments.count - 1
            let (count, found) = try replay(file, number: number, into: &databases)
            replayed += count
            if let damage = found {
                let advice = "Hearth stops rather than drop the commits after it. Restore the data directory from a backup, or start once with --truncate-damaged-log to keep only what precedes byte \(damage.intactLength) (the later commits are lost)."
                let dropped = damage.fileSize - damage.intactLength
                if isLast && damage.isTornTail {
                    notices.append("dropped a torn record at the end of \(file) (\(dropped) bytes from byte \(damage.intactLength): \(damage.reason)); it was never acknowledged")
                } else if options.truncateDamagedLog {
                    let later = segments[(index + 1)...].map { DurableRecord.segmentName($0) }
                    notices.append("--truncate-damaged-log: dropped \(dropped) bytes of \(file) from byte \(damage.intactLength) (\(damage.reason))" + (later.isEmpty ? "" : " and the later segments \(later.joined(separator: ", "))"))
                    for name in later { try? PosixFile.remove(path(name)) }
                    segments.removeSubrange((index + 1)...)
                } else {
                    throw DurableStoreError.corrupt(file: file, offset: damage.offset, problem: damage.reason, advice: advice)
                }
                do {
                    let f = try PosixFile.openForUpdate(file)
                    try f.truncate(to: damage.intactLength)
                    try f.sync()
                    f.close()
                } catch {
                    throw DurableStoreError.io("Cannot cut the damaged end off \(file): \(error)")
                }
            }
            // The previous run wrote nothing to its segment: the new run takes its number
            // (so restarts without commits do not pile up empty segments).
            if isLast, count == 0, found == nil {
                try? PosixFile.remove(file)
                segments.removeLast()
            }
            index += 1
        }
        let documents = databases.values.reduce(0) { $0 + $1.documentCount }
        let report = RecoveryReport(databases: databases.count, documents: documents, snapshot: snapshotName,
                                    commitsReplayed: replayed, seconds: Date().timeIntervalSince(started), notices: notices)
        return (databases, segments.last ?? firstSegment - 1, report)
    }

    /// Damage in a segment: where, why, whether it is a torn tail, and what was replayed
    /// before it.
    private struct SegmentDamage {
        let offset: Int
        let intactLength: Int
        let fileSize: Int
        let reason: String
        let isTornTail: Bool
    }

    /// Applies a segment's commits up to any damage; returns how many, and the damage.
    private static func replay(_ file: String, number: Int, into databases: inout [DatabaseID: RecoveredDatabase]) throws(DurableStoreError) -> (Int, SegmentDamage?) {
        let log: LogReader
        do { log = try LogReader(path: file) } catch { throw .damaged(error, advice: "") }
        var replayed = 0
        var sawHeader = false
        func damage(_ offset: Int, _ reason: String) throws(DurableStoreError) -> SegmentDamage {
            // A torn tail lies inside the last group written: no complete group begins after it.
            let intact = log.intactLength
            let later: Bool
            do {
                later = try log.containsFragment(in: (intact + 1)..<log.size) { payload in
                    (DurableRecord.groupStart(payload) ?? -1) > intact
                }
            } catch { throw .damaged(error, advice: "") }
            return SegmentDamage(offset: offset, intactLength: intact, fileSize: log.size, reason: reason, isTornTail: !later)
        }
        while true {
            let record: [UInt8]?
            do { record = try log.next() } catch {
                if case .io = error.problem { throw .damaged(error, advice: "") }
                return (replayed, try damage(error.offset, error.reason))
            }
            guard let record else { break }
            do {
                guard let kind = record.first else { continue }
                switch kind {
                case DurableRecord.segmentHeader:
                    var r = RecordReader(record)
                    _ = try r.byte()
                    guard try r.string() == DurableRecord.logMagic else { throw RecordReader.Malformed(offset: 1, what: "not a Hearth log header") }
                    let version = try r.varint()
                    guard version == DurableRecord.formatVersion else {
                        throw RecordReader.Malformed(offset: 1, what: "log format version \(version) (this Hearth reads \(DurableRecord.formatVersion))")
                    }
                    guard try r.varint() == number else { throw RecordReader.Malformed(offset: 1, what: "the header names another segment number") }
                    sawHeader = true
                case DurableRecord.commit:
                    guard sawHeader else { throw RecordReader.Malformed(offset: 0, what: "a commit before the segment header") }
                    apply(try DurableRecord.decodeCommit(record), to: &databases)
                    replayed += 1
                case DurableRecord.groupEnd:
                    break
                default:
                    throw RecordReader.Malformed(offset: 0, what: "unknown record kind \(kind)")
                }
            } catch {
                // The record passed its checksum, so this is not a torn write: stop.
                throw DurableStoreError.corrupt(file: file, offset: log.recordOffset, problem: "\(error)",
                    advice: "The record's checksum is valid, so this Hearth cannot read what wrote it (a newer version?) or the file was altered. Restore the data directory from a backup.")
            }
        }
        return (replayed, nil)
    }

    private static func apply(_ commit: DurableRecord.Commit, to databases: inout [DatabaseID: RecoveredDatabase]) {
        var db = databases.removeValue(forKey: commit.database)
            ?? RecoveredDatabase(documents: PersistentSortedMap(), documentCount: 0, lastCommit: Timestamp(seconds: Timestamp.minSeconds, nanos: 0))
        defer { databases[commit.database] = db }
        // Already in the snapshot (compaction captured states after rotating the log).
        guard commit.commitTime > db.lastCommit else { return }
        for (path, document) in commit.changes {
            let key = DocumentKey(path)
            let existed = db.documents[key]?.document != nil
            if let document {
                db.documents.updateValue(DocumentVersion(document: document, since: commit.commitTime, older: nil), forKey: key)
                if !existed { db.documentCount += 1 }
            } else if db.documents.removeValue(forKey: key) != nil, existed {
                db.documentCount -= 1
            }
        }
        db.lastCommit = commit.commitTime
    }

    // MARK: Databases

    /// The database `id` of this directory, with its recovered documents, logging its
    /// commits here. Returns the same instance for the same id.
    public func database(_ id: DatabaseID, clock: any HearthClock, versionRetention: Double = 3600,
                         historyBudget: VersionHistoryBudget = VersionHistoryBudget(),
                         indexes: IndexConfiguration? = nil, indexMode: IndexMode? = nil,
                         commitScope: Database.CommitScope? = nil) -> Database {
        shared.withLock { s in
            if let db = s.attached[id] { return db }
            let recovered = s.recovered.removeValue(forKey: id)
            let db = Database(id: id, clock: clock, versionRetention: versionRetention, historyBudget: historyBudget,
                              indexes: indexes, indexMode: indexMode, journal: wal, recovered: recovered,
                              commitScope: commitScope)
            s.attached[id] = db
            return db
        }
    }

    /// Every database the directory holds or has been asked for.
    public var databaseIDs: [DatabaseID] {
        shared.withLock { Array($0.recovered.keys) + Array($0.attached.keys) }
    }

    // MARK: Compaction

    /// Folds the log into a new snapshot now (the background compaction calls this too).
    /// Commits continue meanwhile: the log moves to a new segment first, then each database's
    /// current state — immutable — is written out, then the older files are deleted.
    public func compact() throws(FirestoreError) {
        let begun = shared.withLock { s -> Bool in
            if s.compacting || s.closed { return false }
            s.compacting = true
            return true
        }
        guard begun else { return }
        defer {
            compactionDone.lock()
            shared.withLock { $0.compacting = false }
            compactionDone.broadcast()
            compactionDone.unlock()
        }
        let next = try wal.rotate()
        // Taken after the rotation: every commit in the older segments is in these states.
        let states = shared.withLock { s -> [DatabaseState] in
            s.attached.values.map { $0.state() } + s.recovered.map { id, r in
                DatabaseState(database: id, readTime: r.lastCommit, documents: r.documents, documentCount: r.documentCount)
            }
        }
        _ = try SnapshotFile.write(states, number: next, directory: directory)
        for name in (try? PosixFile.list(directory)) ?? [] {
            let old = DurableRecord.number(in: name, prefix: "wal-", suffix: ".log").map { $0 < next }
                ?? DurableRecord.number(in: name, prefix: "snapshot-", suffix: ".hearth").map { $0 < next } ?? false
            if old { try? PosixFile.remove((directory as NSString).appendingPathComponent(name)) }
        }
    }

    private func compactInBackground() {
        let idle = shared.withLock { !$0.compacting && !$0.closed }
        guard idle else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            do throws(FirestoreError) { try compact() } catch { options.notice("background compaction failed (the log keeps growing; retried later): \(error.message)") }
        }
    }

    // MARK: Closing

    /// Waits for a running compaction, writes what is queued, and releases the directory.
    /// Commits after this are refused.
    public func close() {
        compactionDone.lock()
        while shared.withLock({ $0.compacting }) { compactionDone.wait() }
        let first = shared.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        compactionDone.unlock()
        guard first else { return }
        wal.close()
        lockFile.close()
    }

    /// Releases the directory as a killed process would: nothing queued is written (tests).
    func abandon() {
        compactionDone.lock()
        while shared.withLock({ $0.compacting }) { compactionDone.wait() }
        shared.withLock { $0.closed = true }
        compactionDone.unlock()
        wal.abandon()
        lockFile.close()
    }
}
