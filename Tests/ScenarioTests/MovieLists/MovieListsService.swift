// The shared-movie-lists app's Firebase layer (FlickSwiper "Social Lists" notes): the
// FirestoreService for users, publishedLists and follows, and the FollowedListSyncService
// that keeps a local copy of every followed list in sync through one snapshot listener per
// list. Written against `import FirebaseFirestore` only.
import FirebaseFirestore
import Foundation

struct PublishedListItem: Codable, Equatable, Sendable {
    var tmdbID: Int
    var mediaType: String
    var posterPath: String?
    var sortOrder: Int
}

struct PublishedList: Codable {
    @DocumentID var id: String?
    var ownerUID: String
    var ownerDisplayName: String
    var name: String
    var items: [PublishedListItem]
    var isActive: Bool
    @ServerTimestamp var createdAt: Timestamp?
    @ServerTimestamp var updatedAt: Timestamp?
}

struct Follow: Codable {
    @DocumentID var id: String?
    var followerUID: String
    var listID: String
    @ServerTimestamp var followedAt: Timestamp?
}

struct AppUser: Codable {
    var displayName: String
    @ServerTimestamp var createdAt: Timestamp?
}

enum SocialListsError: Error, Equatable {
    case listNotFound(String)
    case cannotFollowOwnList
    case listUnavailable
}

/// Firestore CRUD for users, publishedLists and follows, as the signed-in user `uid`.
final class FirestoreService: Sendable {
    let db: Firestore
    let uid: String
    /// Account deletion writes in batches of at most this many operations.
    static let batchLimit = 500

    init(db: Firestore, uid: String) {
        self.db = db
        self.uid = uid
    }

    private var lists: CollectionReference { db.collection("publishedLists") }
    private var follows: CollectionReference { db.collection("follows") }
    static func followID(uid: String, listID: String) -> String { "\(uid)_\(listID)" }

    // MARK: Users

    func createUser(displayName: String) async throws {
        try db.collection("users").document(uid).setData(from: AppUser(displayName: displayName))
    }

    func user() async throws -> AppUser? {
        try await db.collection("users").document(uid).getDocument(as: AppUser?.self)
    }

    // MARK: Publishing (ListPublisher)

    /// Publishes a list: a new document; its id goes into the share link.
    func publish(name: String, ownerDisplayName: String, items: [PublishedListItem]) throws -> String {
        let list = PublishedList(ownerUID: uid, ownerDisplayName: ownerDisplayName, name: name,
                                 items: items, isActive: true)
        return try lists.addDocument(from: list).documentID
    }

    /// Pushes the local list's current name and entries (fire-and-forget after each save).
    func sync(listID: String, name: String, items: [PublishedListItem]) async throws {
        try await lists.document(listID).updateData([
            "name": name,
            "items": items.map { ["tmdbID": $0.tmdbID, "mediaType": $0.mediaType,
                                  "posterPath": $0.posterPath.map { $0 as Any } ?? NSNull(), "sortOrder": $0.sortOrder] as [String: Any] },
            "updatedAt": FieldValue.serverTimestamp(),
        ])
    }

    /// Soft delete: followers keep a frozen copy; re-publishing creates a new document.
    func unpublish(listID: String) async throws {
        try await lists.document(listID).updateData(["isActive": false, "updatedAt": FieldValue.serverTimestamp()])
    }

    /// What a shared link opens (works signed out).
    func fetchList(id: String) async throws -> PublishedList {
        let snapshot = try await lists.document(id).getDocument()
        guard snapshot.exists else { throw SocialListsError.listNotFound(id) }
        return try snapshot.data(as: PublishedList.self)
    }

    func myLists() async throws -> [PublishedList] {
        try await lists.whereField("ownerUID", isEqualTo: uid).getDocuments().documents
            .map { try $0.data(as: PublishedList.self) }
    }

    // MARK: Following

    func follow(listID: String) async throws {
        let list = try await fetchList(id: listID)
        // Self-follow is blocked in the client (no Follow button on own lists) and by the rules.
        guard list.ownerUID != uid else { throw SocialListsError.cannotFollowOwnList }
        guard list.isActive else { throw SocialListsError.listUnavailable }
        try follows.document(Self.followID(uid: uid, listID: listID))
            .setData(from: Follow(followerUID: uid, listID: listID))
    }

