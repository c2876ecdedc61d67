import Foundation
import Testing
@testable import HearthCore

/// The versions of the document at `path` in `state`'s history chain, newest first.
private func chain(_ state: DatabaseState, _ path: String) -> [DocumentVersion] {
    var out: [DocumentVersion] = []
    var v = state.documents[DocumentKey(testPath(path))]
    while let current = v {
        out.append(current)
        v = current.older
    }
    return out
}

private func micro(before t: Timestamp) -> Timestamp { Timestamp(microseconds: t.microseconds - 1) }

@Suite("Version history and read times")
struct VersionHistoryTests {
    @Test("reads at earlier read times see the versions current then")
    func readAtEarlierTimes() throws {
        let (db, clock) = makeTestDatabase()
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(1)]))]).commitTime
        clock.advance(by: 10)
        let t2 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(2)])), .set(testPath("c/e"), MapValue())]).commitTime
        clock.advance(by: 10)
        let t3 = try db.commit([.delete(testPath("c/d"))]).commitTime
        clock.advance(by: 10)

        let s = try db.state(readTime: micro(before: t1))
        let p = testPath("c/d")
        #expect(s.document(p, at: micro(before: t1)) == nil)  // before creation
        #expect(s.document(p, at: t1)?.fields == testFields(["v": .integer(1)]))
        #expect(s.document(p, at: micro(before: t2))?.fields == testFields(["v": .integer(1)]))
        let v2 = try #require(s.document(p, at: t2))
        #expect(v2.fields == testFields(["v": .integer(2)]))
        #expect(v2.createTime == t1 && v2.updateTime == t2)
        #expect(s.document(p, at: micro(before: t3))?.fields == testFields(["v": .integer(2)]))
        #expect(s.document(p, at: t3) == nil)  // deleted
        #expect(s.document(p) == nil)
        #expect(s.document(testPath("c/nope"), at: t2) == nil)

        // Collection listings and full scans honour the read time too.
        #expect(s.documents(in: testPath("c"), at: t1).map(\.id) == ["d"])
        #expect(s.documents(in: testPath("c"), at: t2).map(\.id) == ["d", "e"])
        #expect(s.documents(in: testPath("c"), at: t3).map(\.id) == ["e"])
        #expect(s.allDocuments(at: micro(before: t1)).isEmpty)
        #expect(s.allDocuments(at: t2).count == 2)
        #expect(s.allDocuments().map(\.id) == ["e"])
    }

    // Production keeps one hour of versions; older read times fail with FAILED_PRECONDITION.
    @Test("read times older than the retention horizon are FAILED_PRECONDITION")
    func retentionHorizon() throws {
        let (db, clock) = makeTestDatabase(retention: 60)
        try db.commit([.set(testPath("c/d"), MapValue())])
        clock.advance(by: 100)
        _ = try db.state(readTime: testTime(40))  // exactly at the horizon
        _ = try db.state(readTime: testTime(100))
        expectFirestoreError(.failedPrecondition, containing: [micro(before: testTime(40)).rfc3339, "60 seconds"]) {
            try db.state(readTime: micro(before: testTime(40)))
        }
        expectFirestoreError(.failedPrecondition) { try db.state(readTime: testEpoch) }
    }

    @Test("committing after the horizon has passed prunes old versions; current reads still work")
    func pruning() throws {
        let (db, clock) = makeTestDatabase(retention: 60)
        var times: [Timestamp] = []
        for n in 1...5 {
            times.append(try db.commit([.set(testPath("c/d"), testFields(["v": .integer(Int64(n))]))]).commitTime)
            clock.advance(by: 1)
        }
        #expect(chain(db.state(), "c/d").count == 5)
        clock.advance(by: 120)  // now = epoch + 125 s, horizon after the next commit = epoch + 65 s
        let t6 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(6)]))]).commitTime
        // Only the newest version and the one current at the horizon remain.
        #expect(chain(db.state(), "c/d").map(\.since) == [t6, times[4]])
        #expect(db.document(testPath("c/d"))?.fields == testFields(["v": .integer(6)]))
        #expect(db.document(testPath("c/d"))?.createTime == times[0])
        let horizon = testTime(65)
        #expect(try db.state(readTime: horizon).document(testPath("c/d"), at: horizon)?.fields == testFields(["v": .integer(5)]))
        expectFirestoreError(.failedPrecondition) { try db.state(readTime: times[0]) }
    }

    // Commit times run ahead of a clock that went backwards; history is pruned relative to
    // commit times, so the retention check must not accept read times whose versions are gone.
    @Test("a clock going backwards never exposes pruned history as a wrong answer")
    func clockGoingBackwards() throws {
        let (db, clock) = makeTestDatabase(retention: 60)
        try db.commit([.set(testPath("c/d"), testFields(["v": .integer(1)]))])
        clock.advance(by: 30)
        try db.commit([.set(testPath("c/d"), testFields(["v": .integer(2)]))])
        clock.advance(by: 70)
        try db.commit([.set(testPath("c/d"), testFields(["v": .integer(3)]))])  // prunes v1 (horizon = epoch + 40 s)
        clock.advance(by: -40)  // now = epoch + 60 s, behind the last commit
        let readTime = testTime(10)
        do {
            let doc = try db.state(readTime: readTime).document(testPath("c/d"), at: readTime)
            #expect(doc?.fields == testFields(["v": .integer(1)]))  // if accepted, it must be the right version
        } catch {
            #expect(error.code == .failedPrecondition)
        }
    }

    @Test("versions inside the retention window are kept")
    func noPruningInsideWindow() throws {
        let (db, clock) = makeTestDatabase(retention: 60)
        for n in 1...4 {
            try db.commit([.set(testPath("c/d"), testFields(["v": .integer(Int64(n))]))])
            clock.advance(by: 10)
        }
        #expect(chain(db.state(), "c/d").count == 4)
        let s = try db.state(readTime: testEpoch)
        #expect(s.document(testPath("c/d"), at: testEpoch)?.fields == testFields(["v": .integer(1)]))
    }

    // The embedded API's databases: no reads at past read times, so no history at all.
    @Test("with no retention, a commit keeps only the new version and reads at the last commit time")
    func noRetention() throws {
        let (db, clock) = makeTestDatabase(retention: 0)
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(1)]))]).commitTime
        clock.advance(by: 1)
        let t2 = try db.commit([.update(testPath("c/d"), testFields(["v": .integer(2)]), mask: [testFieldPath("v")])]).commitTime
        #expect(chain(db.state(), "c/d").map(\.since) == [t2])
        #expect(db.document(testPath("c/d"))?.createTime == t1)
        #expect(try db.state(readTime: t2).document(testPath("c/d"), at: t2)?.fields == testFields(["v": .integer(2)]))
        expectFirestoreError(.failedPrecondition, containing: ["0 seconds"]) { try db.state(readTime: t1) }
        // A deletion's tombstone goes with the next commit.
        clock.advance(by: 1)
        try db.commit([.delete(testPath("c/d"))])
        clock.advance(by: 1)
        try db.commit([.set(testPath("c/e"), MapValue())])
        #expect(db.state().documents[DocumentKey(testPath("c/d"))] == nil)
        #expect(db.state().allDocuments().map(\.id) == ["e"])
    }

    @Test("tombstones of deleted documents disappear after the horizon")
    func tombstones() throws {
        let (db, clock) = makeTestDatabase(retention: 60)
        let t1 = try db.commit([.set(testPath("c/gone"), testFields(["v": .integer(1)])), .set(testPath("c/back"), MapValue())]).commitTime
        clock.advance(by: 1)
        try db.commit([.delete(testPath("c/gone")), .delete(testPath("c/back"))])
        clock.advance(by: 1)
        try db.commit([.set(testPath("c/back"), testFields(["again": .boolean(true)]))])
        // The tombstone is kept while a retained read time can see the document.
        let tombstone = try #require(db.state().documents[DocumentKey(testPath("c/gone"))])
        #expect(tombstone.document == nil)
        #expect(db.state().documentCount == 1)
        #expect(try db.state(readTime: t1).document(testPath("c/gone"), at: t1)?.fields == testFields(["v": .integer(1)]))

        clock.advance(by: 120)
        try db.commit([.set(testPath("c/other"), MapValue())])
        #expect(db.state().documents[DocumentKey(testPath("c/gone"))] == nil)
        #expect(db.document(testPath("c/back"))?.fields == testFields(["again": .boolean(true)]))
        #expect(db.state().documentCount == 2)
        #expect(db.state().allDocuments().map(\.id) == ["back", "other"])
    }
}

