import XCTest

#if HearthDouble
import DataLayer
import FirebaseFirestore  // Hearth's module here: this build has the HearthDouble trait

/// The data layer's own code, unchanged, against Hearth's in-process database.
final class GoalStoreTests: XCTestCase {
    func testGoalsComeBackInTitleOrder() async throws {
        let store = GoalStore(db: Firestore.inMemory(projectID: "demo-goals"))
        let id = try await store.add(title: "Learn Spanish")
        _ = try await store.add(title: "Climb Kilimanjaro")
        XCTAssertEqual(id.count, 20)
        let titles = try await store.titles()
        XCTAssertEqual(titles, ["Climb Kilimanjaro", "Learn Spanish"])
    }

    func testSnapshotAndRestoreBetweenCases() async throws {
        let db = Firestore.inMemory()
        let store = GoalStore(db: db)
        _ = try await store.add(title: "kept")
        let saved = db.snapshot()
        _ = try await store.add(title: "dropped")
        db.restore(saved)
        let titles = try await store.titles()
        XCTAssertEqual(titles, ["kept"])
    }
}
#else
final class GoalStoreTests: XCTestCase {
    func testRunsAgainstHearth() throws {
        throw XCTSkip("DataLayer's tests run against Hearth's double: swift test --traits HearthDouble")
    }
}
#endif
