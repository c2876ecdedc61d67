import FirebaseFirestore
import Foundation
import HearthLock
import Testing

/// MyChores on Seeds/chores, Rules/chores.rules and its indexes, enforced. "Now" is
/// Wednesday 2025-05-14 09:00 UTC: the week began on Monday the 12th, the month on the 1st.
@Suite("Household chores app scenarios")
struct ChoresScenarioTests {
    static let now = Date(timeIntervalSince1970: 1_747_213_200)
    let clock = ManualClock(now: Timestamp(date: ChoresScenarioTests.now))

    func open() throws -> Firestore { try DocumentedApp.chores.open(clock: clock) }

    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test("register, create a household, and join it by invite code: memberships on both sides")
    func createAndJoinHousehold() async throws {
        let db = try open()
        let gwenDB = db.authenticated(uid: "gwen")
        try await UserService(db: gwenDB, uid: "gwen").register(name: "Gwen Ito", email: "gwen@example.com", now: Self.now)
        let household = try await HouseholdService(db: gwenDB, uid: "gwen").createHousehold(name: "Gwen's Loft")
        let hid = try #require(household.id)
        #expect(household.memberUserIds == ["gwen"] && household.createdByUserId == "gwen")
        #expect(household.inviteCode.count == 6)
        #expect(try await UserService(db: gwenDB, uid: "gwen").user().householdIds == [hid])

        let halDB = db.authenticated(uid: "hal")
        try await UserService(db: halDB, uid: "hal").register(name: "Hal", email: "hal@example.com", now: Self.now)
        let hal = HouseholdService(db: halDB, uid: "hal")
        await #expect(throws: ChoresError.invalidInviteCode) { _ = try await hal.joinHousehold(inviteCode: "NOPE00") }
        #expect(try await hal.joinHousehold(inviteCode: household.inviteCode.lowercased()) == hid)
        #expect(try await hal.myHouseholds().map(\.id) == [hid])
        #expect(try await hal.myHouseholds().first?.memberUserIds == ["gwen", "hal"])
        #expect(try await UserService(db: halDB, uid: "hal").user().householdIds == [hid])
        // Now household peers: each reads the other's profile.
        #expect(try await UserService(db: gwenDB, uid: "gwen").user("hal").name == "Hal")

        // Joining the seeded house by its code.
        #expect(try await hal.joinHousehold(inviteCode: "MAPLE7") == "h-maple")
        #expect(try await UserService(db: halDB, uid: "hal").user().householdIds == [hid, "h-maple"])
    }

    @Test("create and assign chores; the pending list is ordered by due date")
    func createAndAssign() async throws {
        let db = try open()
        let ben = ChoreService(db: db.authenticated(uid: "ben"), uid: "ben")
        let id = try await ben.createChore(title: "Clean gutters", description: "Before the rain", householdId: "h-maple",
                                     assignedTo: "dan", dueDate: utc("2025-05-16T12:00:00Z"), pointValue: 20)
        let chore = try await ben.chore(id)
        #expect(chore.createdByUserId == "ben" && chore.assignedToUserId == "dan" && !chore.isCompleted)
        #expect(chore.createdAt?.seconds == Int64(Self.now.timeIntervalSince1970))

        let pending = try await ben.pending(householdId: "h-maple")
        #expect(pending.map(\.id) == ["ch-004", "ch-011", "ch-018", "ch-025", "ch-026", id, "ch-029", "ch-030"])
        let dues = pending.compactMap { $0.dueDate?.dateValue() }
        #expect(dues == dues.sorted())

        try await ben.assign(id, to: "cleo")
        #expect(try await ben.chore(id).assignedToUserId == "cleo")
        // Assigning to someone outside the household is refused.
        await expectPermissionDenied { try await ben.assign(id, to: "finn") }
        await expectPermissionDenied {
            _ = try await ben.createChore(title: "Their chore", householdId: "h-harbor", assignedTo: nil, dueDate: nil, pointValue: 5)
        }
    }