@Suite("Snapshots, restore, fork and change lists")
struct SnapshotTests {
    @Test("restore brings back exactly the snapshot's documents")
    func restore() throws {
        let (db, _) = makeTestDatabase()
        try db.commit([.set(testPath("c/a"), testFields(["v": .integer(1)])), .set(testPath("c/b"), testFields(["v": .integer(1)]))])
        let snap = db.snapshot()
        let expected = db.state().allDocuments()
        let last = try db.commit([
            .set(testPath("c/a"), testFields(["v": .integer(2)])), .delete(testPath("c/b")), .set(testPath("c/c"), MapValue()),
        ]).commitTime
        // The snapshot is unaffected by later commits.
        #expect(snap.state.allDocuments() == expected)

        let (before, after) = db.restore(snap)
        #expect(before.allDocuments().map(\.id) == ["a", "c"])
        #expect(after.allDocuments() == expected)
        #expect(db.state().allDocuments() == expected)
        #expect(db.state().documentCount == 2)
        #expect(db.state().hasSameDocuments(as: snap.state))
        #expect(db.state().readTime > last)
        // Commit times keep increasing after a restore.
        let next = try db.commit([.set(testPath("c/d"), MapValue())]).commitTime
        #expect(next > last)
        // Restoring twice is fine and independent of what happened since.
        db.restore(snap)
        #expect(db.state().allDocuments() == expected)
    }

