import Foundation
import Testing
@testable import Hearth

/// The event sequences of an instance's own writes, each checked against what the Firebase
/// iOS SDK's own integration tests assert (firebase-ios-sdk, Firestore/Example/Tests/
/// Integration/API/…, and the spec tests in Firestore/Example/Tests/SpecTests/json/). A
/// listener started on a document the instance wrote (so holds in its cache) first raises
/// it from the cache (`isFromCache == true`), then, with metadata changes, the synced one,
/// as the SDK's tests expect.
@Suite("Latency compensation")
struct LatencyCompensationTests {
    // MARK: Document listeners (FIRDatabaseTests testDocumentSnapshotEvents_*)

    @Test("set on a missing document: a pending local event, no second event (testDocumentSnapshotEvents_forAdd)")
    func documentAdd() async throws {
        let db = localDB()
        let ref = db.collection("rooms").document()
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(events.add)
        try await ref.setData(["a": 1])
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["-", "{a:1} P"])
        r.remove()
    }

    @Test("with metadata changes: missing, pending, acknowledged (testDocumentSnapshotEvents_forAddIncludingMetadata)")
    func documentAddIncludingMetadata() async throws {
        let db = localDB()
        let ref = db.collection("rooms").document()
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        try await ref.setData(["a": 1])
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["-", "{a:1} P", "{a:1}"])
        #expect(events.values.allSatisfy { !$0.metadata.isFromCache })
        r.remove()
    }

    @Test("change: initial, then the new data pending (testDocumentSnapshotEvents_forChange)")
    func documentChange() async throws {
        let db = localDB()
        let ref = db.collection("rooms").document()
        try await ref.setData(["a": 1])
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(events.add)
        try await ref.setData(["b": 2])
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["{a:1}", "{b:2} P"])
        r.remove()
    }

    @Test("change with metadata: cached, synced, pending, acknowledged (testDocumentSnapshotEvents_forChangeIncludingMetadata)")
    func documentChangeIncludingMetadata() async throws {
        let db = localDB()
        let ref = db.collection("rooms").document()
        try await ref.setData(["a": 1])
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        try await ref.setData(["b": 2])
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["{a:1}", "{a:1}", "{b:2} P", "{b:2}"])
        #expect(events.values.map(\.metadata.isFromCache) == [true, false, false, false])
        r.remove()
    }

    @Test("update: with metadata changes a local then a remote event, without only the local one (FIRNumericTransformTests testIntegerIncrementWithExistingInteger, expectLocalAndRemoteValue)")
    func documentUpdate() async throws {
        let db = localDB()
        let ref = db.collection("rooms").document()
        try await ref.setData(["sum": 1337])
        let withMetadata = LocalEvents<DocumentSnapshot>(), plain = LocalEvents<DocumentSnapshot>()
        let r1 = ref.addSnapshotListener(includeMetadataChanges: true, listener: withMetadata.add)
        let r2 = ref.addSnapshotListener(plain.add)
        try await ref.updateData(["sum": FieldValue.increment(Int64(1))])
        await db.waitUntilIdle()
        // The first listener starts on the cached document: cached, then synced. The second
        // shares its (synced) target, so its first snapshot is in sync.
        #expect(withMetadata.values.map { localShow($0) } == ["{sum:1337}", "{sum:1337}", "{sum:1338} P", "{sum:1338}"])
        #expect(withMetadata.values.map(\.metadata.isFromCache) == [true, false, false, false])
        #expect(plain.values.map { localShow($0) } == ["{sum:1337}", "{sum:1338} P"])
        #expect(plain.values.map(\.metadata.isFromCache) == [false, false])
        r1.remove(); r2.remove()
    }

    @Test("delete: initial, then missing with no pending writes, with or without metadata changes (testDocumentSnapshotEvents_forDelete, _forDeleteIncludingMetadata)")
    func documentDelete() async throws {
        for includeMetadata in [false, true] {
            let db = localDB()
            let ref = db.collection("rooms").document()
            try await ref.setData(["a": 1])
            let events = LocalEvents<DocumentSnapshot>()
            let r = ref.addSnapshotListener(includeMetadataChanges: includeMetadata, listener: events.add)
            try await ref.delete()
            await db.waitUntilIdle()
            // A missing document carries no pending writes, so the acknowledgement changes
            // nothing; with metadata changes the cached first snapshot is followed by the
            // synced one.
            #expect(events.values.map { localShow($0) } == (includeMetadata ? ["{a:1}", "{a:1}", "-"] : ["{a:1}", "-"]))
            #expect(events.values.map(\.metadata.isFromCache) == (includeMetadata ? [true, false, false] : [true, false]))
            #expect(events.values.allSatisfy { !$0.metadata.hasPendingWrites })
            r.remove()
        }
    }

    // MARK: Query listeners (FIRDatabaseTests testQuerySnapshotEvents_*)

    @Test("query add, change, delete: one local event each, with the document pending (testQuerySnapshotEvents_forAdd / _forChange / _forDelete)")
    func querySequences() async throws {
        let db = localDB()
        let rooms = db.collection("rooms")
        let events = LocalEvents<QuerySnapshot>()
        let r = rooms.addSnapshotListener(events.add)
        try await rooms.document("x").setData(["a": 1])
        try await rooms.document("x").setData(["b": 2])
        try await rooms.document("x").delete()
        await db.waitUntilIdle()
        let s = events.values
        #expect(s.map(localShow) == ["", "x{a:1}* P", "x{b:2}* P", ""])
        #expect(s.dropFirst().map { localChanges($0.documentChanges) } == [["added x -→0"], ["modified x 0→0"], ["removed x 0→-"]])
        #expect(s.allSatisfy { !$0.metadata.isFromCache })
        r.remove()
    }

    @Test("with metadata changes the acknowledgement is a metadata-only .modified change, left out of documentChanges (FIRQuerySnapshotTests testIncludeMetadataChanges; FIRWriteBatchTests testBatchesCommitAtomicallyRaisingCorrectEvents' server event)")
    func queryAcknowledgementIsAMetadataChange() async throws {
        let db = localDB()
        let rooms = db.collection("rooms")
        let events = LocalEvents<QuerySnapshot>()
        let r = rooms.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        try await rooms.document("x").setData(["a": 1])
        await db.waitUntilIdle()
        let s = events.values
        #expect(s.map(localShow) == ["", "x{a:1}* P", "x{a:1}"])
        let ack = try #require(s.last)
        #expect(ack.documentChanges.isEmpty)
        #expect(localChanges(ack.documentChanges(includeMetadataChanges: true)) == ["modified x 0→0"])
        r.remove()
    }

    @Test("a query filtered on the written field sees the local version: pending add, then acknowledged (testQuerySnapshotEvents_forAdd, with an equality filter)")
    func filteredQuerySeesTheLocalVersion() async throws {
        let db = localDB()
        let rooms = db.collection("rooms")
        try await rooms.document("y").setData(["g": 1])
        let events = LocalEvents<QuerySnapshot>()
        let r = rooms.whereField("g", isEqualTo: 2).addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        try await rooms.document("x").setData(["g": 2])
        try await rooms.document("y").setData(["g": 2])
        await db.waitUntilIdle()
        #expect(events.values.map(localShow) == ["", "x{g:2}* P", "x{g:2}", "x{g:2} y{g:2}* P", "x{g:2} y{g:2}"])
        r.remove()
    }

    @Test("a rejected write that moved a document into a filtered query: shown there, then rolled back out (write_spec_test.json 'Failed writes are released immediately.', with an equality filter)")
    func rejectedWriteLeavesTheFilteredQuery() async throws {
        let alice = try await aliceWritingUnderTen()
        let events = LocalEvents<QuerySnapshot>()
        let r = alice.collection("c").whereField("v", isEqualTo: 20).addSnapshotListener(events.add)
        let failure = await apiCallback { done in alice.collection("c").document("a").setData(["v": 20]) { done($0) } }
        await alice.waitUntilIdle()
        #expect((failure as NSError?)?.code == FirestoreErrorCode.permissionDenied.rawValue)
        #expect(events.values.map(localShow) == ["", "a{v:20}* P", ""])
        #expect(events.values.dropFirst().map { localChanges($0.documentChanges) } == [["added a -→0"], ["removed a 0→-"]])
        r.remove()
    }

    // MARK: Batches (FIRWriteBatchTests)

    @Test("a batch: one local event with every write, then the acknowledgement (testBatchesCommitAtomicallyRaisingCorrectEvents)")
    func batchCommit() async throws {
        let db = localDB()
        let c = db.collection("c")
        let events = LocalEvents<QuerySnapshot>()
        let r = c.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        let batch = db.batch()
        batch.setData(["a": 1], forDocument: c.document("a"))
        batch.setData(["b": 2], forDocument: c.document("b"))
        try await batch.commit()
        await db.waitUntilIdle()
        #expect(events.values.map(localShow) == ["", "a{a:1}* b{b:2}* P", "a{a:1} b{b:2}"])
        r.remove()
    }

    @Test("a batch failing a precondition: the local event, then its rollback, and NOT_FOUND (testBatchesFailAtomicallyRaisingCorrectEvents)")
    func batchRejectedByPrecondition() async throws {
        let db = localDB()
        let c = db.collection("c")
        let events = LocalEvents<QuerySnapshot>()
        let r = c.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        let batch = db.batch()
        batch.setData(["a": 1], forDocument: c.document("a"))
        batch.updateData(["b": 2], forDocument: c.document("b"))
        await #expect(throws: FirestoreErrorCode.self) { try await batch.commit() }
        await db.waitUntilIdle()
        #expect(events.values.map(localShow) == ["", "a{a:1}* P", ""])
        #expect(try await c.getDocuments().isEmpty)
        r.remove()
    }

    @Test("the same document written several times in a batch shows its final local state (testCanWriteTheSameDocumentMultipleTimes)")
    func batchSameDocument() async throws {
        let clock = ManualClock(now: Timestamp(seconds: 1_700_000_000, nanoseconds: 0))
        let db = localDB(clock: clock)
        let ref = db.collection("c").document("d")
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        let batch = db.batch()
        batch.deleteDocument(ref)
        batch.setData(["a": 1, "b": 1, "when": "when"], forDocument: ref)
        batch.updateData(["b": 2, "when": FieldValue.serverTimestamp()], forDocument: ref)
        try await batch.commit()
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["-", "{a:1,b:2,when:null} P", "{a:1,b:2,when:ts:1700000000}"])
        r.remove()
    }

    // MARK: Rejections

    @Test("a write the rules deny: shown, rolled back, PERMISSION_DENIED (write_spec_test.json 'Failed writes are released immediately.')")
    func writeRejectedByRules() async throws {
        let alice = try await aliceWritingUnderTen()
        let events = LocalEvents<QuerySnapshot>()
        let r = alice.collection("c").addSnapshotListener(events.add)
        let failure = await apiCallback { done in alice.collection("c").document("a").setData(["v": 20]) { done($0) } }
        await alice.waitUntilIdle()
        #expect((failure as NSError?)?.code == FirestoreErrorCode.permissionDenied.rawValue)
        // The spec test's rollback is a .modified back to the committed data.
        #expect(events.values.map(localShow) == ["a{v:1}", "a{v:20}* P", "a{v:1}"])
        #expect(localChanges(events.values[2].documentChanges) == ["modified a 0→0"])
        r.remove()
    }

    @Test("updateData on a missing document changes nothing locally and fails NOT_FOUND (testServerTimestampsFailViaUpdateOnNonexistentDocument)")
    func updateOfMissingDocument() async throws {
        let db = localDB()
        let ref = db.collection("c").document("gone")
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        let failure = await apiCallback { done in ref.updateData(["when": FieldValue.serverTimestamp()]) { done($0) } }
        await db.waitUntilIdle()
        #expect((failure as NSError?)?.code == FirestoreErrorCode.notFound.rawValue)
        #expect(events.values.map { localShow($0) } == ["-"])
        r.remove()
    }

    // MARK: Writes acknowledged after the call returns

    @Test("a listener added right after a fire-and-forget write sees it pending with an estimated timestamp, then resolved (snippets-ios server_timestamp_options)")
    func listenerAfterFireAndForgetWrite() async throws {
        let clock = ManualClock(now: Timestamp(seconds: 1_700_000_000, nanoseconds: 0))
        let db = localDB(clock: clock)
        let ref = db.collection("objects").document("some-id")
        try await ref.setData(["n": 1])
        let seen = LocalEvents<String>()
        let holder = RegistrationBox()
        // As app code on the main queue runs the snippet: on the callback queue.
        db.settings.dispatchQueue.sync {
            ref.updateData(["timestamp": FieldValue.serverTimestamp()])
            holder.registration = ref.addSnapshotListener { snapshot, _ in
                guard let snapshot, let estimate = snapshot.data(with: .estimate)?["timestamp"] as? Timestamp else { return }
                seen.add("\(estimate.seconds) pending=\(snapshot.metadata.hasPendingWrites) none=\(snapshot.get("timestamp") is NSNull)", nil)
            }
        }
        await db.waitUntilIdle()
        #expect(seen.values == ["1700000000 pending=true none=true", "1700000000 pending=false none=false"])
        holder.registration?.remove()
    }

    @Test("a fire-and-forget write: committed at once for everyone else, pending for its instance until acknowledged; its completion comes after (testDocumentSnapshotEvents_forAddIncludingMetadata: pending until the server event)")
    func fireAndForgetWindow() async throws {
        let db = localDB()
        let other = db.authenticated(uid: "o")
        let ref = db.collection("c").document("x")
        let order = LocalEvents<String>()
        db.settings.dispatchQueue.sync {
            ref.setData(["a": 1, "at": FieldValue.serverTimestamp()]) { error in order.add("completion \(error == nil)", nil) }
            // Still on the callback queue: not yet acknowledged for this instance…
            let cached = try? awaitResult { try await ref.getDocument(source: .cache) }
            order.add("cache pending=\(cached?.metadata.hasPendingWrites == true) at=\(cached?.get("at") is NSNull ? "null" : "set")", nil)
            // …but committed: another instance reads it now.
            let theirs = try? awaitResult { try await other.collection("c").document("x").getDocument() }
            order.add("other exists=\(theirs?.exists == true)", nil)
        }
        try await db.waitForPendingWrites()
        #expect(order.values == ["cache pending=true at=null", "other exists=true", "completion true"])
        // A server read sees the write acknowledged.
        let read = try await ref.getDocument()
        #expect(!read.metadata.hasPendingWrites && read.get("at") is Timestamp)
    }

    @Test("waitForPendingWrites returns after the completions of every earlier write, whatever the setting and outcome, as the SDK resolves it after the writes it waits for",
          arguments: [LocalWriteEvents.latencyCompensated, .afterCommit])
    func waitForPendingWritesFollowsCompletions(events: LocalWriteEvents) async throws {
        let db = localDB(events: events)
        let completions = LocalEvents<String>()
        // Hold the callback queue so every completion is still queued when the wait begins.
        let gate = DispatchSemaphore(value: 0)
        db.settings.dispatchQueue.async { gate.wait() }
        for i in 0..<20 {
            db.collection("c").document("d\(i)").setData(["i": i]) { error in completions.add("ok \(error == nil)", nil) }
        }
        db.collection("c").document("missing").updateData(["i": 0]) { error in completions.add("ok \(error == nil)", nil) }
        gate.signal()
        try await db.waitForPendingWrites()
        #expect(completions.values.count == 21)
        #expect(completions.values.last == "ok false")
    }

    // MARK: Transactions, other instances, the setting

    @Test("a transaction raises no event before its commit (testServerTimestampsWorkViaTransactionSet)")
    func transactionHasNoLocalEvent() async throws {
        let db = localDB()
        let ref = db.collection("c").document("t")
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        _ = try await db.runTransaction { txn, _ in
            txn.setData(["a": 42, "when": FieldValue.serverTimestamp()], forDocument: ref)
            return nil
        }
        await db.waitUntilIdle()
        let s = events.values
        #expect(s.count == 2 && !s[1].metadata.hasPendingWrites)
        #expect(s[1].get("when") is Timestamp)
        r.remove()
    }

    @Test("another instance of the same database sees the write once, when it commits (FIRArrayTransformServerApplicationTests: a second instance's write is out-of-band, a remote event only)")
    func otherInstanceSeesTheCommitOnly() async throws {
        let db = localDB()
        let other = db.authenticated(uid: "bob")
        let mine = LocalEvents<DocumentSnapshot>(), theirs = LocalEvents<DocumentSnapshot>()
        let ref = db.collection("c").document("x")
        let r1 = ref.addSnapshotListener(includeMetadataChanges: true, listener: mine.add)
        let r2 = other.collection("c").document("x").addSnapshotListener(includeMetadataChanges: true, listener: theirs.add)
        try await ref.setData(["a": 1])
        await db.waitUntilIdle()
        await other.waitUntilIdle()
        #expect(mine.values.map { localShow($0) } == ["-", "{a:1} P", "{a:1}"])
        #expect(theirs.values.map { localShow($0) } == ["-", "{a:1}"])
        r1.remove(); r2.remove()
    }

    @Test("localWriteEvents = .afterCommit: one committed event per write, never pending")
    func afterCommitSetting() async throws {
        let db = localDB(events: .afterCommit)
        let ref = db.collection("c").document("x")
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        try await ref.setData(["a": 1, "when": FieldValue.serverTimestamp()])
        try await ref.updateData(["a": 2])
        await db.waitUntilIdle()
        let s = events.values
        #expect(s.count == 3 && s.allSatisfy { !$0.metadata.hasPendingWrites })
        #expect(s[1].get("when") is Timestamp && s[2].get("a") as? Int == 2)
        r.remove()
    }

    @Test("AsyncSequence snapshots carry the same sequence (testDocumentSnapshotEvents_forAddIncludingMetadata through snapshots(includeMetadataChanges:))")
    func asyncSequence() async throws {
        let db = localDB()
        let ref = db.collection("c").document("x")
        var seen: [String] = []
        var iterator = ref.snapshots(includeMetadataChanges: true).makeAsyncIterator()
        seen.append(localShow(try #require(try await iterator.next())))
        try await ref.setData(["a": 1])
        seen.append(localShow(try #require(try await iterator.next())))
        seen.append(localShow(try #require(try await iterator.next())))
        #expect(seen == ["-", "{a:1} P", "{a:1}"])
    }
}

/// Holds a registration made inside a closure.
private final class RegistrationBox: @unchecked Sendable {
    var registration: ListenerRegistration?
}

/// An instance signed in as alice over a database holding c/a {v: 1}, whose rules refuse
/// any write of c/{id} with `v` of 10 or more.
private func aliceWritingUnderTen() async throws -> Firestore {
    let admin = localDB()
    try admin.setRules("""
    rules_version = '2';
    service cloud.firestore {
      match /databases/{db}/documents {
        match /c/{id} { allow read: if true; allow write: if request.resource.data.v < 10; }
      }
    }
    """)
    try await admin.collection("c").document("a").setData(["v": 1])
    return admin.authenticated(uid: "alice")
}

/// Runs an async throwing body to completion from synchronous code (off the cooperative pool).
private func awaitResult<T>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = LocalEvents<Result<T, Error>>()
    Task.detached {
        do { result.add(.success(try await body()), nil) } catch { result.add(.failure(error), nil) }
        done.signal()
    }
    done.wait()
    return try result.values[0].get()
}
