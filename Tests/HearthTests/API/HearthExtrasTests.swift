import Foundation
import Testing
@testable import Hearth

/// Hearth's additions to the SDK surface: isolated in-memory databases, snapshots and
/// restore, forks, task-local defaults, manual clocks.
@Suite struct HearthExtrasTests {
    /// Every document of a collection as `[id: data]`.
    private func contents(_ collection: CollectionReference) async throws -> [String: [String: Any]] {
        let snap = try await collection.getDocuments()
        return Dictionary(uniqueKeysWithValues: snap.documents.map { ($0.documentID, $0.data()) })
    }

    @Test func inMemoryDatabasesAreIsolated() async throws {
        let a = Firestore.inMemory(), b = Firestore.inMemory()
        try await a.document("c/d").setData(["v": 1])
        #expect(try await b.document("c/d").getDocument().exists == false)
        #expect(a.projectID == Firestore.defaultProjectID)
        #expect(a.databaseID == "(default)")
        #expect(Firestore.inMemory(projectID: "p2").projectID == "p2")
    }

    // The SDK has no reads at a past read time, so an update frees the version it replaces
    // (the server's databases keep production's hour).
    @Test func embeddedDatabasesKeepNoPastVersions() async throws {
        let (db, clock) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["n": 1])
        let first = db.database.state().readTime
        clock.advance(by: 1)
        try await ref.updateData(["n": FieldValue.increment(Int64(1))])
        let now = db.database.state().readTime
        #expect(try db.database.state(readTime: now).document(ref.storageKey.path)?.fields["n"] == .integer(2))
        do {
            _ = try db.database.state(readTime: first)
            Issue.record("the replaced version's read time was accepted")
        } catch {
            #expect("\(error)".contains("older than the oldest retained version"))
        }
        #expect(Firestore.firestore(database: "no-history").database.versionRetention == 0)
    }

    @Test func snapshotAndRestoreBringBackExactContents() async throws {
        let db = apiDB()
        let items = db.collection("items")
        try await items.document("a").setData(["n": 1, "m": ["x": true]])
        try await items.document("b").setData(["n": 2])
        let saved = db.snapshot()

        try await items.document("a").updateData(["n": 10, "m.y": 1])
        try await items.document("b").delete()
        try await items.document("c").setData(["n": 3])
        #expect(try await contents(items).keys.sorted() == ["a", "c"])

        db.restore(saved)
        let restored = try await contents(items)
        #expect(restored.keys.sorted() == ["a", "b"])
        #expect(restored["a"]?["n"] as? Int == 1)
        let m = try #require(restored["a"]?["m"] as? [String: Any])
        #expect(m.count == 1)
        #expect(m["x"] as? Bool == true)
        #expect(restored["b"]?["n"] as? Int == 2)
        #expect(try await items.document("c").getDocument().exists == false)

        // The snapshot stays usable after more writes.
        try await items.document("z").setData([:])
        db.restore(saved)
        #expect(try await contents(items).keys.sorted() == ["a", "b"])
    }

    @Test func restoreKeepsCommitTimesIncreasing() async throws {
        let (db, _) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["t": FieldValue.serverTimestamp()])
        let saved = db.snapshot()
        try await ref.setData(["t": FieldValue.serverTimestamp()])
        db.restore(saved)
        #expect(try await apiData(ref)?["t"] as? Timestamp == apiTime(apiEpochSeconds))
        try await ref.updateData(["later": FieldValue.serverTimestamp()])
        let later = try #require(try await apiData(ref)?["later"] as? Timestamp)
        #expect(later > apiTime(apiEpochSeconds, 1000))
    }

    @Test func forkDivergesIndependently() async throws {
        let db = apiDB()
        try await db.document("c/shared").setData(["v": 1])
        let fork = db.fork()
        #expect(fork !== db)
        #expect(try await apiData(fork.document("c/shared"))?["v"] as? Int == 1)

        try await fork.document("c/shared").updateData(["v": 2])
        try await fork.document("c/forkOnly").setData(["f": true])
        try await db.document("c/originalOnly").setData(["o": true])

        #expect(try await apiData(db.document("c/shared"))?["v"] as? Int == 1)
        #expect(try await apiData(fork.document("c/shared"))?["v"] as? Int == 2)
        #expect(try await db.document("c/forkOnly").getDocument().exists == false)
        #expect(try await fork.document("c/originalOnly").getDocument().exists == false)
        #expect(try await contents(db.collection("c")).keys.sorted() == ["originalOnly", "shared"])
        #expect(try await contents(fork.collection("c")).keys.sorted() == ["forkOnly", "shared"])
    }

    @Test func forkReferencesBelongToTheFork() async throws {
        let db = apiDB()
        try await db.document("c/d").setData(["ref": db.document("x/y")])
        let fork = db.fork()
        let ref = try #require(try await apiData(fork.document("c/d"))?["ref"] as? DocumentReference)
        #expect(ref.firestore === fork)
        #expect(ref.path == "x/y")
    }

    @Test func withDefaultOverridesFirestoreFirestore() async throws {
        let db = apiDB()
        #expect(Firestore.firestore() !== db)
        let inside = await Firestore.withDefault(db) { Firestore.firestore() }
        #expect(inside === db)
        #expect(Firestore.firestore() !== db)

        // Child tasks inherit the override; app code writing through `firestore()` hits `db`.
        try await Firestore.withDefault(db) {
            try await Firestore.firestore().document("c/d").setData(["via": "default"])
            let child = await Task { Firestore.firestore() === db }.value
            #expect(child)
        }
        #expect(try await apiData(db.document("c/d"))?["via"] as? String == "default")
    }

    @Test func withDefaultIsPerTask() async throws {
        let a = apiDB(), b = apiDB()
        async let seenA = Firestore.withDefault(a) { () async -> Bool in
            await Task.yield()
            return Firestore.firestore() === a
        }
        async let seenB = Firestore.withDefault(b) { () async -> Bool in
            await Task.yield()
            return Firestore.firestore() === b
        }
        let (ra, rb) = await (seenA, seenB)
        #expect(ra)
        #expect(rb)
    }

    @Test func withDefaultPassesThroughErrorsAndValues() async throws {
        let db = apiDB()
        let value = try await Firestore.withDefault(db) { () async throws -> Int in 7 }
        #expect(value == 7)
        let error = await apiError {
            try await Firestore.withDefault(db) {
                try await Firestore.firestore().document("c/missing").updateData(["a": 1])
            }
        }
        #expect(error?.code == FirestoreErrorCode.notFound.rawValue)
    }

    @Test func sharedInstanceIsStable() {
        #expect(Firestore.firestore() === Firestore.firestore())
        #expect(Firestore.firestore(database: "(default)") === Firestore.firestore())
        #expect(Firestore.firestore(database: "named-api-tests") === Firestore.firestore(database: "named-api-tests"))
        #expect(Firestore.firestore(database: "named-api-tests") !== Firestore.firestore())
        #expect(Firestore.firestore(database: "named-api-tests").databaseID == "named-api-tests")
    }

    @Test func manualClockDrivesCreateAndUpdateTimes() async throws {
        let (db, clock) = apiClockedDB()
        let ref = db.document("posts/p")
        try await ref.setData(["createdAt": FieldValue.serverTimestamp(), "title": "a"])
        clock.advance(by: 60)
        try await ref.updateData(["updatedAt": FieldValue.serverTimestamp(), "title": "b"])

        let snap = try await ref.getDocument()
        #expect(snap["createdAt"] as? Timestamp == apiTime(apiEpochSeconds))
        #expect(snap["updatedAt"] as? Timestamp == apiTime(apiEpochSeconds + 60))
        let doc = try #require(snap.document)
        #expect(doc.createTime.seconds == apiEpochSeconds)
        #expect(doc.createTime.nanos == 0)
        #expect(doc.updateTime.seconds == apiEpochSeconds + 60)

        clock.set(Timestamp(seconds: apiEpochSeconds + 3600, nanoseconds: 123_456_789))
        try await ref.updateData(["touchedAt": FieldValue.serverTimestamp()])
        // Commit times are microseconds.
        #expect(try await apiData(ref)?["touchedAt"] as? Timestamp == apiTime(apiEpochSeconds + 3600, 123_456_000))
        #expect(try await ref.getDocument().document?.createTime.seconds == apiEpochSeconds)
    }

    @Test func unchangedWriteKeepsTheUpdateTime() async throws {
        let (db, clock) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["v": 1])
        clock.advance(by: 10)
        try await ref.setData(["v": 1])
        #expect(try await ref.getDocument().document?.updateTime.seconds == apiEpochSeconds)
        clock.advance(by: 10)
        try await ref.setData(["v": 1.0])
        #expect(try await ref.getDocument().document?.updateTime.seconds == apiEpochSeconds + 20)
    }

    @Test func clearPersistenceFollowsTheSDKRules() async throws {
        let fresh = Firestore.inMemory()
        try await fresh.clearPersistence()

        let used = apiDB()
        try await used.document("c/d").setData(["a": 1])
        let error = await apiError { try await used.clearPersistence() }
        #expect(error?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect(error?.localizedDescription == "Persistence cannot be cleared while the client is running.")
        try await used.terminate()
        try await used.clearPersistence()
    }

    @Test func settingsAreCopied() {
        let db = Firestore.inMemory()
        let settings = db.settings
        #expect(settings.host == "firestore.googleapis.com")
        #expect(settings.isSSLEnabled)
        settings.host = "changed"
        #expect(db.settings.host == "firestore.googleapis.com")
        db.settings = settings
        settings.host = "changed again"
        #expect(db.settings.host == "changed")
    }
}