    @Test("restore invalidates open transactions")
    func restoreEndsTransactions() throws {
        let (db, _) = makeTestDatabase()
        let snap = db.snapshot()
        let txn = try db.beginTransaction()
        db.restore(snap)
        expectFirestoreError(.invalidArgument, containing: ["transaction"]) { try db.commit([], transaction: txn) }
    }

    @Test("index scans read each state's current documents after updates outside the index, in forks and restored snapshots")
    func indexEntriesAfterReplacedVersions() throws {
        let (db, _) = makeTestDatabase()
        func doc(_ v: Int) -> MapValue { testFields(["k": .integer(1), "v": .integer(Int64(v))]) }
        try db.commit([.set(testPath("c/a"), doc(1)), .set(testPath("c/b"), doc(1))])
        let query = testQuery("c", where: field("k", .equal, .integer(1)))
        func values(_ d: Database) throws -> [Value?] { try d.runQuery(query).documents.map { $0.fields["v"] } }
        // The first query builds the index on k; later commits leave its entries as they are.
        #expect(try values(db) == [.integer(1), .integer(1)])
        let snap = db.snapshot()
        let fork = db.fork()
        try db.commit([.update(testPath("c/a"), testFields(["v": .integer(2)]), mask: [testFieldPath("v")])])
        try db.commit([.set(testPath("c/b"), doc(3))])
        #expect(try values(db) == [.integer(2), .integer(3)])
        // The fork still holds the versions the origin replaced.
        #expect(try values(fork) == [.integer(1), .integer(1)])
        try fork.commit([.set(testPath("c/b"), doc(4))])
        #expect(try values(fork) == [.integer(1), .integer(4)])
        #expect(try values(db) == [.integer(2), .integer(3)])
        // A restored snapshot reads its own versions, and later updates again.
        db.restore(snap)
        #expect(try values(db) == [.integer(1), .integer(1)])
        try db.commit([.update(testPath("c/a"), testFields(["v": .integer(5)]), mask: [testFieldPath("v")])])
        #expect(try values(db) == [.integer(5), .integer(1)])
        // A deleted document leaves the index; a recreated one comes back with its new fields.
        try db.commit([.delete(testPath("c/a"))])
        #expect(try values(db) == [.integer(1)])
        try db.commit([.set(testPath("c/a"), doc(6))])
        #expect(try values(db) == [.integer(6), .integer(1)])
    }

