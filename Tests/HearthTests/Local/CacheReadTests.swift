import Foundation
import Testing
@testable import Hearth

/// Reads from an instance's cache (`source: .cache`), against what firebase-ios-sdk's
/// Firestore/Example/Tests/Integration/API/FIRFirestoreSourceTests.mm and FIRDatabaseTests.mm
/// assert for an online client.
@Suite("Cache reads")
struct CacheReadTests {
    @Test("a written document is in the cache: exists, isFromCache, not pending (testGetDocumentWhileOnlineCacheOnly)")
    func writtenDocument() async throws {
        let db = localDB()
        let ref = db.collection("c").document("d")
        try await ref.setData(["key": "value"])
        let snap = try await ref.getDocument(source: .cache)
        #expect(snap.exists && snap.metadata.isFromCache && !snap.metadata.hasPendingWrites)
        #expect(snap.data()?["key"] as? String == "value")
        // A server read is not from the cache.
        #expect(try await ref.getDocument(source: .server).metadata.isFromCache == false)
    }

    @Test("a cache query shows the instance's pending writes, server timestamps unknown, until acknowledged (the SDK's local documents view; FIRServerTimestampTests testServerTimestampsWorkInQueries… from the cache)")
    func cacheQueryShowsPendingWrites() async throws {
        let db = localDB()
        let c = db.collection("c")
        try await c.document("a").setData(["n": 1])
        // In one turn of the callback queue, as app code on the main queue runs: the
        // fire-and-forget write is pending until the queue's next turn.
        let before = try db.callbackQueue.sync { () throws -> QuerySnapshot in
            c.document("b").setData(["n": 2, "t": FieldValue.serverTimestamp()])
            c.document("a").updateData(["n": 10])
            return try c.order(by: "n").run(source: .cache)
        }
        #expect(before.documents.map { localPlain($0.data()) } == ["{n:2,t:null}", "{n:10}"])
        #expect(before.documents.map(\.metadata.hasPendingWrites) == [true, true])
        #expect(before.metadata.hasPendingWrites && before.metadata.isFromCache)
        await db.waitUntilIdle()
        let after = try await c.order(by: "n").getDocuments(source: .cache)
        #expect(!after.metadata.hasPendingWrites && after.documents.allSatisfy { !$0.metadata.hasPendingWrites })
        #expect(after.documents.map { $0.data()["t"] is Timestamp } == [true, false])
    }

    @Test("a written collection from the cache: every document added, in order (testGetCollectionWhileOnlineCacheOnly)")
    func writtenCollection() async throws {
        let db = localDB()
        let c = db.collection("c")
        for i in 1...3 { try await c.document("doc\(i)").setData(["key\(i)": "value\(i)"]) }
        let snap = try await c.getDocuments(source: .cache)
        #expect(snap.metadata.isFromCache && !snap.metadata.hasPendingWrites)
        #expect(snap.documents.map { localPlain($0.data()) } == ["{key1:value1}", "{key2:value2}", "{key3:value3}"])
        #expect(localChanges(snap.documentChanges) == ["added doc1 -→0", "added doc2 -→1", "added doc3 -→2"])
        #expect(snap.documents.allSatisfy { $0.metadata.isFromCache })
    }

    @Test("a document the instance never saw fails UNAVAILABLE (testGetNonExistingDocWhileOnlineCacheOnly); an unseen collection is empty (testGetNonExistingCollectionWhileOnlineCacheOnly)")
    func neverSeen() async throws {
        let db = localDB()
        try await db.collection("c").document("d").setData(["n": 1])
        let other = db.authenticated(uid: "u")
        await #expect(throws: FirestoreErrorCode.self) { try await other.collection("c").document("d").getDocument(source: .cache) }
        do {
            _ = try await other.collection("c").document("d").getDocument(source: .cache)
        } catch let error as NSError {
            #expect(error.domain == FirestoreErrorDomain && error.code == FirestoreErrorCode.unavailable.rawValue)
            #expect(error.localizedDescription.hasPrefix("Failed to get document from cache."))
        }
        let empty = try await other.collection("c").getDocuments(source: .cache)
        #expect(empty.isEmpty && empty.documentChanges.isEmpty && empty.metadata.isFromCache)
    }

