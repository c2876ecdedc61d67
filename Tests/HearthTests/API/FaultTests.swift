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

    /// Aggregations are the SDK's RunAggregationQuery: faulted by that name and by their
    /// query's collection; a dropped answer means the count was computed and lost.
    @Test func aggregationsFailWithTheInjectedStatus() async throws {
        let db = apiDB()
        try await db.document("agg/a").setData(["x": 1])
        db.faults.inject(.unavailable, on: .runAggregationQuery, path: "agg", times: 1)
        #expect(try await db.collection("other").count.getAggregation(source: .server).count.intValue == 0)
        let failed = await apiError { _ = try await db.collection("agg").count.getAggregation(source: .server) }
        #expect(failed?.code == FirestoreErrorCode.Code.unavailable.rawValue)
        #expect(db.faults.active.isEmpty)
        db.faults.inject(.dropAnswer, on: .runAggregationQuery)
        #expect(await apiError { _ = try await db.collection("agg").count.getAggregation(source: .server) }?.code
                == FirestoreErrorCode.Code.unavailable.rawValue)
        // A query's own faults (RunQuery) leave its aggregations alone.
        db.faults.inject(.internal, on: .runQuery, times: nil)
        #expect(try await db.collection("agg").count.getAggregation(source: .server).count.intValue == 1)
    }

    /// A Listen fault meets a listener when it adds its target. The SDK never reports a
    /// failed watch stream to the listener: it retries at once, and a failure of a client's
    /// first stream makes it Offline (online_state_tracker.cc, kMaxWatchStreamFailures = 1),
    /// so the first snapshot is raised from the cache even when empty (query_listener.cc,
    /// ShouldRaiseInitialEvent), then, with metadata changes, the in-sync one once the retry
    /// connected. Hearth's data keeps flowing while the stream is down, marked isFromCache
    /// (docs/faults.md). Without a fault the first is the server's.
    @Test func aListenFaultRaisesTheFirstSnapshotFromTheCacheThenInSync() async throws {
        let db = localDB()
        // Written by another instance: this one's cache holds nothing of them.
        try await db.authenticated(uid: "writer").document("l/a").setData(["x": 1])
        try await db.authenticated(uid: "writer").document("m/a").setData(["x": 1])
        db.faults.inject(.unavailable, on: .listen, path: "l", times: 1)
        let faulted = LocalEvents<QuerySnapshot>()
        let r1 = db.collection("l").addSnapshotListener(includeMetadataChanges: true, listener: faulted.add)
        await db.waitUntilIdle()
        #expect(faulted.values.map { localShow($0) } == ["", "a{x:1}", "a{x:1}"])
        #expect(faulted.values.map(\.metadata.isFromCache) == [true, true, false])
        #expect(faulted.errors.isEmpty)
        #expect(db.faults.active.isEmpty)
        // Another path: the rule (now for every Listen under l) leaves it alone.
        db.faults.inject(.unavailable, on: .listen, path: "l", times: nil)
        let plain = LocalEvents<QuerySnapshot>()
        let r2 = db.collection("m").addSnapshotListener(includeMetadataChanges: true, listener: plain.add)
        await db.waitUntilIdle()
        #expect(plain.values.map(\.metadata.isFromCache) == [false])
        // A document listener, with a dropped stream (the stream was Online: one more try,
        // which connects; the other listeners stay in sync); and one without a fault.
        db.faults.clear()
        try await db.authenticated(uid: "writer").document("n/b").setData(["x": 2])
        try await db.authenticated(uid: "writer").document("n/c").setData(["x": 3])
        db.faults.add(try FaultRule.parse(spec: "method=Listen,path=n/b,dropAfter=0,once"))
        let document = LocalEvents<DocumentSnapshot>()
        let r3 = db.document("n/b").addSnapshotListener(includeMetadataChanges: true, listener: document.add)
        await db.waitUntilIdle()
        #expect(document.values.map(\.metadata.isFromCache) == [true, false])
        #expect(db.faults.active.isEmpty)
        let control = LocalEvents<DocumentSnapshot>()
        let r4 = db.document("n/c").addSnapshotListener(includeMetadataChanges: true, listener: control.add)
        await db.waitUntilIdle()
        #expect(control.values.map(\.metadata.isFromCache) == [false])
        #expect(faulted.values.count == 3 && plain.values.count == 1)
        r4.remove()
        r1.remove(); r2.remove(); r3.remove()
    }
}
