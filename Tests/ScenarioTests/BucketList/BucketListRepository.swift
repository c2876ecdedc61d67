// App code as the bucket-list app writes it against the Firebase iOS SDK: it says
// `import FirebaseFirestore` and nothing else, and compiles unchanged against Hearth.
import FirebaseFirestore
import Foundation

struct Goal: Codable, Identifiable {
    @DocumentID var id: String?
    var userId: String
    var title: String
    var description: String?
    var category: String?
    @ServerTimestamp var createdAt: Timestamp?
    var updateCount: Int
}

struct ProgressUpdate: Codable, Identifiable {
    @DocumentID var id: String?
    var goalId: String
    var userId: String
    var content: String
    var imageUrl: String?
    @ServerTimestamp var createdAt: Timestamp?
    var likes: Int
    var likedBy: [String]
}

enum BucketListError: Error {
    case goalNotFound(String)
}

/// The app's data layer (bucket-list design notes: "Atomic Operations").
final class BucketListRepository: Sendable {
    private let db: Firestore

    init(db: Firestore = Firestore.firestore()) {
        self.db = db
    }

    func createGoal(userId: String, title: String, category: String?) throws -> String {
        let goal = Goal(userId: userId, title: title, description: nil, category: category, updateCount: 0)
        let ref = try db.collection("goals").addDocument(from: goal)
        return ref.documentID
    }

    /// Creates the progress update and increments the goal's `updateCount` in one batch.
    func postProgress(goalId: String, userId: String, content: String) async throws -> String {
        let batch = db.batch()
        let updateRef = db.collection("progress_updates").document()
        let update = ProgressUpdate(goalId: goalId, userId: userId, content: content, imageUrl: nil,
                                    likes: 0, likedBy: [])
        try batch.setData(from: update, forDocument: updateRef)
        batch.updateData(["updateCount": FieldValue.increment(Int64(1))],
                         forDocument: db.collection("goals").document(goalId))
        try await batch.commit()
        return updateRef.documentID
    }

    /// Likes an update once per user, in a transaction.
    func like(updateId: String, by userId: String) async throws -> Bool {
        let ref = db.collection("progress_updates").document(updateId)
        let liked = try await db.runTransaction { transaction, errorPointer in
            let snapshot: DocumentSnapshot
            do {
                snapshot = try transaction.getDocument(ref)
            } catch let error as NSError {
                errorPointer?.pointee = error
                return nil
            }
            let likedBy = snapshot.data()?["likedBy"] as? [String] ?? []
            if likedBy.contains(userId) { return false }
            transaction.updateData([
                "likes": FieldValue.increment(Int64(1)),
                "likedBy": FieldValue.arrayUnion([userId]),
            ], forDocument: ref)
            return true
        }
        return liked as? Bool ?? false
    }

    func goal(_ id: String) async throws -> Goal {
        let snapshot = try await db.collection("goals").document(id).getDocument()
        guard snapshot.exists else { throw BucketListError.goalNotFound(id) }
        return try snapshot.data(as: Goal.self)
    }

    func update(_ id: String) async throws -> ProgressUpdate? {
        try await db.collection("progress_updates").document(id).getDocument(as: ProgressUpdate?.self)
    }

    func deleteGoal(_ id: String) async throws {
        try await db.collection("goals").document(id).delete()
    }
}
