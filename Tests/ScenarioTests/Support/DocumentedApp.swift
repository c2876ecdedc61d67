// Loads a documented app the way `hearth serve` hosts it: its seed documents, its composite
// indexes (enforced: a query production would reject for a missing index fails here too)
// and its security rules, from Seeds/<app>/ and Rules/<app>.rules in this repository.
import FirebaseFirestore
import Foundation
import Testing

enum DocumentedApp: String, CaseIterable {
    case bucketlist, movielists, chores, journal, streaks

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Support
        .deletingLastPathComponent() // ScenarioTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    var seedsFolder: URL { Self.repositoryRoot.appendingPathComponent("Seeds/\(rawValue)") }
    var rulesFile: URL { Self.repositoryRoot.appendingPathComponent("Rules/\(rawValue).rules") }
    var projectID: String { "demo-\(rawValue)" }

    func indexes() throws -> IndexConfiguration {
        try IndexConfiguration(json: Data(contentsOf: seedsFolder.appendingPathComponent("firestore.indexes.json")))
    }

    /// The admin handle of a fresh database holding the app's seeds, indexes and rules.
    /// Views for app code come from `authenticated(uid:)`.
    func open(clock: ManualClock? = nil, seeded: Bool = true, indexMode: IndexMode = .enforce) throws -> Firestore {
        let db = Firestore.inMemory(projectID: projectID, clock: clock, indexes: try indexes(), indexMode: indexMode)
        if seeded {
            try db.importDocuments(hearthJSON: Data(contentsOf: seedsFolder.appendingPathComponent("documents.json")))
        }
        try db.setRules(String(contentsOf: rulesFile, encoding: .utf8), file: "\(rawValue).rules")
        return db
    }
}

/// Runs `body` and checks that it fails with PERMISSION_DENIED (what a malicious client sees).
@discardableResult
func expectPermissionDenied(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () async throws -> Void) async -> NSError? {
    await expectFirestoreError(.permissionDenied, comment, sourceLocation: sourceLocation, body)
}

@discardableResult
func expectFirestoreError(_ code: FirestoreErrorCode.Code, _ comment: Comment? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> Void) async -> NSError? {
    do {
        try await body()
        Issue.record("expected \(code), the call succeeded. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
        return nil
    } catch let error as NSError {
        #expect(error.domain == FirestoreErrorDomain, sourceLocation: sourceLocation)
        #expect(error.code == code.rawValue, "\(error)", sourceLocation: sourceLocation)
        return error
    }
}

/// The seeds' fixed "now" for the scenarios: 2025-12-03T00:00:00Z.
let scenarioStart = Timestamp(seconds: 1_764_720_000, nanoseconds: 0)
