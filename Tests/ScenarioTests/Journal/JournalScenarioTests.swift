import FirebaseFirestore
import Foundation
import HearthLock
import Testing

/// The private journal on Seeds/journal, Rules/journal.rules and its indexes, enforced.
/// "Today" is 2025-05-14 (UTC); jo has journaled since 2022-05-14, kai since 2024.
@Suite("Private journal app scenarios")
struct JournalScenarioTests {
    static let today = ISO8601DateFormatter().date(from: "2025-05-14T20:00:00Z")!
    let clock = ManualClock(now: Timestamp(date: JournalScenarioTests.today))

    func open() throws -> Firestore { try DocumentedApp.journal.open(clock: clock) }
    func jo(_ db: Firestore) -> JournalRepository { JournalRepository(db: db.authenticated(uid: "jo"), uid: "jo") }

    /// jo's posts read as admin: the expected values of the analytics.
    func allPosts(_ db: Firestore, _ uid: String = "jo") async throws -> [JournalPost] {
        try await db.collection("users/\(uid)/posts").getDocuments().documents.map { try $0.data(as: JournalPost.self) }
    }

    func newPost(mood: Int, tags: [String] = ["running"], persona: String = "p-personal", at date: Date = today) -> JournalPost {
        JournalPost(caption: "Evening run along the river", mood: mood, experienceRating: 4, createdAt: Timestamp(date: date),
                    activityTags: tags, peopleTags: ["Sam"], location: "Lisbon", personaId: persona, mediaItemIds: [],
                    flags: PostFlags(gratitude: true))
    }

    @Test("On this day: one range query per earlier year; day boundaries are exact")
    func onThisDay() async throws {
        let db = try open()
        let memories = try await jo(db).onThisDay(Self.today)
        #expect(memories.keys.sorted() == [2022, 2023, 2024])
        #expect(memories[2022]?.map(\.id) == ["post-20220514-1200"])
        #expect(memories[2023]?.map(\.id) == ["post-20230514-0830", "post-20230514-2115"])
        // 2024-05-13 23:30 and 2024-05-15 00:10 are not "this day".
        #expect(memories[2024]?.map(\.id) == ["post-20240514-1900"])
        // kai started in 2024 and has nothing from a May 14th.
        #expect(try await JournalRepository(db: db.authenticated(uid: "kai"), uid: "kai").onThisDay(Self.today).isEmpty)
    }

    @Test("Year in pixels: every day of the year with a post, coloured by its mood")
    func yearInPixels() async throws {
        let db = try open()
        let pixels = try await jo(db).yearInPixels(2024)
        let expected = try await allPosts(db).filter { $0.createdAt.dateValue().formatted(.iso8601.year()) == "2024" }
        #expect(pixels.count == 22 && expected.count == 22)
        #expect(pixels["2024-05-14"] == Double(expected.first { $0.id == "post-20240514-1900" }!.mood))
        #expect(pixels["2024-05-13"] != nil && pixels["2024-05-15"] != nil && pixels["2024-05-16"] == nil)
        #expect(pixels.keys.allSatisfy { $0.hasPrefix("2024-") })
    }

    @Test("mood distribution (count per mood) and average mood (aggregations)")
    func moodAnalytics() async throws {
        let db = try open()
        let journal = jo(db)
        let distribution = try await journal.moodDistribution()
        #expect(distribution == [1: 1, 2: 2, 3: 3, 4: 10, 5: 14, 6: 12, 7: 15, 8: 8, 9: 6, 10: 1])
        let overall = try await journal.averageMood()
        #expect(overall.count == 72)
        #expect(abs((overall.average ?? 0) - 429.0 / 72.0) < 1e-9)

        let year = try await journal.averageMood(from: ISO8601DateFormatter().date(from: "2024-01-01T00:00:00Z")!,
                                                 to: ISO8601DateFormatter().date(from: "2025-01-01T00:00:00Z")!)
        #expect(year.count == 22 && abs((year.average ?? 0) - 136.0 / 22.0) < 1e-9)

        // A new post shifts the distribution and the average.
        _ = try await journal.createPost(newPost(mood: 10))
        #expect(try await journal.moodDistribution()[10] == 2)
        #expect(try await journal.averageMood().count == 73)
        // An empty journal has no average.
        let lee = JournalRepository(db: db.authenticated(uid: "lee"), uid: "lee")
        let none = try await lee.averageMood()
        #expect(none.average == nil && none.count == 0)
    }

    @Test("posting streaks: current and longest; posting today extends the current one")
    func postingStreaks() async throws {
        let db = try open()
        let journal = jo(db)
        // Posts on 9–13 May: yesterday's post keeps the streak alive.
        #expect(try await journal.postingStreaks(today: Self.today) == (5, 5))
        _ = try await journal.createPost(newPost(mood: 7))
        #expect(try await journal.postingStreaks(today: Self.today) == (6, 6))
        // Two days later without a post, the current streak is broken; the record stays.
        let later = Self.today.addingTimeInterval(2 * 86_400)
        #expect(try await journal.postingStreaks(today: later) == (0, 6))
    }

    @Test("most-used tags")
    func mostUsedTags() async throws {
        let db = try open()
        let top = try await jo(db).mostUsedTags(limit: 3)
        #expect(top.map(\.tag) == ["gaming", "cooking", "yoga"])
        #expect(top.map(\.count) == [23, 21, 19])
    }

