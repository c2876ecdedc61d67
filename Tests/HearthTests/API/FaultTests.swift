import Foundation
import Testing
@testable import Hearth

/// `db.faults` (docs/faults.md#in-the-embedded-api): injected faults on the embedded
/// operations, as the SDK would see them from its network — writes retried through
/// transient errors (firebase-ios-sdk remote/datastore.cc `IsPermanentWriteError`), a lost
/// answer making the SDK send the batch again, transactions retried after ABORTED, reads
/// failing with the injected status, delays.
@Suite struct FaultTests {
    @Test func writesAreRetriedThroughTransientErrorsAndCommitOnce() async throws {
        let db = apiDB()
        let ref = db.document("orders/o1")
        db.faults.inject(.unavailable, on: .commit, times: 2)
        try await ref.setData(["n": 1])
        #expect(try await apiData(ref)?["n"] as? Int == 1)
        #expect(db.faults.active.isEmpty)  // both firings used by the retried attempts
        // The completion form too.
        db.faults.inject(.resourceExhausted, on: .commit, times: 3)
        let error: Error? = await apiCallback { done in ref.updateData(["n": 2]) { done($0) } }
        #expect(error == nil)
        #expect(try await apiData(ref)?["n"] as? Int == 2)
    }

    @Test func aFaultThatNeverStopsFailsTheWriteAndNothingIsWritten() async throws {
        let db = apiDB()
        db.faults.inject(.unavailable, message: "down", on: .commit, times: nil)
        let error = await apiError { try await db.document("a/b").setData(["x": 1]) }
        #expect(error?.code == FirestoreErrorCode.Code.unavailable.rawValue)
        #expect(error?.localizedDescription.contains("down") == true)
        db.faults.clear()
        #expect(try await db.document("a/b").getDocument().exists == false)
    }

    @Test func aLostAnswerSendsTheBatchAgain() async throws {
        let db = apiDB()
        let ref = db.document("counters/c")
        try await ref.setData(["n": 0])
        db.faults.inject(.dropAnswer, on: .commit)
        try await ref.updateData(["n": FieldValue.increment(Int64(1))])
        // Committed, answer lost, sent again: the retry that duplicates an order.
        #expect(try await apiData(ref)?["n"] as? Int == 2)
    }

    @Test func transactionsRetryAfterAnInjectedAbort() async throws {
        let db = apiDB()
        let ref = db.document("counters/t")
        try await ref.setData(["n": 0])
        db.faults.inject(.aborted, on: .commit, times: 1)
        let attempts = APICounter()
        _ = try await db.runTransaction { txn, errorPointer in
            attempts.increment()
            let n = (try? txn.getDocument(ref).data()?["n"] as? Int) ?? 0
            txn.updateData(["n": n + 1], forDocument: ref)
            return nil
        }
        #expect(attempts.value == 2)
        #expect(try await apiData(ref)?["n"] as? Int == 1)
    }

    @Test func readsFailWithTheInjectedStatusAndDelaysWait() async throws {
        let db = apiDB()
        try await db.document("r/a").setData(["x": 1])
        db.faults.inject(.deadlineExceeded, on: .getDocument, times: 1)
        let failed = await apiError { _ = try await db.document("r/a").getDocument() }
        #expect(failed?.code == FirestoreErrorCode.Code.deadlineExceeded.rawValue)
        #expect(try await db.document("r/a").getDocument().exists)
        db.faults.inject(.internal, on: .runQuery, path: "r", times: 1)
        #expect(await apiError { _ = try await db.collection("other").getDocuments() } == nil)
        #expect(await apiError { _ = try await db.collection("r").getDocuments() }?.code == FirestoreErrorCode.Code.internal.rawValue)
        db.faults.delay(milliseconds: 150, on: .runQuery, times: 1)
        let start = ContinuousClock.now
        _ = try await db.collection("r").getDocuments()
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        // Reads from the cache never touch the network.
        db.faults.inject(.unavailable, times: nil)
        #expect(try await db.document("r/a").getDocument(source: .cache).exists)
    }
}