    @Test("a fork diverges independently of its origin")
    func fork() throws {
        let (db, _) = makeTestDatabase()
        let t1 = try db.commit([.set(testPath("c/a"), testFields(["v": .integer(1)]))]).commitTime
        let fork = db.fork()
        #expect(fork.id == db.id)
        #expect(fork.state().hasSameDocuments(as: db.state()))

        let tf = try fork.commit([.set(testPath("c/b"), MapValue()), .set(testPath("c/a"), testFields(["v": .integer(10)]))]).commitTime
        try db.commit([.set(testPath("c/a"), testFields(["v": .integer(2)]))])
        #expect(tf > t1)
        #expect(db.document(testPath("c/a"))?.fields == testFields(["v": .integer(2)]))
        #expect(db.document(testPath("c/b")) == nil)
        #expect(fork.document(testPath("c/a"))?.fields == testFields(["v": .integer(10)]))
        #expect(fork.document(testPath("c/b")) != nil)
        #expect(db.state().documentCount == 1 && fork.state().documentCount == 2)

        let named = db.fork(as: DatabaseID(project: "q", database: "copy"))
        #expect(named.id == DatabaseID(project: "q", database: "copy"))
        #expect(named.document(testPath("c/a"))?.fields == testFields(["v": .integer(2)]))
    }

    @Test("changes(since:) lists exactly the changed documents")
    func changes() throws {
        let (db, _) = makeTestDatabase()
        try db.commit((0..<300).map { .set(testPath("bulk/d\($0)"), testFields(["n": .integer(Int64($0))])) })
        try db.commit([
            .set(testPath("c/a"), testFields(["v": .integer(1)])), .set(testPath("c/b"), testFields(["v": .integer(1)])),
            .set(testPath("c/c"), testFields(["v": .integer(1)])),
        ])
        let s0 = db.state()
        #expect(s0.changes(since: s0).isEmpty)
        try db.commit([
            .set(testPath("c/a"), testFields(["v": .integer(2)])),
            .delete(testPath("c/b")),
            .set(testPath("c/c"), testFields(["v": .integer(1)])),  // unchanged
            .set(testPath("c/d"), testFields(["v": .integer(1)])),
            .set(testPath("bulk/d150"), testFields(["n": .integer(-1)])),
        ])
        try db.commit([.set(testPath("c/tmp"), MapValue())])
        try db.commit([.delete(testPath("c/tmp"))])  // created and deleted in between: no change
        let s1 = db.state()
        let changes = s1.changes(since: s0)
        #expect(Set(changes.map(\.path.description)) == ["c/a", "c/b", "c/d", "bulk/d150"])
        #expect(changes.count == 4)
        let byPath = Dictionary(uniqueKeysWithValues: changes.map { ($0.path.description, $0) })
        #expect(byPath["c/a"]?.before?.fields == testFields(["v": .integer(1)]))
        #expect(byPath["c/a"]?.after?.fields == testFields(["v": .integer(2)]))
        #expect(byPath["c/b"]?.before != nil && byPath["c/b"]?.after == nil)
        #expect(byPath["c/d"]?.before == nil && byPath["c/d"]?.after?.fields == testFields(["v": .integer(1)]))
        #expect(byPath["bulk/d150"]?.after?.fields == testFields(["n": .integer(-1)]))

        // The other direction is the mirror image.
        let back = s0.changes(since: s1)
        #expect(Set(back.map(\.path.description)) == ["c/a", "c/b", "c/d", "bulk/d150"])
        #expect(back.first { $0.path == testPath("c/b") }?.after != nil)
        #expect(back.first { $0.path == testPath("c/d") }?.after == nil)
    }

    @Test("changes(since:) across a restore lists what the restore changed")
    func changesAcrossRestore() throws {
        let (db, _) = makeTestDatabase()
        try db.commit([.set(testPath("c/a"), MapValue())])
        let snap = db.snapshot()
        try db.commit([.set(testPath("c/b"), MapValue())])
        let (before, after) = db.restore(snap)
        let changes = after.changes(since: before)
        #expect(changes.map(\.path) == [testPath("c/b")])
        #expect(changes.first?.after == nil)
    }
}
