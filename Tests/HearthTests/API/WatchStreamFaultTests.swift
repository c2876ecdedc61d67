import Foundation
import Testing
@testable import Hearth

/// Listen faults on an embedded instance fail its one watch stream, which carries every
/// listener of the instance (docs/faults.md#in-the-embedded-api). The SDK's
/// `OnlineStateTracker` (firebase-ios-sdk Firestore/core/src/remote/online_state_tracker.cc)
/// gives a stream that was Online one more try (Unknown) and makes the client Offline on a
/// failure while not Online (`kMaxWatchStreamFailures = 1`); Offline, every view raises
/// `isFromCache == true` (offline_spec_test.json "Queries revert to fromCache=true when
/// offline."), and the stream that comes back makes them in sync again
/// (listen_spec_test.json "Listens are reestablished after network disconnect"). The
/// stream retries at once, then after 1 s, 1.5 s… (stream.cc's backoff).
@Suite("Listen faults reach every listener")
struct WatchStreamFaultTests {
    /// Waits until `events` holds `count` values (a retry runs after the stream's backoff,
    /// up to seconds later); the caller then checks the exact sequence.
    private func awaitCount<T>(_ events: LocalEvents<T>, _ count: Int, seconds: Double = 20) async {
        let deadline = Date().addingTimeInterval(seconds)
        while events.values.count < count && Date() < deadline {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    @Test("two failures (the new listener's request, then the immediate retry) take the client Offline: every listener with metadata changes raises isFromCache, then, once the retry after 1 s connects, in sync; listeners without metadata changes raise nothing (OnlineStateTracker::HandleWatchStreamFailure; offline_spec_test.json \"Queries revert to fromCache=true when offline.\")")
    func failuresReachEveryListener() async throws {
        let db = localDB()
        let writer = db.authenticated(uid: "writer")
        try await writer.document("a/x").setData(["v": 1])
        try await writer.document("b/x").setData(["v": 2])
        try await writer.document("q3/x").setData(["v": 3])
        let query = LocalEvents<QuerySnapshot>(), document = LocalEvents<DocumentSnapshot>()
        let quiet = LocalEvents<QuerySnapshot>(), starting = LocalEvents<QuerySnapshot>()
        let r1 = db.collection("a").addSnapshotListener(includeMetadataChanges: true, listener: query.add)
        let r2 = db.document("b/x").addSnapshotListener(includeMetadataChanges: true, listener: document.add)
        let r3 = db.collection("q3").addSnapshotListener(quiet.add)
        await db.waitUntilIdle()
        db.faults.inject(.unavailable, on: .listen, times: 2)
        let r4 = db.collection("c").addSnapshotListener(includeMetadataChanges: true, listener: starting.add)
        await db.waitUntilIdle()
        // Both firings are used: the new listener's request, then the immediate retry.
        #expect(db.faults.active.isEmpty)
        await awaitCount(query, 3)
        await awaitCount(document, 3)
        await awaitCount(starting, 2)
        await db.waitUntilIdle()
        #expect(query.values.map(\.metadata.isFromCache) == [false, true, false])
        #expect(query.values.map(localShow) == ["x{v:1}", "x{v:1}", "x{v:1}"])
        #expect(query.values.dropFirst().allSatisfy { $0.documentChanges.isEmpty })
        #expect(document.values.map(\.metadata.isFromCache) == [false, true, false])
        #expect(quiet.values.map(\.metadata.isFromCache) == [false])
        // The new listener was out of sync from its start (its request failed the stream).
        #expect(starting.values.map(\.metadata.isFromCache) == [true, false])
        #expect(query.errors.isEmpty && document.errors.isEmpty && starting.errors.isEmpty)
        r1.remove(); r2.remove(); r3.remove(); r4.remove()
    }

    @Test("one failure of a stream that was Online is retried at once and no listener leaves sync (OnlineStateTracker: Online becomes Unknown, not Offline)")
    func oneFailureOfAnOnlineStream() async throws {
        let db = localDB()
        let existing = LocalEvents<QuerySnapshot>()
        let r1 = db.collection("a").addSnapshotListener(includeMetadataChanges: true, listener: existing.add)
        await db.waitUntilIdle()
        db.faults.inject(.unavailable, on: .listen, times: 1)
        let starting = LocalEvents<DocumentSnapshot>()
        let r2 = db.document("n/b").addSnapshotListener(includeMetadataChanges: true, listener: starting.add)
        await db.waitUntilIdle()
        #expect(db.faults.active.isEmpty)
        #expect(existing.values.map(\.metadata.isFromCache) == [false])
        #expect(starting.values.map(\.metadata.isFromCache) == [true, false])
        r1.remove(); r2.remove()
    }

    @Test("while the stream keeps failing, writes still go (the write stream is separate) and show from the cache; clearing the fault lets the next retry bring every listener back in sync (listen_spec_test.json \"Listens are reestablished after network disconnect\")")
    func writesGoWhileTheStreamFails() async throws {
        let db = localDB()
        let other = db.authenticated(uid: "other")
        let events = LocalEvents<QuerySnapshot>()
        // A fresh instance: its first stream failing makes it Offline at once.
        db.faults.inject(.unavailable, on: .listen, times: nil)
        let r = db.collection("w").addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        await db.waitUntilIdle()
        // Offline with nothing cached: the empty cached view is raised (ShouldRaiseInitialEvent).
        #expect(events.values.map { "\(localShow($0))\($0.metadata.isFromCache ? " C" : "")" } == [" C"])
        try await db.collection("w").document("a").setData(["v": 1])
        #expect(try await other.document("w/a").getDocument().data()?["v"] as? Int == 1)
        await db.waitUntilIdle()
        #expect(events.values.allSatisfy { $0.metadata.isFromCache })
        #expect(events.values.last.map(localShow) == "a{v:1}")
        #expect(db.faults.active.count == 1)
        db.faults.clear()
        let before = events.values.count
        await awaitCount(events, before + 1)
        await db.waitUntilIdle()
        #expect(events.values.count == before + 1)
        #expect(events.values.last?.metadata.isFromCache == false)
        #expect(events.values.last.map(localShow) == "a{v:1}")
        r.remove()
    }

    @Test("disableNetwork and enableNetwork while the stream fails: the listeners stay out of sync until a retry connects (enableNetwork starts the streams again; the failing one fails again)")
    func networkToggledWhileTheStreamFails() async throws {
        let db = localDB()
        db.faults.inject(.unavailable, on: .listen, times: nil)
        let events = LocalEvents<DocumentSnapshot>()
        let r = db.document("t/a").addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        await db.waitUntilIdle()
        try await db.disableNetwork()
        try await db.enableNetwork()
        await db.waitUntilIdle()
        #expect(!events.values.isEmpty && events.values.allSatisfy { $0.metadata.isFromCache })
        let before = events.values.count
        db.faults.clear()
        await awaitCount(events, before + 1)
        await db.waitUntilIdle()
        #expect(events.values.count == before + 1)
        #expect(events.values.last?.metadata.isFromCache == false)
        r.remove()
    }

    @Test("a listener removed while the stream fails, and an instance without listeners: the retry stops and nothing is raised")
    func retryWithoutListeners() async throws {
        let db = localDB()
        db.faults.inject(.unavailable, on: .listen, times: 1)
        let events = LocalEvents<DocumentSnapshot>()
        let r = db.document("z/a").addSnapshotListener(events.add)
        r.remove()
        await db.waitUntilIdle()
        #expect(db.faults.active.isEmpty)
        // A new listener later starts in sync: the stream is not failing any more.
        try await db.authenticated(uid: "writer").document("z/b").setData(["v": 1])
        let later = LocalEvents<DocumentSnapshot>()
        let r2 = db.document("z/b").addSnapshotListener(includeMetadataChanges: true, listener: later.add)
        await db.waitUntilIdle()
        #expect(later.values.map(\.metadata.isFromCache) == [false])
        r2.remove()
    }

    @Test("no fault: no listener ever leaves sync, and the stream's state is never touched beyond one load")
    func noFault() async throws {
        let db = localDB()
        let events = LocalEvents<QuerySnapshot>()
        let r = db.collection("n").addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        try await db.collection("n").document("a").setData(["v": 1])
        await db.waitUntilIdle()
        #expect(!db.local.watch.isDown)
        #expect(events.values.allSatisfy { !$0.metadata.isFromCache })
        r.remove()
    }
}
