import Foundation
import Testing
@testable import Hearth
import HearthLock

/// Loading bundles into an instance's cache, mirroring firebase-ios-sdk
/// Firestore/Example/Tests/Integration/API/FIRBundlesTests.mm (its bundle: two documents of
/// coll-1 and two named queries, "limit" and "limit-to-last", built here the same way), and
/// round trips through `Firestore.bundle(_:)`.
@Suite("Bundles")
struct BundleTests {
    /// The SDK test's bundle for `project`, as bytes.
    static func sdkBundle(project: String = Firestore.defaultProjectID) -> Data {
        let root = "projects/\(project)/databases/(default)/documents"
        func query(_ name: String, _ type: String) -> String {
            #"{"namedQuery":{"name":"\#(name)","readTime":{"seconds":1000,"nanos":9999},"bundledQuery":{"parent":"\#(root)","structuredQuery":{"from":[{"collectionId":"coll-1"}],"orderBy":[{"field":{"fieldPath":"bar"},"direction":"DESCENDING"},{"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}],"limit":{"value":1}},"limitType":"\#(type)"}}}"#
        }
        func doc(_ id: String, _ bar: Int) -> [String] {
            [#"{"documentMetadata":{"name":"\#(root)/coll-1/\#(id)","readTime":{"seconds":1000,"nanos":9999},"exists":true}}"#,
             #"{"document":{"name":"\#(root)/coll-1/\#(id)","createTime":{"seconds":1,"nanos":9},"updateTime":{"seconds":1,"nanos":9},"fields":{"k":{"stringValue":"\#(id)"},"bar":{"integerValue":\#(bar)}}}}"#]
        }
        let body = ([query("limit", "FIRST"), query("limit-to-last", "LAST")] + doc("a", 1) + doc("b", 2)).map { "\($0.utf8.count)\($0)" }.joined()
        let metadata = #"{"metadata":{"id":"test-bundle","createTime":{"seconds":1001,"nanos":9999},"version":1,"totalDocuments":2,"totalBytes":\#(body.utf8.count)}}"#
        return Data("\(metadata.utf8.count)\(metadata)\(body)".utf8)
    }

    /// Loads `data` with an observer added right after `loadBundle` returns, as the SDK
    /// tests do; returns every report, the completion's progress and error.
    static func load(_ db: Firestore, _ data: Data) async -> (progress: [LoadBundleTaskProgress], result: LoadBundleTaskProgress?, error: Error?) {
        let seen = LocalEvents<LoadBundleTaskProgress>()
        let (result, error) = await withHandOffContinuation { (c: HandOffContinuation<APISent<(LoadBundleTaskProgress?, Error?)>, Never>) in
            let task = db.loadBundle(data) { progress, error in c.resume(returning: APISent(value: (progress, error))) }
            task.addObserver { seen.add($0, nil) }
        }.value
        await Self.drainCallbacks(db)  // an observer added after the reports gets them replayed
        return (seen.values, result, error)
    }

    /// Returns once every block queued on `db`'s callback queue so far has run.
    static func drainCallbacks(_ db: Firestore) async {
        await withHandOffContinuation { (c: HandOffContinuation<Void, Never>) in db.callbackQueue.async { c.resume() } }
    }

    func expectInProgress(_ p: LoadBundleTaskProgress, documents: Int) {
        #expect(p.state == .inProgress && p.documentsLoaded == documents)
        #expect(p.bytesLoaded <= p.totalBytes && p.documentsLoaded <= p.totalDocuments)
    }

    func expectSuccess(_ p: LoadBundleTaskProgress?) {
        #expect(p?.state == .success && (p?.bytesLoaded ?? 0) > 0 && p?.bytesLoaded == p?.totalBytes)
        #expect((p?.documentsLoaded ?? 0) > 0 && p?.documentsLoaded == p?.totalDocuments)
    }

    /// FIRBundlesTests verifyQueryResults: the collection and both named queries, from the cache.
    func expectQueryResults(_ db: Firestore, a: String = "{bar:1,k:a}", b: String = "{bar:2,k:b}") async throws {
        let all = try await db.collection("coll-1").getDocuments(source: .cache)
        #expect(all.documents.map { localPlain($0.data()) } == [a, b])
        let limit = try #require(await db.getQuery(named: "limit"))
        #expect(try await limit.getDocuments(source: .cache).documents.map { localPlain($0.data()) } == [b])
        let last = try #require(await db.getQuery(named: "limit-to-last"))
        #expect(try await last.getDocuments(source: .cache).documents.map { localPlain($0.data()) } == [a])
        #expect(await db.getQuery(named: "missing") == nil)
    }

    @Test("progress: nothing, each document, success; then the cache and named queries (testLoadDocumentsWithProgressUpdates)")
    func progressUpdates() async throws {
        let db = localDB()
        let (progress, result, error) = await Self.load(db, Self.sdkBundle())
        #expect(error == nil)
        #expect(progress.count == 4)
        if progress.count == 4 {
            expectInProgress(progress[0], documents: 0)
            expectInProgress(progress[1], documents: 1)
            expectInProgress(progress[2], documents: 2)
            expectSuccess(progress[3])
            #expect(progress[3] == result)
        }
        try await expectQueryResults(db)
        let a = try await db.document("coll-1/a").getDocument(source: .cache)
        #expect(a.metadata.isFromCache && a.get("k") as? String == "a")
    }

    @Test("loading the same bundle again reports only success (testLoadForASecondTimeSkips)")
    func secondLoadSkips() async throws {
        let db = localDB()
        _ = try await db.loadBundle(Self.sdkBundle())
        let (progress, result, error) = await Self.load(db, Self.sdkBundle())
        #expect(error == nil && progress.count == 1)
        expectSuccess(progress.first)
        #expect(progress.first == result)
        try await expectQueryResults(db)
    }

    @Test("documents newer in the cache win, and listeners see nothing from the bundle (testLoadWithDocumentsThatAreAlreadyPulledFromBackend)")
    func newerDocumentsWin() async throws {
        let db = localDB()
        try await db.document("coll-1/a").setData(["bar": "newValueA"])
        try await db.document("coll-1/b").setData(["bar": "newValueB"])
        let events = LocalEvents<QuerySnapshot>()
        let r = db.collection("coll-1").addSnapshotListener(events.add)
        await db.waitUntilIdle()
        let (progress, _, error) = await Self.load(db, Self.sdkBundle())
        await db.waitUntilIdle()
        #expect(error == nil && progress.count == 4)
        #expect(events.values.count == 1)
        let limit = try #require(await db.getQuery(named: "limit"))
        #expect(try await limit.getDocuments(source: .cache).documents.map { localPlain($0.data()) } == ["{bar:newValueB}"])
        let last = try #require(await db.getQuery(named: "limit-to-last"))
        #expect(try await last.getDocuments(source: .cache).documents.map { localPlain($0.data()) } == ["{bar:newValueA}"])
        r.remove()
    }

    @Test("a bundle of another project fails after the first report, DATA_LOSS (testLoadBundlesFromOtherProjectFails)")
    func otherProjectFails() async throws {
        let db = localDB()
        let (progress, result, error) = await Self.load(db, Self.sdkBundle(project: "OtherProject"))
        #expect((error as NSError?)?.code == FirestoreErrorCode.dataLoss.rawValue)
        #expect((error as NSError?)?.localizedDescription.contains("Resource name is not valid for current instance") == true)
        #expect(progress.count == 2)
        if progress.count == 2 {
            expectInProgress(progress[0], documents: 0)
            #expect(progress[1].state == .error && progress[1].bytesLoaded == 0 && progress[1].documentsLoaded == 0)
            #expect(progress[1] == result)
        }
        await #expect(throws: FirestoreErrorCode.self) { try await db.loadBundle(Self.sdkBundle(project: "OtherProject")) }
    }

    @Test("garbage is refused with DATA_LOSS, nothing loaded")
    func garbage() async throws {
        let db = localDB()
        for data in [Data("hello".utf8), Data("12{\"metadata\":".utf8), Data()] {
            await #expect(throws: FirestoreErrorCode.self) { try await db.loadBundle(data) }
        }
        #expect(try await db.collection("coll-1").getDocuments(source: .cache).isEmpty)
    }

    @Test("an observer added after the load finished still sees every report, in order")
    func lateObserverSeesEveryReport() async throws {
        let db = localDB()
        let task: LoadBundleTask = db.loadBundle(Self.sdkBundle())
        await withHandOffContinuation { (c: HandOffContinuation<Void, Never>) in
            task.addObserver { if $0.state != .inProgress { c.resume() } }
        }
        await Self.drainCallbacks(db)
        let late = LocalEvents<LoadBundleTaskProgress>()
        task.addObserver { late.add($0, nil) }
        await Self.drainCallbacks(db)
        #expect(late.values.map(\.documentsLoaded) == [0, 1, 2, 2])
        #expect(late.values.map(\.state) == [.inProgress, .inProgress, .inProgress, .success])
    }

    @Test("the InputStream forms read the same bundle, from memory or a file; a stream with nothing behind it fails")
    func inputStream() async throws {
        let db = localDB()
        let progress = try await db.loadBundle(InputStream(data: Self.sdkBundle()))
        expectSuccess(progress)
        try await expectQueryResults(db)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bundle-\(UUID().uuidString).txt")
        try Self.sdkBundle().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = localDB()
        expectSuccess(try await fromFile.loadBundle(try #require(InputStream(url: file))))
        try await expectQueryResults(fromFile)

        // What the bundle snippet does with a web URL: Foundation on Linux hands back a
        // stream that cannot be read (Darwin's fails to open); the load fails, no crash.
        let webURL = try #require(URL(string: "https://example.com/createBundle"))
        let web = try #require(InputStream(url: webURL))
        await #expect(throws: FirestoreErrorCode.self) { try await localDB().loadBundle(web) }
    }

    @Test("round trip: db.bundle(_:) with a document, a missing one and a limit(toLast:) query, loaded into a fresh instance")
    func builderRoundTrip() async throws {
        let source = localDB()
        let stories = source.collection("stories")
        for (id, n) in [("s1", 1), ("s2", 2), ("s3", 3)] {
            try await stories.document(id).setData(["n": n, "title": "story \(id)", "at": FieldValue.serverTimestamp()])
        }
        let latest = stories.order(by: "n").limit(toLast: 2)
        let data = source.bundle("latest-stories")
            .add("latest-stories-query", try await latest.getDocuments())
            .add(try await stories.document("s1").getDocument())
            .add(try await stories.document("nope").getDocument())
            .build()

        let device = localDB()
        let progress = try await device.loadBundle(data)
        #expect(progress.state == .success && progress.documentsLoaded == 4 && progress.totalDocuments == 4)
        let query = try #require(await device.getQuery(named: "latest-stories-query"))
        let fromCache = try await query.getDocuments(source: .cache)
        #expect(fromCache.documents.map(\.documentID) == ["s2", "s3"] && fromCache.metadata.isFromCache)
        #expect(fromCache.documents.first?.get("at") is Timestamp)
        #expect(try await device.document("stories/s1").getDocument(source: .cache).get("title") as? String == "story s1")
        #expect(try await device.document("stories/nope").getDocument(source: .cache).exists == false)
        // The named query is a query like any other: against the server it reads the
        // device's (empty) database.
        #expect(try await query.getDocuments().isEmpty)
        #expect(query == device.collection("stories").order(by: "n").limit(toLast: 2))
    }

    @Test("clearPersistence() forgets loaded bundles and named queries")
    func clearPersistence() async throws {
        let db = localDB()
        _ = try await db.loadBundle(Self.sdkBundle())
        try await db.terminate()
        try await db.clearPersistence()
        #expect(db.local.cache.namedQuery("limit") == nil)
    }
}
