import Foundation
import Testing
@testable import HearthCore

/// Composite filters, ordering, cursors, limits and collection groups (docs/semantics.md#composite-filters-and-limits, #ordering, #cursors, #collection-groups).
@Suite struct QueryShapeTests {
    static func orDatabase() throws -> Database {
        try makeQueryDatabase([
            ("c/doc1", testFields(["a": .integer(1), "b": .integer(0)])),
            ("c/doc2", testFields(["a": .integer(2), "b": .integer(1)])),
            ("c/doc3", testFields(["a": .integer(3), "b": .integer(2)])),
            ("c/doc4", testFields(["a": .integer(1), "b": .integer(3)])),
            ("c/doc5", testFields(["a": .integer(1), "b": .integer(1)])),
        ])
    }

    func i(_ n: Int64) -> Value { .integer(n) }

    @Test func orAndNesting() throws {
        let db = try Self.orDatabase()
        func q(_ f: QueryFilter, limit: Int? = nil) throws -> [String] { try checkedIDs(db, testQuery("c", where: f, limit: limit)) }
        #expect(try q(or(field("a", .equal, i(1)), field("b", .equal, i(1)))) == ["doc1", "doc2", "doc4", "doc5"])
        #expect(try q(or(and(field("a", .equal, i(1)), field("b", .equal, i(0))), and(field("a", .equal, i(3)), field("b", .equal, i(2))))) == ["doc1", "doc3"])
        #expect(try q(and(field("a", .equal, i(1)), or(field("b", .equal, i(0)), field("b", .equal, i(3))))) == ["doc1", "doc4"])
        #expect(try q(and(or(field("a", .equal, i(2)), field("b", .equal, i(2))), or(field("a", .equal, i(3)), field("b", .equal, i(3))))) == ["doc3"])
        #expect(try q(or(field("a", .equal, i(2)), field("b", .equal, i(1))), limit: 1) == ["doc2"])
    }

    @Test func orWithInAndArrayContains() throws {
        let db = try makeQueryDatabase([
            ("c/doc1", testFields(["a": .integer(1), "b": .integer(0)])),
            ("c/doc2", testFields(["b": .integer(1)])),
            ("c/doc3", testFields(["a": .integer(3), "b": .integer(2)])),
            ("c/doc4", testFields(["a": .integer(1), "b": .integer(3)])),
            ("c/doc5", testFields(["a": .integer(1)])),
            ("c/doc6", testFields(["a": .integer(2)])),
        ])
        func q(_ f: QueryFilter) throws -> [String] { try checkedIDs(db, testQuery("c", where: f)) }
        #expect(try q(or(field("a", .equal, i(2)), field("b", .in, .array([i(2), i(3)])))) == ["doc3", "doc4", "doc6"])
        #expect(try q(or(field("a", .in, .array([i(2), i(3)])), field("b", .in, .array([i(0), i(2)])))) == ["doc1", "doc3", "doc6"])
        #expect(try q(or(field("a", .in, .array([i(0), i(3)])), field("a", .in, .array([i(0), i(2)])))) == ["doc3", "doc6"])
    }

    @Test func orWithInequalityUsesImplicitOrderOnEveryDisjunct() throws {
        let db = try makeQueryDatabase([
            ("c/x", testFields(["b": .integer(1)])),
            ("c/y", testFields(["a": .integer(2)])),
            ("c/z", testFields(["a": .integer(0), "b": .integer(1)])),
        ])
        // `{b: 1}` lacks `a`, and the implicit order by `a` excludes it.
        #expect(try checkedIDs(db, testQuery("c", where: or(field("a", .greaterThan, i(1)), field("b", .equal, i(1))))) == ["z", "y"])
    }

    @Test func implicitOrderAndMultipleInequalities() throws {
        let db = try makeQueryDatabase([
            ("c/a", testFields(["foo": .integer(42)])), ("c/b", testFields(["foo": .double(42)])),
            ("c/c", testFields(["foo": .integer(42)])), ("c/d", testFields(["foo": .integer(21)])),
            ("c/e", testFields(["foo": .double(21)])), ("c/f", testFields(["foo": .integer(66)])),
            ("c/g", testFields(["foo": .double(66)])),
        ])
        #expect(try checkedIDs(db, testQuery("c", where: field("foo", .greaterThan, i(21)), orderBy: [desc("foo")])) == ["g", "f", "c", "b", "a"])

        let two = try makeQueryDatabase([
            ("c/p", testFields(["a": i(1), "b": i(9)])),
            ("c/q", testFields(["a": i(1), "b": i(5)])),
            ("c/r", testFields(["a": i(0), "b": i(7)])),
            ("c/s", testFields(["b": i(7)])),
        ])
        // Order: a, b, __name__.
        #expect(try checkedIDs(two, testQuery("c", where: and(field("b", .greaterThan, i(1)), field("a", .lessThan, i(5))))) == ["r", "q", "p"])
        let normalized = try NormalizedQuery(testQuery("c", where: field("x", .greaterThanOrEqual, i(32)), orderBy: [desc("y")]), database: testDatabaseID)
        #expect(normalized.orderBy == [desc("y"), desc("x"), desc("__name__")])
        let noFilter = try NormalizedQuery(testQuery("c", orderBy: [asc("a")]), database: testDatabaseID)
        #expect(noFilter.orderBy == [asc("a"), asc("__name__")])
    }

