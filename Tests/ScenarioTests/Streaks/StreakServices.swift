// SwiftfulGamificationFirebase as its status notes describe it: the app streams the current
// streak from users/{uid}/streaks/{streakId}, adds events under it, reads and deletes them;
// the calculation (the `calculateStreak` Cloud Function) runs server-side with admin access
// and is the only writer of the computed fields and of freezes.
import FirebaseFirestore
import Foundation

/// Type-safe metadata values (GamificationDictionaryValue).
enum GamificationDictionaryValue: Codable, Equatable, Sendable {
    case string(String), bool(Bool), int(Int), double(Double)

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Bool.self) { self = .bool(v) }
        else if let v = try? c.decode(Int.self) { self = .int(v) }
        else if let v = try? c.decode(Double.self) { self = .double(v) }
        else { self = .string(try c.decode(String.self)) }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        case .int(let v): try c.encode(v)
        case .double(let v): try c.encode(v)
        }
    }
}

struct StreakEvent: Codable, Equatable, Sendable {
    var id: String
    var timestamp: Timestamp
    var timezone: String
    var isFreeze: Bool
    var metadata: [String: GamificationDictionaryValue]

    static func now(_ date: Date, metadata: [String: GamificationDictionaryValue] = [:]) -> StreakEvent {
        StreakEvent(id: UUID().uuidString, timestamp: Timestamp(date: date), timezone: "UTC", isFreeze: false, metadata: metadata)
    }
}

/// CurrentStreakData: every field optional but the id (migration safety, as the notes say).
struct CurrentStreakData: Codable, Equatable, Sendable {
    var id: String
    var userId: String?
    var currentStreak: Int?
    var longestStreak: Int?
    var lastEventDate: Timestamp?
    var lastEventTimezone: String?
    var streakStartDate: Timestamp?
    var totalEvents: Int?
    var freezesRemaining: Int?
    var freezesUsed: Int?
    var updatedAt: Timestamp?

    static func blank(id: String) -> CurrentStreakData { CurrentStreakData(id: id) }
}

struct StreakFreeze: Codable, Equatable, Sendable {
    var id: String
    var earnedDate: Timestamp?
    var usedDate: Timestamp?
}

struct StreakConfiguration: Sendable {
    var streakKey: String = "daily"
    var calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
    var autoConsumeFreeze = true
}

private func streakRef(_ db: Firestore, _ userId: String, _ key: String) -> DocumentReference {
    db.collection("users").document(userId).collection("streaks").document(key)
}

/// The client side (FirebaseRemoteStreakService).
final class FirebaseRemoteStreakService: Sendable {
    let db: Firestore
    let configuration: StreakConfiguration
    /// The callable Cloud Function; here the server-side code called in-process.
    let calculateStreak: StreakCalculationFunction

    init(db: Firestore, configuration: StreakConfiguration = StreakConfiguration(), calculateStreak: StreakCalculationFunction) {
        self.db = db
        self.configuration = configuration
        self.calculateStreak = calculateStreak
    }

    private func events(_ userId: String) -> CollectionReference {
        streakRef(db, userId, configuration.streakKey).collection("events")
    }