    @Test("completing a chore in a transaction awards points to total, weekly and monthly scores")
    func completeAwardsPoints() async throws {
        let db = try open()
        let benDB = db.authenticated(uid: "ben")
        let before = try await UserService(db: benDB, uid: "ben").user()
        clock.advance(by: 120)
        let completion = try await ChoreService(db: benDB, uid: "ben").completeChore("ch-030")
        #expect(completion.pointsAwarded == 10 && completion.nextChoreId == nil && completion.newBadges.isEmpty)

        let after = try await UserService(db: benDB, uid: "ben").user()
        #expect(after.totalPoints == before.totalPoints + 10)
        #expect(after.weeklyPoints == before.weeklyPoints + 10)
        #expect(after.monthlyPoints == before.monthlyPoints + 10)
        #expect(after.completedChoresCount == 6)
        let chore = try await ChoreService(db: benDB, uid: "ben").chore("ch-030")
        #expect(chore.isCompleted && chore.completedByUserId == "ben")
        #expect(chore.completedAt?.seconds == Int64(Self.now.timeIntervalSince1970) + 120)
        #expect(try await ChoreService(db: benDB, uid: "ben").history(householdId: "h-maple").first?.id == "ch-030")

        // A second completion is refused by the app and awards nothing.
        await #expect(throws: ChoresError.choreAlreadyCompleted) {
            _ = try await ChoreService(db: benDB, uid: "ben").completeChore("ch-030")
        }
        #expect(try await UserService(db: benDB, uid: "ben").user().totalPoints == after.totalPoints)
    }

    @Test("a recurring chore's next occurrence is created in the same transaction")
    func recurringNextOccurrence() async throws {
        let db = try open()
        let ben = ChoreService(db: db.authenticated(uid: "ben"), uid: "ben")
        // ch-026: weekly on Saturdays (6), due Wednesday 2025-05-14 18:00.
        let completion = try await ben.completeChore("ch-026")
        let nextId = try #require(completion.nextChoreId)
        let next = try await ben.chore(nextId)
        #expect(next.title == "Vacuum living room" && next.householdId == "h-maple" && next.assignedToUserId == "ben")
        #expect(next.dueDate?.dateValue() == utc("2025-05-17T18:00:00Z"))
        #expect(!next.isCompleted && next.isRecurring && next.recurrenceType == .weekly && next.pointValue == 10)
        #expect(try await ben.chore("ch-026").nextOccurrenceDate?.dateValue() == utc("2025-05-17T18:00:00Z"))
        #expect(try await ben.pending(householdId: "h-maple").map(\.id).contains(nextId))

        // Daily and monthly rules.
        let daily = try await ChoreService(db: db.authenticated(uid: "ana"), uid: "ana").completeChore("ch-029")
        #expect(try await ben.chore(try #require(daily.nextChoreId)).dueDate?.dateValue() == utc("2025-05-18T18:00:00Z"))
        let eve = ChoreService(db: db.authenticated(uid: "eve"), uid: "eve")
        let monthly = try await eve.completeChore("ch-049") // pay the bill: day 1 of each month
        #expect(try await eve.chore(try #require(monthly.nextChoreId)).dueDate?.dateValue() == utc("2025-06-01T18:00:00Z"))
    }

    @Test("badges: a new member's first completed chore earns first_chore")
    func firstChoreBadge() async throws {
        let db = try open()
        let gwenDB = db.authenticated(uid: "gwen")
        try await UserService(db: gwenDB, uid: "gwen").register(name: "Gwen Ito", email: "gwen@example.com", now: Self.now)
        _ = try await HouseholdService(db: gwenDB, uid: "gwen").joinHousehold(inviteCode: "MAPLE7")
        let gwen = ChoreService(db: gwenDB, uid: "gwen")
        let id = try await gwen.createChore(title: "Buy soap", householdId: "h-maple", assignedTo: "gwen",
                                      dueDate: utc("2025-05-15T10:00:00Z"), pointValue: 3)
        let completion = try await gwen.completeChore(id)
        #expect(completion.newBadges == ["first_chore"])
        let user = try await UserService(db: gwenDB, uid: "gwen").user()
        #expect(user.earnedBadges == ["first_chore"] && user.totalPoints == 3 && user.weeklyPoints == 3)
        // The second chore earns no badge again.
        let second = try await gwen.createChore(title: "Buy sponges", householdId: "h-maple", assignedTo: nil,
                                          dueDate: utc("2025-05-15T11:00:00Z"), pointValue: 2)
        #expect(try await gwen.completeChore(second).newBadges.isEmpty)
        #expect(try await UserService(db: gwenDB, uid: "gwen").user().earnedBadges == ["first_chore"])
    }

    @Test("two members completing the same chore at once: exactly one gets the points")
    func concurrentCompletion() async throws {
        let db = try open()
        let services = ["ana", "ben", "cleo", "dan"].map { ChoreService(db: db.authenticated(uid: $0), uid: $0) }
        let before = try await db.collection("users").getDocuments().documents
            .reduce(0) { $0 + (($1.data()["totalPoints"] as? Int) ?? 0) }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for service in services {
                group.addTask { (try? await service.completeChore("ch-030")) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        let after = try await db.collection("users").getDocuments().documents
            .reduce(0) { $0 + (($1.data()["totalPoints"] as? Int) ?? 0) }
        #expect(after == before + 10)
    }

    @Test("weekly and monthly resets happen once, when a new period has begun")
    func periodResets() async throws {
        let db = try open()
        func users(_ uid: String) -> UserService { UserService(db: db.authenticated(uid: uid), uid: uid) }
        let dan = try await users("dan").resetPeriodPointsIfNeeded(now: Self.now)
        #expect(dan.week && !dan.month)
        var user = try await users("dan").user()
        #expect(user.weeklyPoints == 0 && user.monthlyPoints == 25 && user.totalPoints == 61)
        #expect(user.currentWeekStartDate?.dateValue() == utc("2025-05-12T00:00:00Z"))

        let finn = try await users("finn").resetPeriodPointsIfNeeded(now: Self.now)
        #expect(finn.week && finn.month)
        user = try await users("finn").user()
        #expect(user.weeklyPoints == 0 && user.monthlyPoints == 0 && user.totalPoints == 80)
        #expect(user.currentMonthStartDate?.dateValue() == utc("2025-05-01T00:00:00Z"))

        let ben = try await users("ben").resetPeriodPointsIfNeeded(now: Self.now)
        #expect(!ben.week && !ben.month)
        #expect(try await users("ben").user().monthlyPoints == 4)
        // Running it again the same week changes nothing.
        #expect(try await users("dan").resetPeriodPointsIfNeeded(now: Self.now) == (false, false))
        // Next Monday the week rolls over for ben too.
        #expect(try await users("ben").resetPeriodPointsIfNeeded(now: utc("2025-05-19T06:00:00Z")) == (true, false))
    }

    @Test("the leaderboard listener re-ranks members as points are awarded and reset")
    func leaderboardListener() async throws {
        let db = try open()
        let cleoDB = db.authenticated(uid: "cleo")
        let boards = HearthMutex<[[String]]>([])
        let registration = HouseholdService(db: cleoDB, uid: "cleo")
            .leaderboardQuery(householdId: "h-maple", period: .weekly)
            .addSnapshotListener { snapshot, error in
                guard let snapshot else { Issue.record("leaderboard failed: \(String(describing: error))"); return }
                boards.withLock { $0.append(snapshot.documents.map { "\($0.documentID):\($0.data()["weeklyPoints"] as? Int ?? -1)" }) }
            }
        defer { registration.remove() }
        await cleoDB.waitUntilIdle()
        // Ties keep the last ordering's direction for the implicit document-id order (production).
        #expect(boards.withLock { $0.last } == ["dan:25", "cleo:0", "ben:0", "ana:0"])

        _ = try await ChoreService(db: db.authenticated(uid: "ben"), uid: "ben").completeChore("ch-030")
        await cleoDB.waitUntilIdle()
        #expect(boards.withLock { $0.last } == ["dan:25", "ben:10", "cleo:0", "ana:0"])

        try await UserService(db: db.authenticated(uid: "dan"), uid: "dan").resetPeriodPointsIfNeeded(now: Self.now)
        await cleoDB.waitUntilIdle()
        #expect(boards.withLock { $0.last } == ["ben:10", "dan:0", "cleo:0", "ana:0"])
        #expect(boards.withLock { $0.count } == 3)

        // Harbor Flat's points don't touch Maple Street's board (cleo is in both houses).
        _ = try await ChoreService(db: db.authenticated(uid: "finn"), uid: "finn").completeChore("ch-047")
        await cleoDB.waitUntilIdle()
        #expect(boards.withLock { $0.count } == 3)

        let allTime = try await HouseholdService(db: cleoDB, uid: "cleo").leaderboardQuery(householdId: "h-maple", period: .allTime)
            .getDocuments().documents.map(\.documentID)
        #expect(allTime == ["cleo", "dan", "ben", "ana"])
        let monthly = try await HouseholdService(db: cleoDB, uid: "cleo").leaderboardQuery(householdId: "h-maple", period: .monthly)
            .getDocuments().documents.map { "\($0.documentID):\($0.data()["monthlyPoints"] as? Int ?? -1)" }
        #expect(monthly == ["cleo:77", "dan:25", "ben:14", "ana:0"])
    }

    @Test("a malicious member cannot mint points, read other households, or edit other users")
    func maliciousClient() async throws {
        let db = try open()
        let ben = db.authenticated(uid: "ben")
        let me = ben.collection("users").document("ben")
        await expectPermissionDenied {
            try await me.updateData(["totalPoints": FieldValue.increment(Int64(1000)),
                                     "weeklyPoints": FieldValue.increment(Int64(1000)),
                                     "monthlyPoints": FieldValue.increment(Int64(1000)),
                                     "completedChoresCount": FieldValue.increment(Int64(1))])
        }
        await expectPermissionDenied { try await me.updateData(["weeklyPoints": 99]) }
        await expectPermissionDenied { try await me.updateData(["earnedBadges": ["first_chore", "chore_champion"]]) }
        // Completing without the points transaction, or in someone else's name.
        await expectPermissionDenied {
            try await ben.collection("chores").document("ch-030").updateData([
                "isCompleted": true, "completedAt": FieldValue.serverTimestamp(), "completedByUserId": "ben"])
        }
        await expectPermissionDenied {
            try await ben.collection("chores").document("ch-001").updateData(["isCompleted": false])
        }
        // Another household's chores, members and house.
        await expectPermissionDenied { _ = try await ben.collection("chores").document("ch-048").getDocument() }
        await expectPermissionDenied {
            _ = try await ChoreService(db: ben, uid: "ben").pending(householdId: "h-harbor")
        }
        await expectPermissionDenied { _ = try await ben.collection("chores").getDocuments() }
        await expectPermissionDenied { _ = try await ben.collection("users").document("finn").getDocument() }
        await expectPermissionDenied { _ = try await ben.collection("households").document("h-harbor").getDocument() }
        await expectPermissionDenied { try await ben.collection("users").document("ana").updateData(["name": "Anna"]) }
        // Joining by writing a household id into one's own profile, without being let in.
        await expectPermissionDenied { try await me.updateData(["householdIds": FieldValue.arrayUnion(["h-harbor"])]) }
        await expectPermissionDenied {
            try await ben.collection("households").document("h-harbor").updateData(
                ["memberUserIds": FieldValue.arrayUnion(["ben", "ana"])])
        }
        await expectPermissionDenied { _ = try await db.unauthenticated().collection("chores").document("ch-030").getDocument() }
        let ben2 = try await db.collection("users").document("ben").getDocument().data()
        #expect(ben2?["totalPoints"] as? Int == 31 && ben2?["householdIds"] as? [String] == ["h-maple"])
    }
}
