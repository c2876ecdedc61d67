// The private journal's (Reflect) data layer against Firestore: users/{uid} with personas,
// posts and mediaItems subcollections. Memories and analytics are computed from post
// metadata on demand (the notes' "metadata-first architecture"): range queries per year for
// "On this day" and "Year in pixels", count/average aggregations for moods.
import FirebaseFirestore
import Foundation

struct Persona: Codable {
    @DocumentID var id: String?
    var name: String
    var color: String
    var icon: String
    var isDefault: Bool?
}

struct PostFlags: Codable, Equatable {
    var gratitude = false
    var rant = false
    var dream = false
}

struct JournalPost: Codable {
    @DocumentID var id: String?
    var caption: String
    var mood: Int
    var experienceRating: Int?
    var createdAt: Timestamp
    var activityTags: [String]
    var peopleTags: [String]
    var location: String?
    var personaId: String
    var mediaItemIds: [String]
    var flags: PostFlags?
}

struct MediaItem: Codable {
    @DocumentID var id: String?
    var type: String // photo | video
    var filename: String
    var thumbnailFilename: String?
    var postId: String?
    var createdAt: Timestamp?
}

/// Search criteria of the filter panel.
struct PostFilter {
    var moodRange: ClosedRange<Int>?
    var activityTags: [String] = []
    var personaId: String?
}

final class JournalRepository: Sendable {
    let db: Firestore
    let uid: String
    let calendar: Calendar

