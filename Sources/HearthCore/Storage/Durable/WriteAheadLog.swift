import Foundation

/// The append side of the log: commits are queued inside their database's commit lock
/// (cheap: the documents are immutable and shared, nothing is encoded there) and made
/// durable by group commit — the first waiter becomes the leader, takes every queued commit,
/// encodes and frames them, writes them with one `write` and one sync, and wakes the others.
/// Concurrent writers thus share syncs: N waiting commits cost one sync, not N.
///
/// A failed write or sync leaves commits in memory that may not be on disk; from then on the
/// log refuses new commits (UNAVAILABLE) until the process restarts and recovers.
final class WriteAheadLog: @unchecked Sendable {
    // @unchecked: the queue, tickets and failure are guarded by `condition`; the file, the
    // framer and the segment's size belong to whoever holds the writer role (`writing`).
    let directory: String
    private let condition = NSCondition()
    private var pending: [DurableRecord.Commit] = []
    private var appended: UInt64 = 0
    private var durable: UInt64 = 0
    private var writing = false
    private var failure: FirestoreError?
    private var closed = false

    private var file: PosixFile
    private(set) var segmentNumber: Int
    private var framer: LogFramer
    private var segmentSize: Int
    /// Called (outside any lock) after a group is written, with the segment's size.
    var onWrite: (@Sendable (Int) -> Void)?
    /// Called (outside any lock) once, when a write or sync fails and the log starts
    /// refusing commits, with what failed: the server's log must say why commits fail.
    var onFailure: (@Sendable (String) -> Void)?

    /// Starts segment `number` (a new, empty file).
    init(directory: String, segment number: Int) throws(FirestoreError) {
        self.directory = directory
        segmentNumber = number
        (file, framer, segmentSize) = try Self.createSegment(directory: directory, number: number)
    }

    private static func createSegment(directory: String, number: Int) throws(FirestoreError) -> (PosixFile, LogFramer, Int) {
        let path = (directory as NSString).appendingPathComponent(DurableRecord.segmentName(number))
        do {
            let f = try PosixFile.create(path)
            var framer = LogFramer()
            var out: [UInt8] = []
            framer.frame(DurableRecord.segmentHeader(number), into: &out)
            try f.write(out)
            try f.sync()
            try PosixFile.syncDirectory(directory)
            return (f, framer, out.count)
        } catch {
            // A half-made segment would read as damage before the commits that follow.
            try? PosixFile.remove(path)
            throw FirestoreError(.unavailable, "The data directory cannot be written: \(error.description).")
        }
    }

    /// Refuses work once a write has failed or the log is closed.
    func checkWritable() throws(FirestoreError) {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        if closed { throw FirestoreError(.unavailable, "The database's data directory has been closed.") }
    }

    /// Whether commits are still accepted (no failed write, not closed).
    var isWritable: Bool {
        condition.lock()
        defer { condition.unlock() }
        return failure == nil && !closed
    }

    /// Queues a commit; returns the ticket to wait for. Called inside the commit lock, so
    /// each database's commits are queued in commit order.
    func append(_ commit: DurableRecord.Commit) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        pending.append(commit)
        appended += 1
        return appended
    }

    /// Returns once the commit with `ticket` is on stable storage (leading a group write if
    /// no one else is); throws if the write failed.
    func waitDurable(_ ticket: UInt64) throws(FirestoreError) {
        condition.lock()
        defer { condition.unlock() }
        while durable < ticket {
            if let failure { throw failure }
            if writing {
                condition.wait()
                continue
            }
            writeQueued()
        }
    }

    /// With the lock held and no writer: becomes the writer, writes everything queued, and
    /// publishes the outcome. Returns with the lock held.
    private func writeQueued() {
        writing = true
        let batch = pending
        pending = []
        let last = appended
        condition.unlock()
        let result = Result { () throws(FirestoreError) in try writeGroup(batch) }
        if case .failure(let error) = result { reportFailure(error) }
        condition.lock()
        writing = false
        switch result {
        case .success: durable = last
        case .failure(let error): failure = error
        }
        condition.broadcast()
        if case .success(let size) = result, let onWrite {
            condition.unlock()
            onWrite(size)
            condition.lock()
        }
    }

    private func reportFailure(_ error: FirestoreError) {
        onFailure?("the data directory \(directory) failed a write, so Hearth refuses commits until it is restarted (a restart recovers every acknowledged commit): \(error.message)")
    }

    /// Encodes, frames, writes and syncs one group; returns the segment's size after it.
    private func writeGroup(_ batch: [DurableRecord.Commit]) throws(FirestoreError) -> Int {
        guard !batch.isEmpty else { return segmentSize }
        var out: [UInt8] = []
        let start = segmentSize
        for commit in batch { framer.frame(DurableRecord.encode(commit), into: &out) }
        framer.frame(DurableRecord.groupEnd(start: start), into: &out)
        do {
            try file.write(out)
            try file.sync()
        } catch {
            throw FirestoreError(.unavailable, "The commit could not be made durable: \(error.description). Hearth refuses further commits until it is restarted.")
        }
        segmentSize += out.count
        return segmentSize
    }

    /// Writes what is queued, then continues in a new segment; returns its number. Every
    /// commit queued before the call is in the older segments.
    func rotate() throws(FirestoreError) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while writing { condition.wait() }
        if let failure { throw failure }
        writing = true
        let batch = pending
        pending = []
        let last = appended
        condition.unlock()
        let written = Result { () throws(FirestoreError) in _ = try writeGroup(batch) }
        if case .failure(let error) = written { reportFailure(error) }
        // A new segment that cannot be created is no reason to refuse commits: the current
        // one goes on (the compaction that asked fails and is retried later).
        let next = segmentNumber + 1
        let created = written.flatMap { _ in Result { () throws(FirestoreError) in try Self.createSegment(directory: directory, number: next) } }
        if case .success(let (f, fr, size)) = created {
            file.close()
            (file, framer, segmentSize, segmentNumber) = (f, fr, size, next)
        }
        condition.lock()
        writing = false
        condition.broadcast()
        if case .failure(let error) = written {
            failure = error
            throw error
        }
        durable = last
        if case .failure(let error) = created { throw error }
        return next
    }

    /// Closes the file without writing what is queued, as a crash would (tests).
    func abandon() {
        condition.lock()
        while writing { condition.wait() }
        closed = true
        pending = []
        file.close()
        condition.unlock()
    }

    /// Writes what is queued and closes the segment; later commits are refused.
    func close() {
        condition.lock()
        while writing { condition.wait() }
        if failure == nil, !pending.isEmpty, !closed {
            writeQueued()
        }
        closed = true
        file.close()
        condition.unlock()
    }
}
