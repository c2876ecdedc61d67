import Foundation
import Testing
@testable import Hearth

// Helpers shared by the query API tests (QueryTests, FilterTests, CursorTests,
// AggregateQueryTests). Names carry a `q` prefix so they cannot clash with other helpers.

/// A fresh database with index analysis off (the semantics tests should not log the
/// composite indexes production would need; IndexEnforcement tests cover that).
func qDB(indexMode: IndexMode = .off) -> Firestore {
    Firestore.inMemory(indexMode: indexMode)
}

/// Writes each document (`path: fields`).
func qSeed(_ db: Firestore, _ documents: [String: [String: Any]]) async throws {
    let batch = db.batch()
    for (path, fields) in documents { batch.setData(fields, forDocument: db.document(path)) }
    try await batch.commit()
}

/// Writes `fields` under `collection/<id>` for each entry.
func qSeed(_ db: Firestore, collection: String, _ documents: [String: [String: Any]]) async throws {
    var full: [String: [String: Any]] = [:]
    for (id, fields) in documents { full["\(collection)/\(id)"] = fields }
    try await qSeed(db, full)
}

/// The IDs of the query's results, in order.
func qIDs(_ query: Query) async throws -> [String] {
    try await query.getDocuments().documents.map(\.documentID)
}

/// The paths of the query's results, in order.
func qPaths(_ query: Query) async throws -> [String] {
    try await query.getDocuments().documents.map(\.reference.path)
}

/// The error the query fails with, or nil when it succeeds.
func qError(_ query: Query) async -> NSError? {
    await apiError { _ = try await query.getDocuments() }
}

/// The message of the programmer error a query builder raises, or nil when it is valid.
func qRejection(_ body: () throws -> Query) -> String? {
    apiRejection { _ = try body() }
}

/// Splits "a b c" into ["a", "b", "c"].
func qList(_ s: String) -> [String] {
    s.split(separator: " ").map(String.init)
}