    @Test func orderByExcludesMissingKeepsNull() throws {
        let db = try makeQueryDatabase([
            ("c/a", testFields(["v": .string("x")])), ("c/b", testFields(["v": .null])),
            ("c/c", testFields(["w": i(1)])), ("c/d", testFields(["v": i(3)])),
        ])
        #expect(try checkedIDs(db, testQuery("c", orderBy: [asc("v")])) == ["b", "d", "a"])
        #expect(try checkedIDs(db, testQuery("c", orderBy: [desc("v")])) == ["a", "d", "b"])
        #expect(try checkedIDs(db, testQuery("c", orderBy: [desc("v")], limit: 2)) == ["a", "d"])
    }

    @Test func orderByAnEqualityFieldIsRejected() throws {
        let db = try Self.orDatabase()
        expectFirestoreError(.invalidArgument, message: "Order by clause cannot contain a field with an equality filter a") {
            try db.runQuery(testQuery("c", where: field("a", .equal, i(1)), orderBy: [asc("a")]))
        }
    }

    @Test func cursors() throws {
        let db = try makeQueryDatabase([
            ("c/a", testFields(["x": i(1), "y": i(1)])), ("c/b", testFields(["x": i(1), "y": i(2)])),
            ("c/c", testFields(["x": i(2), "y": i(1)])), ("c/d", testFields(["x": i(2), "y": i(2)])),
            ("c/e", testFields(["x": i(3), "y": i(1)])),
        ])
        let order = [asc("x"), asc("y")]
        func q(start: Cursor? = nil, end: Cursor? = nil, order: [Ordering] = order, limit: Int? = nil) throws -> [String] {
            try checkedIDs(db, testQuery("c", orderBy: order, startAt: start, endAt: end, limit: limit))
        }
        #expect(try q(start: Cursor(values: [i(2)], before: true)) == ["c", "d", "e"])           // start(at: [2])
        #expect(try q(start: Cursor(values: [i(2)], before: false)) == ["e"])                    // start(after: [2])
        #expect(try q(start: Cursor(values: [i(1), i(2)], before: false)) == ["c", "d", "e"])   // start(after: [1, 2])
        #expect(try q(end: Cursor(values: [i(2)], before: false)) == ["a", "b", "c", "d"])      // end(at: [2])
        #expect(try q(end: Cursor(values: [i(2)], before: true)) == ["a", "b"])                 // end(before: [2])
        #expect(try q(start: Cursor(values: [i(1), i(2)], before: true), end: Cursor(values: [i(2), i(1)], before: false)) == ["b", "c"])
        #expect(try q(start: Cursor(values: [i(2)], before: true), limit: 2) == ["c", "d"])
        // Descending: "start" is the high end.
        #expect(try q(start: Cursor(values: [i(2)], before: false), order: [desc("x")]) == ["b", "a"])
        // A snapshot cursor binds to the whole normalised order, __name__ included, written
        // out as the SDKs write it; a cursor holds no more values than the order-bys written.
        #expect(try q(start: Cursor(values: [i(2), i(1), testReference("c/c")], before: false), order: order + [asc("__name__")]) == ["d", "e"])
        expectFirestoreError(.invalidArgument, message: "Cursor has too many values.") {
            try db.runQuery(testQuery("c", orderBy: order, startAt: Cursor(values: [i(2), i(1), testReference("c/c")], before: false)))
        }
        // A document name from another collection just positions the cursor (as on the emulator).
        #expect(try q(start: Cursor(values: [testReference("d/zz")], before: true), order: [asc("__name__")]).isEmpty)
        #expect(try q(start: Cursor(values: [testReference("c/a/sub/x")], before: false), order: [asc("__name__")]) == ["b", "c", "d", "e"])
        #expect(try q(end: Cursor(values: [testReference("c/c/sub/x")], before: true), order: [asc("__name__")]) == ["a", "b", "c"])
        // Offset applies after cursors, before the limit.
        #expect(try checkedIDs(db, testQuery("c", orderBy: order, startAt: Cursor(values: [i(1)], before: false), offset: 1, limit: 2)) == ["d", "e"])
        expectFirestoreError(.invalidArgument) {
            try db.runQuery(testQuery("c", orderBy: [asc("x")], startAt: Cursor(values: [i(1), testReference("c/a"), i(3)], before: true)))
        }
    }

