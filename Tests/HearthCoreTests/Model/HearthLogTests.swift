import HearthLock
import Testing
@testable import HearthCore

@Suite("HearthLog: the engine's warnings reach the handler an embedder sets", .serialized)
struct HearthLogTests {
    final class Collector: Sendable {
        let lines = HearthMutex<[(HearthLog.Level, String)]>([])
    }

    @Test("a query production would reject, in warn mode, is logged once through the handler")
    func missingIndexWarning() throws {
        let collector = Collector()
        HearthLog.setHandler { level, message in collector.lines.withLock { $0.append((level, message)) } }
        defer { HearthLog.setHandler(HearthLog.standardStreams) }
        let db = try makeQueryDatabase([("logged/a", testFields(["x": .integer(1), "y": .integer(2)]))], mode: .warn)
        let query = testQuery("logged", where: field("x", .equal, .integer(1)), orderBy: [asc("y")])
        _ = try db.runQuery(query)
        _ = try db.runQuery(query)
        // Other tests may log meanwhile: only this collection's warning counts.
        let mine = collector.lines.withLock { $0 }.filter { $0.1.contains("logged") }
        #expect(mine.count == 1)
        #expect(mine.first?.0 == .warning)
        #expect(mine.first?.1.hasPrefix("production would reject this query: The query requires an index.") == true)
    }
}
