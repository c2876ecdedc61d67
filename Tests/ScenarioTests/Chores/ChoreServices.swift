// MyChores' service layer, as the app's design describes it: UserService, HouseholdService and
// ChoreService over `users`, `households` and `chores` (households share chores; completing
// one awards points and badges), written against `import FirebaseFirestore`.
import FirebaseFirestore
import Foundation

struct ChoreUser: Codable {
    @DocumentID var documentID: String?
    var id: String
    var name: String
    var email: String
    var photoURL: String?
    var householdIds: [String]
    var fcmToken: String?
    @ServerTimestamp var createdAt: Timestamp?
    var totalPoints: Int
    var weeklyPoints: Int
    var monthlyPoints: Int
    var currentWeekStartDate: Timestamp?
    var currentMonthStartDate: Timestamp?
    var earnedBadges: [String]
    var completedChoresCount: Int?
}

struct Household: Codable {
    @DocumentID var id: String?
    var name: String
    var createdByUserId: String
    var inviteCode: String
    var memberUserIds: [String]
    @ServerTimestamp var createdAt: Timestamp?
}

struct Chore: Codable {
    enum RecurrenceType: String, Codable { case daily, weekly, monthly }

    @DocumentID var id: String?
    var title: String
    var description: String
    var householdId: String
    var assignedToUserId: String?
    var createdByUserId: String?
    var dueDate: Timestamp?
    var isCompleted: Bool
    @ServerTimestamp var createdAt: Timestamp?
    var completedAt: Timestamp?
    var completedByUserId: String?
    var pointValue: Int
    var isRecurring: Bool
    var recurrenceType: RecurrenceType?
    var recurrenceInterval: Int?
    var recurrenceDaysOfWeek: [Int]?   // 0 = Sunday … 6 = Saturday
    var recurrenceDayOfMonth: Int?
    var recurrenceEndDate: Timestamp?
    var nextOccurrenceDate: Timestamp?
}

/// The app's predefined badges.
struct Badge: Sendable {
    var badgeKey: String
    var name: String
    var requiredTaskCount: Int

    static let predefinedBadges = [
        Badge(badgeKey: "first_chore", name: "First Step", requiredTaskCount: 1),
        Badge(badgeKey: "busy_bee", name: "Busy Bee", requiredTaskCount: 10),
        Badge(badgeKey: "chore_champion", name: "Chore Champion", requiredTaskCount: 50),
    ]
}

enum ChoresError: Error, Equatable {
    case invalidInviteCode
    case choreAlreadyCompleted
    case notFound(String)
}

