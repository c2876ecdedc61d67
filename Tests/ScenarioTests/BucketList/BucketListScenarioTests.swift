import FirebaseFirestore
import Foundation
import HearthLock
import Testing

/// The bucket-list app on its seeds (Seeds/bucketlist), rules (Rules/bucketlist.rules) and
/// enforced indexes, used by signed-in users through the app's repository.
@Suite("Bucket list app scenarios")
struct BucketListScenarioTests {
    let clock = ManualClock(now: scenarioStart)

    /// The admin handle (for checks behind the app's back) and a repository per user.
    func open() throws -> Firestore { try DocumentedApp.bucketlist.open(clock: clock) }

    func repo(_ db: Firestore, _ uid: String) -> BucketListRepository {
        BucketListRepository(db: db.authenticated(uid: uid))
    }

    /// Every progress update in the seeds, read as admin (the expected values of the app's queries).
    func allUpdates(_ db: Firestore) async throws -> [ProgressUpdate] {
        try await db.collection("progress_updates").getDocuments().documents.map { try $0.data(as: ProgressUpdate.self) }
    }

    // MARK: Goals

    @Test("creating a goal: title required, description and category optional, owned by the creator")
    func createGoal() async throws {
        let db = try open()
        let alice = repo(db, "alice")
        let full = try alice.createGoal(userId: "alice", title: "Learn to surf", description: "Lisbon, summer",
                                        category: GoalCategory.fitness.rawValue)
        let minimal = try alice.createGoal(userId: "alice", title: "Write a haiku", category: nil)
        let goal = try await alice.goal(full)
        #expect(goal.title == "Learn to surf" && goal.description == "Lisbon, summer" && goal.category == "Fitness")
        #expect(goal.updateCount == 0 && goal.userId == "alice")
        #expect(goal.createdAt?.seconds == scenarioStart.seconds && goal.updatedAt == goal.createdAt)
        let bare = try await alice.goal(minimal)
        #expect(bare.description == nil && bare.category == nil)

        #expect(throws: BucketListError.emptyTitle) { try alice.createGoal(userId: "alice", title: "  ", category: nil) }
        // A client skipping the app's check is stopped by the rules.
        let aliceDB = db.authenticated(uid: "alice")
        await expectPermissionDenied {
            try await aliceDB.collection("goals").addDocument(data: [
                "userId": "alice", "createdAt": FieldValue.serverTimestamp(), "updateCount": 0])
        }
        await expectPermissionDenied {
            try await aliceDB.collection("goals").addDocument(data: [
                "userId": "alice", "title": "Nap", "category": "Sleeping",
                "createdAt": FieldValue.serverTimestamp(), "updateCount": 0])
        }
    }

    @Test("posting progress writes the update and increments updateCount in one batch")
    func postProgressIsAtomic() async throws {
        let db = try open()
        let alice = repo(db, "alice")
        let goalId = try alice.createGoal(userId: "alice", title: "Learn Spanish", category: "Learning")
        clock.advance(by: 60)
        let updateId = try await alice.postProgress(goalId: goalId, userId: "alice", content: "Day 1 on Duolingo")
        clock.advance(by: 60)
        _ = try await alice.postProgress(goalId: goalId, userId: "alice", content: "Day 2",
                                         imageUrl: "https://images.example.com/day2.jpg")

        let goal = try await alice.goal(goalId)
        #expect(goal.id == goalId)
        #expect(goal.title == "Learn Spanish")
        #expect(goal.updateCount == 2)
        #expect(goal.createdAt?.seconds == 1_764_720_000)
        #expect(goal.updatedAt?.seconds == 1_764_720_120)

        let update = try #require(try await alice.update(updateId))
        #expect(update.goalId == goalId)
        #expect(update.content == "Day 1 on Duolingo")
        #expect(update.createdAt?.seconds == 1_764_720_060)
        #expect(update.likes == 0 && update.likedBy.isEmpty)
    }

    @Test("progress on a deleted goal fails as a whole: no orphan update is written")
    func postProgressOnMissingGoalLeavesNothing() async throws {
        let db = try open()
        let bob = repo(db, "bob")
        let goalId = try bob.createGoal(userId: "bob", title: "Run a marathon", category: "Fitness")
        try await bob.deleteGoal(goalId)

        // The goal update finds no document (and the rules see no goal owned by bob): the
        // whole batch is refused.
        do {
            _ = try await bob.postProgress(goalId: goalId, userId: "bob", content: "5 km today")
            Issue.record("posting on a deleted goal succeeded")
        } catch let error as NSError {
            #expect(error.domain == FirestoreErrorDomain)
            #expect([FirestoreErrorCode.notFound.rawValue, FirestoreErrorCode.permissionDenied.rawValue].contains(error.code))
        }
        #expect(try await bob.goalUpdates(goalId: goalId).isEmpty)
        let orphans = try await db.collection("progress_updates").whereField("goalId", isEqualTo: goalId).getDocuments()
        #expect(orphans.isEmpty)
    }

