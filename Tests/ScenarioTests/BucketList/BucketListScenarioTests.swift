import FirebaseFirestore
import Foundation
import Testing

@Suite("Bucket list app scenarios")
struct BucketListScenarioTests {
    let clock = ManualClock(now: Timestamp(seconds: 1_764_720_000, nanoseconds: 0))

    @Test("posting progress writes the update and increments updateCount in one batch")
    func postProgressIsAtomic() async throws {
        let db = Firestore.inMemory(clock: clock)
        let repo = BucketListRepository(db: db)
        let goalId = try repo.createGoal(userId: "alice", title: "Learn Spanish", category: "Learning")
        clock.advance(by: 60)
        let updateId = try await repo.postProgress(goalId: goalId, userId: "alice", content: "Day 1 on Duolingo")
        _ = try await repo.postProgress(goalId: goalId, userId: "alice", content: "Day 2")

        let goal = try await repo.goal(goalId)
        #expect(goal.id == goalId)
        #expect(goal.title == "Learn Spanish")
        #expect(goal.updateCount == 2)
        #expect(goal.createdAt?.seconds == 1_764_720_000)

        let update = try #require(try await repo.update(updateId))
        #expect(update.goalId == goalId)
        #expect(update.content == "Day 1 on Duolingo")
        #expect(update.createdAt?.seconds == 1_764_720_060)
        #expect(update.likes == 0)
    }

    @Test("progress on a deleted goal fails as a whole: no orphan update is written")
    func postProgressOnMissingGoalLeavesNothing() async throws {
        let db = Firestore.inMemory(clock: clock)
        let repo = BucketListRepository(db: db)
        let goalId = try repo.createGoal(userId: "bob", title: "Run a marathon", category: "Fitness")
        try await repo.deleteGoal(goalId)

        await #expect(throws: FirestoreErrorCode.self) {
            _ = try await repo.postProgress(goalId: goalId, userId: "bob", content: "5 km today")
        }
        let updates = try await db.collection("progress_updates").getDocuments()
        #expect(updates.isEmpty)
    }

    @Test("likes are counted once per user even under concurrent taps")
    func concurrentLikes() async throws {
        let db = Firestore.inMemory()
        let repo = BucketListRepository(db: db)
        let goalId = try repo.createGoal(userId: "carol", title: "Read 50 books", category: nil)
        let updateId = try await repo.postProgress(goalId: goalId, userId: "carol", content: "Book 1")

        let users = (0..<10).map { "user\($0)" }
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for user in users + users {
                group.addTask { try await repo.like(updateId: updateId, by: user) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 10)
        let update = try #require(try await repo.update(updateId))
        #expect(update.likes == 10)
        #expect(Set(update.likedBy) == Set(users))
    }

    @Test("app code calling Firestore.firestore() itself uses the instance given to withDefault")
    func defaultInstanceOverride() async throws {
        let db = Firestore.inMemory()
        let goalId = try await Firestore.withDefault(db) {
            try BucketListRepository().createGoal(userId: "dave", title: "Visit Japan", category: "Travel")
        }
        #expect(try await db.collection("goals").document(goalId).getDocument().exists)
        #expect(try await Firestore.firestore().collection("goals").document(goalId).getDocument().exists == false)
    }
}
