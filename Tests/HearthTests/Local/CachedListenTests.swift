import Foundation
import Testing
@testable import Hearth

/// A listener started online on data the instance's cache holds: first the cached view (the
/// versions the instance received, which may be older than the server's) with
/// `isFromCache == true`, then the server's result as one step from it, as the SDK's
/// `QueryListener` raises them (firebase-ios-sdk Firestore/core/src/core/query_listener.cc,
/// `ShouldRaiseInitialEvent` and `ShouldRaiseEvent`). Fixtures the instance must not hold are
/// written through another instance (`writer`), as the SDK tests' `collectionRefWithDocuments`.
@Suite("Listeners on cached data")
struct CachedListenTests {
    /// `{data}` of a document snapshot and ` C` when from the cache.
    private func show(_ s: DocumentSnapshot) -> String {
        localShow(s) + (s.metadata.isFromCache ? " C" : "")
    }

    private func show(_ s: QuerySnapshot) -> String {
        localShow(s) + (s.metadata.isFromCache ? " C" : "")
    }

    @Test("a document read, then changed by another instance: the listener raises the cached version from the cache, then the new one in sync (listen_spec_test.json \"Individual documents cannot revert\": the cached version from cache, then the server's as modified)")
    func documentChangedSinceRead() async throws {
        for metadata in [false, true] {
            let db = localDB()
            let writer = db.authenticated(uid: "writer")
            try await writer.document("d/a").setData(["v": 1])
            #expect(try await db.document("d/a").getDocument().data()?["v"] as? Int == 1)
            try await writer.document("d/a").setData(["v": 2])
            let events = LocalEvents<DocumentSnapshot>()
            let r = db.document("d/a").addSnapshotListener(includeMetadataChanges: metadata, listener: events.add)
            await db.waitUntilIdle()
            // With or without metadata changes: the data changed, so the in-sync snapshot is raised.
            #expect(events.values.map(show) == ["{v:1} C", "{v:2}"])
            r.remove()
        }
    }