    init(db: Firestore, uid: String, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.db = db
        self.uid = uid
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    private var user: DocumentReference { db.collection("users").document(uid) }
    var posts: CollectionReference { user.collection("posts") }
    var personas: CollectionReference { user.collection("personas") }
    var mediaItems: CollectionReference { user.collection("mediaItems") }

    // MARK: Writing

    func createPersona(name: String, color: String, icon: String) async throws -> String {
        let ref = personas.document()
        try await ref.setData(Firestore.Encoder().encode(Persona(name: name, color: color, icon: icon, isDefault: false)))
        return ref.documentID
    }

    /// A post and its media items, in one batch.
    func createPost(_ post: JournalPost, media: [MediaItem] = []) async throws -> String {
        let postRef = posts.document()
        var post = post
        let batch = db.batch()
        post.mediaItemIds = []
        for var item in media {
            let ref = mediaItems.document()
            item.postId = postRef.documentID
            item.createdAt = post.createdAt
            try batch.setData(from: item, forDocument: ref)
            post.mediaItemIds.append(ref.documentID)
        }
        try batch.setData(from: post, forDocument: postRef)
        try await batch.commit()
        return postRef.documentID
    }

    /// Deletes a post and its media items together.
    func deletePost(_ id: String) async throws {
        let post = try await posts.document(id).getDocument(as: JournalPost.self)
        let batch = db.batch()
        for mediaId in post.mediaItemIds { batch.deleteDocument(mediaItems.document(mediaId)) }
        batch.deleteDocument(posts.document(id))
        try await batch.commit()
    }

    // MARK: Timeline and memories

    func timelineQuery(limit: Int = 20) -> Query {
        posts.order(by: "createdAt", descending: true).limit(to: limit)
    }

    private func posts(from start: Date, to end: Date) async throws -> [JournalPost] {
        try await posts.whereField("createdAt", isGreaterThanOrEqualTo: Timestamp(date: start))
            .whereField("createdAt", isLessThan: Timestamp(date: end))
            .order(by: "createdAt")
            .getDocuments().documents.map { try $0.data(as: JournalPost.self) }
    }

    /// "On this day": posts from this month/day in every earlier year, one range query per year.
    func onThisDay(_ date: Date) async throws -> [Int: [JournalPost]] {
        guard let oldest = try await posts.order(by: "createdAt").limit(to: 1).getDocuments().documents.first else { return [:] }
        let firstYear = calendar.component(.year, from: try oldest.data(as: JournalPost.self).createdAt.dateValue())
        let today = calendar.dateComponents([.year, .month, .day], from: date)
        var memories: [Int: [JournalPost]] = [:]
        guard firstYear < today.year! else { return [:] }
        for year in firstYear..<today.year! {
            guard let start = calendar.date(from: DateComponents(year: year, month: today.month, day: today.day)),
                  calendar.component(.day, from: start) == today.day, // no Feb 29 in this year
                  let end = calendar.date(byAdding: .day, value: 1, to: start) else { continue }
            let found = try await posts(from: start, to: end)
            if !found.isEmpty { memories[year] = found }
        }
        return memories
    }

    /// Year in pixels: each day of `year` with posts → that day's average mood.
    func yearInPixels(_ year: Int) async throws -> [String: Double] {
        let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
        let end = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))!
        let byDay = Dictionary(grouping: try await posts(from: start, to: end)) { post -> String in
            let c = calendar.dateComponents([.year, .month, .day], from: post.createdAt.dateValue())
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        }
        return byDay.mapValues { Double($0.map(\.mood).reduce(0, +)) / Double($0.count) }
    }

    // MARK: Analytics

    /// Posts per mood value 1…10, one count aggregation each (no post is downloaded).
    func moodDistribution() async throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for mood in 1...10 {
            let snapshot = try await posts.whereField("mood", isEqualTo: mood).count.getAggregation(source: .server)
            counts[mood] = snapshot.count.intValue
        }
        return counts
    }

    /// The average mood overall, or within [start, end).
    func averageMood(from start: Date? = nil, to end: Date? = nil) async throws -> (average: Double?, count: Int) {
        var query: Query = posts
        if let start { query = query.whereField("createdAt", isGreaterThanOrEqualTo: Timestamp(date: start)) }
        if let end { query = query.whereField("createdAt", isLessThan: Timestamp(date: end)) }
        let snapshot = try await query.aggregate([AggregateField.average("mood"), AggregateField.count()])
            .getAggregation(source: .server)
        return ((snapshot.get(AggregateField.average("mood")) as? NSNumber)?.doubleValue, snapshot.count.intValue)
    }

    /// Current and longest runs of consecutive days with a post; the current streak is still
    /// alive if the last post was yesterday.
    func postingStreaks(today: Date) async throws -> (current: Int, longest: Int) {
        let dates = try await posts.order(by: "createdAt", descending: true).getDocuments().documents
            .map { try $0.data(as: JournalPost.self).createdAt.dateValue() }
        let days = Array(Set(dates.map { calendar.startOfDay(for: $0) })).sorted(by: >)
        guard let last = days.first else { return (0, 0) }
        var longest = 1, run = 1
        var current = 0
        for (newer, older) in zip(days, days.dropFirst()) {
            if calendar.dateComponents([.day], from: older, to: newer).day == 1 { run += 1 } else { run = 1 }
            longest = max(longest, run)
        }
        let gap = calendar.dateComponents([.day], from: last, to: calendar.startOfDay(for: today)).day ?? 0
        if gap <= 1 {
            current = 1
            for (newer, older) in zip(days, days.dropFirst()) {
                guard calendar.dateComponents([.day], from: older, to: newer).day == 1 else { break }
                current += 1
            }
        }
        return (current, longest)
    }

    /// Most-used activity tags, most frequent first (ties alphabetical).
    func mostUsedTags(limit: Int) async throws -> [(tag: String, count: Int)] {
        let all = try await posts.getDocuments().documents.flatMap { try $0.data(as: JournalPost.self).activityTags }
        let counts = Dictionary(all.map { ($0, 1) }, uniquingKeysWith: +)
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(limit).map { ($0.key, $0.value) }
    }

    // MARK: Search

    func search(_ filter: PostFilter) async throws -> [JournalPost] {
        var query: Query = posts
        if !filter.activityTags.isEmpty { query = query.whereField("activityTags", arrayContainsAny: filter.activityTags) }
        if let persona = filter.personaId { query = query.whereField("personaId", isEqualTo: persona) }
        if let range = filter.moodRange {
            // An inequality's field must be ordered first.
            query = query.whereField("mood", isGreaterThanOrEqualTo: range.lowerBound)
                .whereField("mood", isLessThanOrEqualTo: range.upperBound)
                .order(by: "mood")
        }
        query = query.order(by: "createdAt", descending: true)
        return try await query.getDocuments().documents.map { try $0.data(as: JournalPost.self) }
    }
}
