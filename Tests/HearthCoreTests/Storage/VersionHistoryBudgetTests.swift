import Foundation
import Testing
@testable import HearthCore

/// How many versions `path`'s history chain holds now.
private func chainLength(_ db: Database, _ path: String) -> Int {
    var n = 0
    var v = db.state().documents[DocumentKey(testPath(path))]
    while let current = v {
        n += 1
        v = current.older
    }
    return n
}

private func counter(_ n: Int) -> MapValue { testFields(["n": .integer(Int64(n))]) }

/// The estimated size of one past version of a `counter` document.
private let counterVersionBytes = VersionHistoryBudget.estimatedBytes(fieldsSize: DocumentLimits.fieldsSize(counter(0)))

@Suite("Version history within a memory budget")
struct VersionHistoryBudgetTests {
    /// A database keeping an hour of versions within room for `versions` past versions of
    /// a counter document.
    private func makeDatabase(versions: Int) -> (Database, ManualClock, VersionHistoryBudget) {
        let clock = ManualClock(now: testEpoch)
        let budget = VersionHistoryBudget(limit: versions * counterVersionBytes)
        return (Database(id: testDatabaseID, clock: clock, versionRetention: 3600, historyBudget: budget), clock, budget)
    }

    @Test("a hot document keeps at most the budget's worth of past versions, the newest")
    func hotDocumentStaysWithinBudget() throws {
        let (db, clock, budget) = makeDatabase(versions: 100)
        var times: [Timestamp] = []
        for n in 0..<1_000 {
            times.append(try db.commit([.set(testPath("hot/a"), counter(n))]).commitTime)
            clock.advance(by: 0.001)
            #expect(budget.usedBytes <= budget.limit)
        }
        // Between three quarters of the budget and all of it, plus the current version.
        let length = chainLength(db, "hot/a")
        #expect(length >= 75 && length <= 101)
        #expect(budget.usedBytes == (length - 1) * counterVersionBytes)
        // The newest past versions read exactly; the oldest are refused as production
        // refuses a read time past its retention.
        for back in 1..<length {
            let t = times[times.count - back]
            #expect(try db.state(readTime: t).document(testPath("hot/a"), at: t)?.fields == counter(1_000 - back))
        }
        let error = expectFirestoreError(.failedPrecondition, containing: ["The requested snapshot version is too old.", times[0].rfc3339]) {
            try db.state(readTime: times[0])
        }
        #expect(error?.message.contains("kept within \(budget.limit) bytes") == true)
        #expect(VersionHistoryBudget(limit: 128 << 20).limitDescription == "128 MiB")
        #expect(VersionHistoryBudget(limit: 64 << 10).limitDescription == "64 KiB")
        expectFirestoreError(.failedPrecondition) { try db.runQuery(testQuery("hot"), readTime: times[500]) }
        expectFirestoreError(.failedPrecondition) { try db.beginTransaction(readOnly: true, readTime: times[500]) }
    }