    @Test("a progress update on someone else's goal is refused and changes nothing")
    func progressOnForeignGoalDenied() async throws {
        let db = try open()
        let before = try await db.collection("goals").document("g-alice-spanish").getDocument().data()?["updateCount"] as? Int
        await expectPermissionDenied {
            _ = try await repo(db, "bob").postProgress(goalId: "g-alice-spanish", userId: "bob", content: "I'll do it for you")
        }
        await expectPermissionDenied {
            _ = try await repo(db, "bob").postProgress(goalId: "g-alice-spanish", userId: "alice", content: "impersonated")
        }
        let after = try await db.collection("goals").document("g-alice-spanish").getDocument().data()?["updateCount"] as? Int
        #expect(before == 6 && after == 6)
        #expect(try await allUpdates(db).count == 72)
    }

    // MARK: Feed, goal detail, profile

    @Test("feed: updates from followed users only, newest first, limited (composite index userId + createdAt)")
    func feedShowsFollowedUsers() async throws {
        let db = try open()
        let alice = repo(db, "alice")
        let feed = try await alice.feed(for: "alice", limit: 20)

        let expected = try await allUpdates(db)
            .filter { ["bob", "carol", "dave"].contains($0.userId) }
            .sorted { $0.createdAt!.dateValue() > $1.createdAt!.dateValue() }
            .prefix(20)
        #expect(feed.count == 20)
        #expect(feed.map(\.id) == expected.map(\.id))
        #expect(Set(feed.map(\.userId)).isSubset(of: ["bob", "carol", "dave"]))
        #expect(feed.first?.id == "pu-070")
    }

    @Test("the feed listener gets a followed user's new update at the top, and ignores strangers")
    func liveFeed() async throws {
        let db = try open()
        let aliceDB = db.authenticated(uid: "alice")
        let alice = BucketListRepository(db: aliceDB)
        let pages = HearthMutex<[[ProgressUpdate]]>([])
        let registrations = alice.listenToFeed(following: ["bob", "carol", "dave"], limit: 10) { page in
            pages.withLock { $0.append(page) }
        }
        defer { registrations.forEach { $0.remove() } }
        await aliceDB.waitUntilIdle()
        #expect(pages.withLock { $0.last?.first?.id } == "pu-070")
        let before = pages.withLock { $0.count }

        clock.advance(by: 3600)
        let bobsUpdate = try await repo(db, "bob").postProgress(goalId: "g-bob-guitar", userId: "bob", content: "First full song!")
        await aliceDB.waitUntilIdle()
        let latest = try #require(pages.withLock { $0.last })
        #expect(latest.count == 10)
        #expect(latest.first?.id == bobsUpdate && latest.first?.content == "First full song!")
        #expect(latest.first?.createdAt?.seconds == scenarioStart.seconds + 3600)
        let afterBob = pages.withLock { $0.count }
        #expect(afterBob == before + 1)

        // Erin is not followed: her update does not reach alice's feed.
        _ = try await repo(db, "erin").postProgress(goalId: "g-erin-mural", userId: "erin", content: "Sketches done")
        await aliceDB.waitUntilIdle()
        #expect(pages.withLock { $0.count } == afterBob)
    }

    @Test("goal detail: the goal's updates chronologically, streamed as new ones are posted")
    func goalDetail() async throws {
        let db = try open()
        let bobDB = db.authenticated(uid: "bob")
        let bob = BucketListRepository(db: bobDB)
        let updates = try await bob.goalUpdates(goalId: "g-alice-spanish")
        #expect(updates.count == 6)
        #expect(updates.map(\.id) == ["pu-034", "pu-051", "pu-059", "pu-061", "pu-067", "pu-071"])
        #expect(updates.allSatisfy { $0.goalId == "g-alice-spanish" && $0.userId == "alice" })

        var stream = bob.goalUpdatesQuery(goalId: "g-alice-spanish").snapshots.makeAsyncIterator()
        let first = try #require(try await stream.next())
        #expect(first.count == 6)
        clock.advance(by: 10)
        let newId = try await repo(db, "alice").postProgress(goalId: "g-alice-spanish", userId: "alice", content: "Podcast in Spanish")
        let second = try #require(try await stream.next())
        #expect(second.documents.map(\.documentID) == updates.map(\.id!) + [newId])
        #expect(second.documentChanges.map(\.type) == [.added])
        #expect(try await bob.goal("g-alice-spanish").updateCount == 7)
    }

