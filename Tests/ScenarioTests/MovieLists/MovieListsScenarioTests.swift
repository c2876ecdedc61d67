import FirebaseFirestore
import Foundation
import Testing

/// Shared movie lists on Seeds/movielists, Rules/movielists.rules and the documented index
/// (follows: followerUID ASC + followedAt DESC), enforced.
@Suite("Shared movie lists app scenarios")
struct MovieListsScenarioTests {
    /// 2026-03-10T00:00:00Z, after every seeded list and follow.
    let clock = ManualClock(now: Timestamp(seconds: 1_773_100_800, nanoseconds: 0))

    func open() throws -> Firestore { try DocumentedApp.movielists.open(clock: clock) }

    func service(_ db: Firestore, _ uid: String) -> FirestoreService {
        FirestoreService(db: db.authenticated(uid: uid), uid: uid)
    }

    let items = [
        PublishedListItem(tmdbID: 603, mediaType: "movie", posterPath: "/matrix.jpg", sortOrder: 0),
        PublishedListItem(tmdbID: 1399, mediaType: "tv", posterPath: nil, sortOrder: 1),
    ]

    @Test("publish: a new document whose id is the share link; anyone with the link reads it")
    func publish() async throws {
        let db = try open()
        let mira = service(db, "mira")
        let id = try mira.publish(name: "Weekend Picks", ownerDisplayName: "Mira Sato", items: items)
        let viaLink = try await FirestoreService(db: db.unauthenticated(), uid: "").fetchList(id: id)
        #expect(viaLink.id == id && viaLink.name == "Weekend Picks" && viaLink.ownerUID == "mira")
        #expect(viaLink.items == items && viaLink.isActive)
        #expect(viaLink.updatedAt?.seconds == 1_773_100_800 && viaLink.createdAt == viaLink.updatedAt)
        #expect(try await mira.myLists().count == 6)
        await #expect(throws: SocialListsError.listNotFound("gone")) {
            _ = try await mira.fetchList(id: "gone")
        }
    }

    @Test("follow: a follows doc (id followerUID_listID), listed newest first; self-follow and inactive lists refused")
    func follow() async throws {
        let db = try open()
        let mira = service(db, "mira")
        let seeded = try await mira.followedLists()
        #expect(seeded.map(\.listID) == ["pl-quinn-4", "pl-quinn-1", "pl-pete-3", "pl-pete-1", "pl-olivia-5", "pl-olivia-4", "pl-noah-3"])

        clock.advance(by: 30)
        try await mira.follow(listID: "pl-noah-1")
        let follows = try await mira.followedLists()
        #expect(follows.count == 8)
        let newest = try #require(follows.first)
        #expect(newest.id == "mira_pl-noah-1" && newest.listID == "pl-noah-1" && newest.followerUID == "mira")
        #expect(newest.followedAt?.seconds == 1_773_100_830)

        await #expect(throws: SocialListsError.cannotFollowOwnList) { try await mira.follow(listID: "pl-mira-2") }
        await #expect(throws: SocialListsError.listUnavailable) { try await mira.follow(listID: "pl-noah-4") }
        // The same attempts without the app's checks are refused by the rules.
        let miraDB = db.authenticated(uid: "mira")
        await expectPermissionDenied {
            try await miraDB.collection("follows").document("mira_pl-mira-2").setData(
                ["followerUID": "mira", "listID": "pl-mira-2", "followedAt": FieldValue.serverTimestamp()])
        }
        await expectPermissionDenied {
            try await miraDB.collection("follows").document("mira_pl-noah-4").setData(
                ["followerUID": "mira", "listID": "pl-noah-4", "followedAt": FieldValue.serverTimestamp()])
        }
        #expect(try await mira.followedLists().count == 8)
    }

    @Test("the sync service's listener keeps the local copy in step with the owner's edits")
    func syncEdits() async throws {
        let db = try open()
        let miraDB = db.authenticated(uid: "mira")
        let sync = FollowedListSyncService(db: miraDB)
        sync.activate(listIDs: try await service(db, "mira").followedLists().map(\.listID))
        defer { sync.deactivate() }
        await miraDB.waitUntilIdle()
        #expect(sync.followedLists.count == 7)
        #expect(sync.followedLists["pl-pete-3"]?.isActive == false) // followed before it was unpublished
        #expect(sync.followedLists["pl-noah-3"]?.name == "Mind Benders")

        let noah = service(db, "noah")
        clock.advance(by: 60)
        try await noah.sync(listID: "pl-noah-3", name: "Mind Benders (2026)", items: items.reversed().enumerated().map {
            var item = $0.element; item.sortOrder = $0.offset; return item
        })
        await miraDB.waitUntilIdle()
        let copy = try #require(sync.followedLists["pl-noah-3"])
        #expect(copy.name == "Mind Benders (2026)" && copy.isActive)
        #expect(copy.items.map(\.tmdbID) == [1399, 603])
        #expect(copy.ownerDisplayName == "Noah Fischer")
    }

    @Test("unpublish: followers' copies freeze as inactive; re-publishing creates a new document")
    func unpublishAndRepublish() async throws {
        let db = try open()
        let oliviaDB = db.authenticated(uid: "mira")
        let sync = FollowedListSyncService(db: oliviaDB)
        sync.attachListener(for: "pl-olivia-4")
        defer { sync.deactivate() }
        await oliviaDB.waitUntilIdle()
        #expect(sync.followedLists["pl-olivia-4"]?.isActive == true)
        let frozenItems = try #require(sync.followedLists["pl-olivia-4"]?.items)

        let olivia = service(db, "olivia")
        try await olivia.unpublish(listID: "pl-olivia-4")
        await oliviaDB.waitUntilIdle()
        let frozen = try #require(sync.followedLists["pl-olivia-4"])
        #expect(frozen.isActive == false && frozen.items == frozenItems)

        let name = try await olivia.fetchList(id: "pl-olivia-4").name
        let newID = try olivia.publish(name: name, ownerDisplayName: "Olivia Brown", items: frozenItems)
        #expect(newID != "pl-olivia-4")
        #expect(try await olivia.fetchList(id: newID).isActive)
        #expect(try await olivia.fetchList(id: "pl-olivia-4").isActive == false)
        // Turning the old document back on is not how re-publishing works.
        await expectPermissionDenied {
            try await db.authenticated(uid: "olivia").collection("publishedLists").document("pl-olivia-4")
                .updateData(["isActive": true, "updatedAt": FieldValue.serverTimestamp()])
        }
    }

    @Test("unfollow: the follows doc is deleted and the listener detached; later edits don't arrive")
    func unfollow() async throws {
        let db = try open()
        let miraDB = db.authenticated(uid: "mira")
        let mira = FirestoreService(db: miraDB, uid: "mira")
        let sync = FollowedListSyncService(db: miraDB)
        sync.activate(listIDs: try await mira.followedLists().map(\.listID))
        defer { sync.deactivate() }
        await miraDB.waitUntilIdle()

        try await mira.unfollow(listID: "pl-quinn-1")
        sync.detachListener(for: "pl-quinn-1")
        #expect(sync.listenerCount == 6 && sync.followedLists["pl-quinn-1"] == nil)
        #expect(try await db.collection("follows").document("mira_pl-quinn-1").getDocument().exists == false)
        #expect(try await mira.followedLists().map(\.listID).contains("pl-quinn-1") == false)

        clock.advance(by: 5)
        try await service(db, "quinn").sync(listID: "pl-quinn-1", name: "Oscar Winners 2026", items: items)
        await miraDB.waitUntilIdle()
        #expect(sync.followedLists["pl-quinn-1"] == nil)
    }

    @Test("account deletion: all lists inactive, all follows deleted, user doc deleted; followers' copies freeze")
    func accountDeletion() async throws {
        let db = try open()
        let miraDB = db.authenticated(uid: "mira")
        let sync = FollowedListSyncService(db: miraDB)
        sync.attachListener(for: "pl-noah-3")
        defer { sync.deactivate() }
        await miraDB.waitUntilIdle()
        #expect(sync.followedLists["pl-noah-3"]?.isActive == true)
        let othersFollowsBefore = try await db.collection("follows").whereField("followerUID", isNotEqualTo: "noah").getDocuments().count

        try await service(db, "noah").deleteAccount()
        await miraDB.waitUntilIdle()

        let noahsLists = try await db.collection("publishedLists").whereField("ownerUID", isEqualTo: "noah").getDocuments()
        #expect(noahsLists.count == 5)
        #expect(noahsLists.documents.allSatisfy { $0.data()["isActive"] as? Bool == false })
        #expect(try await db.collection("follows").whereField("followerUID", isEqualTo: "noah").getDocuments().isEmpty)
        #expect(try await db.collection("users").document("noah").getDocument().exists == false)
        #expect(try await db.collection("follows").whereField("followerUID", isNotEqualTo: "noah").getDocuments().count
                == othersFollowsBefore)
        #expect(sync.followedLists["pl-noah-3"]?.isActive == false)
        #expect(sync.followedLists["pl-noah-3"]?.name == "Mind Benders")
    }

    @Test("a malicious client cannot edit, unpublish, delete or follow on behalf of others")
    func maliciousClient() async throws {
        let db = try open()
        let mallory = db.authenticated(uid: "mira")
        let noahsList = mallory.collection("publishedLists").document("pl-noah-3")
        await expectPermissionDenied {
            try await noahsList.updateData(["name": "pwned", "updatedAt": FieldValue.serverTimestamp()])
        }
        await expectPermissionDenied {
            try await noahsList.updateData(["isActive": false, "updatedAt": FieldValue.serverTimestamp()])
        }
        await expectPermissionDenied { try await noahsList.delete() }
        await expectPermissionDenied { try await mallory.collection("publishedLists").document("pl-mira-1").delete() }
        await expectPermissionDenied {
            try await mallory.collection("publishedLists").addDocument(data: [
                "ownerUID": "noah", "ownerDisplayName": "Noah Fischer", "name": "Fake", "items": [],
                "isActive": true, "updatedAt": FieldValue.serverTimestamp()])
        }
        await expectPermissionDenied { _ = try await mallory.collection("publishedLists").getDocuments() }
        await expectPermissionDenied {
            _ = try await mallory.collection("follows").whereField("listID", isEqualTo: "pl-mira-1").getDocuments()
        }
        await expectPermissionDenied {
            try await mallory.collection("follows").document("noah_pl-olivia-1").setData(
                ["followerUID": "noah", "listID": "pl-olivia-1", "followedAt": FieldValue.serverTimestamp()])
        }
        await expectPermissionDenied {
            try await mallory.collection("follows").document("mira_pl-noah-3").updateData(["listID": "pl-noah-1"])
        }
        await expectPermissionDenied { try await mallory.collection("follows").document("noah_pl-mira-1").delete() }
        await expectPermissionDenied { _ = try await mallory.collection("users").document("noah").getDocument() }
        await expectPermissionDenied {
            try await FirestoreService(db: mallory, uid: "noah").deleteAccount()
        }
        #expect(try await db.collection("publishedLists").document("pl-noah-3").getDocument().data()?["name"] as? String
                == "Mind Benders")
    }
}