    @Test("a deleted document is in the cache as missing (testGetDeletedDocWhileOfflineCacheOnly)")
    func deletedDocument() async throws {
        let db = localDB()
        let ref = db.collection("c").document("d")
        try await ref.delete()
        let snap = try await ref.getDocument(source: .cache)
        #expect(!snap.exists && snap.data() == nil && snap.metadata.isFromCache && !snap.metadata.hasPendingWrites)
    }

    @Test("updateData does not put a document the instance never saw in its cache (testCanUpdateAnUnknownDocument)")
    func updateOfAnUnknownDocument() async throws {
        let writer = localDB()
        let reader = writer.authenticated(uid: "reader")
        let writerRef = writer.collection("c").document("d")
        let readerRef = reader.collection("c").document("d")
        try await writerRef.setData(["a": "a"])
        try await readerRef.updateData(["b": "b"])
        #expect(try await writerRef.getDocument(source: .cache).exists)
        await #expect(throws: FirestoreErrorCode.self) { try await readerRef.getDocument(source: .cache) }
        #expect(localPlain(try await readerRef.getDocument().data()) == "{a:a,b:b}")
    }

    @Test("reads, queries and listeners put what they saw in the cache; cache queries need no index and keep query order and limits")
    func readsQueriesAndListeners() async throws {
        let admin = localDB()
        let c = admin.collection("c")
        for (id, n) in [("a", 3), ("b", 1), ("c", 2), ("d", 9)] { try await c.document(id).setData(["n": n, "g": id == "d" ? "x" : "y"]) }
        let viewer = admin.authenticated(uid: "v")
        let vc = viewer.collection("c")
        _ = try await vc.document("d").getDocument()
        _ = try await vc.whereField("n", isLessThan: 3).getDocuments()
        // Seen: d (read), b and c (query). a was never seen.
        #expect(try await vc.order(by: "n").getDocuments(source: .cache).documents.map(\.documentID) == ["b", "c", "d"])
        #expect(try await vc.order(by: "n", descending: true).limit(to: 2).getDocuments(source: .cache).documents.map(\.documentID) == ["d", "c"])
        #expect(try await vc.order(by: "n").limit(toLast: 2).getDocuments(source: .cache).documents.map(\.documentID) == ["c", "d"])
        // An equality with an order-by on another field: the cache needs no composite index.
        #expect(try await vc.whereField("g", isEqualTo: "y").order(by: "n").getDocuments(source: .cache).documents.map(\.documentID) == ["b", "c"])
        await #expect(throws: FirestoreErrorCode.self) { try await vc.document("a").getDocument(source: .cache) }
        let r = vc.document("a").addSnapshotListener { _, _ in }
        await viewer.waitUntilIdle()
        #expect(try await vc.document("a").getDocument(source: .cache).get("n") as? Int == 3)
        // While the listener listens, what it receives reaches the cache.
        try await c.document("a").setData(["n": 4])
        await viewer.waitUntilIdle()
        #expect(try await vc.document("a").getDocument(source: .cache).get("n") as? Int == 4)
        r.remove()
        // Once it stopped, the cache keeps the version it last received, as the SDK's does.
        try await c.document("a").setData(["n": 5])
        #expect(try await vc.document("a").getDocument(source: .cache).get("n") as? Int == 4)
    }

    @Test("clearPersistence() after terminate() empties the cache")
    func clearPersistence() async throws {
        let db = localDB()
        let ref = db.collection("c").document("d")
        try await ref.setData(["n": 1])
        #expect(try await ref.getDocument(source: .cache).exists)
        try await db.terminate()
        try await db.clearPersistence()
        #expect(db.local.cache.lookup(ref.storageKey).isAbsent)
    }
}

extension LocalCache.Lookup {
    var isAbsent: Bool { if case .absent = self { true } else { false } }
}
