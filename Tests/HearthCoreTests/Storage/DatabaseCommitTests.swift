import Foundation
import Testing
@testable import HearthCore

@Suite("Database commits: atomicity, metadata, commit times (docs/semantics.md#batches, #create-and-update-times, #observed-on-the-official-emulator)")
struct DatabaseCommitTests {
    let db: Database
    let clock: ManualClock
    init() { (db, clock) = makeTestDatabase() }

    // docs/semantics.md#batches (prod test): set a + update missing b → NOT_FOUND and a is not written.
    @Test("a failing write leaves nothing applied")
    func batchAtomicity() throws {
        try db.commit([.set(testPath("c/x"), testFields(["v": .integer(1)]))])
        let before = db.state()
        expectFirestoreError(.notFound, message: "No document to update: \(testResourceName("c/b"))") {
            try db.commit([
                .set(testPath("c/a"), testFields(["v": .integer(1)])),
                .set(testPath("c/x"), testFields(["v": .integer(2)])),
                .delete(testPath("c/x")),
                .update(testPath("c/b"), testFields(["v": .integer(1)]), mask: [testFieldPath("v")]),
            ])
        }
        let after = db.state()
        #expect(after.hasSameDocuments(as: before))
        #expect(after.documentCount == 1)
        #expect(after.readTime == before.readTime)
        #expect(db.document(testPath("c/a")) == nil)
        #expect(db.document(testPath("c/x"))?.fields == testFields(["v": .integer(1)]))
    }

    @Test("a precondition failing late in the batch leaves nothing applied")
    func atomicityOnPrecondition() throws {
        try db.commit([.set(testPath("c/x"), MapValue())])
        let before = db.state()
        expectFirestoreError(.alreadyExists) {
            try db.commit([
                .set(testPath("c/a"), MapValue()),
                Write(path: testPath("c/x"), operation: .set(MapValue()), precondition: .exists(false)),
            ])
        }
        #expect(db.state().hasSameDocuments(as: before))
        #expect(db.state().documentCount == 1)
    }

    // docs/semantics.md#writes: the size limit applies to the final document of the commit.
    @Test("size limit checked on the final document; an oversized final document aborts the batch")
    func sizeOnFinalDocument() throws {
        let big = testFields(["big": .map(testFields(["a": .string(String(repeating: "x", count: 550_000)),
                                                      "b": .string(String(repeating: "x", count: 549_995))]))])
        try db.commit([
            .set(testPath("c/d"), big),
            .update(testPath("c/d"), MapValue(), mask: [testFieldPath("big")]),
        ])
        #expect(db.document(testPath("c/d"))?.fields == MapValue())
        let before = db.state()
        expectFirestoreError(.invalidArgument, containing: ["cannot be written because its size (1,100,057 bytes)"]) {
            try db.commit([
                .set(testPath("c/ok"), MapValue()),
                .update(testPath("c/d"), big, mask: [testFieldPath("big")]),
            ])
        }
        #expect(db.state().hasSameDocuments(as: before))
        #expect(db.document(testPath("c/ok")) == nil)
    }

    @Test("an empty commit succeeds and still takes a commit time")
    func emptyCommit() throws {
        let r1 = try db.commit([])
        let r2 = try db.commit([])
        #expect(r1.writeResults.isEmpty)
        #expect(r2.commitTime > r1.commitTime)
        #expect(db.state().documentCount == 0)
    }

    // MARK: Unchanged documents (docs/semantics.md#writes, #observed-on-the-official-emulator)

    @Test("a write that changes nothing keeps updateTime and reports the previous one")
    func noOpWrite() throws {
        let fields = testFields(["a": .integer(1), "m": testMap(["x": .string("y")])])
        let t1 = try db.commit([.set(testPath("c/d"), fields)]).commitTime
        let stateAfterCreate = db.state()
        let r = try db.commit([.set(testPath("c/d"), fields)])
        #expect(r.commitTime > t1)
        #expect(r.writeResults == [WriteResult(updateTime: t1, transformResults: [])])
        let doc = try #require(db.document(testPath("c/d")))
        #expect(doc.updateTime == t1)
        #expect(doc.createTime == t1)
        #expect(db.state().changes(since: stateAfterCreate).isEmpty)
        // Same for an update with identical values, and for a merge.
        let r2 = try db.commit([.update(testPath("c/d"), testFields(["m": testMap(["x": .string("y")])]), mask: [testFieldPath("m.x")])])
        #expect(r2.writeResults[0].updateTime == t1)
        #expect(db.document(testPath("c/d"))?.updateTime == t1)
        // Updates are judged on the fields they name: deleting a missing path changes
        // nothing, a new nested value or an int → double at the same path does.
        let r3 = try db.commit([.update(testPath("c/d"), MapValue(), mask: [testFieldPath("zz"), testFieldPath("m.nope")])])
        #expect(r3.writeResults[0].updateTime == t1)
        let r4 = try db.commit([.update(testPath("c/d"), testFields(["m": testMap(["z": .integer(2)])]), mask: [testFieldPath("m.z")])])
        #expect(r4.writeResults[0].updateTime == r4.commitTime)
        let r5 = try db.commit([.update(testPath("c/d"), testFields(["a": .double(1.0)]), mask: [testFieldPath("a")])])
        #expect(r5.writeResults[0].updateTime == r5.commitTime)
        #expect(db.document(testPath("c/d"))?.fields == testFields(["a": .double(1.0), "m": testMap(["x": .string("y"), "z": .integer(2)])]))
    }