/// The calendar the app computes periods and recurrences in (UTC in these scenarios).
let choresCalendar: Calendar = {
    var calendar = Calendar(identifier: .iso8601) // weeks start on Monday
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()

final class UserService: Sendable {
    let db: Firestore
    let uid: String

    init(db: Firestore, uid: String) { self.db = db; self.uid = uid }

    private var me: DocumentReference { db.collection("users").document(uid) }

    func register(name: String, email: String, now: Date) async throws {
        let user = ChoreUser(id: uid, name: name, email: email, householdIds: [], totalPoints: 0, weeklyPoints: 0,
                             monthlyPoints: 0, currentWeekStartDate: Timestamp(date: Self.weekStart(now)),
                             currentMonthStartDate: Timestamp(date: Self.monthStart(now)), earnedBadges: [],
                             completedChoresCount: 0)
        try await me.setData(Firestore.Encoder().encode(user))
    }

    func user(_ id: String? = nil) async throws -> ChoreUser {
        try await db.collection("users").document(id ?? uid).getDocument(as: ChoreUser.self)
    }

    static func weekStart(_ date: Date) -> Date {
        choresCalendar.dateInterval(of: .weekOfYear, for: date)!.start
    }

    static func monthStart(_ date: Date) -> Date {
        choresCalendar.dateInterval(of: .month, for: date)!.start
    }

    /// On app open: zero the weekly / monthly points when a new week / month has begun.
    /// Returns which counters were reset.
    @discardableResult
    func resetPeriodPointsIfNeeded(now: Date) async throws -> (week: Bool, month: Bool) {
        let ref = me
        let result = try await db.runTransaction { transaction, errorPointer in
            do {
                let user = try transaction.getDocument(ref).data(as: ChoreUser.self)
                let week = Self.weekStart(now), month = Self.monthStart(now)
                var fields: [String: Any] = [:]
                if (user.currentWeekStartDate?.dateValue() ?? .distantPast) < week {
                    fields["weeklyPoints"] = 0
                    fields["currentWeekStartDate"] = Timestamp(date: week)
                }
                if (user.currentMonthStartDate?.dateValue() ?? .distantPast) < month {
                    fields["monthlyPoints"] = 0
                    fields["currentMonthStartDate"] = Timestamp(date: month)
                }
                if !fields.isEmpty { transaction.updateData(fields, forDocument: ref) }
                return [fields["weeklyPoints"] != nil, fields["monthlyPoints"] != nil]
            } catch let error as NSError {
                errorPointer?.pointee = error
                return nil
            }
        }
        let flags = result as? [Bool] ?? [false, false]
        return (flags[0], flags[1])
    }
}

final class HouseholdService: Sendable {
    let db: Firestore
    let uid: String

    init(db: Firestore, uid: String) { self.db = db; self.uid = uid }

    private var households: CollectionReference { db.collection("households") }

    static func makeInviteCode() -> String {
        String((0..<6).map { _ in "ABCDEFGHJKLMNPQRSTUVWXYZ23456789".randomElement()! })
    }

    /// Creates the household with the creator as its only member and adds it to their user
    /// document, in one batch.
    func createHousehold(name: String) async throws -> Household {
        let ref = households.document()
        let household = Household(name: name, createdByUserId: uid, inviteCode: Self.makeInviteCode(), memberUserIds: [uid])
        let batch = db.batch()
        try batch.setData(from: household, forDocument: ref)
        batch.updateData(["householdIds": FieldValue.arrayUnion([ref.documentID])],
                         forDocument: db.collection("users").document(uid))
        try await batch.commit()
        return try await ref.getDocument(as: Household.self)
    }

    /// Finds the household by invite code and joins it (both membership lists, one batch).
    func joinHousehold(inviteCode: String) async throws -> String {
        let found = try await households.whereField("inviteCode", isEqualTo: inviteCode.uppercased()).limit(to: 1)
            .getDocuments()
        guard let household = found.documents.first else { throw ChoresError.invalidInviteCode }
        let batch = db.batch()
        batch.updateData(["memberUserIds": FieldValue.arrayUnion([uid])], forDocument: household.reference)
        batch.updateData(["householdIds": FieldValue.arrayUnion([household.documentID])],
                         forDocument: db.collection("users").document(uid))
        try await batch.commit()
        return household.documentID
    }

    func myHouseholds() async throws -> [Household] {
        try await households.whereField("memberUserIds", arrayContains: uid).getDocuments().documents
            .map { try $0.data(as: Household.self) }
    }

    enum Period: String { case weekly = "weeklyPoints", monthly = "monthlyPoints", allTime = "totalPoints" }

    /// The leaderboard: the household's members by points (the app's
    /// leaderboards are updated automatically via Firestore listeners).
    func leaderboardQuery(householdId: String, period: Period) -> Query {
        db.collection("users").whereField("householdIds", arrayContains: householdId)
            .order(by: period.rawValue, descending: true).limit(to: 20)
    }
}

final class ChoreService: Sendable {
    let db: Firestore
    let uid: String

    init(db: Firestore, uid: String) { self.db = db; self.uid = uid }

    private var chores: CollectionReference { db.collection("chores") }

    func createChore(title: String, description: String = "", householdId: String, assignedTo: String?,
                     dueDate: Date?, pointValue: Int, recurrence: Chore.RecurrenceType? = nil,
                     daysOfWeek: [Int]? = nil, dayOfMonth: Int? = nil) async throws -> String {
        let chore = Chore(title: title, description: description, householdId: householdId, assignedToUserId: assignedTo,
                          createdByUserId: uid, dueDate: dueDate.map(Timestamp.init(date:)), isCompleted: false,
                          pointValue: pointValue, isRecurring: recurrence != nil, recurrenceType: recurrence,
                          recurrenceInterval: recurrence == nil ? nil : 1, recurrenceDaysOfWeek: daysOfWeek,
                          recurrenceDayOfMonth: dayOfMonth)
        // Awaited (not the fire-and-forget addDocument(from:)) so a refused write reaches the UI.
        let ref = chores.document()
        try await ref.setData(Firestore.Encoder().encode(chore))
        return ref.documentID
    }

    func chore(_ id: String) async throws -> Chore {
        try await chores.document(id).getDocument(as: Chore.self)
    }

    func pendingQuery(householdId: String) -> Query {
        chores.whereField("householdId", isEqualTo: householdId).whereField("isCompleted", isEqualTo: false)
            .order(by: "dueDate")
    }

    func pending(householdId: String) async throws -> [Chore] {
        try await pendingQuery(householdId: householdId).getDocuments().documents.map { try $0.data(as: Chore.self) }
    }

    func history(householdId: String, limit: Int = 50) async throws -> [Chore] {
        try await chores.whereField("householdId", isEqualTo: householdId).whereField("isCompleted", isEqualTo: true)
            .order(by: "completedAt", descending: true).limit(to: limit)
            .getDocuments().documents.map { try $0.data(as: Chore.self) }
    }

    func assign(_ choreId: String, to userId: String?) async throws {
        try await chores.document(choreId).updateData(["assignedToUserId": userId ?? NSNull()])
    }

    /// When the next occurrence of a recurring chore is due, or nil when it does not recur
    /// (or its recurrence has ended).
    static func nextOccurrence(of chore: Chore, after due: Date) -> Date? {
        guard chore.isRecurring, let type = chore.recurrenceType else { return nil }
        let interval = max(chore.recurrenceInterval ?? 1, 1)
        let calendar = choresCalendar
        var next: Date?
        switch type {
        case .daily:
            next = calendar.date(byAdding: .day, value: interval, to: due)
        case .weekly:
            if let days = chore.recurrenceDaysOfWeek, !days.isEmpty {
                next = (1...7).lazy.compactMap { calendar.date(byAdding: .day, value: $0, to: due) }
                    .first { days.contains(calendar.component(.weekday, from: $0) - 1) }
            } else {
                next = calendar.date(byAdding: .day, value: 7 * interval, to: due)
            }
        case .monthly:
            var components = calendar.dateComponents([.year, .month, .hour, .minute], from: due)
            components.month! += interval
            components.day = chore.recurrenceDayOfMonth ?? calendar.component(.day, from: due)
            next = calendar.date(from: components)
        }
        if let next, let end = chore.recurrenceEndDate?.dateValue(), next > end { return nil }
        return next
    }

    struct Completion {
        var pointsAwarded: Int
        var newBadges: [String]
        var nextChoreId: String?
    }

    /// Completing a chore, in one transaction: mark the chore completed, award its points to the
    /// completer's total/weekly/monthly scores, award badges now earned, and create the next
    /// occurrence of a recurring chore.
    func completeChore(_ choreId: String) async throws -> Completion {
        let choreRef = chores.document(choreId)
        let userRef = db.collection("users").document(uid)
        let nextRef = chores.document()
        let uid = self.uid
        let result: Any?
        do {
            result = try await db.runTransaction { transaction, errorPointer in
            do {
                let chore = try transaction.getDocument(choreRef).data(as: Chore.self)
                let user = try transaction.getDocument(userRef).data(as: ChoreUser.self)
                guard !chore.isCompleted else {
                    errorPointer?.pointee = NSError(domain: "MyChores", code: 1,
                                                    userInfo: [NSLocalizedDescriptionKey: "already completed"])
                    return nil
                }
                let completed = (user.completedChoresCount ?? 0) + 1
                let newBadges = Badge.predefinedBadges
                    .filter { completed >= $0.requiredTaskCount && !user.earnedBadges.contains($0.badgeKey) }
                    .map(\.badgeKey)
                var choreFields: [String: Any] = ["isCompleted": true, "completedAt": FieldValue.serverTimestamp(),
                                                  "completedByUserId": uid]
                var nextId: String?
                if let due = chore.dueDate?.dateValue(), let nextDue = Self.nextOccurrence(of: chore, after: due) {
                    var next = chore
                    next.id = nil
                    next.createdByUserId = uid
                    next.createdAt = nil
                    next.dueDate = Timestamp(date: nextDue)
                    next.nextOccurrenceDate = nil
                    try transaction.setData(from: next, forDocument: nextRef)
                    choreFields["nextOccurrenceDate"] = Timestamp(date: nextDue)
                    nextId = nextRef.documentID
                }
                transaction.updateData(choreFields, forDocument: choreRef)
                var userFields: [String: Any] = [
                    "totalPoints": FieldValue.increment(Int64(chore.pointValue)),
                    "weeklyPoints": FieldValue.increment(Int64(chore.pointValue)),
                    "monthlyPoints": FieldValue.increment(Int64(chore.pointValue)),
                    "completedChoresCount": FieldValue.increment(Int64(1)),
                ]
                if !newBadges.isEmpty { userFields["earnedBadges"] = FieldValue.arrayUnion(newBadges) }
                transaction.updateData(userFields, forDocument: userRef)
                return Completion(pointsAwarded: chore.pointValue, newBadges: newBadges, nextChoreId: nextId)
            } catch let error as NSError {
                errorPointer?.pointee = error
                return nil
            }
            }
        } catch let error as NSError where error.domain == "MyChores" {
            throw ChoresError.choreAlreadyCompleted
        }
        guard let completion = result as? Completion else { throw ChoresError.notFound(choreId) }
        return completion
    }
}
