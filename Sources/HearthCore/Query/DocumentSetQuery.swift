/// A query run over documents the caller holds rather than over a database's indexes — a
/// client's cache, which the mobile SDKs query locally with no index requirements. The
/// matching (scope, filter, order-by fields present, cursors) and the order are the
/// engine's own (`QueryExecutor.accepts`, `compareInOrder`), so a document matches here
/// exactly when it would match the same query on a database. `findNearest` and projections
/// are not applied (no SDK sends them to a cache).
public struct DocumentSetQuery: Sendable {
    private let executor: QueryExecutor

    /// Throws what running the query on a database would for an invalid query.
    public init(_ query: StructuredQuery, database: DatabaseID) throws(FirestoreError) {
        let normalized = try NormalizedQuery(query, database: database)
        // A past read time: no plans are made (nothing here is read through an index).
        executor = QueryExecutor(query: normalized, state: DatabaseState(database: database, readTime: Timestamp(seconds: Timestamp.minSeconds, nanos: 0)),
                                 readTime: Timestamp(seconds: Timestamp.minSeconds, nanos: 0), plans: [])
    }

    /// Whether `document` is in the query's scope and passes its filter and cursors.
    public func matches(_ document: Document) -> Bool {
        executor.accepts(document) == .match
    }

    /// Whether `document` is in scope and passes the filter, whatever the cursors say.
    public func matchesIgnoringCursors(_ document: Document) -> Bool {
        executor.accepts(document) != .noMatch
    }

    /// The documents among `documents` that match, in query order, after offset and limit.
    public func results(_ documents: [Document]) -> [Document] {
        var out = documents.filter(matches)
        out.sort { executor.compareInOrder($0, $1) < 0 }
        let q = executor.query.query
        out.removeFirst(min(q.offset, out.count))
        if let limit = q.limit, out.count > limit { out.removeLast(out.count - limit) }
        return out
    }
}