    // docs/semantics.md#observed-on-the-official-emulator: changing 1 to 1.0 is a change.
    @Test("1 → 1.0 is a change")
    func intToDoubleIsAChange() throws {
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1)]))]).commitTime
        let r = try db.commit([.set(testPath("c/d"), testFields(["a": .double(1.0)]))])
        #expect(r.commitTime > t1)
        #expect(r.writeResults[0].updateTime == r.commitTime)
        #expect(db.document(testPath("c/d"))?.updateTime == r.commitTime)
        #expect(db.document(testPath("c/d"))?.fields["a"] == .double(1.0))
    }

    @Test("a change reverted within the same commit keeps updateTime")
    func revertedInSameCommit() throws {
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1)]))]).commitTime
        let r = try db.commit([
            .set(testPath("c/d"), testFields(["a": .integer(2)])),
            .set(testPath("c/d"), testFields(["a": .integer(1)])),
        ])
        #expect(db.document(testPath("c/d"))?.updateTime == t1)
        #expect(r.writeResults.map(\.updateTime) == [t1, t1])
    }

    // MARK: createTime / updateTime (docs/semantics.md#create-and-update-times)

    @Test("createTime and updateTime follow the document's life")
    func metadata() throws {
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(1)]))]).commitTime
        var doc = try #require(db.document(testPath("c/d")))
        #expect(doc.createTime == t1 && doc.updateTime == t1)

        clock.advance(by: 1)
        let t2 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(2)]))]).commitTime
        doc = try #require(db.document(testPath("c/d")))
        #expect(doc.createTime == t1 && doc.updateTime == t2 && t2 > t1)

        try db.commit([.delete(testPath("c/d"))])
        let t4 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(2)]))]).commitTime
        doc = try #require(db.document(testPath("c/d")))
        #expect(doc.createTime == t4 && doc.updateTime == t4)
        #expect(doc.createTime > t2)  // re-created: a newer createTime
    }

    @Test("delete and re-create in one commit gives a new createTime even with equal content")
    func deleteRecreateSameCommit() throws {
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(1)]))]).commitTime
        let r = try db.commit([.delete(testPath("c/d")), .set(testPath("c/d"), testFields(["v": .integer(1)]))])
        let doc = try #require(db.document(testPath("c/d")))
        #expect(doc.createTime == r.commitTime && doc.createTime > t1)
        #expect(r.writeResults[1].updateTime == r.commitTime)
    }

    @Test("all documents written by one commit share the commit time")
    func sharedCommitTime() throws {
        try db.commit([.set(testPath("c/old"), testFields(["v": .integer(0)]))])
        let r = try db.commit([
            .set(testPath("c/a"), MapValue()),
            .set(testPath("d/b/e/f"), testFields(["x": .null])),
            .update(testPath("c/old"), testFields(["v": .integer(1)]), mask: [testFieldPath("v")]),
        ])
        for path in ["c/a", "d/b/e/f", "c/old"] {
            #expect(db.document(testPath(path))?.updateTime == r.commitTime, "\(path)")
        }
        #expect(r.writeResults.map(\.updateTime) == [r.commitTime, r.commitTime, r.commitTime])
        #expect(db.state().readTime == r.commitTime)
    }

    @Test("a commit creating documents among existing ones it also changes installs each at its own key")
    func newDocumentsShiftExistingOnes() throws {
        // Existing documents are installed where the commit found them until a new one
        // changes the tree's shape: c/a and c/c sort before c/b and c/d, in the same node.
        try db.commit(["c/b", "c/d"].map { .set(testPath($0), testFields(["v": .integer(0)])) })
        try db.commit([
            .set(testPath("c/a"), testFields(["v": .integer(1)])),
            .update(testPath("c/b"), testFields(["v": .integer(2)]), mask: [testFieldPath("v")]),
            .set(testPath("c/c"), testFields(["v": .integer(3)])),
            .update(testPath("c/d"), testFields(["v": .integer(4)]), mask: [testFieldPath("v")]),
        ])
        let docs = db.state().documents(in: testPath("c"))
        #expect(docs.map(\.id) == ["a", "b", "c", "d"])
        #expect(docs.map { $0.fields["v"] } == [.integer(1), .integer(2), .integer(3), .integer(4)])
        #expect(db.state().documentCount == 4)
    }

    // MARK: Commit times (docs/semantics.md#create-and-update-times)

    @Test("commit times strictly increase while a manual clock stands still")
    func commitTimesIncrease() throws {
        var last = try db.commit([.set(testPath("c/d"), MapValue())]).commitTime
        #expect(last == testEpoch)
        for n in 1...5 {
            let t = try db.commit([.set(testPath("c/d"), testFields(["n": .integer(Int64(n))]))]).commitTime
            #expect(t == Timestamp(microseconds: last.microseconds + 1))
            last = t
        }
        // Even when the clock goes backwards.
        clock.advance(by: -60)
        let back = try db.commit([]).commitTime
        #expect(back > last)
        clock.advance(by: 3600)
        let later = try db.commit([]).commitTime
        #expect(later == testTime(3600 - 60))
    }

    @Test("commit times have microsecond precision")
    func microsecondPrecision() throws {
        clock.set(Timestamp(seconds: testEpoch.seconds, nanos: 999_999_999))
        let t = try db.commit([.set(testPath("c/d"), MapValue())]).commitTime
        #expect(t == Timestamp(seconds: testEpoch.seconds, nanos: 999_999_000))
        #expect(db.document(testPath("c/d"))?.updateTime == t)
    }

    // MARK: Document count

    @Test("documentCount counts existing documents")
    func documentCount() throws {
        try db.commit([.set(testPath("c/a"), MapValue()), .set(testPath("c/b"), MapValue()), .set(testPath("c/a"), testFields(["x": .null]))])
        #expect(db.state().documentCount == 2)
        try db.commit([.delete(testPath("c/a")), .delete(testPath("c/missing"))])
        #expect(db.state().documentCount == 1)
        try db.commit([.set(testPath("c/tmp"), MapValue()), .delete(testPath("c/tmp"))])
        #expect(db.state().documentCount == 1)
        #expect(db.state().allDocuments().map(\.path) == [testPath("c/b")])
    }

    @Test("documents(in:) lists a collection's documents in ID order, without subcollections")
    func listCollection() throws {
        try db.commit(["c/b", "c/__id12__", "c/a", "c/__id7__", "c/a/sub/x", "cc/z", "c/B"].map { .set(testPath($0), MapValue()) })
        #expect(db.state().documents(in: testPath("c")).map(\.id) == ["__id7__", "__id12__", "B", "a", "b"])
        #expect(db.state().documents(in: testPath("c/a/sub")).map(\.id) == ["x"])
    }

    @Test("documents are stored byte-exactly: é and e + combining accent are two documents")
    func byteExactIDs() throws {
        try db.commit([.set(testPath("c/\u{E9}"), testFields(["v": .integer(1)])), .set(testPath("c/e\u{301}"), testFields(["v": .integer(2)]))])
        #expect(db.state().documentCount == 2)
        #expect(db.document(testPath("c/\u{E9}"))?.fields["v"] == .integer(1))
        #expect(db.document(testPath("c/e\u{301}"))?.fields["v"] == .integer(2))
    }
}

@Suite("DatabaseRegistry")
struct DatabaseRegistryTests {
    @Test("one database per id, created on first use; removeAll(project:) drops a project's")
    func registry() throws {
        let registry = DatabaseRegistry(clock: ManualClock(now: testEpoch))
        let a = registry.database(DatabaseID(project: "p"))
        #expect(registry.database(DatabaseID(project: "p")) === a)
        let b = registry.database(DatabaseID(project: "p", database: "other"))
        #expect(b !== a)
        let q = registry.database(DatabaseID(project: "q"))
        try a.commit([.set(testPath("c/d"), MapValue())])
        registry.removeAll(project: "p")
        #expect(registry.all.count == 1 && registry.all.first === q)
        #expect(registry.database(DatabaseID(project: "p")).document(testPath("c/d")) == nil)
    }
}
