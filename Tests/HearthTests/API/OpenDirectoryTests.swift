import Foundation
import Testing
@testable import Hearth
import HearthCore

@Suite("Firestore.open(directory:): a database that survives the process")
struct OpenDirectoryTests {
    private func scratch() -> String {
        (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-open-\(UUID().uuidString)")
    }

    @Test("writes survive closing and reopening, with their times; inMemory is unchanged")
    func survives() async throws {
        let dir = scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = ManualClock(now: Timestamp(seconds: apiEpochSeconds, nanoseconds: 0))
        var db = try Firestore.open(directory: dir, projectID: "app", clock: clock)
        try await db.collection("users").document("alice").setData(["name": "Alice", "age": 30])
        clock.advance(by: 10)
        try await db.collection("users").document("alice").updateData(["age": 31])
        try await db.collection("users").document("bob").setData(["name": "Bob"])
        try await db.collection("users").document("bob").delete()
        let named = try Firestore.open(directory: dir, projectID: "app", database: "other")
        try await named.document("k/v").setData(["x": true])
        try await db.terminate()
        try await named.terminate()

        db = try Firestore.open(directory: dir, projectID: "app", clock: clock)
        let alice = try await db.collection("users").document("alice").getDocument()
        #expect(alice.data()?["age"] as? Int == 31)
        #expect(alice.data()?["name"] as? String == "Alice")
        #expect(try await db.collection("users").document("bob").getDocument().exists == false)
        let engineDoc = try #require(db.database.document(ResourcePath(segments: ["users", "alice"])))
        #expect(engineDoc.createTime.seconds == apiEpochSeconds)
        #expect(engineDoc.updateTime.seconds == apiEpochSeconds + 10)
        #expect(try await Firestore.open(directory: dir, projectID: "app", database: "other").document("k/v").getDocument().data()?["x"] as? Bool == true)
        try await db.terminate()
    }

    @Test("instances of one process share a directory; damage is reported")
    func sharingAndDamage() async throws {
        let dir = scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try Firestore.open(directory: dir)
        let b = try Firestore.open(directory: dir)
        try await a.document("c/d").setData(["v": 1])
        #expect(try await b.document("c/d").getDocument().data()?["v"] as? Int == 1)
        try await b.document("c/e").setData(["v": 2])
        // Another process would be refused: the store holds the lock.
        #expect(throws: (any Error).self) { _ = try DurableStore.open(directory: dir) }
        try await a.terminate()
        try await b.terminate()
        // Damage before later writes stops the open, naming the file.
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("wal-") }.sorted().first)
        let path = (dir as NSString).appendingPathComponent(segment)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let headerRecord = 7 + Int(bytes[4])
        bytes[headerRecord + 9] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Firestore.open(directory: dir)
            Issue.record("opened a damaged directory")
        } catch {
            let ns = error as NSError
            #expect(FirestoreErrorCode.Code(rawValue: ns.code) == .failedPrecondition)
            #expect(ns.localizedDescription.contains(path))
        }
    }
}
