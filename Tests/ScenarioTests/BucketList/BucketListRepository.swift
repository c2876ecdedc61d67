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
    /// When the last progress update was posted (the profile sorts goal cards by it).
    @ServerTimestamp var updatedAt: Timestamp?
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

/// A `threads_users` profile (unchanged from the Threads clone).
struct ThreadsUser: Codable {
    var id: String
    var fullName: String
    var username: String
    var email: String?
    var bio: String?
    var profileImageUrl: String?
    var following: [String]
}

/// A `threads_notifications` entry: "started following you" or "liked your progress update".
struct ActivityNotification: Codable, Identifiable {
    enum Kind: String, Codable { case follow, like }
    @DocumentID var id: String?
    var type: Kind
    var recipientId: String
    var senderId: String
    var updateId: String?
    var goalId: String?
    var message: String
    @ServerTimestamp var createdAt: Timestamp?
    var isRead: Bool
}

enum BucketListError: Error, Equatable {
    case goalNotFound(String)
    case updateNotFound(String)
    case emptyTitle
}

enum GoalCategory: String, CaseIterable {
    case learning = "Learning", fitness = "Fitness", travel = "Travel"
    case creative = "Creative", career = "Career", health = "Health"
}

/// The app's data layer: atomic goal updates, the feed, profile, goal detail, likes and
/// notifications.
final class BucketListRepository: Sendable {
    private let db: Firestore
    /// `in` takes at most 30 values: the feed asks for followed users in chunks.
    static let feedChunkSize = 30

    init(db: Firestore = Firestore.firestore()) {
        self.db = db
    }

    private var goals: CollectionReference { db.collection("goals") }
    private var updates: CollectionReference { db.collection("progress_updates") }
    private var users: CollectionReference { db.collection("threads_users") }
    private var notifications: CollectionReference { db.collection("threads_notifications") }

    // MARK: Goals

