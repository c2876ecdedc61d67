import Foundation
import Testing
@testable import HearthCore

/// Declared indexes (composite ones and those an exact field override lists) are built when
/// the database is configured and kept by every commit after it, so no query builds one;
/// automatic single-field indexes are still built on first use.
@Suite struct DeclaredIndexTests {
    static let configuration = try! IndexConfiguration(json: Data(#"""
        {"indexes": [{"collectionGroup": "c", "queryScope": "COLLECTION", "fields": [
            {"fieldPath": "category", "order": "ASCENDING"}, {"fieldPath": "score", "order": "ASCENDING"}]}],
         "fieldOverrides": [{"collectionGroup": "c", "fieldPath": "score", "indexes": [
            {"order": "ASCENDING", "queryScope": "COLLECTION"}]}]}
        """#.utf8))
    static let composite = IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("category"), .ascending),
                                                                         .init(testFieldPath("score"), .ascending)])
    static let score = IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("score"), .ascending)])
    static let category = IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("category"), .ascending)])

    static func write(_ i: Int) -> Write {
        .set(testPath("c/d\(i)"), MapValue([("category", .string("k\(i % 3)")), ("score", .integer(Int64(i)))]))
    }

    @Test("the declared indexes exist before any query and hold every document committed after")
    func declaredIndexesAreMaintainedFromTheStart() throws {
        let db = Database(id: DatabaseID(project: "p"), indexes: Self.configuration)
        #expect(Self.configuration.declaredDefinitions == [Self.composite, Self.score])
        for i in 0..<50 { try db.commit([Self.write(i)]) }
        let state = db.state()
        #expect(try #require(state.indexes.entries(Self.composite)).count == 50)
        #expect(try #require(state.indexes.entries(Self.score)).count == 50)
        // Not declared: left for the first query that needs it.
        #expect(state.indexes.entries(Self.category) == nil)
    }

    @Test("configuring indexes on a database holding documents builds them then")
    func configuringBuildsOverExistingDocuments() throws {
        let db = Database(id: DatabaseID(project: "p"))
        for i in 0..<20 { try db.commit([Self.write(i)]) }
        #expect(db.state().indexes.entries(Self.composite) == nil)
        db.configureIndexes(Self.configuration, mode: .enforce)
        #expect(try #require(db.state().indexes.entries(Self.composite)).count == 20)
    }

    @Test("a restored state that predates the declaration gets the declared indexes back")
    func restoreKeepsDeclaredIndexes() throws {
        let db = Database(id: DatabaseID(project: "p"))
        for i in 0..<10 { try db.commit([Self.write(i)]) }
        let before = db.snapshot()
        db.configureIndexes(Self.configuration, mode: .enforce)
        db.restore(before)
        #expect(try #require(db.state().indexes.entries(Self.composite)).count == 10)
        db.restore(Database(id: DatabaseID(project: "p")).snapshot())
        #expect(try #require(db.state().indexes.entries(Self.score)).count == 0)
    }
}