    @Test("search and filter: mood range, tags (array-contains-any) and persona, newest first")
    func searchAndFilter() async throws {
        let db = try open()
        let journal = jo(db)
        let all = try await allPosts(db)

        let happy = try await journal.search(PostFilter(moodRange: 8...10))
        #expect(happy.count == 15 && happy.allSatisfy { (8...10).contains($0.mood) })
        #expect(happy.map(\.mood) == happy.map(\.mood).sorted())

        let outdoors = try await journal.search(PostFilter(activityTags: ["hiking", "travel"]))
        #expect(Set(outdoors.map(\.id)) == Set(all.filter { !Set($0.activityTags).isDisjoint(with: ["hiking", "travel"]) }.map(\.id)))
        #expect(outdoors.count == 21)
        let dates = outdoors.map { $0.createdAt.dateValue() }
        #expect(dates == dates.sorted(by: >))

        let travel = try await journal.search(PostFilter(personaId: "p-travel"))
        #expect(travel.count == 24 && travel.allSatisfy { $0.personaId == "p-travel" })
    }

    @Test("the timeline listener shows a new post with its media; deleting removes both in one batch")
    func timelineAndMedia() async throws {
        let db = try open()
        let joDB = db.authenticated(uid: "jo")
        let journal = JournalRepository(db: joDB, uid: "jo")
        let heads = HearthMutex<[String?]>([])
        let registration = journal.timelineQuery(limit: 5).addSnapshotListener { snapshot, _ in
            heads.withLock { $0.append(snapshot?.documents.first?.documentID) }
        }
        defer { registration.remove() }
        await joDB.waitUntilIdle()
        #expect(heads.withLock { $0 } == ["post-20250513-2000"])

        let id = try await journal.createPost(newPost(mood: 9), media: [
            MediaItem(type: "photo", filename: "river.heic", thumbnailFilename: "river-thumb.jpg"),
            MediaItem(type: "video", filename: "run.mov"),
        ])
        await joDB.waitUntilIdle()
        #expect(heads.withLock { $0 } == ["post-20250513-2000", id])
        let post = try await journal.posts.document(id).getDocument(as: JournalPost.self)
        #expect(post.mediaItemIds.count == 2 && post.flags == PostFlags(gratitude: true))
        let media = try await journal.mediaItems.whereField("postId", isEqualTo: id).getDocuments()
        #expect(Set(media.documents.map(\.documentID)) == Set(post.mediaItemIds))

        try await journal.deletePost(id)
        await joDB.waitUntilIdle()
        #expect(heads.withLock { $0.last } == "post-20250513-2000")
        #expect(try await journal.mediaItems.whereField("postId", isEqualTo: id).getDocuments().isEmpty)
        #expect(try await journal.mediaItems.getDocuments().count == 18)
    }

    @Test("personas: a new persona can be used for posts; another user's persona cannot")
    func personas() async throws {
        let db = try open()
        let kai = JournalRepository(db: db.authenticated(uid: "kai"), uid: "kai")
        // kai has only "p-personal"; jo's "p-work" does not exist in kai's journal.
        await expectPermissionDenied { _ = try await kai.createPost(newPost(mood: 5, persona: "p-work")) }
        let persona = try await kai.createPersona(name: "Work", color: "#336699", icon: "briefcase.fill")
        let id = try await kai.createPost(newPost(mood: 5, persona: persona))
        #expect(try await kai.search(PostFilter(personaId: persona)).map(\.id) == [id])
    }

    @Test("a malicious client cannot read, query or write someone else's journal, nor store invalid posts")
    func maliciousClient() async throws {
        let db = try open()
        let kai = db.authenticated(uid: "kai")
        let josPosts = kai.collection("users/jo/posts")
        await expectPermissionDenied { _ = try await josPosts.document("post-20230514-0830").getDocument() }
        await expectPermissionDenied { _ = try await josPosts.order(by: "createdAt", descending: true).limit(to: 20).getDocuments() }
        await expectPermissionDenied { _ = try await josPosts.count.getAggregation(source: .server) }
        await expectPermissionDenied { _ = try await kai.collectionGroup("posts").whereField("mood", isEqualTo: 10).getDocuments() }
        await expectPermissionDenied { _ = try await kai.collection("users/jo/personas").getDocuments() }
        await expectPermissionDenied { try await josPosts.document("post-20230514-0830").updateData(["mood": 1]) }
        await expectPermissionDenied { try await josPosts.document("post-20230514-0830").delete() }
        await expectPermissionDenied { try await kai.collection("users").document("jo").updateData(["name": "Kai was here"]) }
        await expectPermissionDenied { _ = try await JournalRepository(db: kai, uid: "jo").createPost(newPost(mood: 5)) }
        let own = JournalRepository(db: kai, uid: "kai")
        await expectPermissionDenied { _ = try await own.createPost(newPost(mood: 11)) }
        await expectPermissionDenied { _ = try await own.createPost(newPost(mood: 0)) }
        await expectPermissionDenied {
            try await own.mediaItems.addDocument(data: ["type": "audio", "filename": "x.m4a"])
        }
        await expectPermissionDenied { _ = try await db.unauthenticated().collection("users/jo/posts").getDocuments() }
        #expect(try await allPosts(db).count == 72)
        #expect(try await allPosts(db, "kai").count == 20)
    }
}
