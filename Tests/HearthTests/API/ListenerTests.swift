import Foundation
import HearthLock
import Testing
@testable import Hearth

/// Collects what a listener's callbacks receive.
private final class Received<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(T?, Error?)] = []

    func add(_ value: T?, _ error: Error?) { lock.withLock { items.append((value, error)) } }

    var values: [T] { lock.withLock { items.compactMap(\.0) } }
    var errors: [Error] { lock.withLock { items.compactMap(\.1) } }
    var count: Int { lock.withLock { items.count } }
}

/// A registration handed to its own callback.
private final class RegistrationHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var registration: ListenerRegistration?

    func set(_ r: ListenerRegistration) { lock.withLock { registration = r } }
    func remove() { lock.withLock { registration }?.remove() }
}

/// `kind id old→new` per change, `-` for NSNotFound.
private func describe(_ snapshot: QuerySnapshot) -> [String] {
    snapshot.documentChanges.map { c in
        func i(_ v: UInt) -> String { v == UInt(NSNotFound) ? "-" : String(v) }
        return "\(c.type) \(c.document.documentID) \(i(c.oldIndex))→\(i(c.newIndex))"
    }
}

private func ids(_ snapshot: QuerySnapshot) -> [String] { snapshot.documents.map(\.documentID) }

@Suite("Snapshot listeners")
struct ListenerTests {
    @Test("initial snapshots: a missing document (exists == false) and a whole query result")
    func initialSnapshots() async throws {
        let callbacks = DispatchQueue(label: "hearth.listener-tests.initial")
        let db = apiDB(queue: callbacks)
        try await db.collection("c").document("b").setData(["n": 2])
        try await db.collection("c").document("a").setData(["n": 1])
        let doc = Received<DocumentSnapshot>(), query = Received<QuerySnapshot>()
        callbacks.suspend()
        let r1 = db.collection("c").document("missing").addSnapshotListener(doc.add)
        let r2 = db.collection("c").order(by: "n").addSnapshotListener(query.add)
        #expect(doc.count == 0 && query.count == 0) // delivered asynchronously, on the queue
        callbacks.resume()
        await db.waitUntilIdle()
        #expect(doc.values.map(\.exists) == [false])
        #expect(doc.values.first?.metadata.hasPendingWrites == false && doc.values.first?.metadata.isFromCache == false)
        let first = try #require(query.values.first)
        #expect(ids(first) == ["a", "b"] && describe(first) == ["added a -→0", "added b -→1"])
        // The instance wrote a and b, so holds them: the SDK's first snapshot comes from its
        // cache (QueryListener::ShouldRaiseInitialEvent); the missing document's does not.
        #expect(!first.metadata.hasPendingWrites && first.metadata.isFromCache)
        r1.remove(); r2.remove()
    }

    @Test("add / modify / remove with the SDK's oldIndex and newIndex")
    func changeSequence() async throws {
        let db = apiDB()
        let c = db.collection("c")
        for (id, n) in [("a", 1), ("b", 2), ("c", 3)] { try await c.document(id).setData(["n": n]) }
        let got = Received<QuerySnapshot>()
        let r = c.order(by: "n").addSnapshotListener(got.add)
        await db.waitUntilIdle()
        try await c.document("d").setData(["n": 0])
        try await c.document("a").updateData(["n": 9])
        try await c.document("b").delete()
        try await c.document("c").setData(["n": 3]) // unchanged: no snapshot
        await db.waitUntilIdle()
        let s = got.values
        #expect(s.count == 4)
        #expect(s.dropFirst().map(describe) == [["added d -→0"], ["modified a 1→3"], ["removed b 1→-"]])
        #expect(ids(s[3]) == ["d", "c", "a"])
        r.remove()
    }

    @Test("a document moving across the filter boundary: added, modified, removed")
    func filterBoundary() async throws {
        let db = apiDB()
        let ref = db.collection("c").document("a")
        try await ref.setData(["n": 1])
        let got = Received<QuerySnapshot>()
        let r = db.collection("c").whereField("n", isGreaterThan: 5).addSnapshotListener(got.add)
        try await ref.setData(["n": 6])
        try await ref.setData(["n": 7])
        try await ref.setData(["n": 2])
        await db.waitUntilIdle()
        #expect(got.values.map(describe) == [[], ["added a -→0"], ["modified a 0→0"], ["removed a 0→-"]])
        r.remove()
    }

