import Foundation
import Testing
@testable import Hearth

/// Value and document cursors through the `Query` API (docs/semantics.md#cursors).
@Suite struct CursorTests {
    /// v: 1…5 on a…e, with two ties on 3 (c, c2).
    private func numbersDB() async throws -> (Firestore, CollectionReference) {
        let db = qDB()
        try await qSeed(db, collection: "n", [
            "a": ["v": 1, "w": 1], "b": ["v": 2, "w": 1], "c": ["v": 3, "w": 1], "c2": ["v": 3, "w": 2],
            "d": ["v": 4, "w": 1], "e": ["v": 5, "w": 1],
        ])
        return (db, db.collection("n"))
    }

    // MARK: Value cursors

    @Test func valueCursorsAscending() async throws {
        let (_, n) = try await numbersDB()
        let q = n.order(by: "v")
        #expect(try await qIDs(q.start(at: [3])) == qList("c c2 d e"))
        #expect(try await qIDs(q.start(after: [3])) == qList("d e"))
        #expect(try await qIDs(q.end(at: [3])) == qList("a b c c2"))
        #expect(try await qIDs(q.end(before: [3])) == qList("a b"))
        #expect(try await qIDs(q.start(after: [1]).end(before: [5])) == qList("b c c2 d"))
        #expect(try await qIDs(q.start(at: [2]).end(at: [4]).limit(to: 2)) == qList("b c"))
        // Cursor values compare numerically across integer and double.
        #expect(try await qIDs(q.start(at: [2.5]).end(at: [4.0])) == qList("c c2 d"))
    }

    @Test func valueCursorsDescendingStartAtTheHighEnd() async throws {
        let (_, n) = try await numbersDB()
        let q = n.order(by: "v", descending: true)
        #expect(try await qIDs(q.start(at: [3])) == qList("c2 c b a"))
        #expect(try await qIDs(q.start(after: [3])) == qList("b a"))
        #expect(try await qIDs(q.end(at: [3])) == qList("e d c2 c"))
        #expect(try await qIDs(q.end(before: [3])) == qList("e d"))
    }

    @Test func valueCursorsMayBeAPrefixOfTheOrderBys() async throws {
        let (_, n) = try await numbersDB()
        let q = n.order(by: "v").order(by: "w")
        // start(after: [3]) skips every document with v == 3.
        #expect(try await qIDs(q.start(after: [3])) == qList("d e"))
        #expect(try await qIDs(q.start(after: [3, 1])) == qList("c2 d e"))
        #expect(try await qIDs(q.start(at: [3, 2])) == qList("c2 d e"))
        #expect(try await qIDs(q.end(before: [3, 2])) == qList("a b c"))
    }

    @Test func laterCursorReplacesEarlierOne() async throws {
        let (_, n) = try await numbersDB()
        let q = n.order(by: "v")
        #expect(try await qIDs(q.start(at: [1]).start(after: [4])) == ["e"])
        #expect(try await qIDs(q.end(at: [5]).end(before: [2])) == ["a"])
    }

    @Test func cursorsApplyBeforeLimitAndLimitToLast() async throws {
        let (_, n) = try await numbersDB()
        #expect(try await qIDs(n.order(by: "v").start(after: [1]).limit(to: 2)) == qList("b c"))
        #expect(try await qIDs(n.order(by: "v").end(before: [5]).limit(toLast: 2)) == qList("c2 d"))
        #expect(try await qIDs(n.order(by: "v", descending: true).start(at: [4]).limit(toLast: 2)) == qList("b a"))
    }

    @Test func cursorsOnOtherTypes() async throws {
        let db = qDB()
        try await qSeed(db, collection: "s", [
            "1": ["name": "alice"], "2": ["name": "bob"], "3": ["name": "carol"], "4": ["name": 7],
            "5": ["t": Timestamp(seconds: 100, nanoseconds: 0)], "6": ["t": Timestamp(seconds: 200, nanoseconds: 0)],
        ])
        let s = db.collection("s")
        // Cursors bound the order, not the type: numbers sort before strings.
        #expect(try await qIDs(s.order(by: "name").start(after: ["alice"])) == qList("2 3"))
        #expect(try await qIDs(s.order(by: "name").end(before: ["bob"])) == qList("4 1"))
        #expect(try await qIDs(s.order(by: "t").start(at: [Timestamp(seconds: 150, nanoseconds: 0)])) == ["6"])
        #expect(try await qIDs(s.order(by: "t").end(at: [Date(timeIntervalSince1970: 100)])) == ["5"])
    }

    // MARK: Document-ID cursors

