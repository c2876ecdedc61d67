import Foundation
import Testing
@testable import Hearth

/// The instance's cache (docs/local-view.md#the-cache): what it received, at the version it
/// received it, served by `source: .cache` reads online and by every read and listener
/// started offline. Each test names the firebase-ios-sdk integration test it mirrors
/// (Firestore/Example/Tests/Integration/API/FIRFirestoreSourceTests.mm, FIRDatabaseTests.mm,
/// FIRQueryTests.mm; Firestore/Swift/Tests/Integration/DatabaseTests.swift) or the SDK
/// source it follows. "Another instance" stands for the SDK tests' second app or the
/// backend changing under the instance.
@Suite("Offline cache")
struct OfflineCacheTests {
    private func code(_ error: Error?) -> FirestoreErrorCode.Code? {
        guard let ns = error as NSError?, ns.domain == FirestoreErrorDomain else { return nil }
        return FirestoreErrorCode.Code(rawValue: ns.code)
    }

    private func readError(_ body: () async throws -> Any) async -> NSError? {
        do { _ = try await body(); return nil } catch { return error as NSError }
    }

    private func db(_ cache: (any LocalCacheSettings)? = nil) -> Firestore {
        let db = localDB()
        if let cache {
            let settings = db.settings
            settings.cacheSettings = cache
            db.settings = settings
        }
        return db
    }

    /// `id{data}` per document and per change `type id`, as the SDK tests'
    /// FIRQuerySnapshotGetData / FIRQuerySnapshotGetDocChangesData compare them.
    private func changes(_ s: QuerySnapshot) -> [String] {
        s.documentChanges.map { "\($0.type) \($0.document.documentID) \(localPlain($0.document.data()))" }
    }

    // MARK: Online, source .cache