    @Test func limitToLastIsTheReversedQuery() throws {
        let db = try Self.orDatabase()
        let q = testQuery("c", orderBy: [asc("b")], limit: 2)
        let last = try db.runQuery(q.reversed()).documents.map(\.id).reversed()
        #expect(Array(last) == ["doc3", "doc4"])
        let bounded = testQuery("c", orderBy: [asc("b")], startAt: Cursor(values: [i(1)], before: true), endAt: Cursor(values: [i(2)], before: false), limit: 2)
        #expect(Array(try db.runQuery(bounded.reversed()).documents.map(\.id).reversed()) == ["doc5", "doc3"])
    }

    static let groupPaths = [
        "abc/123/c/cg-doc1", "abc/123/c/cg-doc2", "c/cg-doc3", "c/cg-doc4", "def/456/c/cg-doc5",
        "c/virtual-doc/nested-coll/not-cg-doc", "xc/x", "cx/x", "abc/123/cx/x", "abc/123/xc/x", "abc/c",
    ]

    @Test func collectionGroups() throws {
        let db = try makeQueryDatabase(Self.groupPaths.map { ($0, testFields(["v": i(1)])) })
        #expect(try checkedIDs(db, testGroupQuery("c")) == ["cg-doc1", "cg-doc2", "cg-doc3", "cg-doc4", "cg-doc5"])
        #expect(try checkedIDs(db, testGroupQuery("c", where: field("v", .equal, i(1)))) == ["cg-doc1", "cg-doc2", "cg-doc3", "cg-doc4", "cg-doc5"])
        // Under one document only.
        var under = testGroupQuery("c")
        under.parent = testPath("abc/123")
        #expect(try checkedIDs(db, under) == ["cg-doc1", "cg-doc2"])
        under.filter = field("v", .equal, i(1))
        #expect(try checkedIDs(db, under) == ["cg-doc1", "cg-doc2"])
    }

    @Test func collectionGroupNameCursors() throws {
        // The collection ID sorts between "a" and "c", as the random one of the prod test does.
        let paths = ["a/a/bcg/cg-doc1", "a/b/a/b/bcg/cg-doc2", "a/b/bcg/cg-doc3", "a/b/c/d/bcg/cg-doc4", "a/c/bcg/cg-doc5", "bcg/cg-doc6"]
        let db = try makeQueryDatabase(paths.map { ($0, MapValue()) })
        let q = testGroupQuery("bcg", orderBy: [asc("__name__")],
                               startAt: Cursor(values: [testReference("a/b")], before: false),
                               endAt: Cursor(values: [testReference("a/b/bcg/cg-doc3")], before: true))
        #expect(try checkedIDs(db, q) == ["cg-doc2"])
        let ranged = testGroupQuery("bcg", where: and(field("__name__", .greaterThanOrEqual, testReference("a/b")),
                                                     field("__name__", .lessThan, testReference("a/b0"))))
        #expect(try checkedIDs(db, ranged) == ["cg-doc2", "cg-doc3", "cg-doc4"])
    }

    @Test func nestedCollectionsAreSeparate() throws {
        let db = try makeQueryDatabase([
            ("c/a", testFields(["v": i(1)])), ("c/a/c/b", testFields(["v": i(1)])), ("c/b", testFields(["v": i(2)])),
        ])
        #expect(try checkedIDs(db, testQuery("c", where: field("v", .greaterThan, i(0)))) == ["a", "b"])
        #expect(try checkedIDs(db, testQuery("c/a/c")) == ["b"])
    }