    @Test("profile: a user's goal cards, most recently updated first; posting moves a goal to the top")
    func profileGoalsByLastUpdate() async throws {
        let db = try open()
        let carol = repo(db, "carol")
        let goals = try await carol.userGoals(userId: "bob")
        #expect(goals.map(\.id) == ["g-bob-marathon", "g-bob-sleep", "g-bob-guitar", "g-bob-promotion"])
        #expect(goals.map(\.updateCount) == [5, 5, 2, 3])

        clock.advance(by: 60)
        _ = try await repo(db, "bob").postProgress(goalId: "g-bob-promotion", userId: "bob", content: "Got the interview")
        let reordered = try await carol.userGoals(userId: "bob")
        #expect(reordered.map(\.id) == ["g-bob-promotion", "g-bob-marathon", "g-bob-sleep", "g-bob-guitar"])
        #expect(reordered.first?.updateCount == 4)
    }

    @Test("empty states: no followed users, no goals, no updates, no notifications")
    func emptyStates() async throws {
        let db = try open()
        let erin = repo(db, "erin")
        #expect(try await erin.profile("erin").following.isEmpty)
        #expect(try await erin.feed(for: "erin").isEmpty) // no `in []` query is sent
        #expect(try await erin.goalUpdates(goalId: "g-carol-novel").isEmpty)
        #expect(try await erin.goal("g-carol-novel").updateCount == 0)

        let gina = repo(db, "gina") // signed up, no profile activity yet
        #expect(try await gina.userGoals(userId: "gina").isEmpty)
        #expect(try await gina.activity(for: "gina").isEmpty)
        await #expect(throws: BucketListError.goalNotFound("nope")) { _ = try await gina.goal("nope") }
    }

    // MARK: Likes, follows, notifications

    @Test("like and unlike: counter ±1, likedBy arrayUnion/arrayRemove and a like notification, atomically")
    func likeAndUnlike() async throws {
        let db = try open()
        let bob = repo(db, "bob")
        #expect(try await bob.like(updateId: "pu-034", by: "bob"))
        var update = try #require(try await bob.update("pu-034"))
        #expect(update.likes == 2 && update.likedBy == ["erin", "bob"])

        let activity = try await repo(db, "alice").activity(for: "alice")
        let note = try #require(activity.first)
        #expect(note.type == .like && note.senderId == "bob" && note.updateId == "pu-034" && note.goalId == "g-alice-spanish")
        #expect(note.message == "liked your progress update" && note.isRead == false)
        #expect(note.createdAt?.seconds == scenarioStart.seconds)

        #expect(try await bob.like(updateId: "pu-034", by: "bob") == false) // a second tap is a no-op
        #expect(try await bob.update("pu-034")?.likes == 2)

        #expect(try await bob.unlike(updateId: "pu-034", by: "bob"))
        update = try #require(try await bob.update("pu-034"))
        #expect(update.likes == 1 && update.likedBy == ["erin"])
        #expect(try await bob.unlike(updateId: "pu-034", by: "bob") == false)

        // Liking one's own update sends no notification.
        let alice = repo(db, "alice")
        let countBefore = try await alice.activity(for: "alice").count
        #expect(try await alice.like(updateId: "pu-034", by: "alice"))
        #expect(try await alice.activity(for: "alice").count == countBefore)
    }

