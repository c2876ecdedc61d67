import Foundation
import Testing
@testable import HearthCore

@Suite("Data directories: what was acknowledged survives, damage is found and named")
struct DurableStoreTests {
    let clock = ManualClock(now: testEpoch)
    let id = DatabaseID(project: "p")

    private func fields(_ n: Int) -> MapValue { testFields(["n": .integer(Int64(n)), "s": .string("v\(n)")]) }

    @Test("documents, create and update times and the commit clock survive a restart")
    func restart() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        var store = try dir.open()
        var db = store.database(id, clock: clock)
        try db.commit([.set(testPath("c/a"), fields(1)), .set(testPath("c/b"), fields(2))])
        clock.advance(by: 5)
        let last = try db.commit([.update(testPath("c/a"), fields(3), mask: [testFieldPath("n")]), .delete(testPath("c/b")),
                                  .set(testPath("c/a/sub/x"), testFields(["t": .timestamp(Timestamp(seconds: 1, nanos: 123_456_789))]))])
        let other = store.database(DatabaseID(project: "q", database: "named"), clock: clock)
        try other.commit([.set(testPath("k/v"), fields(9))])
        let before = durableContents(db), otherBefore = durableContents(other)
        store.close()

        store = try dir.open()
        defer { store.close() }
        #expect(Set(store.databaseIDs) == [id, DatabaseID(project: "q", database: "named")])
        db = store.database(id, clock: clock)
        #expect(durableContents(db) == before)
        #expect(durableContents(store.database(DatabaseID(project: "q", database: "named"), clock: clock)) == otherBefore)
        #expect(db.state().documentCount == 2)
        #expect(db.state().readTime == last.commitTime)
        // The clock stands still: the next commit still comes after the last one before the restart.
        let next = try db.commit([.set(testPath("c/z"), MapValue())])
        #expect(next.commitTime > last.commitTime)
    }

    @Test("restarts without commits do not pile up segments")
    func idleRestarts() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        try commitAndCrash(dir, count: 1)
        for _ in 0..<3 { try dir.open().close() }
        #expect(dir.segments == [DurableRecord.segmentName(1), DurableRecord.segmentName(2)])
        let store = try dir.open()
        #expect(store.database(id, clock: clock).state().documentCount == 1)
        store.close()
    }

    @Test("a second open of a directory in use is refused")
    func lock() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        let store = try dir.open()
        #expect(openFailure(dir)?.contains("is in use by another Hearth process (pid \(getpid()))") == true)
        store.close()
        #expect(openFailure(dir) == nil)
    }

    /// Commits 1…n, one document each, then "crashes" (nothing queued written).
    private func commitAndCrash(_ dir: DataDirectory, count n: Int) throws {
        let store = try dir.open()
        let db = store.database(id, clock: clock)
        for i in 1...n { try db.commit([.set(testPath("c/d\(i)"), fields(i))]) }
        store.abandon()
    }

    @Test("a torn record at the end is dropped with a notice, at any cut", arguments: [1, 5, 9, 20, 40])
    func tornTail(_ cut: Int) throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        try commitAndCrash(dir, count: 5)
        let segment = try #require(dir.segments.last)
        let bytes = try dir.bytes(segment)
        try dir.write(segment, Array(bytes.dropLast(cut)))
        let notices = NoticeLog()
        let store = try dir.open(notices: notices)
        defer { store.close() }
        let db = store.database(id, clock: clock)
        // The last commit (with its group end: 16 bytes) is cut; a cut inside the group-end
        // record alone leaves the commit whole.
        let expected = cut <= 16 ? 5 : 4
        #expect(db.state().documentCount == expected)
        #expect(notices.all.count == 1)
        #expect(notices.all.first?.contains("dropped a torn record at the end of \(dir.file(segment))") == true)
        // The cut end is gone: another restart finds nothing to drop.
        let again = NoticeLog()
        store.close()
        let reopened = try dir.open(notices: again)
        #expect(again.all.isEmpty)
        #expect(reopened.database(id, clock: clock).state().documentCount == expected)
        reopened.close()
    }

    @Test("garbage or zeros after the last group are a torn tail")
    func tornGarbage() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        try commitAndCrash(dir, count: 3)
        let segment = try #require(dir.segments.last)
        try dir.write(segment, try dir.bytes(segment) + [UInt8](repeating: 0, count: 4000) + [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let notices = NoticeLog()
        let store = try dir.open(notices: notices)
        #expect(store.database(id, clock: clock).state().documentCount == 3)
        #expect(notices.all.count == 1)
        store.close()
    }

    @Test("a bad checksum before later groups stops start-up, naming the file, the offset and what to do")
    func damagedMiddle() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        try commitAndCrash(dir, count: 5)
        let segment = try #require(dir.segments.last)
        var bytes = try dir.bytes(segment)
        // The header record is first; flip a byte inside the first commit's payload.
        let firstCommit = 7 + Int(bytes[4]) + 7 + 2
        bytes[firstCommit] ^= 0x40
        try dir.write(segment, bytes)
        let message = try #require(openFailure(dir))
        #expect(message.contains("\(dir.file(segment)) is damaged at byte \(firstCommit - 9): checksum mismatch"))
        #expect(message.contains("--truncate-damaged-log"))
        // The file is untouched by the refused start.
        #expect(try dir.bytes(segment) == bytes)
        // Asked to, Hearth keeps what precedes the damage.
        let notices = NoticeLog()
        let store = try dir.open(truncateDamagedLog: true, notices: notices)
        #expect(store.database(id, clock: clock).state().documentCount == 0)
        #expect(notices.all.first?.contains("--truncate-damaged-log: dropped") == true)
        store.close()
    }

    @Test("damage in a segment before the last one stops start-up")
    func damagedOlderSegment() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        try commitAndCrash(dir, count: 2)
        try commitAndCrash(dir, count: 2)  // a second segment after the restart
        #expect(dir.segments.count >= 2)
        let first = dir.segments[0]
        let bytes = try dir.bytes(first)
        try dir.write(first, Array(bytes.dropLast(3)))
        let message = try #require(openFailure(dir))
        #expect(message.contains("\(dir.file(first)) is damaged"))
    }

    @Test("a missing segment stops start-up")
    func missingSegment() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        for _ in 0..<3 { try commitAndCrash(dir, count: 1) }
        try FileManager.default.removeItem(atPath: dir.file(dir.segments[1]))
        #expect(openFailure(dir)?.contains("is missing \(DurableRecord.segmentName(2))") == true)
    }

    @Test("compaction folds the log into a snapshot, deletes what it replaced, and restarts equal")
    func compaction() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        var store = try dir.open()
        let db = store.database(id, clock: clock)
        for i in 0..<200 { try db.commit([.set(testPath("c/d\(i % 50)"), fields(i))]) }
        try store.compact()
        #expect(dir.files.contains(DurableRecord.snapshotName(2)))
        #expect(dir.segments == [DurableRecord.segmentName(2)])
        for i in 0..<10 { try db.commit([.delete(testPath("c/d\(i)"))]) }
        let before = durableContents(db)
        store.close()
        store = try dir.open()
        #expect(durableContents(store.database(id, clock: clock)) == before)
        #expect(store.recoveryReport.snapshot == DurableRecord.snapshotName(2))
        #expect(store.recoveryReport.commitsReplayed == 10)
        store.close()
    }

    @Test("a damaged snapshot stops start-up")
    func damagedSnapshot() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        let store = try dir.open()
        try store.database(id, clock: clock).commit([.set(testPath("c/d"), fields(1))])
        try store.compact()
        store.close()
        let name = DurableRecord.snapshotName(2)
        var bytes = try dir.bytes(name)
        bytes[bytes.count - 2] ^= 1
        try dir.write(name, bytes)
        #expect(openFailure(dir)?.contains("\(dir.file(name)) is damaged at byte") == true)
    }

    @Test("background compaction under concurrent commits loses nothing acknowledged")
    func compactionUnderLoad() async throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        var store = try dir.open(compactionThreshold: 16 << 10)
        let db = store.database(id, clock: SystemClock())
        await withTaskGroup(of: Void.self) { group in
            for w in 0..<4 {
                group.addTask {
                    for i in 0..<150 { _ = try? db.commit([.set(testPath("w\(w)/d\(i)"), testFields(["i": .integer(Int64(i)), "pad": .string(String(repeating: "x", count: 200))]))]) }
                }
            }
        }
        let before = durableContents(db)
        #expect(before.count == 600)
        store.close()
        #expect(dir.files.contains { $0.hasPrefix("snapshot-") })
        store = try dir.open()
        #expect(durableContents(store.database(id, clock: clock)) == before)
        store.close()
    }

    @Test("restore and clear are logged like commits")
    func restoreLogged() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        var store = try dir.open()
        let db = store.database(id, clock: clock)
        try db.commit([.set(testPath("c/a"), fields(1))])
        let snap = db.snapshot()
        try db.commit([.set(testPath("c/b"), fields(2)), .delete(testPath("c/a"))])
        db.restore(snap)
        let before = durableContents(db)
        #expect(before.keys.sorted() == ["c/a"])
        store.abandon()
        store = try dir.open()
        #expect(durableContents(store.database(id, clock: clock)) == before)
        store.database(id, clock: clock).restore(Database(id: id).snapshot())
        store.close()
        store = try dir.open()
        #expect(store.database(id, clock: clock).state().documentCount == 0)
        store.close()
    }
}
