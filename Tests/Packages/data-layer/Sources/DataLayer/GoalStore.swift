// The app's data layer, written against the Firebase SDK's API and nothing else.
import FirebaseFirestore

public struct GoalStore: Sendable {
    let db: Firestore

    public init(db: Firestore) { self.db = db }

    /// Adds a goal; returns its generated id.
    public func add(title: String) async throws -> String {
        try await db.collection("goals").addDocument(data: ["title": title, "done": false]).documentID
    }

    /// Every goal's title, in title order.
    public func titles() async throws -> [String] {
        try await db.collection("goals").order(by: "title").getDocuments().documents.compactMap { $0.data()["title"] as? String }
    }
}