    @Test("online, source .cache serves the version the instance read, not the one another instance wrote since (FIRFirestoreSourceTests testGetDocumentWhileOnlineCacheOnly; the SDK's remote document cache)")
    func cacheServesTheVersionRead() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        let ref = db.document("rooms/r1")
        try await other.document("rooms/r1").setData(["v": 1])
        #expect(try await ref.getDocument().data()?["v"] as? Int == 1)
        try await other.document("rooms/r1").setData(["v": 2])
        let cached = try await ref.getDocument(source: .cache)
        #expect(localShow(cached) == "{v:1}")
        #expect(cached.metadata.isFromCache && !cached.metadata.hasPendingWrites)
        // A server read replaces it.
        #expect(try await ref.getDocument().data()?["v"] as? Int == 2)
        #expect(localShow(try await ref.getDocument(source: .cache)) == "{v:2}")
    }

    @Test("online, a collection written by the instance is served from the cache in order, each change added (FIRFirestoreSourceTests testGetCollectionWhileOnlineCacheOnly)")
    func getCollectionWhileOnlineCacheOnly() async throws {
        let db = db()
        let col = db.collection("c")
        for (id, v) in [("doc1", "value1"), ("doc2", "value2"), ("doc3", "value3")] {
            try await col.document(id).setData(["key" + id.suffix(1): v])
        }
        let result = try await col.getDocuments(source: .cache)
        #expect(result.metadata.isFromCache && !result.metadata.hasPendingWrites)
        #expect(changes(result) == ["added doc1 {key1:value1}", "added doc2 {key2:value2}", "added doc3 {key3:value3}"])
    }

    @Test("online, a document the database holds but the instance never received is not in the cache: UNAVAILABLE (FIRFirestoreSourceTests testGetNonExistingDocWhileOnlineCacheOnly)")
    func getNonExistingDocWhileOnlineCacheOnly() async throws {
        let db = db()
        #expect(code(await readError { try await db.document("rooms/never").getDocument(source: .cache) }) == .unavailable)
        try await db.authenticated(uid: "other").document("rooms/theirs").setData(["a": 1])
        let error = await readError { try await db.document("rooms/theirs").getDocument(source: .cache) }
        #expect(code(error) == .unavailable)
    }

    @Test("online, a collection others wrote and the instance never read is empty from the cache (FIRFirestoreSourceTests testGetNonExistingCollectionWhileOnlineCacheOnly)")
    func getNonExistingCollectionWhileOnlineCacheOnly() async throws {
        let db = db()
        try await db.authenticated(uid: "other").document("c/a").setData(["a": 1])
        let snapshot = try await db.collection("c").getDocuments(source: .cache)
        #expect(snapshot.isEmpty && snapshot.documentChanges.isEmpty)
        #expect(snapshot.metadata.isFromCache && !snapshot.metadata.hasPendingWrites)
    }

    @Test("a query from the cache answers with the cached documents that match it, at their cached versions (the SDK's LocalDocumentsView over its remote document cache)")
    func cacheQueryMatchesCachedVersions() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        try await other.document("c/a").setData(["x": 1])
        try await other.document("c/b").setData(["x": 1])
        _ = try await db.document("c/a").getDocument()
        // b was never received; a changes on the server after it was read.
        try await other.document("c/a").setData(["x": 2])
        let matching = try await db.collection("c").whereField("x", isEqualTo: 1).getDocuments(source: .cache)
        #expect(localShow(matching) == "a{x:1}")
        #expect(try await db.collection("c").whereField("x", isEqualTo: 2).getDocuments(source: .cache).isEmpty)
        // The server answers with its own versions, which then replace the cached ones.
        #expect(localShow(try await db.collection("c").whereField("x", isEqualTo: 1).getDocuments()) == "b{x:1}")
        #expect(localShow(try await db.collection("c").getDocuments(source: .cache)) == "a{x:1} b{x:1}")
        _ = try await db.collection("c").getDocuments()
        #expect(localShow(try await db.collection("c").getDocuments(source: .cache)) == "a{x:2} b{x:1}")
    }

    @Test("an update of a document the instance never received does not put it in its cache; the writer's set does (FIRDatabaseTests testCanUpdateAnUnknownDocument)")
    func canUpdateAnUnknownDocument() async throws {
        let writer = db(), reader = writer.authenticated(uid: "reader")
        try await writer.document("rooms/u").setData(["a": "a"])
        try await reader.document("rooms/u").updateData(["b": "b"])
        #expect(try await writer.document("rooms/u").getDocument(source: .cache).exists)
        #expect(await readError { try await reader.document("rooms/u").getDocument(source: .cache) } != nil)
        #expect(localPlain(try await writer.document("rooms/u").getDocument().data()) == "{a:a,b:b}")
    }

    // MARK: Offline reads

    @Test("offline, the default source serves the version the instance last received, not the database's current one (FIRFirestoreSourceTests testGetDocumentWhileOfflineWithDefaultSource; SDK documentation, Access data offline)")
    func offlineReadServesLastReceivedVersion() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        try await other.document("rooms/r1").setData(["v": 1])
        _ = try await db.document("rooms/r1").getDocument()
        try await other.document("rooms/r1").setData(["v": 2])
        try await db.disableNetwork()
        let offline = try await db.document("rooms/r1").getDocument()
        #expect(localShow(offline) == "{v:1}" && offline.metadata.isFromCache)
        #expect(localShow(try await db.collection("rooms").getDocuments()) == "r1{v:1}")
        try await db.enableNetwork()
        #expect(localShow(try await db.document("rooms/r1").getDocument()) == "{v:2}")
    }

    @Test("offline, source .cache reads the cached collection with the writes made offline on top (FIRFirestoreSourceTests testGetCollectionWhileOfflineCacheOnly)")
    func getCollectionWhileOfflineCacheOnly() async throws {
        let db = db()
        let col = db.collection("c")
        for (id, v) in [("doc1", "value1"), ("doc2", "value2"), ("doc3", "value3")] {
            try await col.document(id).setData(["key" + id.suffix(1): v])
        }
        try await db.disableNetwork()
        col.document("doc2").setData(["key2b": "value2b"], merge: true, completion: nil)
        col.document("doc3").setData(["key3b": "value3b"], completion: nil)
        col.document("doc4").setData(["key4": "value4"], completion: nil)
        let result = try await col.getDocuments(source: .cache)
        #expect(result.metadata.isFromCache && result.metadata.hasPendingWrites)
        #expect(changes(result) == ["added doc1 {key1:value1}", "added doc2 {key2:value2,key2b:value2b}",
                                    "added doc3 {key3b:value3b}", "added doc4 {key4:value4}"])
        try await db.enableNetwork()
        try await db.waitForPendingWrites()
    }

    @Test("offline, a listener started on a document written offline shows it pending from the cache; every source agrees, .server fails (FIRFirestoreSourceTests testGetDocumentWhileOfflineWithDifferentSource)")
    func getDocumentWhileOfflineWithDifferentSource() async throws {
        let db = db()
        let doc = db.document("c/d")
        try await doc.setData(["key1": "value1"])
        try await db.disableNetwork()
        doc.setData(["key2": "value2"], completion: nil)
        let events = LocalEvents<DocumentSnapshot>()
        let r = doc.addSnapshotListener(events.add)
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["{key2:value2} P"])
        #expect(events.values.first?.metadata.isFromCache == true)
        for source in [FirestoreSource.cache, .default] {
            let result = try await doc.getDocument(source: source)
            #expect(localShow(result) == "{key2:value2} P" && result.metadata.isFromCache)
        }
        #expect(code(await readError { try await doc.getDocument(source: .server) }) == .unavailable)
        r.remove()
        try await db.enableNetwork()
        try await db.waitForPendingWrites()
    }

    @Test("offline, a listener started on a collection shows the cached documents with the offline writes; reads agree (FIRFirestoreSourceTests testGetCollectionWhileOfflineWithDifferentSource)")
    func getCollectionWhileOfflineWithDifferentSource() async throws {
        let db = db()
        let col = db.collection("c")
        for (id, v) in [("doc1", "value1"), ("doc2", "value2"), ("doc3", "value3")] {
            try await col.document(id).setData(["key" + id.suffix(1): v])
        }
        // Another instance's document, never received: not in the cache.
        try await db.authenticated(uid: "other").document("c/doc5").setData(["key5": "value5"])
        try await db.disableNetwork()
        col.document("doc2").setData(["key2b": "value2b"], merge: true, completion: nil)
        col.document("doc3").setData(["key3b": "value3b"], completion: nil)
        col.document("doc4").setData(["key4": "value4"], completion: nil)
        let events = LocalEvents<QuerySnapshot>()
        let r = col.addSnapshotListener(events.add)
        await db.waitUntilIdle()
        let expected = ["added doc1 {key1:value1}", "added doc2 {key2:value2,key2b:value2b}",
                        "added doc3 {key3b:value3b}", "added doc4 {key4:value4}"]
        #expect(events.values.count == 1)
        #expect(events.values.first.map(changes) == expected)
        #expect(events.values.first?.metadata.isFromCache == true)
        #expect(changes(try await col.getDocuments(source: .cache)) == expected)
        #expect(changes(try await col.getDocuments()) == expected)
        #expect(code(await readError { try await col.getDocuments(source: .server) }) == .unavailable)
        // Back online: the server's result, doc5 included, not from the cache (the writes
        // still pending; their acknowledgements change no data, so this listener, without
        // metadata changes, raises nothing more).
        try await db.enableNetwork()
        try await db.waitForPendingWrites()
        await db.waitUntilIdle()
        #expect(events.values.count == 2)
        #expect(events.values.last.map { localShow($0) } == "doc1{key1:value1} doc2{key2:value2,key2b:value2b}* doc3{key3b:value3b}* doc4{key4:value4}* doc5{key5:value5} P")
        #expect(events.values.last.map(changes) == ["added doc5 {key5:value5}"])
        #expect(events.values.last?.metadata.isFromCache == false)
        r.remove()
    }

    // MARK: Listeners started offline

    @Test("a query listener started offline shows only what the cache holds, from the cache; back online the server's result (QueryListener::ShouldRaiseInitialEvent offline, then the resumed target's CURRENT)")
    func queryListenerStartedOfflineShowsTheCache() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        try await other.document("rooms/a").setData(["v": 1])
        try await other.document("rooms/b").setData(["v": 2])
        _ = try await db.document("rooms/a").getDocument()
        try await other.document("rooms/a").setData(["v": 10])
        try await db.disableNetwork()
        let events = LocalEvents<QuerySnapshot>()
        let r = db.collection("rooms").addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["a{v:1}"])
        #expect(events.values.first?.metadata.isFromCache == true)
        try await db.enableNetwork()
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["a{v:1}", "a{v:10} b{v:2}"])
        #expect(events.values.map(\.metadata.isFromCache) == [true, false])
        #expect(localChanges(events.values[1].documentChanges) == ["added b -→1", "modified a 0→0"])
        r.remove()
    }

    @Test("a document listener started offline on a document never received shows it missing, from the cache; back online the document (core/src/core/query_listener.cc ShouldRaiseInitialEvent: offline, an empty cached view is raised)")
    func documentListenerStartedOfflineOnUnseenDocument() async throws {
        let db = db()
        try await db.authenticated(uid: "other").document("rooms/x").setData(["v": 1])
        try await db.disableNetwork()
        let events = LocalEvents<DocumentSnapshot>()
        let r = db.document("rooms/x").addSnapshotListener(events.add)
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["-"])
        #expect(events.values.first?.metadata.isFromCache == true)
        try await db.enableNetwork()
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["-", "{v:1}"])
        #expect(events.values.last?.metadata.isFromCache == false)
        r.remove()
    }

    // MARK: What listeners put in the cache

    @Test("a listener's documents stay cached at the last version it received: one that left the query is held at the version that made it leave, a deleted one as missing (the SDK's remote document cache, fed by Watch)")
    func listenerVersionsStayCached() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        try await other.document("c/a").setData(["x": 1])
        try await other.document("c/b").setData(["x": 1])
        let events = LocalEvents<QuerySnapshot>()
        let r = db.collection("c").whereField("x", isEqualTo: 1).addSnapshotListener(events.add)
        await db.waitUntilIdle()
        try await other.document("c/a").setData(["x": 2])
        try await other.document("c/b").delete()
        await db.waitUntilIdle()
        #expect(events.values.map { localShow($0) } == ["a{x:1} b{x:1}", "b{x:1}", ""])
        r.remove()
        try await other.document("c/a").setData(["x": 3])
        try await db.disableNetwork()
        #expect(localShow(try await db.document("c/a").getDocument()) == "{x:2}")
        let deleted = try await db.document("c/b").getDocument(source: .cache)
        #expect(!deleted.exists && deleted.metadata.isFromCache)
        #expect(try await db.collection("c").whereField("x", isEqualTo: 1).getDocuments().isEmpty)
        try await db.enableNetwork()
    }

    @Test("a write's acknowledgement caches the version its commit left, server timestamps resolved (FIRDatabaseTests testCanQueueWritesWhileOffline, then a cache read)")
    func acknowledgedWriteIsCached() async throws {
        let db = db()
        let ref = db.document("c/w")
        try await ref.setData(["n": 1, "at": FieldValue.serverTimestamp()])
        let cached = try await ref.getDocument(source: .cache)
        #expect(cached.get("at") is Timestamp)
        #expect(!cached.metadata.hasPendingWrites)
        try await ref.updateData(["n": FieldValue.increment(Int64(2))])
        #expect(try await ref.getDocument(source: .cache).data()?["n"] as? Int == 3)
    }

    // MARK: Cache settings

    @Test("cache settings that keep what the instance wrote: persistent, memory (LRU by default) (DatabaseTests.swift testCanUsePersistentCacheSettings, testCanUseMemoryCacheSettings, testCanGetDocumentWithMemoryLruGCEnabled)")
    func cacheSettingsThatKeepDocuments() async throws {
        let lru = MemoryCacheSettings(garbageCollectorSettings: MemoryLRUGCSettings(sizeBytes: 2_000_000))
        for cache: any LocalCacheSettings in [PersistentCacheSettings(), MemoryCacheSettings(), lru] {
            let db = db(cache)
            try await db.document("coll/doc").setData(["foo": "bar"])
            let result = try? await db.document("coll/doc").getDocument(source: .cache)
            #expect(result?.data() as? [String: String] == ["foo": "bar"])
        }
    }

    @Test("with eager garbage collection a document no listener holds is not cached (DatabaseTests.swift testCannotGetDocumentWithMemoryEagerGCEnabled; MemoryEagerReferenceDelegate)")
    func cannotGetDocumentWithMemoryEagerGCEnabled() async throws {
        let db = db(MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting()))
        try await db.document("coll/doc").setData(["foo": "bar"])
        #expect((try? await db.document("coll/doc").getDocument(source: .cache)) == nil)
        _ = try await db.document("coll/doc").getDocument()
        _ = try await db.collection("coll").getDocuments()
        #expect((try? await db.document("coll/doc").getDocument(source: .cache)) == nil)
        #expect(try await db.collection("coll").getDocuments(source: .cache).isEmpty)
    }

    @Test("with eager garbage collection, documents are cached while a listener holds them and dropped when it stops (MemoryEagerReferenceDelegate: a document leaves with its last target)")
    func eagerCollectionKeepsListenedDocuments() async throws {
        let db = db(MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting()))
        try await db.authenticated(uid: "other").document("coll/a").setData(["v": 1])
        let events = LocalEvents<QuerySnapshot>()
        let r = db.collection("coll").addSnapshotListener(events.add)
        let d = db.document("coll/a").addSnapshotListener { _, _ in }
        await db.waitUntilIdle()
        #expect(localShow(try await db.document("coll/a").getDocument(source: .cache)) == "{v:1}")
        r.remove()
        #expect(localShow(try await db.document("coll/a").getDocument(source: .cache)) == "{v:1}", "the document listener still holds it")
        d.remove()
        #expect((try? await db.document("coll/a").getDocument(source: .cache)) == nil)
        try await db.disableNetwork()
        #expect(code(await readError { try await db.document("coll/a").getDocument() }) == .unavailable)
        try await db.enableNetwork()
    }

    // MARK: Query results kept as received (LocalCache keeps a query's last result array and folds it when read)

    @Test("a query run again keeps, for each document that left its result, the version the earlier run received; a document still in it is at the newer version (the SDK's remote document cache: what each query's answer delivered, latest first)")
    func queryRerunKeepsWhatLeft() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        for id in ["a", "b", "c"] { try await other.document("q/\(id)").setData(["x": 1]) }
        let query = db.collection("q").whereField("x", isEqualTo: 1)
        #expect(localShow(try await query.getDocuments()) == "a{x:1} b{x:1} c{x:1}")
        try await other.document("q/b").setData(["x": 2])
        try await other.document("q/c").setData(["x": 1, "v": 2])
        #expect(localShow(try await query.getDocuments()) == "a{x:1} c{v:2,x:1}")
        #expect(localShow(try await db.document("q/b").getDocument(source: .cache)) == "{x:1}", "left the result: the first run's version")
        #expect(localShow(try await db.document("q/c").getDocument(source: .cache)) == "{v:2,x:1}", "the second run's version, not the first's")
        #expect(localShow(try await query.getDocuments(source: .cache)) == "a{x:1} b{x:1} c{v:2,x:1}")
    }

    @Test("what the instance received last wins, whether a read or a query's results came later (the SDK's remote document cache keeps the latest version received)")
    func latestReceiptWins() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        try await other.document("r/a").setData(["v": 1])
        _ = try await db.collection("r").getDocuments()
        try await other.document("r/a").setData(["v": 2])
        _ = try await db.document("r/a").getDocument()
        #expect(localShow(try await db.document("r/a").getDocument(source: .cache)) == "{v:2}", "the read came after the query")
        try await other.document("r/a").setData(["v": 3])
        _ = try await db.collection("r").getDocuments()
        try await other.document("r/a").setData(["v": 4])
        #expect(localShow(try await db.document("r/a").getDocument(source: .cache)) == "{v:3}", "the query came after the read")
    }

    @Test("an update of a document the instance received only through a query's results caches the version the update left (FIRDatabaseTests testCanUpdateAnUnknownDocument: known documents are updated in the cache)")
    func updateOfDocumentFromQueryResults() async throws {
        let db = db(), other = db.authenticated(uid: "other")
        try await other.document("u/a").setData(["x": 1])
        #expect(localShow(try await db.collection("u").getDocuments()) == "a{x:1}")
        try await db.document("u/a").updateData(["y": 1])
        #expect(localShow(try await db.document("u/a").getDocument(source: .cache)) == "{x:1,y:1}")
    }
}
