import FirebaseFirestore
import Foundation
import Testing

/// Streaks on Seeds/streaks, Rules/streaks.rules and its index, enforced. "Now" is
/// 2025-05-14 15:00 UTC: ria's streak is alive (last event yesterday), sol's broke on the
/// 9th, tom missed yesterday but holds two freezes.
@Suite("Streaks app scenarios")
struct StreaksScenarioTests {
    static let now = ISO8601DateFormatter().date(from: "2025-05-14T15:00:00Z")!
    let clock = ManualClock(now: Timestamp(date: StreaksScenarioTests.now))

    func open() throws -> Firestore { try DocumentedApp.streaks.open(clock: clock) }

    func service(_ db: Firestore, _ uid: String) -> FirebaseRemoteStreakService {
        FirebaseRemoteStreakService(db: db.authenticated(uid: uid), calculateStreak: StreakCalculationFunction(admin: db))
    }

    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test("the current streak streams as an AsyncSequence; adding an event today extends it")
    func streamAndExtend() async throws {
        let db = try open()
        let ria = service(db, "ria")
        var stream = ria.streamCurrentStreak(userId: "ria").makeAsyncIterator()
        let initial = try #require(try await stream.next() ?? nil)
        #expect(initial.currentStreak == 12 && initial.longestStreak == 20 && initial.totalEvents == 49)

        try await ria.addEvent(userId: "ria", event: .now(Self.now, metadata: ["activity": .string("run"), "minutes": .int(30)]))
        let updated = try #require(try await stream.next() ?? nil)
        #expect(updated.currentStreak == 13 && updated.longestStreak == 20 && updated.totalEvents == 50)
        #expect(updated.lastEventDate?.dateValue() == Self.now)
        #expect(updated.streakStartDate?.dateValue() == utc("2025-05-02T00:00:00Z"))

        // A second event the same day counts as an event, not a day.
        clock.advance(by: 3600)
        try await ria.addEvent(userId: "ria", event: .now(Self.now.addingTimeInterval(3600)))
        let sameDay = try #require(try await stream.next() ?? nil)
        #expect(sameDay.currentStreak == 13 && sameDay.totalEvents == 51)
    }

    @Test("after missed days without freezes the streak restarts at 1; the record stays")
    func brokenStreakRestarts() async throws {
        let db = try open()
        let sol = service(db, "sol")
        try await sol.addEvent(userId: "sol", event: .now(Self.now))
        let streak = try await db.document("users/sol/streaks/daily").getDocument(as: CurrentStreakData.self)
        #expect(streak.currentStreak == 1 && streak.longestStreak == 14 && streak.totalEvents == 17)
        #expect(streak.streakStartDate?.dateValue() == utc("2025-05-14T00:00:00Z"))
    }

    @Test("a missed day is covered by the oldest unused freeze, consumed in the same transaction")
    func freezeCoversMissedDay() async throws {
        let db = try open()
        let tom = service(db, "tom")
        #expect(try await tom.availableFreezes(userId: "tom").map(\.id) == ["fz-1", "fz-2"])
        try await tom.addEvent(userId: "tom", event: .now(Self.now))
        let streak = try await db.document("users/tom/streaks/daily").getDocument(as: CurrentStreakData.self)
        #expect(streak.currentStreak == 9 && streak.longestStreak == 9)
        #expect(streak.freezesRemaining == 1 && streak.freezesUsed == 2)
        #expect(try await tom.availableFreezes(userId: "tom").map(\.id) == ["fz-2"])
        let used = try await db.document("users/tom/streaks/daily/freezes/fz-1").getDocument(as: StreakFreeze.self)
        #expect(used.usedDate?.dateValue() == utc("2025-05-13T00:00:00Z"))
    }

