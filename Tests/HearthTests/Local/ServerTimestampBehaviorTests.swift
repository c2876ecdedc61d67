import Foundation
import Testing
@testable import Hearth

/// Server timestamps before and after their commit, under each `ServerTimestampBehavior`,
/// mirroring firebase-ios-sdk Firestore/Example/Tests/Integration/API/FIRServerTimestampTests.mm:
/// the listener (without metadata changes) gets a local event with the timestamps unknown
/// and a remote event with them resolved.
@Suite("Server timestamp behaviours")
struct ServerTimestampBehaviorTests {
    static let start: Int64 = 1_700_000_000
    let setData: [String: Any] = ["a": 42, "when": FieldValue.serverTimestamp(), "deep": ["when": FieldValue.serverTimestamp()]]
    let updateData: [String: Any] = ["when": FieldValue.serverTimestamp(), "deep": ["when": FieldValue.serverTimestamp()]]

    /// A database on a manual clock and a listener on one document, past its initial event.
    func listening() async -> (Firestore, ManualClock, DocumentReference, LocalEvents<DocumentSnapshot>, ListenerRegistration) {
        let clock = ManualClock(now: Timestamp(seconds: Self.start, nanoseconds: 0))
        let db = localDB(clock: clock)
        let ref = db.collection("c").document("d")
        let events = LocalEvents<DocumentSnapshot>()
        let r = ref.addSnapshotListener(events.add)
        await db.waitUntilIdle()
        return (db, clock, ref, events, r)
    }

    @Test("via set: null locally, resolved remotely (testServerTimestampsWorkViaSet)")
    func viaSet() async throws {
        let (db, clock, ref, events, r) = await listening()
        clock.advance(by: 10)
        try await ref.setData(setData)
        await db.waitUntilIdle()
        let s = events.values
        #expect(s.count == 3)
        #expect(localShow(s[1]) == "{a:42,deep:{when:null},when:null} P")
        #expect(localShow(s[2]) == "{a:42,deep:{when:ts:\(Self.start + 10)},when:ts:\(Self.start + 10)}")
        r.remove()
    }

    @Test("via update: null locally, resolved remotely (testServerTimestampsWorkViaUpdate)")
    func viaUpdate() async throws {
        let (db, _, ref, events, r) = await listening()
        try await ref.setData(["a": 42])
        try await ref.updateData(updateData)
        await db.waitUntilIdle()
        let s = events.values
        #expect(s.map { localShow($0) }.dropFirst() == ["{a:42} P", "{a:42,deep:{when:null},when:null} P",
                                                        "{a:42,deep:{when:ts:\(Self.start)},when:ts:\(Self.start)}"])
        r.remove()
    }

    @Test(".estimate reads the local write time (testServerTimestampsWithEstimatedValue)")
    func estimate() async throws {
        let (db, clock, ref, events, r) = await listening()
        clock.advance(by: 5)
        try await ref.setData(setData)
        await db.waitUntilIdle()
        let local = events.values[1]
        let when = try #require(local.get("when", serverTimestampBehavior: .estimate) as? Timestamp)
        #expect(when.seconds == Self.start + 5)
        #expect(localShow(local, .estimate) == "{a:42,deep:{when:ts:\(Self.start + 5)},when:ts:\(Self.start + 5)} P")
        #expect(local.get("when") is NSNull)
        r.remove()
    }

    @Test(".previous reads the value before the write, even under a map the update replaced (testServerTimestampsWithPreviousValue)")
    func previous() async throws {
        let (db, clock, ref, events, r) = await listening()
        try await ref.setData(setData)
        await db.waitUntilIdle()
        #expect(localShow(events.values[1], .previous) == "{a:42,deep:{when:null},when:null} P")
        let remote = try #require(events.values.last)
        clock.advance(by: 60)
        try await ref.updateData(updateData)
        await db.waitUntilIdle()
        let local = events.values[3]
        #expect(local.metadata.hasPendingWrites)
        let previous = try #require(remote.get("when") as? Timestamp)
        #expect(localShow(local, .previous) == "{a:42,deep:{when:ts:\(previous.seconds)},when:ts:\(previous.seconds)} P")
        #expect((events.values[4].get("when") as? Timestamp)?.seconds == Self.start + 60)
        r.remove()
    }

    @Test(".previous of another type; every behaviour reads a committed timestamp as it is (testServerTimestampsWithPreviousValueOfDifferentType)")
    func previousOfDifferentType() async throws {
        let (db, _, ref, events, r) = await listening()
        try await ref.setData(setData)
        try await ref.updateData(["a": FieldValue.serverTimestamp()])
        await db.waitUntilIdle()
        let local = events.values[3]
        #expect(local.get("a") is NSNull)
        #expect(local.get("a", serverTimestampBehavior: .previous) as? Int == 42)
        #expect(local.get("a", serverTimestampBehavior: .estimate) is Timestamp)
        let remote = events.values[4]
        #expect(!remote.metadata.hasPendingWrites)
        for behavior in [ServerTimestampBehavior.none, .estimate, .previous] {
            #expect(remote.get("a", serverTimestampBehavior: behavior) is Timestamp)
        }
        r.remove()
    }

    @Test("Codable: @ServerTimestamp decodes nil from a pending write (an estimate with .estimate), the time once committed (CodableIntegrationTests testServerTimestamp, testServerTimestampBehavior)")
    func codable() async throws {
        struct Post: Codable { var title: String; @ServerTimestamp var createdAt: Timestamp? }
        let (db, _, ref, events, r) = await listening()
        try ref.setData(from: Post(title: "t"))
        await db.waitUntilIdle()
        let s = events.values
        #expect(try s[1].data(as: Post.self).createdAt == nil)
        #expect(try s[1].data(as: Post.self, with: .estimate).createdAt?.seconds == Self.start)
        #expect(try s[2].data(as: Post.self).createdAt != nil)
        r.remove()
    }

    @Test("query snapshots: the same timestamp across a batch, null locally (testWriteTheSameServerTimestampAcrossWrites)")
    func acrossABatch() async throws {
        let db = localDB()
        let c = db.collection("c")
        let events = LocalEvents<QuerySnapshot>()
        let r = c.addSnapshotListener(includeMetadataChanges: true, listener: events.add)
        let batch = db.batch()
        batch.setData(["when": FieldValue.serverTimestamp()], forDocument: c.document("a"))
        batch.setData(["when": FieldValue.serverTimestamp()], forDocument: c.document("b"))
        try await batch.commit()
        await db.waitUntilIdle()
        let s = events.values
        #expect(s.count == 3)
        #expect(localShow(s[1]) == "a{when:null}* b{when:null}* P")
        let times = s[2].documents.map { $0.get("when") as? Timestamp }
        #expect(times.count == 2 && times[0] != nil && times[0] == times[1])
        r.remove()
    }
}