    func unfollow(listID: String) async throws {
        try await follows.document(Self.followID(uid: uid, listID: listID)).delete()
    }

    /// The user's follows, most recent first (composite index followerUID ASC + followedAt DESC).
    func followedLists() async throws -> [Follow] {
        try await follows.whereField("followerUID", isEqualTo: uid).order(by: "followedAt", descending: true)
            .getDocuments().documents.map { try $0.data(as: Follow.self) }
    }

    // MARK: Account deletion (AuthService.deleteAccount)

    /// a. every published list → isActive=false; b. every follow deleted; c. users/{uid} deleted.
    func deleteAccount() async throws {
        let myLists = try await lists.whereField("ownerUID", isEqualTo: uid).getDocuments().documents
        for chunk in myLists.chunked(Self.batchLimit) {
            let batch = db.batch()
            for list in chunk {
                batch.updateData(["isActive": false, "updatedAt": FieldValue.serverTimestamp()], forDocument: list.reference)
            }
            try await batch.commit()
        }
        let myFollows = try await follows.whereField("followerUID", isEqualTo: uid).getDocuments().documents
        for chunk in myFollows.chunked(Self.batchLimit) {
            let batch = db.batch()
            for follow in chunk { batch.deleteDocument(follow.reference) }
            try await batch.commit()
        }
        try await db.collection("users").document(uid).delete()
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

/// The local (SwiftData in the app) copy of a followed list.
struct FollowedList: Equatable, Sendable {
    var firestoreDocID: String
    var ownerUID: String
    var ownerDisplayName: String
    var name: String
    var isActive: Bool
    var items: [PublishedListItem]
}

/// One snapshot listener per followed list; each snapshot rewrites the local copy, and a
/// deactivated (or vanished) list is kept but marked inactive.
final class FollowedListSyncService: @unchecked Sendable { // @MainActor in the app; a lock here
    private let db: Firestore
    private struct State {
        var local: [String: FollowedList] = [:]
        var listeners: [String: ListenerRegistration] = [:]
        var following: Set<String> = []
    }
    private let lock = NSLock()
    private var stateValue = State()
    private var state: LockedState { LockedState(owner: self) }

    private struct LockedState {
        let owner: FollowedListSyncService
        func withLock<T>(_ body: (inout State) -> T) -> T {
            owner.lock.lock()
            defer { owner.lock.unlock() }
            return body(&owner.stateValue)
        }
    }

    init(db: Firestore) { self.db = db }

    var followedLists: [String: FollowedList] { state.withLock { $0.local } }

    func attachListener(for listID: String) {
        state.withLock { _ = $0.following.insert(listID) }
        let registration = db.collection("publishedLists").document(listID).addSnapshotListener { [weak self] snapshot, error in
            guard let self, let snapshot, error == nil else { return }
            self.apply(snapshot, listID: listID)
        }
        state.withLock { $0.listeners[listID]?.remove(); $0.listeners[listID] = registration }
    }

    func detachListener(for listID: String) {
        state.withLock {
            $0.listeners.removeValue(forKey: listID)?.remove()
            $0.following.remove(listID)
            $0.local[listID] = nil
        }
    }

    /// Called on sign-in: one listener per locally followed list.
    func activate(listIDs: [String]) { listIDs.forEach(attachListener) }

    /// Called on sign-out and before account deletion.
    func deactivate() {
        state.withLock {
            $0.listeners.values.forEach { $0.remove() }
            $0.listeners = [:]
            $0.following = []
        }
    }

    var listenerCount: Int { state.withLock { $0.listeners.count } }

    private func apply(_ snapshot: DocumentSnapshot, listID: String) {
        guard let list = try? snapshot.data(as: PublishedList.self) else {
            state.withLock { if $0.following.contains(listID) { $0.local[listID]?.isActive = false } }
            return
        }
        state.withLock { state in
            guard state.following.contains(listID) else { return } // unfollowed meanwhile
            state.local[listID] = FollowedList(firestoreDocID: listID, ownerUID: list.ownerUID,
                                               ownerDisplayName: list.ownerDisplayName, name: list.name,
                                               isActive: list.isActive,
                                               items: list.items.sorted { $0.sortOrder < $1.sortOrder })
        }
    }
}