    @Test("every version of a document shares the first write's path, whatever path storage later writes bring")
    func versionsShareTheStoredPath() throws {
        let (db, clock, _) = makeDatabase(versions: 100)
        // Each commit gets its own copy of the path's storage, as each request decodes one.
        func freshPath() -> ResourcePath { ResourcePath(segments: ["hot", String("a".map { $0 })]) }
        func storage(_ p: ResourcePath) -> UnsafeRawPointer? { p.segments.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        try db.commit([.set(freshPath(), counter(0))])
        let first = try #require(db.state().documents[DocumentKey(freshPath())]?.document?.path)
        for n in 1...3 {
            clock.advance(by: 0.001)
            try db.commit([.update(freshPath(), counter(n), mask: [testFieldPath("n")])])
        }
        // The current version and the past ones hold one path storage: a version kept for
        // reads at a past time costs what the budget counts, not a path copy more.
        var version = db.state().documents[DocumentKey(freshPath())]
        var seen = 0
        while let v = version {
            #expect(storage(try #require(v.document?.path)) == storage(first))
            seen += 1
            version = v.older
        }
        #expect(seen == 4)
    }

    @Test("without budget pressure the whole retention window stays readable")
    func windowKeptUnderBudget() throws {
        let (db, clock, budget) = makeDatabase(versions: 10_000)
        var times: [Timestamp] = []
        for n in 0..<500 {
            times.append(try db.commit([.set(testPath("hot/a"), counter(n))]).commitTime)
            clock.advance(by: 1)
        }
        #expect(chainLength(db, "hot/a") == 500)
        #expect(budget.usedBytes == 499 * counterVersionBytes)
        #expect(try db.state(readTime: times[0]).document(testPath("hot/a"), at: times[0])?.fields == counter(0))
    }

    @Test("versions older than the window go in batches, so no commit rebuilds a chain for one version")
    func windowTrimsInBatches() throws {
        let clock = ManualClock(now: testEpoch)
        let db = Database(id: testDatabaseID, clock: clock, versionRetention: 100)
        for n in 0..<1_000 {
            try db.commit([.set(testPath("hot/a"), counter(n))])
            clock.advance(by: 1)
        }
        // A hundred seconds are kept; the versions past them wait until a quarter is due.
        let length = chainLength(db, "hot/a")
        #expect(length >= 100 && length <= 140)
        #expect(db.historyBudget.usedBytes == (length - 1) * counterVersionBytes)
    }

    @Test("a read-only transaction keeps reading what it began on after its versions are dropped")
    func openTransactionKeepsItsState() throws {
        let (db, clock, _) = makeDatabase(versions: 20)
        try db.commit([.set(testPath("hot/a"), counter(0)), .set(testPath("hot/b"), counter(0))])
        clock.advance(by: 0.001)
        let t1 = try db.commit([.set(testPath("hot/a"), counter(1))]).commitTime
        clock.advance(by: 0.001)
        try db.commit([.set(testPath("hot/a"), counter(2))])
        let txn = try db.beginTransaction(readOnly: true, readTime: t1)
        for n in 3..<200 {
            clock.advance(by: 0.001)
            try db.commit([.set(testPath("hot/a"), counter(n)), .set(testPath("hot/b"), counter(n))])
        }
        expectFirestoreError(.failedPrecondition) { try db.state(readTime: t1) }
        #expect(try db.document(testPath("hot/a"), transaction: txn)?.fields == counter(1))
        #expect(try db.document(testPath("hot/b"), transaction: txn)?.fields == counter(0))
        #expect(try db.runQuery(testQuery("hot"), transaction: txn).documents.map { $0.fields } == [counter(1), counter(0)])
        try db.rollback(txn)
    }

    @Test("databases sharing a budget count together, and a dropped database gives its share back")
    func sharedBudget() throws {
        let clock = ManualClock(now: testEpoch)
        let budget = VersionHistoryBudget(limit: 1_000 * counterVersionBytes)
        let a = Database(id: DatabaseID(project: "a"), clock: clock, historyBudget: budget)
        do {
            let b = Database(id: DatabaseID(project: "b"), clock: clock, historyBudget: budget)
            for n in 0..<11 {
                try a.commit([.set(testPath("c/d"), counter(n))])
                try b.commit([.set(testPath("c/d"), counter(n))])
                try b.commit([.set(testPath("c/e"), counter(n))])
            }
            #expect(budget.usedBytes == 30 * counterVersionBytes)
        }
        #expect(budget.usedBytes == 10 * counterVersionBytes)
        // A restore starts the log over (the snapshot holds its own versions).
        a.restore(Database(id: a.id, clock: clock).snapshot())
        #expect(budget.usedBytes == 0)
        #expect(a.document(testPath("c/d")) == nil)
    }

    @Test("deleted documents' versions and tombstones go with the budget too")
    func deletionsWithinBudget() throws {
        let (db, clock, budget) = makeDatabase(versions: 50)
        for n in 0..<300 {
            clock.advance(by: 0.001)
            try db.commit([.set(testPath("c/d\(n)"), counter(n))])
            clock.advance(by: 0.001)
            try db.commit([.delete(testPath("c/d\(n)"))])
        }
        #expect(budget.usedBytes <= budget.limit)
        // The tombstones older than what is kept are gone from the tree.
        #expect(db.state().documents.count < 100)
        #expect(db.state().documentCount == 0)
        #expect(db.state().allDocuments().isEmpty)
    }

    @Test("a zero budget keeps no past versions: only the latest read time reads")
    func zeroBudget() throws {
        let clock = ManualClock(now: testEpoch)
        let db = Database(id: testDatabaseID, clock: clock, historyBudget: VersionHistoryBudget(limit: 0))
        let t1 = try db.commit([.set(testPath("c/d"), counter(1))]).commitTime
        clock.advance(by: 1)
        let t2 = try db.commit([.set(testPath("c/d"), counter(2))]).commitTime
        #expect(chainLength(db, "c/d") == 1)
        #expect(try db.state(readTime: t2).document(testPath("c/d"), at: t2)?.fields == counter(2))
        expectFirestoreError(.failedPrecondition) { try db.state(readTime: t1) }
    }
}