    @Test func documentIDCursorsOnACollection() async throws {
        let (_, n) = try await numbersDB()
        let q = n.order(by: FieldPath.documentID())
        #expect(try await qIDs(q.start(after: ["c"])) == qList("c2 d e"))
        #expect(try await qIDs(q.start(at: ["c2"]).end(before: ["e"])) == qList("c2 d"))
        #expect(try await qIDs(n.order(by: "__name__", descending: true).start(after: ["c"])) == qList("b a"))
        // After an explicit field order, the ID order breaks ties.
        #expect(try await qIDs(n.order(by: "v").order(by: FieldPath.documentID()).start(after: [3, "c"])) == qList("c2 d e"))
    }

    @Test func documentIDCursorsOnACollectionGroupTakePaths() async throws {
        // Prod test (docs/semantics.md#cursors). As in the SDK's test, the group's ID starts with "b" so
        // it sorts between the other segments ("a" < "bcg" < "c").
        let db = qDB()
        try await qSeed(db, [
            "a/a/bcg/cg-doc1": ["x": 1], "a/b/a/b/bcg/cg-doc2": ["x": 1], "a/b/bcg/cg-doc3": ["x": 1],
            "a/b/c/d/bcg/cg-doc4": ["x": 1], "a/c/bcg/cg-doc5": ["x": 1], "bcg/cg-doc6": ["x": 1],
            "a/b/nope/nope": ["x": 1],
        ])
        let q = db.collectionGroup("bcg").order(by: FieldPath.documentID())
        #expect(try await qIDs(q.start(after: ["a/b"]).end(before: ["a/b/bcg/cg-doc3"])) == ["cg-doc2"])
        #expect(try await qIDs(q.start(at: ["a/b/bcg/cg-doc3"]).end(at: ["a/c/bcg/cg-doc5"])) == qList("cg-doc3 cg-doc4 cg-doc5"))
        #expect(try await qIDs(q.start(after: ["a/c/bcg/cg-doc5"])) == ["cg-doc6"])
    }

    // MARK: Document cursors

    @Test func startAfterDocumentPaginates() async throws {
        let (_, n) = try await numbersDB()
        let q = n.order(by: "v").limit(to: 2)
        var pages: [[String]] = []
        var last: DocumentSnapshot?
        while true {
            let page = try await (last.map { q.start(afterDocument: $0) } ?? q).getDocuments()
            if page.isEmpty { break }
            pages.append(page.documents.map(\.documentID))
            last = page.documents.last
        }
        // The tie on v == 3 (c, c2) is split exactly, by document ID.
        #expect(pages == [["a", "b"], ["c", "c2"], ["d", "e"]])
    }

    @Test func documentCursorsBindToTheNormalisedOrder() async throws {
        let (db, n) = try await numbersDB()
        let c = try await db.document("n/c").getDocument()
        let c2 = try await db.document("n/c2").getDocument()
        let q = n.order(by: "v")
        // (v, __name__): the position is the document itself, not its v value.
        #expect(try await qIDs(q.start(atDocument: c)) == qList("c c2 d e"))
        #expect(try await qIDs(q.start(afterDocument: c)) == qList("c2 d e"))
        #expect(try await qIDs(q.end(atDocument: c)) == qList("a b c"))
        #expect(try await qIDs(q.end(beforeDocument: c2)) == qList("a b c"))
        #expect(try await qIDs(q.start(afterDocument: c).end(beforeDocument: try await db.document("n/e").getDocument())) == qList("c2 d"))
        // Descending: the ID order is descending too.
        #expect(try await qIDs(n.order(by: "v", descending: true).start(afterDocument: c2)) == qList("c b a"))
        // No explicit order: the document ID alone.
        #expect(try await qIDs(n.start(afterDocument: c)) == qList("c2 d e"))
    }

    @Test func documentCursorsIncludeInequalityFields() async throws {
        let (db, n) = try await numbersDB()
        let c = try await db.document("n/c").getDocument()
        // `where v > 1` orders by (v, __name__); `order w` adds (w, v, __name__).
        let q = n.whereField("v", isGreaterThan: 1)
        #expect(q.definition.normalizedOrderBy.map(\.description) == ["v", "__name__"])
        #expect(try await qIDs(q.start(afterDocument: c)) == qList("c2 d e"))
        let byW = n.whereField("v", isGreaterThan: 1).order(by: "w")
        #expect(try await qIDs(byW) == qList("b c d e c2"))
        #expect(try await qIDs(byW.start(afterDocument: c)) == qList("d e c2"))
        #expect(try await qIDs(byW.end(beforeDocument: try await db.document("n/c2").getDocument())) == qList("b c d e"))
    }