    @Test("limit: a new first document pushes the last one out as removed")
    func limitWindow() async throws {
        let db = apiDB()
        let c = db.collection("c")
        for n in 1...4 { try await c.document("d\(n)").setData(["n": n]) }
        let got = Received<QuerySnapshot>()
        let r = c.order(by: "n").limit(to: 3).addSnapshotListener(got.add)
        try await c.document("d0").setData(["n": 0])
        try await c.document("d1").delete()
        await db.waitUntilIdle()
        let s = got.values
        #expect(s.map(ids) == [["d1", "d2", "d3"], ["d0", "d1", "d2"], ["d0", "d2", "d3"]])
        #expect(describe(s[1]) == ["removed d3 2→-", "added d0 -→0"])
        #expect(describe(s[2]) == ["removed d1 1→-", "added d3 -→2"])
        r.remove()
    }

    @Test("limit(toLast:): the last n in query order; a new last document pushes the first out")
    func limitToLast() async throws {
        let db = apiDB()
        let c = db.collection("c")
        for n in 1...4 { try await c.document("d\(n)").setData(["n": n]) }
        let got = Received<QuerySnapshot>()
        let r = c.order(by: "n").limit(toLast: 2).addSnapshotListener(got.add)
        try await c.document("d5").setData(["n": 5])
        try await c.document("d0").setData(["n": 0]) // before the window: nothing
        await db.waitUntilIdle()
        let s = got.values
        #expect(s.map(ids) == [["d3", "d4"], ["d4", "d5"]])
        #expect(describe(s[0]) == ["added d3 -→0", "added d4 -→1"])
        #expect(describe(s[1]) == ["removed d3 0→-", "added d5 -→1"])
        r.remove()
    }

    @Test("a 500-write batch is one snapshot")
    func batchIsOneSnapshot() async throws {
        let db = apiDB()
        let got = Received<QuerySnapshot>()
        let r = db.collection("c").addSnapshotListener(got.add)
        let batch = db.batch()
        for i in 0..<500 { batch.setData(["i": i], forDocument: db.collection("c").document(String(format: "d%03d", i))) }
        try await batch.commit()
        await db.waitUntilIdle()
        #expect(got.values.map(\.count) == [0, 500])
        #expect(got.values.last?.documentChanges.count == 500)
        #expect(got.values.last?.documentChanges.last.map { ($0.type, $0.newIndex) } ?? (.removed, 0) == (.added, 499))
        r.remove()
    }

    @Test("a transaction that retries delivers only the committed result")
    func transactionRetries() async throws {
        let db = apiDB()
        let ref = db.collection("c").document("a")
        try await ref.setData(["n": 0])
        let got = Received<DocumentSnapshot>()
        let r = ref.addSnapshotListener(got.add)
        let attempts = HearthMutex(0)
        _ = try await db.runTransaction { txn, errorPointer in
            do {
                let n = try txn.getDocument(ref).data()!["n"] as! Int
                if attempts.withLock({ $0 += 1; return $0 }) == 1 {
                    ref.setData(["n": 100]) // a concurrent writer: this attempt must fail
                }
                txn.updateData(["n": n + 1], forDocument: ref)
            } catch let error as NSError {
                errorPointer?.pointee = error
            }
            return nil
        }
        await db.waitUntilIdle()
        #expect(attempts.withLock { $0 } == 2)
        #expect(got.values.map { $0.data()?["n"] as? Int } == [0, 100, 101])
        r.remove()
    }

    @Test("remove(): no callback afterwards, also when called inside a callback; twice is harmless")
    func removal() async throws {
        // A private queue, held suspended so callbacks are still queued when remove() runs.
        let callbacks = DispatchQueue(label: "hearth.listener-tests.removal")
        let db = apiDB(queue: callbacks)
        let ref = db.collection("c").document("a")
        let got = Received<DocumentSnapshot>()
        let r = ref.addSnapshotListener(got.add)
        await db.waitUntilIdle()
        callbacks.suspend()
        try await ref.setData(["n": 1])
        r.remove() // the queued snapshot for n = 1 must not run
        r.remove()
        callbacks.resume()
        try await ref.setData(["n": 2])
        await db.waitUntilIdle()
        #expect(got.values.map(\.exists) == [false])
        #expect(db.database.listenTargetCount == 0)

        let inner = Received<DocumentSnapshot>()
        let holder = RegistrationHolder()
        callbacks.suspend()
        let registration = ref.addSnapshotListener { snap, error in
            inner.add(snap, error)
            holder.remove()
        }
        holder.set(registration)
        try await ref.setData(["n": 3])
        callbacks.resume()
        await db.waitUntilIdle()
        #expect(inner.values.map { $0.data()?["n"] as? Int } == [2])
    }