    @Test("likes are counted once per user even under concurrent taps")
    func concurrentLikes() async throws {
        let db = try open()
        let carol = repo(db, "carol")
        let goalId = try carol.createGoal(userId: "carol", title: "Read 50 books", category: nil)
        let updateId = try await carol.postProgress(goalId: goalId, userId: "carol", content: "Book 1")

        let users = (0..<10).map { "user\($0)" }
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for user in users + users {
                let repository = repo(db, user)
                group.addTask { try await repository.like(updateId: updateId, by: user) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 10)
        let update = try #require(try await carol.update(updateId))
        #expect(update.likes == 10)
        #expect(Set(update.likedBy) == Set(users))
        let notes = try await carol.activity(for: "carol").filter { $0.updateId == updateId }
        #expect(notes.count == 10 && Set(notes.map(\.senderId)) == Set(users))
    }

    @Test("follow: own following list and a follow notification in one batch; the feed then includes them")
    func followAndUnfollow() async throws {
        let db = try open()
        let erin = repo(db, "erin")
        try await erin.follow("alice", by: "erin")
        #expect(try await erin.profile("erin").following == ["alice"])
        let note = try #require(try await repo(db, "alice").activity(for: "alice").first)
        #expect(note.type == .follow && note.senderId == "erin" && note.message == "started following you")
        let feed = try await erin.feed(for: "erin")
        #expect(!feed.isEmpty && feed.allSatisfy { $0.userId == "alice" })

        try await erin.unfollow("alice", by: "erin")
        #expect(try await erin.feed(for: "erin").isEmpty)
    }

    // MARK: Deleting

    @Test("deleting a goal cascades to its updates and leaves other goals' updates alone")
    func deleteGoalCascades() async throws {
        let db = try open()
        let alice = repo(db, "alice")
        try await alice.deleteGoal("g-alice-spanish")
        await #expect(throws: BucketListError.goalNotFound("g-alice-spanish")) { _ = try await alice.goal("g-alice-spanish") }
        let remaining = try await allUpdates(db)
        #expect(remaining.count == 66)
        #expect(!remaining.contains { $0.goalId == "g-alice-spanish" })
        #expect(try await alice.goalUpdates(goalId: "g-alice-pottery").count == 3)
        #expect(try await alice.userGoals(userId: "alice").map(\.id) == ["g-alice-pottery", "g-alice-japan", "g-alice-10k"])
    }

    // MARK: What a malicious client tries

    @Test("a malicious client cannot edit, delete, inflate or read what is not theirs")
    func maliciousClient() async throws {
        let db = try open()
        let mallory = db.authenticated(uid: "bob")
        let goal = mallory.collection("goals").document("g-alice-spanish")
        await expectPermissionDenied { try await goal.updateData(["title": "hacked"]) }
        await expectPermissionDenied { try await goal.updateData(["updateCount": FieldValue.increment(Int64(1))]) }
        await expectPermissionDenied { try await goal.updateData(["userId": "bob"]) }
        // The cascade runs as one batch per chunk: refused as a whole, nothing is deleted.
        await expectPermissionDenied { try await BucketListRepository(db: mallory).deleteGoal("g-alice-spanish") }
        #expect(try await allUpdates(db).count == 72)
        #expect(try await db.collection("goals").document("g-alice-spanish").getDocument().exists)

        let update = mallory.collection("progress_updates").document("pu-034")
        await expectPermissionDenied { try await update.updateData(["likes": FieldValue.increment(Int64(50))]) }
        await expectPermissionDenied {
            try await update.updateData(["likes": FieldValue.increment(Int64(1)), "likedBy": FieldValue.arrayUnion(["carol"])])
        }
        await expectPermissionDenied { try await update.updateData(["content": "spam"]) }
        await expectPermissionDenied {
            // Taking away erin's like.
            try await update.updateData(["likes": FieldValue.increment(Int64(-1)), "likedBy": FieldValue.arrayRemove(["erin"])])
        }
        #expect(try await db.collection("progress_updates").document("pu-034").getDocument().data()?["likes"] as? Int == 1)

        let notes = mallory.collection("threads_notifications")
        await expectPermissionDenied { _ = try await notes.whereField("recipientId", isEqualTo: "alice").getDocuments() }
        await expectPermissionDenied { _ = try await notes.getDocuments() }
        await expectPermissionDenied {
            try await notes.addDocument(data: ["type": "like", "recipientId": "alice", "senderId": "carol",
                                               "message": "liked your progress update",
                                               "createdAt": FieldValue.serverTimestamp(), "isRead": false])
        }
        await expectPermissionDenied {
            try await mallory.collection("threads_users").document("alice").updateData(["following": []])
        }

        let signedOut = db.unauthenticated()
        await expectPermissionDenied { _ = try await signedOut.collection("progress_updates").limit(to: 5).getDocuments() }
        await expectPermissionDenied { _ = try await signedOut.collection("goals").document("g-alice-spanish").getDocument() }
    }

    @Test("indexes are enforced: a profile sorted by createdAt has no declared index and fails like production")
    func undeclaredIndexFails() async throws {
        let db = try open()
        let alice = db.authenticated(uid: "alice")
        await expectFirestoreError(.failedPrecondition) {
            _ = try await alice.collection("goals").whereField("userId", isEqualTo: "alice")
                .order(by: "createdAt", descending: true).getDocuments()
        }
    }

    @Test("app code calling Firestore.firestore() itself uses the instance given to withDefault")
    func defaultInstanceOverride() async throws {
        let db = try open()
        let dave = db.authenticated(uid: "dave")
        let goalId = try await Firestore.withDefault(dave) {
            try BucketListRepository().createGoal(userId: "dave", title: "Visit Japan", category: "Travel")
        }
        #expect(try await db.collection("goals").document(goalId).getDocument().exists)
        #expect(try await Firestore.firestore().collection("goals").document(goalId).getDocument().exists == false)
    }
}
