import Foundation
import Testing
@testable import HearthCore

// Builders for the query tests.

/// A database holding `docs` (path → fields), written in one commit.
func makeQueryDatabase(_ docs: [(String, MapValue)], indexes: IndexConfiguration? = nil, mode: IndexMode = .off) throws -> Database {
    let db = Database(id: testDatabaseID, clock: ManualClock(now: testEpoch), indexes: indexes, indexMode: mode)
    if !docs.isEmpty { try db.commit(docs.map { Write.set(testPath($0.0), $0.1) }) }
    return db
}

/// A query on collection `collection` (a path like `"c"` or `"a/b/c"`).
func testQuery(_ collection: String, where filter: QueryFilter? = nil, orderBy: [Ordering] = [],
               startAt: Cursor? = nil, endAt: Cursor? = nil, offset: Int = 0, limit: Int? = nil) -> StructuredQuery {
    let path = testPath(collection)
    return StructuredQuery(parent: path.parent, collectionID: path.lastSegment, filter: filter, orderBy: orderBy,
                           startAt: startAt, endAt: endAt, offset: offset, limit: limit)
}

/// A collection-group query over every collection named `id`.
func testGroupQuery(_ id: String, where filter: QueryFilter? = nil, orderBy: [Ordering] = [],
                    startAt: Cursor? = nil, endAt: Cursor? = nil, limit: Int? = nil) -> StructuredQuery {
    StructuredQuery(collectionID: id, allDescendants: true, filter: filter, orderBy: orderBy, startAt: startAt, endAt: endAt, limit: limit)
}

func field(_ path: String, _ op: FieldOperator, _ value: Value) -> QueryFilter {
    .field(path == "__name__" ? .documentName : testFieldPath(path), op, value)
}

func unary(_ path: String, _ op: UnaryOperator) -> QueryFilter { .unary(testFieldPath(path), op) }

func and(_ filters: QueryFilter...) -> QueryFilter { .composite(.and, filters) }
func or(_ filters: QueryFilter...) -> QueryFilter { .composite(.or, filters) }

func asc(_ path: String) -> Ordering { Ordering(path == "__name__" ? .documentName : testFieldPath(path)) }
func desc(_ path: String) -> Ordering { Ordering(path == "__name__" ? .documentName : testFieldPath(path), descending: true) }

/// The IDs of the query's results, served from indexes.
func ids(_ db: Database, _ query: StructuredQuery) throws -> [String] {
    try db.runQuery(query).documents.map(\.id)
}

/// The IDs of the query's results, also checking that the index-free scan (a read at the
/// current time through the history path) agrees.
func checkedIDs(_ db: Database, _ query: StructuredQuery, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let indexed = try db.runQuery(query)
    // A commit elsewhere makes the current read time a past one, which is served by a scan.
    try db.commit([Write.set(testPath("zz_unrelated/\(UUID().uuidString)"), MapValue())])
    let scanned = try db.runQuery(query, readTime: indexed.readTime)
    #expect(indexed.documents.map(\.path) == scanned.documents.map(\.path), "index scan and full scan differ", sourceLocation: sourceLocation)
    return indexed.documents.map(\.id)
}
