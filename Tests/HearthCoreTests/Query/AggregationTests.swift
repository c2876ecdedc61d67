import Foundation
import Testing
@testable import HearthCore

/// count / sum / average (docs/semantics.md#aggregations).
@Suite struct AggregationTests {
    func run(_ db: Database, _ query: StructuredQuery, _ aggregations: [Aggregation]) throws -> [String: Value] {
        try db.runAggregation(query, aggregations: aggregations).values
    }

    func sum(_ f: String, _ alias: String = "s") -> Aggregation { Aggregation(.sum(testFieldPath(f)), alias: alias) }
    func avg(_ f: String, _ alias: String = "a") -> Aggregation { Aggregation(.average(testFieldPath(f)), alias: alias) }
    let count = Aggregation(.count(upTo: nil), alias: "c")

    @Test func booksVectorFromTheJSSDK() throws {
        let db = try makeQueryDatabase([
            ("b/1", testFields(["pages": .integer(100), "year": .integer(1980)])),
            ("b/2", testFields(["pages": .integer(50), "year": .integer(2020)])),
            ("b/3", testFields(["pages": .integer(150), "year": .integer(2021)])),
            ("b/4", testFields(["pages": .integer(50)])),
        ])
        let r = try run(db, testQuery("b"), [sum("pages"), avg("pages"), avg("year", "y"), count])
        // Only documents having every aggregated field take part.
        #expect(r == ["s": .integer(300), "a": .double(100), "y": .double(2007), "c": .integer(3)])
        let single = try run(db, testQuery("b"), [sum("pages"), count])
        #expect(single == ["s": .integer(350), "c": .integer(4)])
    }

    @Test func nonNumericValuesAreCountedNotSummed() throws {
        let db = try makeQueryDatabase([
            ("r/1", testFields(["rating": .integer(3)])), ("r/2", testFields(["rating": .integer(3)])),
            ("r/3", testFields(["rating": .integer(4)])), ("r/4", testFields(["rating": .string("3")])),
            ("r/5", testFields(["other": .integer(1)])),
        ])
        #expect(try run(db, testQuery("r"), [sum("rating"), count]) == ["s": .integer(10), "c": .integer(4)])
        #expect(try run(db, testQuery("r"), [avg("rating")]) == ["a": .double(10.0 / 3)])
    }

    @Test func emptySetsAndLimits() throws {
        let db = try makeQueryDatabase([("n/1", testFields(["v": .integer(1)])), ("n/2", testFields(["v": .integer(2)])), ("n/3", testFields(["v": .integer(4)]))])
        #expect(try run(db, testQuery("empty"), [count, sum("v"), avg("v")]) == ["c": .integer(0), "s": .integer(0), "a": .null])
        #expect(try run(db, testQuery("n", limit: 2), [count, sum("v")]) == ["c": .integer(2), "s": .integer(3)])
        #expect(try run(db, testQuery("n"), [Aggregation(.count(upTo: 2), alias: "c")]) == ["c": .integer(2)])
        #expect(try run(db, testQuery("n", where: field("v", .greaterThan, .integer(1))), [count]) == ["c": .integer(2)])
        #expect(try run(db, testQuery("n", orderBy: [asc("v")], startAt: Cursor(values: [.integer(2)], before: true)), [sum("v")]) == ["s": .integer(6)])
    }