    @Test("concurrent events are all counted: the recalculation transaction retries on conflict")
    func concurrentEvents() async throws {
        let db = try open()
        let ria = service(db, "ria")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for k in 0..<5 {
                group.addTask { try await ria.addEvent(userId: "ria", event: .now(Self.now.addingTimeInterval(Double(k)))) }
            }
            try await group.waitForAll()
        }
        let streak = try await db.document("users/ria/streaks/daily").getDocument(as: CurrentStreakData.self)
        #expect(streak.totalEvents == 54 && streak.currentStreak == 13)
    }

    @Test("get all events, newest first")
    func allEvents() async throws {
        let db = try open()
        let events = try await service(db, "ria").getAllEvents(userId: "ria")
        #expect(events.count == 49)
        #expect(events.first?.id == "ev-20250513-1755")
        let times = events.map { $0.timestamp.dateValue() }
        #expect(times == times.sorted(by: >))
        #expect(events.allSatisfy { !$0.isFreeze && $0.metadata["activity"] != nil })
    }

    @Test("delete all events in batches of 500; the streak is recomputed to blank")
    func deleteAllEvents() async throws {
        let db = try open()
        // A long-time user: 1,200 events (admin import, as a migration would).
        var bulk: [String: Any] = [:]
        for k in 0..<1_200 {
            let t = Self.now.addingTimeInterval(Double(-k) * 3600)
            bulk["users/ria/streaks/daily/events/bulk-\(k)"] = [
                "id": "bulk-\(k)", "timestamp": ["$timestamp": ISO8601DateFormatter().string(from: t)],
                "timezone": "UTC", "isFreeze": false, "metadata": [:] as [String: Any]]
        }
        try db.importDocuments(hearthJSON: JSONSerialization.data(withJSONObject: bulk))
        let ria = service(db, "ria")
        #expect(try await db.collection("users/ria/streaks/daily/events").count.getAggregation(source: .server).count == 1_249)

        try await ria.deleteAllEvents(userId: "ria")
        #expect(try await ria.getAllEvents(userId: "ria").isEmpty)
        let streak = try await db.document("users/ria/streaks/daily").getDocument(as: CurrentStreakData.self)
        #expect(streak.currentStreak == 0 && streak.totalEvents == 0 && streak.lastEventDate == nil)
        #expect(streak.freezesRemaining == 1)
        // Other users' events are untouched.
        #expect(try await service(db, "sol").getAllEvents(userId: "sol").count == 16)
    }

    @Test("the seeded streak documents agree with a full recalculation from their events")
    func seedsAreConsistent() async throws {
        let db = try open()
        let function = StreakCalculationFunction(admin: db)
        for uid in ["ria", "sol", "tom"] {
            let stored = try await db.document("users/\(uid)/streaks/daily").getDocument(as: CurrentStreakData.self)
            let recomputed = try await function.recalculate(userId: uid, streakKey: "daily")
            #expect(recomputed.currentStreak == stored.currentStreak, "\(uid)")
            #expect(recomputed.longestStreak == stored.longestStreak, "\(uid)")
            #expect(recomputed.totalEvents == stored.totalEvents, "\(uid)")
            #expect(recomputed.lastEventDate == stored.lastEventDate, "\(uid)")
            #expect(recomputed.streakStartDate == stored.streakStartDate, "\(uid)")
            #expect(recomputed.freezesRemaining == stored.freezesRemaining, "\(uid)")
        }
    }

    @Test("a malicious client cannot write computed fields, mint freezes, backdate events or read others")
    func maliciousClient() async throws {
        let db = try open()
        let sol = db.authenticated(uid: "sol")
        let streak = sol.document("users/sol/streaks/daily")
        await expectPermissionDenied { try await streak.updateData(["currentStreak": 365, "longestStreak": 365]) }
        await expectPermissionDenied { try await streak.setData(["currentStreak": 15], merge: true) }
        await expectPermissionDenied { try await streak.updateData(["freezesRemaining": FieldValue.increment(Int64(10))]) }
        await expectPermissionDenied { try await sol.document("users/sol/streaks/reading").setData(["id": "reading", "currentStreak": 99]) }
        await expectPermissionDenied {
            try await sol.document("users/sol/streaks/daily/freezes/fz-9").setData(["id": "fz-9", "usedDate": NSNull()])
        }
        let events = sol.collection("users/sol/streaks/daily/events")
        // Filling the missed days after the fact.
        await expectPermissionDenied {
            try await events.document("ev-fill").setData(Firestore.Encoder().encode(
                StreakEvent(id: "ev-fill", timestamp: Timestamp(date: utc("2025-05-10T12:00:00Z")), timezone: "UTC",
                            isFreeze: false, metadata: [:])))
        }
        await expectPermissionDenied {
            try await events.document("ev-fz").setData(Firestore.Encoder().encode(
                StreakEvent(id: "ev-fz", timestamp: Timestamp(date: Self.now), timezone: "UTC", isFreeze: true, metadata: [:])))
        }
        await expectPermissionDenied { try await events.document("ev-20250508-1025").updateData(["timestamp": Timestamp(date: Self.now)]) }
        await expectPermissionDenied { _ = try await sol.document("users/ria/streaks/daily").getDocument() }
        await expectPermissionDenied { _ = try await sol.collection("users/ria/streaks/daily/events").getDocuments() }
        await expectPermissionDenied { _ = try await sol.collectionGroup("events").getDocuments() }
        await expectPermissionDenied { try await service(db, "sol").deleteAllEvents(userId: "ria") }
        await expectPermissionDenied { _ = try await db.unauthenticated().document("users/sol/streaks/daily").getDocument() }
        let stored = try await db.document("users/sol/streaks/daily").getDocument(as: CurrentStreakData.self)
        #expect(stored.currentStreak == 14 && stored.freezesRemaining == 0)
        #expect(try await db.collection("users/ria/streaks/daily/events").count.getAggregation(source: .server).count == 49)
    }
}