    func streamCurrentStreak(userId: String) -> AsyncThrowingStream<CurrentStreakData?, Error> {
        let ref = streakRef(db, userId, configuration.streakKey)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await snapshot in ref.snapshots {
                        continuation.yield(snapshot.exists ? try snapshot.data(as: CurrentStreakData.self) : nil)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Logs the event, then has the server recompute the streak.
    func addEvent(userId: String, event: StreakEvent) async throws {
        try await events(userId).document(event.id).setData(Firestore.Encoder().encode(event))
        try await calculateStreak.onEventAdded(userId: userId, streakKey: configuration.streakKey, eventId: event.id)
    }

    func getAllEvents(userId: String) async throws -> [StreakEvent] {
        try await events(userId).order(by: "timestamp", descending: true).getDocuments().documents
            .map { try $0.data(as: StreakEvent.self) }
    }

    /// Deletes every event in batches of 500, then has the server recompute (to blank).
    func deleteAllEvents(userId: String) async throws {
        while true {
            let page = try await events(userId).limit(to: 500).getDocuments()
            if page.isEmpty { break }
            let batch = db.batch()
            for document in page.documents { batch.deleteDocument(document.reference) }
            try await batch.commit()
        }
        try await calculateStreak.recalculate(userId: userId, streakKey: configuration.streakKey)
    }

    /// Unused freezes, oldest first.
    func availableFreezes(userId: String) async throws -> [StreakFreeze] {
        try await streakRef(db, userId, configuration.streakKey).collection("freezes")
            .whereField("usedDate", isEqualTo: NSNull()).order(by: "earnedDate").getDocuments().documents
            .map { try $0.data(as: StreakFreeze.self) }
    }
}

/// The server-side calculation with admin access: incremental in a transaction on each new
/// event (auto-consuming freezes for missed days), or a full recomputation from the events.
final class StreakCalculationFunction: Sendable {
    let admin: Firestore
    let calendar: Calendar

    init(admin: Firestore, calendar: Calendar = StreakConfiguration().calendar) {
        self.admin = admin
        self.calendar = calendar
    }

    func days(from a: Date, to b: Date) -> Int {
        calendar.dateComponents([.day], from: calendar.startOfDay(for: a), to: calendar.startOfDay(for: b)).day!
    }

    func onEventAdded(userId: String, streakKey: String, eventId: String) async throws {
        let ref = streakRef(admin, userId, streakKey)
        let eventRef = ref.collection("events").document(eventId)
        // Candidate freezes, oldest first; each is re-read inside the transaction.
        let freezeRefs = try await ref.collection("freezes").whereField("usedDate", isEqualTo: NSNull())
            .order(by: "earnedDate").getDocuments().documents.map(\.reference)
        let calendar = self.calendar
        _ = try await admin.runTransaction { transaction, errorPointer in
            do {
                let snapshot = try transaction.getDocument(ref)
                var streak = snapshot.exists ? try snapshot.data(as: CurrentStreakData.self) : .blank(id: streakKey)
                let event = try transaction.getDocument(eventRef).data(as: StreakEvent.self)
                let freezes = try freezeRefs.map { try transaction.getDocument($0) }
                    .filter { $0.exists && ($0.data()?["usedDate"] is NSNull || $0.data()?["usedDate"] == nil) }
                let eventDate = event.timestamp.dateValue()
                streak.userId = userId
                streak.totalEvents = (streak.totalEvents ?? 0) + 1
                if let last = streak.lastEventDate?.dateValue() {
                    let gap = self.days(from: last, to: eventDate)
                    if gap == 1 {
                        streak.currentStreak = (streak.currentStreak ?? 0) + 1
                    } else if gap > 1 {
                        let missed = gap - 1
                        if missed <= freezes.count {
                            for (k, freeze) in freezes.prefix(missed).enumerated() {
                                let day = calendar.date(byAdding: .day, value: k + 1, to: calendar.startOfDay(for: last))!
                                transaction.updateData(["usedDate": Timestamp(date: day)], forDocument: freeze.reference)
                            }
                            streak.freezesUsed = (streak.freezesUsed ?? 0) + missed
                            streak.currentStreak = (streak.currentStreak ?? 0) + 1
                        } else {
                            streak.currentStreak = 1
                            streak.streakStartDate = Timestamp(date: calendar.startOfDay(for: eventDate))
                        }
                        streak.freezesRemaining = freezes.count - (missed <= freezes.count ? missed : 0)
                    } else if (streak.currentStreak ?? 0) == 0 {
                        streak.currentStreak = 1
                    }
                    if gap >= 0 {
                        streak.lastEventDate = event.timestamp
                        streak.lastEventTimezone = event.timezone
                    }
                } else {
                    streak.currentStreak = 1
                    streak.streakStartDate = Timestamp(date: calendar.startOfDay(for: eventDate))
                    streak.lastEventDate = event.timestamp
                    streak.lastEventTimezone = event.timezone
                    streak.freezesRemaining = freezes.count
                }
                streak.longestStreak = max(streak.longestStreak ?? 0, streak.currentStreak ?? 0)
                streak.updatedAt = event.timestamp
                try transaction.setData(from: streak, forDocument: ref)
                return nil
            } catch let error as NSError {
                errorPointer?.pointee = error
                return nil
            }
        }
    }

    /// Recomputes the streak from all events and used freezes (after deletions, or to audit).
    @discardableResult
    func recalculate(userId: String, streakKey: String) async throws -> CurrentStreakData {
        let ref = streakRef(admin, userId, streakKey)
        let events = try await ref.collection("events").order(by: "timestamp").getDocuments().documents
            .map { try $0.data(as: StreakEvent.self) }
        let freezes = try await ref.collection("freezes").getDocuments().documents.map { try $0.data(as: StreakFreeze.self) }
        let frozenDays = Set(freezes.compactMap { $0.usedDate.map { calendar.startOfDay(for: $0.dateValue()) } })
        var streak = CurrentStreakData.blank(id: streakKey)
        streak.userId = userId
        streak.freezesRemaining = freezes.filter { $0.usedDate == nil }.count
        streak.freezesUsed = freezes.count - streak.freezesRemaining!
        streak.totalEvents = events.count
        let days = Array(Set(events.map { calendar.startOfDay(for: $0.timestamp.dateValue()) })).sorted()
        var current = 0, longest = 0
        var start: Date?
        for (i, day) in days.enumerated() {
            if i > 0, (1..<self.days(from: days[i - 1], to: day)).allSatisfy({
                frozenDays.contains(calendar.date(byAdding: .day, value: $0, to: days[i - 1])!)
            }) {
                current += 1
            } else {
                current = 1
                start = day
            }
            longest = max(longest, current)
        }
        if let last = events.last {
            streak.currentStreak = current
            streak.longestStreak = longest
            streak.lastEventDate = last.timestamp
            streak.lastEventTimezone = last.timezone
            streak.streakStartDate = start.map { Timestamp(date: $0) }
            streak.updatedAt = last.timestamp
        } else {
            streak.currentStreak = 0
        }
        try await ref.setData(Firestore.Encoder().encode(streak))
        return streak
    }
}