    @Test func atMostOneHundredFiltersAndOrdersAreCheckedBeforeAnyWork() throws {
        let db = try Self.orDatabase()
        let orders = { (n: Int) in (0..<n).map { Ordering(FieldPath(["f\($0)"])) } }
        let equalities = { (n: Int) in QueryFilter.composite(.and, (0..<n).map { field("g\($0)", .equal, self.i(1)) }) }
        #expect(try db.runQuery(testQuery("c", orderBy: orders(100))).documents.isEmpty)
        #expect(try db.runQuery(testQuery("c", where: equalities(50), orderBy: orders(50))).documents.isEmpty)
        func message(_ filters: Int, _ sorts: Int, ancestor: Bool = false) -> String {
            "The query may not have more than 100 filters + sort orders + ancestor total. Currently there are \(filters) filters, \(sorts) sort orders, and \(ancestor ? "one" : "no") ancestor filter."
        }
        expectFirestoreError(.invalidArgument, message: message(0, 101)) { try db.runQuery(testQuery("c", orderBy: orders(101))) }
        expectFirestoreError(.invalidArgument, message: message(50, 51)) {
            try db.runQuery(testQuery("c", where: equalities(50), orderBy: orders(51)))
        }
        // Each value of a list operator counts; a parent document counts one.
        expectFirestoreError(.invalidArgument, message: message(10, 91)) {
            try db.runQuery(testQuery("c", where: field("z", .notIn, .array((0..<10).map { .integer(Int64($0)) })), orderBy: orders(91)))
        }
        expectFirestoreError(.invalidArgument, message: message(0, 100, ancestor: true)) { try db.runQuery(testQuery("u/a/c", orderBy: orders(100))) }
        // Thousands of order-bys (quadratic to check) are refused at once, duplicates or not.
        expectFirestoreError(.invalidArgument, message: message(0, 20_000)) {
            try db.runQuery(testQuery("c", orderBy: Array(repeating: Ordering(FieldPath(["x"])), count: 20_000)))
        }
        expectFirestoreError(.invalidArgument, message: message(20_000, 0)) { try db.runQuery(testQuery("c", where: equalities(20_000))) }
    }

    @Test func limitsAndDisjunctionBudget() throws {
        let db = try Self.orDatabase()
        let thirty: Value = .array((0..<30).map { .integer(Int64($0)) })
        #expect(try db.runQuery(testQuery("c", where: field("a", .in, thirty))).documents.count == 5)
        expectFirestoreError(.invalidArgument, message: "'IN' supports up to 30 comparison values.") {
            try db.runQuery(testQuery("c", where: field("a", .in, .array((0..<31).map { .integer(Int64($0)) }))))
        }
        // Production's texts, as the official emulator gives them.
        expectFirestoreError(.invalidArgument, message: "Too many disjunctions after normalization. Result had 60 disjunctions which is more than the maximum of 30") {
            try db.runQuery(testQuery("c", where: and(field("a", .in, thirty), field("b", .in, .array([i(1), i(2)])))))
        }
        expectFirestoreError(.invalidArgument, message: "A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.") {
            try db.runQuery(testQuery("c", where: and(field("a", .arrayContains, i(1)), field("b", .arrayContainsAny, .array([i(1)])))))
        }
        let single = "Only a single 'NOT_EQUAL', 'NOT_IN', 'IS_NOT_NAN', or 'IS_NOT_NULL' filter allowed per query."
        expectFirestoreError(.invalidArgument, message: single) {
            try db.runQuery(testQuery("c", where: and(field("a", .notIn, .array([i(1)])), field("b", .notEqual, i(1)))))
        }
        expectFirestoreError(.invalidArgument, message: single) {
            try db.runQuery(testQuery("c", where: and(field("a", .notEqual, i(1)), unary("b", .isNotNull))))
        }
        expectFirestoreError(.invalidArgument, message: "'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.") {
            try db.runQuery(testQuery("c", where: or(field("a", .notIn, .array([i(1)])), field("b", .equal, i(1)))))
        }
        expectFirestoreError(.invalidArgument, message: "'NOT_IN' supports up to 10 comparison values.") {
            try db.runQuery(testQuery("c", where: field("a", .notIn, .array((0..<11).map { .integer(Int64($0)) }))))
        }
        expectFirestoreError(.invalidArgument, message: "'IN' requires an non-empty ArrayValue.") { try db.runQuery(testQuery("c", where: field("a", .in, .array([])))) }
        expectFirestoreError(.invalidArgument, message: "'IN' requires an ArrayValue.") { try db.runQuery(testQuery("c", where: field("a", .in, i(1)))) }
        expectFirestoreError(.invalidArgument, message: "order by clause cannot contain duplicate fields a") {
            try db.runQuery(testQuery("c", orderBy: [asc("a"), desc("a")]))
        }
        expectFirestoreError(.invalidArgument, containing: ["The query contains 11 distinct inequality fields", "A query may not have more than 10 distinct inequality fields."]) {
            try db.runQuery(testQuery("c", where: .composite(.and, (0..<11).map { field("f\($0)", .greaterThan, i(1)) })))
        }
        #expect(try db.runQuery(testQuery("c", limit: 0)).documents.isEmpty)
    }