    func createGoal(userId: String, title: String, description: String? = nil, category: String?) throws -> String {
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw BucketListError.emptyTitle }
        let goal = Goal(userId: userId, title: title, description: description, category: category, updateCount: 0)
        let ref = try goals.addDocument(from: goal)
        return ref.documentID
    }

    func goal(_ id: String) async throws -> Goal {
        let snapshot = try await goals.document(id).getDocument()
        guard snapshot.exists else { throw BucketListError.goalNotFound(id) }
        return try snapshot.data(as: Goal.self)
    }

    /// The profile's goal cards: a user's goals, most recently updated first.
    func userGoalsQuery(userId: String) -> Query {
        goals.whereField("userId", isEqualTo: userId).order(by: "updatedAt", descending: true)
    }

    func userGoals(userId: String) async throws -> [Goal] {
        try await userGoalsQuery(userId: userId).getDocuments().documents.map { try $0.data(as: Goal.self) }
    }

    /// Deletes a goal and, in the same batches, every progress update posted on it.
    func deleteGoal(_ id: String) async throws {
        let posted = try await updates.whereField("goalId", isEqualTo: id).getDocuments().documents
        // A batch holds at most 500 writes: updates go in chunks, the goal with the last one.
        var refs = posted.map(\.reference)
        repeat {
            let chunk = refs.prefix(499)
            refs.removeFirst(chunk.count)
            let batch = db.batch()
            for ref in chunk { batch.deleteDocument(ref) }
            if refs.isEmpty { batch.deleteDocument(goals.document(id)) }
            try await batch.commit()
        } while !refs.isEmpty
    }

    // MARK: Progress updates

    /// Creates the progress update and increments the goal's `updateCount` in one batch.
    func postProgress(goalId: String, userId: String, content: String, imageUrl: String? = nil) async throws -> String {
        let batch = db.batch()
        let updateRef = updates.document()
        let update = ProgressUpdate(goalId: goalId, userId: userId, content: content, imageUrl: imageUrl,
                                    likes: 0, likedBy: [])
        try batch.setData(from: update, forDocument: updateRef)
        batch.updateData(["updateCount": FieldValue.increment(Int64(1)),
                          "updatedAt": FieldValue.serverTimestamp()],
                         forDocument: goals.document(goalId))
        try await batch.commit()
        return updateRef.documentID
    }

    func update(_ id: String) async throws -> ProgressUpdate? {
        try await updates.document(id).getDocument(as: ProgressUpdate?.self)
    }

    /// Goal detail: the goal's updates in the order they were posted.
    func goalUpdatesQuery(goalId: String) -> Query {
        updates.whereField("goalId", isEqualTo: goalId).order(by: "createdAt")
    }

    func goalUpdates(goalId: String) async throws -> [ProgressUpdate] {
        try await goalUpdatesQuery(goalId: goalId).getDocuments().documents.map { try $0.data(as: ProgressUpdate.self) }
    }

    /// The feed: updates from the users `following`, newest first.
    func feedQueries(following: [String], limit: Int) -> [Query] {
        stride(from: 0, to: following.count, by: Self.feedChunkSize).map { start in
            let chunk = Array(following[start..<min(start + Self.feedChunkSize, following.count)])
            return updates.whereField("userId", in: chunk).order(by: "createdAt", descending: true).limit(to: limit)
        }
    }

    func feed(for userId: String, limit: Int = 20) async throws -> [ProgressUpdate] {
        let following = try await profile(userId).following
        var merged: [ProgressUpdate] = []
        for query in feedQueries(following: following, limit: limit) {
            merged += try await query.getDocuments().documents.map { try $0.data(as: ProgressUpdate.self) }
        }
        return Array(merged.sorted { ($0.createdAt?.dateValue() ?? .distantPast) > ($1.createdAt?.dateValue() ?? .distantPast) }
            .prefix(limit))
    }

    /// A live feed (one listener per chunk of followed users); `onChange` gets the merged page.
    func listenToFeed(following: [String], limit: Int = 20,
                      onChange: @escaping @Sendable ([ProgressUpdate]) -> Void) -> [ListenerRegistration] {
        let queries = feedQueries(following: following, limit: limit)
        let pages = FeedPages(count: queries.count)
        return queries.enumerated().map { index, query in
            query.addSnapshotListener { snapshot, _ in
                guard let snapshot else { return }
                let page = snapshot.documents.compactMap { try? $0.data(as: ProgressUpdate.self) }
                onChange(Array(pages.set(page, at: index).prefix(limit)))
            }
        }
    }

    /// Likes an update once per user and notifies its author, in one transaction.
    func like(updateId: String, by userId: String) async throws -> Bool {
        let ref = updates.document(updateId)
        let notificationRef = notifications.document()
        let liked = try await db.runTransaction { transaction, errorPointer in
            let snapshot: DocumentSnapshot
            do {
                snapshot = try transaction.getDocument(ref)
            } catch let error as NSError {
                errorPointer?.pointee = error
                return nil
            }
            guard let data = snapshot.data() else {
                errorPointer?.pointee = NSError(domain: FirestoreErrorDomain, code: FirestoreErrorCode.notFound.rawValue)
                return nil
            }
            let likedBy = data["likedBy"] as? [String] ?? []
            if likedBy.contains(userId) { return false }
            transaction.updateData([
                "likes": FieldValue.increment(Int64(1)),
                "likedBy": FieldValue.arrayUnion([userId]),
            ], forDocument: ref)
            if let author = data["userId"] as? String, author != userId {
                transaction.setData([
                    "type": "like", "recipientId": author, "senderId": userId,
                    "updateId": updateId, "goalId": data["goalId"] ?? NSNull(),
                    "message": "liked your progress update",
                    "createdAt": FieldValue.serverTimestamp(), "isRead": false,
                ], forDocument: notificationRef)
            }
            return true
        }
        return liked as? Bool ?? false
    }

    /// Takes back a like (no notification is sent for an unlike).
    func unlike(updateId: String, by userId: String) async throws -> Bool {
        let ref = updates.document(updateId)
        let unliked = try await db.runTransaction { transaction, errorPointer in
            do {
                let snapshot = try transaction.getDocument(ref)
                let likedBy = snapshot.data()?["likedBy"] as? [String] ?? []
                guard likedBy.contains(userId) else { return false }
                transaction.updateData([
                    "likes": FieldValue.increment(Int64(-1)),
                    "likedBy": FieldValue.arrayRemove([userId]),
                ], forDocument: ref)
                return true
            } catch let error as NSError {
                errorPointer?.pointee = error
                return nil
            }
        }
        return unliked as? Bool ?? false
    }

    // MARK: Profiles, follows, notifications

    func profile(_ userId: String) async throws -> ThreadsUser {
        try await users.document(userId).getDocument(as: ThreadsUser.self)
    }

    /// Follows `other`: edits one's own following list and notifies them, in one batch.
    func follow(_ other: String, by userId: String) async throws {
        let batch = db.batch()
        batch.updateData(["following": FieldValue.arrayUnion([other])], forDocument: users.document(userId))
        batch.setData(["type": "follow", "recipientId": other, "senderId": userId,
                       "message": "started following you",
                       "createdAt": FieldValue.serverTimestamp(), "isRead": false],
                      forDocument: notifications.document())
        try await batch.commit()
    }

    func unfollow(_ other: String, by userId: String) async throws {
        try await users.document(userId).updateData(["following": FieldValue.arrayRemove([other])])
    }

    /// The Activity tab: one's notifications, newest first.
    func notificationsQuery(for userId: String) -> Query {
        notifications.whereField("recipientId", isEqualTo: userId).order(by: "createdAt", descending: true).limit(to: 50)
    }

    func activity(for userId: String) async throws -> [ActivityNotification] {
        try await notificationsQuery(for: userId).getDocuments().documents.map { try $0.data(as: ActivityNotification.self) }
    }
}

/// The latest page of each feed chunk, merged newest first.
private final class FeedPages: @unchecked Sendable {
    private let lock = NSLock()
    private var pages: [[ProgressUpdate]]

    init(count: Int) { pages = Array(repeating: [], count: count) }

    func set(_ page: [ProgressUpdate], at index: Int) -> [ProgressUpdate] {
        lock.lock()
        defer { lock.unlock() }
        pages[index] = page
        return pages.joined().sorted { ($0.createdAt?.dateValue() ?? .distantPast) > ($1.createdAt?.dateValue() ?? .distantPast) }
    }
}