    // Observed on the official emulator (and relied on by the Python client's system tests):
    // summed/averaged fields order the documents like inequality fields, after explicit
    // order-bys and inequality fields, by field path — so a limit keeps the smallest values
    // and documents lacking the field are left out before the limit.
    @Test func aggregatedFieldsOrderTheDocumentsALimitKeeps() throws {
        var docs: [(String, MapValue)] = []
        for (n, (a, z)) in [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1)].enumerated() {
            docs.append(("n/x\(n)", testFields(["a": .integer(Int64(a)), "z": .integer(Int64(z))])))
        }
        docs.append(("n/lacking", testFields(["b": .integer(7)])))
        let db = try makeQueryDatabase(docs)
        #expect(try run(db, testQuery("n", limit: 2), [sum("z")]) == ["s": .integer(3)])
        #expect(try run(db, testQuery("n", limit: 2), [avg("z")]) == ["a": .double(1.5)])
        #expect(try run(db, testQuery("n", limit: 2), [sum("z", "sz"), sum("a", "sa")]) == ["sa": .integer(3), "sz": .integer(9)])
        #expect(try run(db, testQuery("n", where: field("z", .greaterThan, .integer(0)), limit: 2), [sum("a", "sa"), sum("z", "sz")])
                == ["sa": .integer(9), "sz": .integer(3)])
        #expect(try run(db, testQuery("n", orderBy: [desc("a")], limit: 2), [sum("z")]) == ["s": .integer(3)])
        #expect(try run(db, testQuery("n", limit: 6), [count, sum("a")]) == ["c": .integer(5), "s": .integer(15)])
    }

    @Test func aliasesMustBeDistinctAndPresent() {
        let db = try! makeQueryDatabase([])
        expectFirestoreError(.invalidArgument, message: "Aggregation aliases contain duplicate alias: s.") {
            _ = try run(db, testQuery("n"), [sum("a"), sum("b")])
        }
        expectFirestoreError(.invalidArgument, message: "Aggregations can not be empty.") {
            _ = try run(db, testQuery("n"), [])
        }
    }

    @Test func integerOverflowIsJudgedOnTheFinalResult() throws {
        let max = Int64.max
        let over = try makeQueryDatabase([("o/1", testFields(["v": .integer(max)])), ("o/2", testFields(["v": .integer(max)]))])
        #expect(try run(over, testQuery("o"), [sum("v")]) == ["s": .double(1.8446744073709552e19)])
        let back = try makeQueryDatabase([("o/1", testFields(["v": .integer(max)])), ("o/2", testFields(["v": .integer(1)])), ("o/3", testFields(["v": .integer(-101)]))])
        #expect(try run(back, testQuery("o"), [sum("v")]) == ["s": .integer(max - 100)])
        let mixed = try makeQueryDatabase([("m/1", testFields(["v": .integer(10)])), ("m/2", testFields(["v": .double(9.5)])), ("m/3", testFields(["v": .double(10.5)]))])
        #expect(try run(mixed, testQuery("m"), [sum("v"), avg("v")]) == ["s": .double(30), "a": .double(10)])
    }

    @Test func nanAndInfinity() throws {
        let db = try makeQueryDatabase([("x/1", testFields(["v": .double(.nan)])), ("x/2", testFields(["v": .integer(1)]))])
        let r = try run(db, testQuery("x"), [sum("v"), avg("v")])
        #expect(r["s"]?.isNaN == true && r["a"]?.isNaN == true)
        let inf = try makeQueryDatabase([("x/1", testFields(["v": .double(.greatestFiniteMagnitude)])), ("x/2", testFields(["v": .double(.greatestFiniteMagnitude)]))])
        #expect(try run(inf, testQuery("x"), [sum("v")]) == ["s": .double(.infinity)])
    }

    @Test func nestedPaths() throws {
        let db = try makeQueryDatabase([("b/1", testFields(["metadata": testMap(["pages": .integer(10)])])), ("b/2", testFields(["metadata": testMap(["pages": .integer(5)])]))])
        #expect(try run(db, testQuery("b"), [sum("metadata.pages")]) == ["s": .integer(15)])
    }

    @Test func validation() throws {
        let db = try makeQueryDatabase([])
        expectFirestoreError(.invalidArgument, containing: ["Aggregations can not be empty"]) { try run(db, testQuery("b"), []) }
        let six = (0..<6).map { sum("f\($0)", "a\($0)") }
        expectFirestoreError(.invalidArgument, containing: ["maximum number of aggregations"]) { try run(db, testQuery("b"), six) }
        // The same aggregation twice counts once.
        let same = (0..<6).map { i in i == 5 ? sum("f0", "dup") : sum("f\(i)", "a\(i)") }
        #expect(throws: Never.self) { try run(db, testQuery("b"), Array(same.prefix(4)) + [same[5]]) }
    }
}

/// findNearest (query.proto FindNearest).
@Suite struct VectorSearchTests {
    static func database() throws -> Database {
        try makeQueryDatabase([
            ("v/a", testFields(["e": .vector([1, 0]), "kind": .string("x")])),
            ("v/b", testFields(["e": .vector([0, 1]), "kind": .string("y")])),
            ("v/c", testFields(["e": .vector([2, 2]), "kind": .string("x")])),
            ("v/d", testFields(["e": .vector([1, 0, 0]), "kind": .string("x")])),   // other dimension
            ("v/e", testFields(["e": .array([.double(1), .double(0)]), "kind": .string("x")])), // not a vector
            ("g/1/v/f", testFields(["e": .vector([1, 0.1]), "kind": .string("x")])),
        ])
    }

    func nearest(_ measure: FindNearest.DistanceMeasure, limit: Int = 10, threshold: Double? = nil,
                 resultField: String? = nil, filter: QueryFilter? = nil, group: Bool = false) throws -> [Document] {
        var q = group ? testGroupQuery("v", where: filter) : testQuery("v", where: filter)
        q.findNearest = FindNearest(vectorField: testFieldPath("e"), queryVector: [1, 0], distanceMeasure: measure, limit: limit,
                                    distanceResultField: resultField.map(testFieldPath), distanceThreshold: threshold)
        return try Self.database().runQuery(q).documents
    }

    @Test func distances() throws {
        #expect(try nearest(.euclidean).map(\.id) == ["a", "b", "c"])
        #expect(try nearest(.cosine).map(\.id) == ["a", "c", "b"])
        #expect(try nearest(.dotProduct).map(\.id) == ["c", "a", "b"])
        #expect(try nearest(.euclidean, limit: 1).map(\.id) == ["a"])
        let withDistance = try nearest(.euclidean, resultField: "dist")
        #expect(withDistance.map { $0.fields["dist"] } == [.double(0), .double(2.0.squareRoot()), .double(5.0.squareRoot())])
    }

    @Test func thresholdsPrefiltersAndGroups() throws {
        #expect(try nearest(.euclidean, threshold: 1.5).map(\.id) == ["a", "b"])
        #expect(try nearest(.dotProduct, threshold: 1).map(\.id) == ["c", "a"])
        #expect(try nearest(.euclidean, filter: field("kind", .equal, .string("x"))).map(\.id) == ["a", "c"])
        #expect(try nearest(.euclidean, group: true).map(\.id) == ["a", "f", "b", "c"])
    }

    @Test func validation() throws {
        expectFirestoreError(.invalidArgument) { try nearest(.euclidean, limit: 0) }
        expectFirestoreError(.invalidArgument) { try nearest(.euclidean, limit: 1001) }
    }
}