    @Test func projection() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["x": i(1), "y": testMap(["z": i(2), "w": i(3)])]))])
        var q = testQuery("c")
        q.projection = [testFieldPath("y.z")]
        #expect(try db.runQuery(q).documents.first?.fields == testFields(["y": testMap(["z": i(2)])]))
        q.projection = []
        #expect(try db.runQuery(q).documents.first?.fields == MapValue())
    }

    @Test func indexesFollowCommits() throws {
        let db = try Self.orDatabase()
        let q = testQuery("c", where: field("b", .greaterThanOrEqual, i(2)), orderBy: [asc("b")])
        #expect(try ids(db, q) == ["doc3", "doc4"])  // materialises the index on b
        try db.commit([Write.set(testPath("c/doc6"), testFields(["b": i(2)])), Write.delete(testPath("c/doc4")),
                       Write.update(testPath("c/doc1"), testFields(["b": i(5)]), mask: [testFieldPath("b")])])
        #expect(try checkedIDs(db, q) == ["doc3", "doc6", "doc1"])
        // A snapshot keeps its own index; restoring it brings the old answer back.
        let snap = db.snapshot()
        try db.commit([Write.delete(testPath("c/doc3"))])
        #expect(try ids(db, q) == ["doc6", "doc1"])
        db.restore(snap)
        #expect(try ids(db, q) == ["doc3", "doc6", "doc1"])
    }

    /// An update that leaves an index's fields alone leaves its entries holding the replaced
    /// version; a scan must still return each document's current one, wherever such entries
    /// fall among those whose flags it reads ahead (an irregular pattern over several leaves).
    @Test func indexScansReturnCurrentVersionsOfReplacedEntries() throws {
        let db = try makeQueryDatabase((0..<300).map { n in
            (String(format: "c/d%03d", n), testFields(["k": i(Int64(n % 2)), "v": i(0)]))
        })
        let even = testQuery("c", where: field("k", .equal, i(0)))
        #expect(try ids(db, even).count == 150)  // materialises the index on k
        let updated = (0..<300).filter { $0 % 3 == 0 || $0 % 7 == 0 }
        try db.commit(updated.map { n in
            Write.update(testPath(String(format: "c/d%03d", n)), testFields(["v": i(Int64(n))]), mask: [testFieldPath("v")])
        })
        for limit in [nil, 1, 5, 16, 17, 40, 150] as [Int?] {
            var q = even
            q.limit = limit
            let docs = try db.runQuery(q).documents
            #expect(docs.count == limit ?? 150)
            for doc in docs {
                let n = Int(doc.id.dropFirst())!
                #expect(doc.fields.value(at: testFieldPath("v")) == i(Int64(updated.contains(n) ? n : 0)), "\(doc.id), limit \(String(describing: limit))")
            }
        }
    }

    @Test func kindlessQueriesListASubtree() throws {
        let db = try makeQueryDatabase(["u/a", "u/a/posts/p1", "u/a/posts/p1/comments/c1", "u/a/likes/l1", "u/b", "u/b/posts/p2", "v/x"].map { ($0, testFields(["v": i(1)])) })
        // What recursive deletes send: every document under u/a, whatever its collection.
        let subtree = StructuredQuery(parent: testPath("u/a"), collectionID: "", allDescendants: true)
        #expect(try db.runQuery(subtree).documents.map(\.path.description) == ["u/a/likes/l1", "u/a/posts/p1", "u/a/posts/p1/comments/c1"])
        var all = StructuredQuery(collectionID: "", allDescendants: true, orderBy: [asc("__name__")], limit: 3)
        #expect(try db.runQuery(all).documents.map(\.path.description) == ["u/a", "u/a/likes/l1", "u/a/posts/p1"])
        all.startAt = Cursor(values: [testReference("u/b")], before: false)
        #expect(try db.runQuery(all).documents.map(\.path.description) == ["u/b/posts/p2", "v/x"])
        expectFirestoreError(.invalidArgument, containing: ["can only filter and order on __name__"]) {
            try db.runQuery(StructuredQuery(collectionID: "", allDescendants: true, filter: field("v", .equal, i(1))))
        }
        // No collection at all: the documents of every collection directly under the parent
        // (a raw query without `from`, as the official emulator answers it).
        #expect(try db.runQuery(StructuredQuery(collectionID: "")).documents.map(\.path.description) == ["u/a", "u/b", "v/x"])
        #expect(try db.runQuery(StructuredQuery(parent: testPath("u/a"), collectionID: "")).documents.map(\.path.description)
            == ["u/a/likes/l1", "u/a/posts/p1"])
    }
}
