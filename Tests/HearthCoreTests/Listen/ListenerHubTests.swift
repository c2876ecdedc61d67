import Foundation
import HearthLock
import Testing
@testable import HearthCore

@Suite("ListenerHub")
struct ListenerHubTests {
    @Test("a batch is one snapshot; unchanged writes and unrelated documents give none")
    func oneSnapshotPerCommit() throws {
        let db = try makeQueryDatabase([("c/keep", testFields(["n": .integer(1)]))])
        let (rec, _) = try listenRecording(db, .query(testQuery("c")))
        _ = rec.take()
        try db.commit((0..<500).map { .set(testPath("c/d\($0)"), testFields(["n": .integer(Int64($0))])) })
        let s = rec.take()
        #expect(s.count == 1)
        #expect(s.first?.changes.count == 500 && s.first?.documents.count == 501)
        try listenSet(db, "keep", ["n": .integer(1)])              // no-op write
        try listenSet(db, "x", ["n": .integer(1)], collection: "other")
        #expect(rec.take().isEmpty)
    }

    @Test("a commit counts as published once every sink has its snapshot, not before")
    func publishedThrough() throws {
        let db = try makeQueryDatabase([])
        let seen = HearthMutex<[Bool]>([])
        // Each sink asks, while the commit is being handed over, whether it has been.
        for _ in 0..<3 {
            _ = try db.listen(.documents([testPath("c/a")])) { snapshot in
                guard !snapshot.isInitial else { return }
                seen.withLock { $0.append(db.hasPublished(through: snapshot.readTime)) }
            }
        }
        let t = try db.commit([.set(testPath("c/a"), testFields(["n": .integer(1)]))]).commitTime
        #expect(seen.withLock { $0 } == [false, false, false])
        #expect(db.hasPublished(through: t))
        #expect(!db.hasPublished(through: Timestamp(microseconds: t.microseconds + 1)))
    }

    @Test("document targets: missing then created, updated, deleted; many targets on one document")
    func documentTargets() throws {
        let db = try makeQueryDatabase([])
        let recs = try (0..<50).map { _ in try listenRecording(db, .documents([testPath("c/a")])).0 }
        #expect(recs.allSatisfy { $0.take().map(\.documents.count) == [0] })
        try listenSet(db, "a", ["n": .integer(1)])
        try listenSet(db, "b", ["n": .integer(1)])
        try listenSet(db, "a", ["n": .integer(2)])
        try db.commit([.delete(testPath("c/a"))])
        for rec in recs {
            let s = rec.take()
            #expect(s.map { $0.documents.first?.fields.value(at: testFieldPath("n")) } == [.integer(1), .integer(2), nil])
        }
    }

    @Test("collection-group targets see every collection with the ID, at any depth")
    func collectionGroup() throws {
        let db = try makeQueryDatabase([])
        let (rec, _) = try listenRecording(db, .query(testGroupQuery("posts", where: field("n", .greaterThan, .integer(0)))))
        _ = rec.take()
        try db.commit([.set(testPath("posts/a"), testFields(["n": .integer(1)])),
                       .set(testPath("users/u/posts/b"), testFields(["n": .integer(2)])),
                       .set(testPath("users/u/drafts/c"), testFields(["n": .integer(3)]))])
        #expect(rec.take().map(listenIDs) == [["a", "b"]])
    }

    @Test("routing: of 1,000 equality targets on one collection, a change reaches only those it can affect")
    func equalityRouting() throws {
        let db = try makeQueryDatabase([])
        var ids: [Int: ListenTargetID] = [:]
        for k in 0..<1000 {
            ids[k] = try db.listen(.query(testQuery("c", where: field("g", .equal, .integer(Int64(k)))))) { _ in }
        }
        let state = db.state()
        func visited(_ before: Value?, _ after: Value?) -> Set<Int> {
            func doc(_ v: Value?) -> Document? {
                v.map { Document(path: testPath("c/x"), fields: testFields(["g": $0]), createTime: state.readTime, updateTime: state.readTime) }
            }
            return db.hub.candidateTargets(of: ChangeSet.Entry(key: DocumentKey(testPath("c/x")), before: doc(before), after: doc(after)))
        }
        #expect(visited(.integer(7), .integer(7)) == [ids[7]!.rawValue])
        #expect(visited(.integer(7), .double(8.0)) == [ids[7]!.rawValue, ids[8]!.rawValue]) // 8.0 == 8
        #expect(visited(nil, .string("7")).isEmpty)
        for id in ids.values { db.stopListening(id) }
        #expect(db.listenTargetCount == 0)
    }

    @Test("stopListening: no snapshot afterwards; no ChangeSet work without targets")
    func unregister() throws {
        let db = try makeQueryDatabase([])
        let (rec, id) = try listenRecording(db, .query(testQuery("c")))
        #expect(db.hub.isActive)
        db.stopListening(id)
        db.stopListening(id) // harmless
        #expect(!db.hub.isActive)
        try listenSet(db, "a", ["n": .integer(1)])
        #expect(rec.take().count == 1) // only the initial snapshot
    }

    @Test("a missing composite index under .enforce fails listen with FAILED_PRECONDITION")
    func missingIndex() throws {
        let db = Database(id: testDatabaseID, clock: ManualClock(now: testEpoch), indexes: IndexConfiguration(), indexMode: .enforce)
        expectFirestoreError(.failedPrecondition) {
            _ = try db.listen(.query(testQuery("c", where: field("a", .equal, .integer(1)), orderBy: [asc("b")]))) { _ in }
        }
        #expect(db.listenTargetCount == 0)
    }
}