    @Test("a query read, then changed by another instance: the cached versions from the cache, then a .modified change (and the added document) in sync (listen_spec_test.json \"Individual documents cannot revert\")")
    func queryChangedSinceRead() async throws {
        let db = localDB()
        let writer = db.authenticated(uid: "writer")
        try await writer.document("q/a").setData(["v": 1])
        try await writer.document("q/b").setData(["v": 1])
        #expect(try await db.collection("q").getDocuments().count == 2)
        try await writer.document("q/b").setData(["v": 2])
        try await writer.document("q/c").setData(["v": 3])
        let events = LocalEvents<QuerySnapshot>()
        let r = db.collection("q").addSnapshotListener(events.add)
        await db.waitUntilIdle()
        #expect(events.values.map(show) == ["a{v:1} b{v:1} C", "a{v:1} b{v:2} c{v:3}"])
        #expect(events.values.map { localChanges($0.documentChanges) } == [
            ["added a -→0", "added b -→1"],
            ["added c -→2", "modified b 1→1"],
        ])
        r.remove()
    }

    @Test("unchanged since read: the cached snapshot, then the in-sync one only with metadata changes (ShouldRaiseEvent: a sync-state change alone needs includeMetadataChanges; FIRQueryTests testQueriesCanRaiseInitialSnapshotFromCachedEmptyResults)")
    func unchangedSinceRead() async throws {
        let db = localDB()
        try await db.authenticated(uid: "writer").document("u/a").setData(["v": 1])
        _ = try await db.collection("u").getDocuments()
        let plain = LocalEvents<QuerySnapshot>(), meta = LocalEvents<QuerySnapshot>()
        let r1 = db.collection("u").addSnapshotListener(plain.add)
        await db.waitUntilIdle()
        r1.remove()
        let r2 = db.collection("u").addSnapshotListener(includeMetadataChanges: true, listener: meta.add)
        await db.waitUntilIdle()
        #expect(plain.values.map(show) == ["a{v:1} C"])
        #expect(meta.values.map(show) == ["a{v:1} C", "a{v:1}"])
        #expect(meta.values.last?.documentChanges.isEmpty == true)
        r2.remove()
    }

    @Test("the cached versions decide what matches: a document the query returned that matches no more is shown from the cache, then removed; limits apply to the cached view (listen_spec_test.json \"Individual documents cannot revert\", its `visible == true` query)")
    func cachedVersionsDecideMatches() async throws {
        let db = localDB()
        let writer = db.authenticated(uid: "writer")
        for (id, v) in [("a", 1), ("b", 1), ("c", 1)] { try await writer.document("f/\(id)").setData(["visible": true, "v": v]) }
        let query = db.collection("f").whereField("visible", isEqualTo: true).limit(to: 2)
        #expect(try await query.getDocuments().documents.map(\.documentID) == ["a", "b"])
        try await writer.document("f/a").setData(["visible": false, "v": 1])
        let events = LocalEvents<QuerySnapshot>()
        let r = query.addSnapshotListener(events.add)
        await db.waitUntilIdle()
        #expect(events.values.map(show) == ["a{v:1,visible:1} b{v:1,visible:1} C", "b{v:1,visible:1} c{v:1,visible:1}"])
        #expect(events.values.map { localChanges($0.documentChanges) } == [
            ["added a -→0", "added b -→1"],
            ["removed a 0→-", "added c -→1"],
        ])
        r.remove()
        // limit(toLast:) from the cache: the last two by v of what the cache holds.
        try await writer.document("g/a").setData(["v": 1])
        try await writer.document("g/b").setData(["v": 2])
        try await writer.document("g/c").setData(["v": 3])
        _ = try await db.collection("g").order(by: "v").limit(toLast: 2).getDocuments()
        try await writer.document("g/d").setData(["v": 4])
        let last = LocalEvents<QuerySnapshot>()
        let r2 = db.collection("g").order(by: "v").limit(toLast: 2).addSnapshotListener(last.add)
        await db.waitUntilIdle()
        #expect(last.values.map(show) == ["b{v:2} c{v:3} C", "c{v:3} d{v:4}"])
        r2.remove()
    }

    @Test("a query never read whose cached view is empty is not raised from the cache online: its first snapshot is the server's (ShouldRaiseInitialEvent: no documents, no cached results, not offline)")
    func emptyCachedViewIsNotRaisedOnline() async throws {
        for metadata in [false, true] {
            let db = localDB()
            try await db.authenticated(uid: "writer").document("e/a").setData(["v": 5])
            // The instance holds e/b, which the query does not match.
            try await db.document("e/b").setData(["v": 0])
            let events = LocalEvents<QuerySnapshot>()
            let r = db.collection("e").whereField("v", isGreaterThan: 1).addSnapshotListener(includeMetadataChanges: metadata, listener: events.add)
            await db.waitUntilIdle()
            #expect(events.values.map(show) == ["a{v:5}"])
            r.remove()
        }
    }

    @Test("a query never read, with documents the instance holds: those from the cache first, then the rest from the server; a second listener of the query shares the synced view")
    func cachedDocumentsOfAQueryNeverRead() async throws {
        let db = localDB()
        try await db.collection("mix").document("mine").setData(["v": 1])
        try await db.authenticated(uid: "writer").document("mix/theirs").setData(["v": 2])
        let first = LocalEvents<QuerySnapshot>(), second = LocalEvents<QuerySnapshot>()
        let r1 = db.collection("mix").whereField("v", isGreaterThan: 0).addSnapshotListener(first.add)
        let r2 = db.collection("mix").whereField("v", isGreaterThan: 0).addSnapshotListener(second.add)
        await db.waitUntilIdle()
        #expect(first.values.map(show) == ["mine{v:1} C", "mine{v:1} theirs{v:2}"])
        #expect(second.values.map(show) == ["mine{v:1} theirs{v:2}"])
        r1.remove(); r2.remove()
        // Once both are removed, a new listener starts from the cache again: both documents
        // cached now, unchanged, so no in-sync snapshot follows without metadata changes.
        let third = LocalEvents<QuerySnapshot>()
        let r3 = db.collection("mix").whereField("v", isGreaterThan: 0).addSnapshotListener(third.add)
        await db.waitUntilIdle()
        #expect(third.values.map(show) == ["mine{v:1} theirs{v:2} C"])
        r3.remove()
    }

    @Test("a pending write shows in the cached view, over the cached version (the SDK's View starts from its local documents)")
    func pendingWriteInTheCachedView() async throws {
        let db = localDB()
        let writer = db.authenticated(uid: "writer")
        try await writer.document("p/a").setData(["v": 1])
        _ = try await db.document("p/a").getDocument()
        try await writer.document("p/a").setData(["v": 2])
        // As app code on the callback queue: the fire-and-forget write stays pending until
        // the queue's next turn, after the listener started.
        let events = LocalEvents<QuerySnapshot>()
        let r = db.settings.dispatchQueue.sync {
            db.document("p/b").setData(["v": 9])
            return db.collection("p").addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        }
        try await db.waitForPendingWrites()
        await db.waitUntilIdle()
        #expect(events.values.map(show) == ["a{v:1} b{v:9}* P C", "a{v:2} b{v:9}* P", "a{v:2} b{v:9}"])
        r.remove()
    }
}