    @Test func documentCursorsWorkOnCollectionGroups() async throws {
        let db = qDB()
        try await qSeed(db, ["x/1/cg/a": ["v": 1], "x/2/cg/a": ["v": 1], "cg/b": ["v": 0], "y/1/cg/c": ["v": 2]])
        let q = db.collectionGroup("cg").order(by: "v")
        let doc = try await db.document("x/1/cg/a").getDocument()
        #expect(try await qPaths(q.start(afterDocument: doc)) == ["x/2/cg/a", "y/1/cg/c"])
        #expect(try await qPaths(db.collectionGroup("cg").start(afterDocument: doc)) == ["x/2/cg/a", "y/1/cg/c"])
    }

    @Test func documentCursorFromAQuerySnapshot() async throws {
        let (_, n) = try await numbersDB()
        let first = try await n.order(by: "v", descending: true).limit(to: 1).getDocuments()
        let top = try #require(first.documents.first)
        #expect(top.documentID == "e")
        #expect(try await qIDs(n.order(by: "v", descending: true).start(afterDocument: top).limit(to: 2)) == qList("d c2"))
    }

    // MARK: Programmer errors (docs/semantics.md#ordering, #cursors)

    @Test func tooManyCursorValues() {
        let c = qDB().collection("c")
        let message = "Invalid query. You are trying to start or end a query using more values than were specified in the order by."
        #expect(qRejection { try c.bounded(.start, values: [1], inclusive: true) } == message)
        #expect(qRejection { try c.order(by: "a").bounded(.end, values: [1, 2], inclusive: false) } == message)
        #expect(qRejection { try c.order(by: "a").bounded(.end, values: [1], inclusive: false) } == nil)
        // Implicit order-bys do not count for value cursors.
        #expect(qRejection { try c.whereField("a", isGreaterThan: 1).bounded(.start, values: [1], inclusive: true) } == message)
    }

    @Test func documentIDCursorValues() {
        let db = qDB()
        let c = db.collection("c").order(by: FieldPath.documentID())
        let cg = db.collectionGroup("cg").order(by: FieldPath.documentID())
        #expect(qRejection { try c.bounded(.start, values: [1], inclusive: true) } == "Invalid query. Expected a string for the document ID.")
        #expect(qRejection { try c.bounded(.start, values: [db.document("c/x")], inclusive: true) } == "Invalid query. Expected a string for the document ID.")
        #expect(qRejection { try c.bounded(.start, values: ["x/y"], inclusive: true) }
                == "Invalid query. When querying a collection and ordering by document ID, you must pass a plain document ID, but 'x/y' contains a slash.")
        #expect(qRejection { try cg.bounded(.start, values: ["a/b/cg"], inclusive: true) }
                == "Invalid query. When querying a collection group and ordering by document ID, you must pass a value that results in a valid document path, but 'a/b/cg' is not because it contains an odd number of segments.")
        #expect(qRejection { try cg.bounded(.start, values: ["a/b"], inclusive: true) } == nil)
        #expect(qRejection { try c.bounded(.start, values: ["x"], inclusive: true) } == nil)
    }

    @Test func documentCursorChecks() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["x": ["a": 1]])
        let missing = try await db.document("c/none").getDocument()
        let x = try await db.document("c/x").getDocument()
        let c = db.collection("c")
        #expect(qRejection { try c.bounded(.start, document: missing, inclusive: true) }
                == "Invalid query. You are trying to start or end a query using a document that doesn't exist.")
        #expect(qRejection { try c.order(by: "b").bounded(.end, document: x, inclusive: true) }
                == "Invalid query. You are trying to start or end a query using a document for which the field 'b' (used as the order by) does not exist.")
        #expect(qRejection { try c.whereField(FieldPath(["m", "a-b"]), isGreaterThan: 1).bounded(.start, document: x, inclusive: false) }
                == "Invalid query. You are trying to start or end a query using a document for which the field 'm.`a-b`' (used as the order by) does not exist.")
        #expect(qRejection { try c.order(by: "a").bounded(.start, document: x, inclusive: false) } == nil)
    }

    @Test func orderByAfterACursor() {
        let c = qDB().collection("c").order(by: "a")
        #expect(qRejection { try c.start(at: [1]).ordered(by: FieldPath(["b"]).core, descending: false) }
                == "Invalid query. You must not specify a starting point before specifying the order by.")
        #expect(qRejection { try c.end(before: [1]).ordered(by: FieldPath(["b"]).core, descending: false) }
                == "Invalid query. You must not specify an ending point before specifying the order by.")
        #expect(qRejection { try c.ordered(by: FieldPath(["b"]).core, descending: true) } == nil)
    }
}
