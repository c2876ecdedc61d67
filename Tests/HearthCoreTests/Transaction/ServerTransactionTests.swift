import Foundation
import HearthLock
import Testing
@testable import HearthCore

@Suite("Server-side transactions (docs/semantics.md#transactions, #error-codes)")
struct ServerTransactionTests {
    let db: Database
    let clock: ManualClock
    init() { (db, clock) = makeTestDatabase() }

    func counter(_ path: String = "c/counter") -> Int64? {
        if case .integer(let n)? = db.document(testPath(path))?.fields["n"] { return n }
        return nil
    }

    @Test("begin, read, commit")
    func basic() throws {
        let t1 = try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(1)]))]).commitTime
        let txn = try db.beginTransaction()
        let doc = try #require(try db.document(testPath("c/counter"), transaction: txn))
        #expect(doc.fields == testFields(["n": .integer(1)]) && doc.updateTime == t1)
        #expect(try db.document(testPath("c/missing"), transaction: txn) == nil)
        let r = try db.commit([
            .set(testPath("c/counter"), testFields(["n": .integer(2)])),
            Write(path: testPath("c/missing"), operation: .set(MapValue()), precondition: .exists(false)),
        ], transaction: txn)
        #expect(r.commitTime > t1)
        #expect(counter() == 2)
        #expect(db.document(testPath("c/missing")) != nil)
    }

    @Test("a retry may name an ended transaction this server issued, not one it never issued")
    func retries() throws {
        let first = try db.beginTransaction()
        try db.rollback(first)
        #expect(first.wasIssuedHere)
        let second = try db.beginTransaction(retrying: first)
        try db.commit([], transaction: second)
        _ = try db.beginTransaction(retrying: second)
        _ = try db.beginTransaction(retrying: TransactionID(bytes: Data()))  // empty: not set
        expectFirestoreError(.invalidArgument, message: "The referenced transaction has expired or is no longer valid.") {
            try db.beginTransaction(retrying: TransactionID(bytes: Data([0, 0, 0, 0, 0, 0])))
        }
        var forged = [UInt8](second.bytes)
        forged[15] ^= 1
        #expect(!TransactionID(bytes: Data(forged)).wasIssuedHere)
    }

    @Test("a transaction's reads do not see its own buffered writes")
    func readsSeeCommittedState() throws {
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(1)]))])
        let txn = try db.beginTransaction()
        _ = try db.document(testPath("c/counter"), transaction: txn)
        #expect(counter() == 1)
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(5)]))], transaction: txn)
        #expect(counter() == 5)
    }

    @Test("an outside commit to a document read → ABORTED on commit, nothing applied")
    func conflict() throws {
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(1)]))])
        let txn = try db.beginTransaction()
        _ = try db.document(testPath("c/counter"), transaction: txn)
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(100)]))])
        expectFirestoreError(.aborted, containing: ["contention"]) {
            try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(2)])), .set(testPath("c/other"), MapValue())], transaction: txn)
        }
        #expect(counter() == 100)
        #expect(db.document(testPath("c/other")) == nil)
        // The aborted transaction is gone.
        expectFirestoreError(.invalidArgument) { try db.commit([], transaction: txn) }
    }

    @Test("a document read as missing and created outside → ABORTED")
    func conflictOnMissing() throws {
        let txn = try db.beginTransaction()
        #expect(try db.document(testPath("c/new"), transaction: txn) == nil)
        try db.commit([.set(testPath("c/new"), MapValue())])
        expectFirestoreError(.aborted) { try db.commit([.set(testPath("c/new"), testFields(["mine": .boolean(true)]))], transaction: txn) }
        #expect(db.document(testPath("c/new"))?.fields == MapValue())
    }

    @Test("a read document deleted outside → ABORTED")
    func conflictOnDelete() throws {
        try db.commit([.set(testPath("c/d"), MapValue())])
        let txn = try db.beginTransaction()
        _ = try db.document(testPath("c/d"), transaction: txn)
        try db.commit([.delete(testPath("c/d"))])
        expectFirestoreError(.aborted) { try db.commit([], transaction: txn) }
    }

    @Test("outside commits to documents not read do not conflict; no-op outside writes do not either")
    func noConflict() throws {
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(1)]))])
        let txn = try db.beginTransaction()
        _ = try db.document(testPath("c/counter"), transaction: txn)
        try db.commit([.set(testPath("c/unrelated"), MapValue())])
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(1)]))])  // changes nothing
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(2)]))], transaction: txn)
        #expect(counter() == 2)
    }

    // docs/semantics.md#transactions: same document read twice with different versions → ABORTED.
    @Test("reading a document again after it changed → ABORTED")
    func rereadChanged() throws {
        try db.commit([.set(testPath("c/d"), testFields(["n": .integer(1)]))])
        let txn = try db.beginTransaction()
        _ = try db.document(testPath("c/d"), transaction: txn)
        _ = try db.document(testPath("c/d"), transaction: txn)  // unchanged: fine
        try db.commit([.set(testPath("c/d"), testFields(["n": .integer(2)]))])
        expectFirestoreError(.aborted) { try db.document(testPath("c/d"), transaction: txn) }
    }

    @Test("preconditions of the transaction's writes still apply")
    func writePreconditions() throws {
        let txn = try db.beginTransaction()
        expectFirestoreError(.notFound, message: "No document to update: \(testResourceName("c/none"))") {
            try db.commit([.update(testPath("c/none"), testFields(["a": .integer(1)]), mask: [testFieldPath("a")])], transaction: txn)
        }
        #expect(db.document(testPath("c/none")) == nil)
    }

    // MARK: Read-only

    @Test("a read-only transaction rejects writes")
    func readOnlyRejectsWrites() throws {
        let txn = try db.beginTransaction(readOnly: true)
        expectFirestoreError(.invalidArgument, message: "Cannot modify entities in a read-only transaction.") {
            try db.commit([.set(testPath("c/d"), MapValue())], transaction: txn)
        }
        #expect(db.document(testPath("c/d")) == nil)
        let txn2 = try db.beginTransaction(readOnly: true)
        try db.commit([], transaction: txn2)  // committing no writes is fine
    }

    @Test("a read-only transaction reads one fixed state")
    func readOnlyFixedState() throws {
        try db.commit([.set(testPath("c/a"), testFields(["v": .integer(1)])), .set(testPath("c/b"), testFields(["v": .integer(1)]))])
        let txn = try db.beginTransaction(readOnly: true)
        #expect(try db.document(testPath("c/a"), transaction: txn)?.fields == testFields(["v": .integer(1)]))
        try db.commit([.set(testPath("c/a"), testFields(["v": .integer(2)])), .delete(testPath("c/b")), .set(testPath("c/c"), MapValue())])
        #expect(try db.document(testPath("c/a"), transaction: txn)?.fields == testFields(["v": .integer(1)]))
        #expect(try db.document(testPath("c/b"), transaction: txn)?.fields == testFields(["v": .integer(1)]))
        #expect(try db.document(testPath("c/c"), transaction: txn) == nil)
        // Outside changes never abort a read-only transaction.
        try db.commit([], transaction: txn)
    }

    @Test("a read-only transaction at a past read time reads that version")
    func readOnlyAtReadTime() throws {
        let t1 = try db.commit([.set(testPath("c/a"), testFields(["v": .integer(1)]))]).commitTime
        clock.advance(by: 5)
        try db.commit([.set(testPath("c/a"), testFields(["v": .integer(2)])), .set(testPath("c/b"), MapValue())])
        let txn = try db.beginTransaction(readOnly: true, readTime: t1)
        #expect(try db.document(testPath("c/a"), transaction: txn)?.fields == testFields(["v": .integer(1)]))
        #expect(try db.document(testPath("c/b"), transaction: txn) == nil)
        // A read time is only for read-only transactions, and must still be retained.
        expectFirestoreError(.invalidArgument) { try db.beginTransaction(readOnly: false, readTime: t1) }
        clock.advance(by: 4000)
        expectFirestoreError(.failedPrecondition) { try db.beginTransaction(readOnly: true, readTime: t1) }
    }

    // MARK: Ending transactions

    @Test("rollback ends the transaction")
    func rollback() throws {
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(1)]))])
        let txn = try db.beginTransaction()
        _ = try db.document(testPath("c/counter"), transaction: txn)
        try db.rollback(txn)
        #expect(counter() == 1)
        expectFirestoreError(.invalidArgument, message: "The referenced transaction has expired or is no longer valid.") {
            try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(2)]))], transaction: txn)
        }
        // Rolling back an ended transaction again succeeds (as on the official emulator); an
        // id never begun does not.
        try db.rollback(txn)
        expectFirestoreError(.invalidArgument) { try db.rollback(TransactionID(bytes: Data([9, 9, 9]))) }
        #expect(counter() == 1)
    }

    @Test("unknown or already-used transaction ids are INVALID_ARGUMENT")
    func unknownOrUsed() throws {
        let unknown = TransactionID(bytes: Data([1, 2, 3]))
        let message = "The referenced transaction has expired or is no longer valid."
        expectFirestoreError(.invalidArgument, message: message) { try db.document(testPath("c/d"), transaction: unknown) }
        expectFirestoreError(.invalidArgument, message: message) { try db.commit([], transaction: unknown) }
        expectFirestoreError(.invalidArgument, message: message) { try db.rollback(unknown) }

        let used = try db.beginTransaction()
        try db.commit([.set(testPath("c/d"), MapValue())], transaction: used)
        expectFirestoreError(.invalidArgument, message: message) { try db.commit([.set(testPath("c/e"), MapValue())], transaction: used) }
        expectFirestoreError(.invalidArgument, message: message) { try db.document(testPath("c/d"), transaction: used) }
        #expect(db.document(testPath("c/e")) == nil)
        // Transactions are per database.
        let other = try db.fork().beginTransaction()
        expectFirestoreError(.invalidArgument) { try db.commit([], transaction: other) }
    }

    @Test("transaction ids are distinct")
    func distinctIDs() throws {
        let ids = try (0..<50).map { _ in try db.beginTransaction() }
        #expect(Set(ids).count == 50)
    }

    // MARK: Concurrency

    @Test("20 threads doing read-increment-commit with retry end at exactly +20")
    func concurrentIncrements() throws {
        let db = Database(id: testDatabaseID)  // wall clock
        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(1000)]))])
        let failures = FailureLog()
        let group = DispatchGroup()
        for _ in 0..<20 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for _ in 0..<10_000 {
                    do throws(FirestoreError) {
                        let txn = try db.beginTransaction()
                        guard case .integer(let n)? = try db.document(testPath("c/counter"), transaction: txn)?.fields["n"] else {
                            failures.entries.withLock { $0.append("counter missing") }
                            return
                        }
                        try db.commit([.set(testPath("c/counter"), testFields(["n": .integer(n + 1)]))], transaction: txn)
                        return
                    } catch where error.code == .aborted {
                        continue  // contention: retry with a new transaction
                    } catch {
                        failures.entries.withLock { $0.append(error.description) }
                        return
                    }
                }
                failures.entries.withLock { $0.append("gave up") }
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(failures.entries.withLock { $0 } == [])
        #expect(counter() == nil)  // the suite's own database is untouched
        guard case .integer(let n)? = db.document(testPath("c/counter"))?.fields["n"] else {
            Issue.record("counter missing")
            return
        }
        #expect(n == 1020)
    }

    @Test("a query in a read-write transaction records its results: a change to one aborts the commit")
    func queryReadsAreValidated() throws {
        try db.commit([.set(testPath("q/a"), testFields(["v": .integer(1)])), .set(testPath("q/b"), testFields(["v": .integer(2)]))])
        let query = StructuredQuery(collectionID: "q", filter: .field(FieldPath(["v"]), .greaterThan, .integer(0)))
        let txn = try db.beginTransaction()
        #expect(try db.runQuery(query, transaction: txn).documents.map(\.id) == ["a", "b"])
        clock.advance(by: 1)
        try db.commit([.set(testPath("q/b"), testFields(["v": .integer(3)]))])
        expectFirestoreError(.aborted) { try db.commit([.set(testPath("q/c"), MapValue())], transaction: txn) }
        #expect(db.document(testPath("q/c")) == nil)
        // Untouched results commit fine.
        let again = try db.beginTransaction()
        _ = try db.runQuery(query, transaction: again)
        try db.commit([.set(testPath("q/c"), MapValue())], transaction: again)
        #expect(db.document(testPath("q/c")) != nil)
    }

    @Test("a document that would newly match a transaction's query (a phantom) aborts the commit; others do not")
    func phantomsAbortQueriesAndAggregations() throws {
        try db.commit([.set(testPath("p/a"), testFields(["v": .integer(1)])), .set(testPath("p/b"), testFields(["v": .integer(5)]))])
        let query = testQuery("p", where: field("v", .lessThan, .integer(10)))
        func attempt(_ outside: Write, read: (TransactionID) throws -> Void) throws -> Bool {
            let txn = try db.beginTransaction()
            try read(txn)
            clock.advance(by: 1)
            try db.commit([outside])
            do {
                try db.commit([.set(testPath("p/log"), MapValue())], transaction: txn)
                return true
            } catch where error.code == .aborted {
                return false
            }
        }
        let runQuery = { (txn: TransactionID) throws in _ = try self.db.runQuery(query, transaction: txn) }
        // A new matching document: the query's answer is stale.
        #expect(try attempt(.set(testPath("p/c"), testFields(["v": .integer(2)])), read: runQuery) == false)
        // A document that does not match, or one in another collection: no conflict.
        #expect(try attempt(.set(testPath("p/d"), testFields(["v": .integer(50)])), read: runQuery) == true)
        #expect(try attempt(.set(testPath("other/e"), testFields(["v": .integer(1)])), read: runQuery) == true)
        // A document leaving the result (no longer matching) also aborts.
        #expect(try attempt(.set(testPath("p/d"), testFields(["v": .integer(3)])), read: runQuery) == false)

        // With a limit that cut the result short, changes past the last returned document
        // (in query order) did not affect it.
        let limited = testQuery("p", where: field("v", .lessThan, .integer(10)), orderBy: [asc("v")], limit: 2)
        let runLimited = { (txn: TransactionID) throws in
            #expect(try self.db.runQuery(limited, transaction: txn).documents.map(\.id) == ["a", "c"])
        }
        #expect(try attempt(.set(testPath("p/f"), testFields(["v": .integer(9)])), read: runLimited) == true)
        #expect(try attempt(.set(testPath("p/g"), testFields(["v": .integer(0)])), read: runLimited) == false)

        // Aggregations in a read-write transaction are covered the same way.
        let count = { (txn: TransactionID) throws in
            _ = try self.db.runAggregation(query, aggregations: [Aggregation(.count(upTo: nil), alias: "n")], transaction: txn)
        }
        #expect(try attempt(.set(testPath("p/h"), testFields(["v": .integer(4)])), read: count) == false)
        #expect(try attempt(.set(testPath("p/i"), testFields(["v": .integer(40)])), read: count) == true)
    }

    @Test("a query in a read-only transaction reads its fixed state")
    func readOnlyQueryReadsItsState() throws {
        let t1 = try db.commit([.set(testPath("q/a"), testFields(["v": .integer(1)]))]).commitTime
        clock.advance(by: 1)
        try db.commit([.set(testPath("q/b"), testFields(["v": .integer(2)]))])
        let query = StructuredQuery(collectionID: "q", orderBy: [Ordering(FieldPath(["v"]))])
        let past = try db.beginTransaction(readOnly: true, readTime: t1)
        #expect(try db.runQuery(query, transaction: past).documents.map(\.id) == ["a"])
        let now = try db.beginTransaction(readOnly: true)
        try db.commit([.set(testPath("q/c"), testFields(["v": .integer(0)]))])
        #expect(try db.runQuery(query, transaction: now).documents.map(\.id) == ["a", "b"])
        expectFirestoreError(.invalidArgument) { try db.runQuery(query, transaction: TransactionID.random()) }
    }
}

/// Errors collected from worker threads.
private final class FailureLog: Sendable {
    let entries = HearthMutex<[String]>([])

}