    @Test("ending an AsyncSequence iteration removes its listener")
    func asyncSequenceRemovesListener() async throws {
        let db = apiDB()
        let ref = db.collection("c").document("a")
        try await ref.setData(["n": 1])
        var seen: [Int?] = []
        for try await snap in ref.snapshots {
            seen.append(snap.data()?["n"] as? Int)
            if seen.count == 2 { break }
            try await ref.setData(["n": 2])
        }
        #expect(seen == [1, 2])
        #expect(db.database.listenTargetCount == 0)

        let task = Task {
            var count = 0
            for try await _ in db.collection("c").snapshots(includeMetadataChanges: true) { count += 1 }
            return count
        }
        while db.database.listenTargetCount == 0 { await Task.yield() }
        task.cancel()
        _ = try? await task.value
        #expect(db.database.listenTargetCount == 0)
    }

    @Test("collection-group listeners see every collection with the ID")
    func collectionGroup() async throws {
        let db = apiDB()
        let got = Received<QuerySnapshot>()
        let r = db.collectionGroup("posts").addSnapshotListener(got.add)
        try await db.collection("posts").document("a").setData(["n": 1])
        try await db.collection("users/u/posts").document("b").setData(["n": 2])
        try await db.collection("users/u/drafts").document("c").setData(["n": 3])
        await db.waitUntilIdle()
        #expect(got.values.map(ids) == [[], ["a"], ["a", "b"]])
        r.remove()
    }

    @Test("many listeners on one document each see every change once, in order")
    func manyListenersOneDocument() async throws {
        let db = apiDB()
        let ref = db.collection("c").document("a")
        let all = (0..<200).map { _ in Received<DocumentSnapshot>() }
        let registrations = all.map { ref.addSnapshotListener($0.add) }
        for n in 1...5 { try await ref.setData(["n": n]) }
        await db.waitUntilIdle()
        for got in all { #expect(got.values.map { $0.data()?["n"] as? Int } == [nil, 1, 2, 3, 4, 5]) }
        registrations.forEach { $0.remove() }
    }

    @Test("a missing index under .enforce: the error arrives once and the listener ends; the sequence throws")
    func errorEndsListener() async throws {
        let db = Firestore.inMemory(indexMode: .enforce)
        let query = db.collection("c").whereField("a", isEqualTo: 1).order(by: "b")
        let got = Received<QuerySnapshot>()
        let r = query.addSnapshotListener(got.add)
        try await db.collection("c").document("x").setData(["a": 1, "b": 2])
        await db.waitUntilIdle()
        #expect(got.count == 1 && got.values.isEmpty)
        #expect((got.errors.first as NSError?)?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect(db.database.listenTargetCount == 0)
        r.remove()
        await #expect(throws: FirestoreErrorCode.self) {
            for try await _ in query.snapshots {}
        }
    }

    @Test("options, metadata changes and restore")
    func optionsAndRestore() async throws {
        let db = apiDB()
        let c = db.collection("c")
        try await c.document("a").setData(["n": 1])
        let saved = db.snapshot()
        let got = Received<QuerySnapshot>()
        let r = c.addSnapshotListener(options: SnapshotListenOptions().withIncludeMetadataChanges(true).withSource(.cache), listener: got.add)
        try await c.document("b").setData(["n": 2])
        db.restore(saved)
        await db.waitUntilIdle()
        // The cached first snapshot and the synced one, the write pending, then acknowledged
        // (a metadata change), then the restore.
        #expect(got.values.map(ids) == [["a"], ["a"], ["a", "b"], ["a", "b"], ["a"]])
        #expect(got.values.map(\.metadata.hasPendingWrites) == [false, false, true, false, false])
        #expect(got.values.map(\.metadata.isFromCache) == [true, false, false, false, false])
        #expect(got.values.last.map { $0.documentChanges(includeMetadataChanges: true).map(\.type) } == [.removed])
        r.remove()
    }
}
