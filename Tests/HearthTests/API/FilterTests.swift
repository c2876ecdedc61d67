import Foundation
import Testing
@testable import Hearth

/// Every filter operator through `whereField` and `Filter`, AND/OR trees, document-ID
/// filters, and the SDK's client-side filter checks (docs/semantics.md#filters, #composite-filters-and-limits).
@Suite struct FilterTests {
    // MARK: Fixtures

    /// The `zip` collection of docs/semantics.md#filters (prod test).
    private func zipDB() async throws -> (Firestore, CollectionReference) {
        let db = qDB()
        try await qSeed(db, collection: "zips", [
            "a": ["zip": Double.nan],
            "b": ["zip": 91102],
            "c": ["zip": 98101],
            "d": ["zip": 98103],
            "e": ["zip": [98101]],
            "f": ["zip": [98101, 98102]],
            "g": ["zip": ["98101", ["zip": 98101]] as [Any]],
            "h": ["zip": ["code": 500]],
            "i": ["zip": NSNull()],
            "j": ["code": 500],
        ])
        return (db, db.collection("zips"))
    }

    /// The `array` collection of docs/semantics.md#filters (prod test).
    private func arrayDB() async throws -> CollectionReference {
        let db = qDB()
        try await qSeed(db, collection: "arrays", [
            "a": ["array": [42]],
            "b": ["array": ["a", 42, "c"] as [Any]],
            "c": ["array": [41.999, "42", ["a": [42]]] as [Any]],
            "d": ["array": [42], "array2": ["bingo"]],
            "e": ["array": [43]],
            "f": ["array": [["a": 42]]],
            "g": ["array": 42],
            "h": ["array": [NSNull()]],
            "i": ["array": [Double.nan]],
        ])
        return db.collection("arrays")
    }

    /// doc1…doc5 of the OR prod tests (docs/semantics.md#composite-filters-and-limits).
    private func orDB() async throws -> CollectionReference {
        let db = qDB()
        try await qSeed(db, collection: "or", [
            "doc1": ["a": 1, "b": 0],
            "doc2": ["a": 2, "b": 1],
            "doc3": ["a": 3, "b": 2],
            "doc4": ["a": 1, "b": 3],
            "doc5": ["a": 1, "b": 1],
        ])
        return db.collection("or")
    }

    // MARK: != and not-in (docs/semantics.md#filters prod vectors)

    @Test func notEqual() async throws {
        let (_, zips) = try await zipDB()
        #expect(try await qIDs(zips.whereField("zip", isNotEqualTo: 98101)) == qList("a b d e f g h"))
        #expect(try await qIDs(zips.whereField("zip", isNotEqualTo: ["code": 500])) == qList("a b c d e f g"))
        #expect(try await qIDs(zips.whereField("zip", isNotEqualTo: [NSNull()])) == qList("a b c d e f g h"))
        #expect(try await qIDs(zips.whereField("zip", isNotEqualTo: Double.nan)) == qList("b c d e f g h"))
    }

    @Test func notEqualNullIsNotNull() async throws {
        let (_, zips) = try await zipDB()
        // IS_NOT_NULL: every existing non-null value, NaN included; ordered by zip.
        #expect(try await qIDs(zips.whereField("zip", isNotEqualTo: NSNull())) == qList("a b c d e f g h"))
    }

    @Test func notIn() async throws {
        let (_, zips) = try await zipDB()
        #expect(try await qIDs(zips.whereField("zip", notIn: [98101, 98103, [98101, 98102]])) == qList("a b e g h"))
        #expect(try await qIDs(zips.whereField("zip", notIn: [["code": 500]])) == qList("a b c d e f g"))
        #expect(try await qIDs(zips.whereField("zip", notIn: [NSNull()])) == [])
        #expect(try await qIDs(zips.whereField("zip", notIn: [Double.nan])) == qList("b c d e f g h"))
        #expect(try await qIDs(zips.whereField("zip", notIn: [Double.nan, 98101])) == qList("b d e f g h"))
    }

    // MARK: == and in

    @Test func equalNullAndNaNAreUnaryFilters() async throws {
        let (_, zips) = try await zipDB()
        #expect(try await qIDs(zips.whereField("zip", isEqualTo: NSNull())) == ["i"])
        #expect(try await qIDs(zips.whereField("zip", isEqualTo: Double.nan)) == ["a"])
        #expect(try await qIDs(zips.whereField("zip", isEqualTo: Float.nan)) == ["a"])
        // An optional that is nil is null, as on Darwin.
        let none: Int? = nil
        #expect(try await qIDs(zips.whereField("zip", isEqualTo: none as Any)) == ["i"])
    }

    @Test func nullAndNaNCombinedMatchOnlyTheDocumentWithBoth() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "both": ["n": NSNull(), "x": Double.nan],
            "onlyNull": ["n": NSNull(), "x": 1],
            "onlyNaN": ["n": 1, "x": Double.nan],
        ])
        let q = db.collection("c").whereField("n", isEqualTo: NSNull()).whereField("x", isEqualTo: Double.nan)
        #expect(try await qIDs(q) == ["both"])
    }

    @Test func equalInfinityMatchesOnlyInfinity() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "inf": ["v": Double.infinity], "ninf": ["v": -Double.infinity], "max": ["v": Double.greatestFiniteMagnitude],
        ])
        #expect(try await qIDs(db.collection("c").whereField("v", isEqualTo: Double.infinity)) == ["inf"])
    }

    @Test func inList() async throws {
        let (_, zips) = try await zipDB()
        #expect(try await qIDs(zips.whereField("zip", in: [98101, 98103, [98101, 98102]])) == qList("c d f"))
        #expect(try await qIDs(zips.whereField("zip", in: [["code": 500]])) == ["h"])
        #expect(try await qIDs(zips.whereField("zip", in: [NSNull()])) == [])
        #expect(try await qIDs(zips.whereField("zip", in: [NSNull(), 98101])) == ["c"])
        #expect(try await qIDs(zips.whereField("zip", in: [Double.nan])) == [])
        #expect(try await qIDs(zips.whereField("zip", in: [Double.nan, 98101])) == ["c"])
    }

    @Test func singleElementInIsEquality() async throws {
        let (_, zips) = try await zipDB()
        #expect(try await qIDs(zips.whereField("zip", in: [98103])) == qIDs(zips.whereField("zip", isEqualTo: 98103)))
        #expect(try await qIDs(zips.whereField("zip", in: [98103])) == ["d"])
    }

    @Test func equalityComparesWholeArraysAndMaps() async throws {
        let (_, zips) = try await zipDB()
        #expect(try await qIDs(zips.whereField("zip", isEqualTo: [98101, 98102])) == ["f"])
        #expect(try await qIDs(zips.whereField("zip", isEqualTo: [98102, 98101])) == [])
        #expect(try await qIDs(zips.whereField("zip", isEqualTo: ["code": 500])) == ["h"])
    }

    @Test func integersAndDoublesCompareNumerically() async throws {
        let db = qDB()
        try await qSeed(db, collection: "n", ["int": ["v": 1], "dbl": ["v": 1.0], "other": ["v": 2]])
        #expect(try await qIDs(db.collection("n").whereField("v", isEqualTo: 1)) == ["dbl", "int"])
        #expect(try await qIDs(db.collection("n").whereField("v", isEqualTo: 1.0)) == ["dbl", "int"])
        #expect(try await qIDs(db.collection("n").whereField("v", in: [1.0])) == ["dbl", "int"])
        #expect(try await qIDs(db.collection("n").whereField("v", isNotEqualTo: 1)) == ["other"])
    }

    // MARK: Ranges

    @Test func rangesAreTypeBracketedAndSkipNaN() async throws {
        let (_, zips) = try await zipDB()
        #expect(try await qIDs(zips.whereField("zip", isGreaterThan: 91102)) == qList("c d"))
        #expect(try await qIDs(zips.whereField("zip", isGreaterThanOrEqualTo: 91102)) == qList("b c d"))
        #expect(try await qIDs(zips.whereField("zip", isLessThan: 98103)) == qList("b c"))
        #expect(try await qIDs(zips.whereField("zip", isLessThanOrEqualTo: 98103)) == qList("b c d"))
        #expect(try await qIDs(zips.whereField("zip", isLessThan: "zzz")) == [])
        // Arrays are one type bracket, compared element-wise.
        #expect(try await qIDs(zips.whereField("zip", isGreaterThan: [98101])) == qList("f g"))
    }

    @Test func greaterThanExcludesEqualDoubles() async throws {
        // Prod test (docs/semantics.md#equality): `foo > 21` excludes a doc holding 21.0.
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["foo": 42], "d": ["foo": 21], "e": ["foo": 21.0]])
        #expect(try await qIDs(db.collection("c").whereField("foo", isGreaterThan: 21)) == ["a"])
    }

    // MARK: array-contains(-any) (docs/semantics.md#filters prod vectors)

    @Test func arrayContains() async throws {
        let arrays = try await arrayDB()
        #expect(try await qIDs(arrays.whereField("array", arrayContains: 42)) == qList("a b d"))
        #expect(try await qIDs(arrays.whereField("array", arrayContains: NSNull())) == [])
        #expect(try await qIDs(arrays.whereField("array", arrayContains: Double.nan)) == [])
        #expect(try await qIDs(arrays.whereField("array", arrayContains: ["a": 42])) == ["f"])
    }

    @Test func arrayContainsAny() async throws {
        let arrays = try await arrayDB()
        #expect(try await qIDs(arrays.whereField("array", arrayContainsAny: [42, 43])) == qList("a b d e"))
        #expect(try await qIDs(arrays.whereField("array", arrayContainsAny: [["a": 42]])) == ["f"])
        #expect(try await qIDs(arrays.whereField("array", arrayContainsAny: [NSNull()])) == [])
        #expect(try await qIDs(arrays.whereField("array", arrayContainsAny: [NSNull(), 43])) == ["e"])
        #expect(try await qIDs(arrays.whereField("array", arrayContainsAny: [Double.nan])) == [])
        #expect(try await qIDs(arrays.whereField("array", arrayContainsAny: [Double.nan, 43])) == ["e"])
    }

    // MARK: FieldPath forms

    /// Every operator through the `FieldPath` overloads, on a field whose name has a dot.
    @Test func fieldPathOverloads() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "one": ["m": ["x.y": 1, "list": [1, 2]]],
            "two": ["m": ["x.y": 2, "list": [3]]],
            "three": ["m": ["x.y": 3]],
        ])
        let c = db.collection("c")
        let p = FieldPath(["m", "x.y"])
        let list = FieldPath(["m", "list"])
        #expect(try await qIDs(c.whereField(p, isEqualTo: 2)) == ["two"])
        #expect(try await qIDs(c.whereField(p, isNotEqualTo: 2)) == ["one", "three"])
        #expect(try await qIDs(c.whereField(p, isLessThan: 2)) == ["one"])
        #expect(try await qIDs(c.whereField(p, isLessThanOrEqualTo: 2)) == ["one", "two"])
        #expect(try await qIDs(c.whereField(p, isGreaterThan: 2)) == ["three"])
        #expect(try await qIDs(c.whereField(p, isGreaterThanOrEqualTo: 2)) == ["two", "three"])
        #expect(try await qIDs(c.whereField(list, arrayContains: 3)) == ["two"])
        #expect(try await qIDs(c.whereField(list, arrayContainsAny: [2, 3])) == ["one", "two"])
        #expect(try await qIDs(c.whereField(p, in: [1, 3])) == ["one", "three"])
        #expect(try await qIDs(c.whereField(p, notIn: [1, 3])) == ["two"])
        // The dotted string means a different path: m → x → y.
        #expect(try await qIDs(c.whereField("m.x.y", isEqualTo: 2)) == [])
    }

    /// Every `Filter` factory, String and FieldPath forms, through `whereFilter`.
    @Test func filterFactories() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["one": ["v": 1, "t": ["a"]], "two": ["v": 2, "t": ["b"]], "three": ["v": 3]])
        let c = db.collection("c")
        let v = FieldPath(["v"])
        let t = FieldPath(["t"])
        let cases: [(Filter, Filter, [String])] = [
            (.whereField("v", isEqualTo: 2), .whereField(v, isEqualTo: 2), ["two"]),
            (.whereField("v", isNotEqualTo: 2), .whereField(v, isNotEqualTo: 2), ["one", "three"]),
            (.whereField("v", isGreaterThan: 2), .whereField(v, isGreaterThan: 2), ["three"]),
            (.whereField("v", isGreaterOrEqualTo: 2), .whereField(v, isGreaterOrEqualTo: 2), ["two", "three"]),
            (.whereField("v", isLessThan: 2), .whereField(v, isLessThan: 2), ["one"]),
            (.whereField("v", isLessThanOrEqualTo: 2), .whereField(v, isLessThanOrEqualTo: 2), ["one", "two"]),
            (.whereField("t", arrayContains: "b"), .whereField(t, arrayContains: "b"), ["two"]),
            (.whereField("t", arrayContainsAny: ["a", "b"]), .whereField(t, arrayContainsAny: ["a", "b"]), ["one", "two"]),
            (.whereField("v", in: [1, 3]), .whereField(v, in: [1, 3]), ["one", "three"]),
            (.whereField("v", notIn: [1, 3]), .whereField(v, notIn: [1, 3]), ["two"]),
        ]
        for (byString, byPath, expected) in cases {
            #expect(try await qIDs(c.whereFilter(byString)) == expected)
            #expect(try await qIDs(c.whereFilter(byPath)) == expected)
            #expect(c.whereFilter(byString) == c.whereFilter(byPath))
        }
    }

    @Test func whereFieldEqualsTheSameFilter() {
        let c = qDB().collection("c")
        #expect(c.whereField("a", isEqualTo: 1) == c.whereFilter(.whereField("a", isEqualTo: 1)))
        #expect(c.whereField("a", isGreaterThanOrEqualTo: 1) == c.whereFilter(.whereField("a", isGreaterOrEqualTo: 1)))
        #expect(c.whereField("a", isEqualTo: NSNull()) == c.whereField(FieldPath(["a"]), isEqualTo: NSNull()))
        #expect(c.whereField("a", isEqualTo: 1) != c.whereField("a", isEqualTo: 2))
    }

    // MARK: AND / OR (docs/semantics.md#composite-filters-and-limits prod vectors)

    @Test func orQueries() async throws {
        let c = try await orDB()
        #expect(try await qIDs(c.whereFilter(.orFilter([.whereField("a", isEqualTo: 1), .whereField("b", isEqualTo: 1)])))
                == qList("doc1 doc2 doc4 doc5"))
        #expect(try await qIDs(c.whereFilter(.orFilter([
            .andFilter([.whereField("a", isEqualTo: 1), .whereField("b", isEqualTo: 0)]),
            .andFilter([.whereField("a", isEqualTo: 3), .whereField("b", isEqualTo: 2)]),
        ]))) == qList("doc1 doc3"))
        #expect(try await qIDs(c.whereFilter(.andFilter([
            .whereField("a", isEqualTo: 1),
            .orFilter([.whereField("b", isEqualTo: 0), .whereField("b", isEqualTo: 3)]),
        ]))) == qList("doc1 doc4"))
        #expect(try await qIDs(c.whereFilter(.andFilter([
            .orFilter([.whereField("a", isEqualTo: 2), .whereField("b", isEqualTo: 2)]),
            .orFilter([.whereField("a", isEqualTo: 3), .whereField("b", isEqualTo: 3)]),
        ]))) == ["doc3"])
        #expect(try await qIDs(c.whereFilter(.orFilter([.whereField("a", isEqualTo: 2), .whereField("b", isEqualTo: 1)])).limit(to: 1))
                == ["doc2"])
    }

    @Test func orCombinedWithWhereField() async throws {
        let c = try await orDB()
        let q = c.whereField("a", isEqualTo: 1).whereFilter(.orFilter([.whereField("b", isEqualTo: 0), .whereField("b", isEqualTo: 3)]))
        #expect(try await qIDs(q) == qList("doc1 doc4"))
    }

    /// The variants with doc2 {b:1}, doc5 {a:1}, doc6 {a:2} (docs/semantics.md#composite-filters-and-limits).
    @Test func orWithInAndArrayContains() async throws {
        let db = qDB()
        try await qSeed(db, collection: "or", [
            "doc1": ["a": 1, "b": 0], "doc2": ["b": 1], "doc3": ["a": 3, "b": 2],
            "doc4": ["a": 1, "b": 3], "doc5": ["a": 1], "doc6": ["a": 2],
        ])
        let c = db.collection("or")
        #expect(try await qIDs(c.whereFilter(.orFilter([.whereField("a", isEqualTo: 2), .whereField("b", in: [2, 3])])))
                == qList("doc3 doc4 doc6"))
        #expect(try await qIDs(c.whereFilter(.orFilter([.whereField("a", in: [2, 3]), .whereField("b", in: [0, 2])])))
                == qList("doc1 doc3 doc6"))
        #expect(try await qIDs(c.whereFilter(.orFilter([.whereField("a", in: [0, 3]), .whereField("a", in: [0, 2])])))
                == qList("doc3 doc6"))

        let arrays = db.collection("orArrays")
        try await qSeed(db, collection: "orArrays", [
            "doc1": ["a": 1, "b": [0]], "doc2": ["b": [1]], "doc3": ["a": 3, "b": [2, 7]],
            "doc4": ["a": 1, "b": [3, 7]], "doc5": ["a": 1], "doc6": ["a": 2],
        ])
        #expect(try await qIDs(arrays.whereFilter(.orFilter([.whereField("a", isEqualTo: 2), .whereField("b", arrayContains: 7)])))
                == qList("doc3 doc4 doc6"))
    }

    @Test func orAppliesImplicitOrderByToEveryDisjunct() async throws {
        // `a > 1 OR b == 1` orders by a, so {b: 1} without `a` is not returned (docs/semantics.md#composite-filters-and-limits).
        let db = qDB()
        try await qSeed(db, collection: "c", ["x": ["a": 2], "y": ["b": 1], "z": ["a": 0, "b": 1]])
        let q = db.collection("c").whereFilter(.orFilter([.whereField("a", isGreaterThan: 1), .whereField("b", isEqualTo: 1)]))
        #expect(try await qIDs(q) == ["z", "x"])
    }

    @Test func compositesCollapse() {
        let c = qDB().collection("c")
        let single = Filter.whereField("a", isEqualTo: 1)
        // One child is that child; empty composites add nothing (even nested).
        #expect(c.whereFilter(.andFilter([single])) == c.whereFilter(single))
        #expect(c.whereFilter(.orFilter([single])) == c.whereFilter(single))
        #expect(c.whereFilter(.orFilter([])) === c)
        #expect(c.whereFilter(.andFilter([.orFilter([]), .andFilter([])])) === c)
        #expect(c.whereFilter(.orFilter([.andFilter([]), single])) == c.whereFilter(single))
    }

    // MARK: Document IDs (docs/semantics.md#filters last bullet)

    @Test func documentIDFilters() async throws {
        let db = qDB()
        try await qSeed(db, collection: "ids", ["aa": ["v": 1], "ab": ["v": 2], "ba": ["v": 3], "bb": ["v": 4]])
        let c = db.collection("ids")
        let id = FieldPath.documentID()
        #expect(try await qIDs(c.whereField(id, isNotEqualTo: "aa")) == qList("ab ba bb"))
        #expect(try await qIDs(c.whereField(id, in: ["aa", "ab"])) == qList("aa ab"))
        #expect(try await qIDs(c.whereField(id, notIn: ["aa", "ab"])) == qList("ba bb"))
        #expect(try await qIDs(c.whereField(id, isEqualTo: "ba")) == ["ba"])
        #expect(try await qIDs(c.whereField(id, isGreaterThanOrEqualTo: "b")) == qList("ba bb"))
        #expect(try await qIDs(c.whereField(id, isLessThan: "b")) == qList("aa ab"))
        #expect(try await qIDs(c.whereField("__name__", isEqualTo: "ab")) == ["ab"])
        // A DocumentReference is accepted wherever an ID string is.
        #expect(try await qIDs(c.whereField(id, isEqualTo: c.document("bb"))) == ["bb"])
        #expect(try await qIDs(c.whereField(id, in: [c.document("aa"), "bb"])) == qList("aa bb"))
        #expect(try await qIDs(c.whereFilter(.orFilter([.whereField(id, isEqualTo: "aa"), .whereField("v", isEqualTo: 4)]))) == qList("aa bb"))
    }

    @Test func documentIDFiltersOnCollectionGroupsTakePaths() async throws {
        let db = qDB()
        try await qSeed(db, [
            "a/1/cg/x": ["v": 1], "a/2/cg/x": ["v": 2], "b/1/cg/y": ["v": 3], "cg/z": ["v": 4],
        ])
        let cg = db.collectionGroup("cg")
        let id = FieldPath.documentID()
        #expect(try await qPaths(cg.whereField(id, isEqualTo: "a/2/cg/x")) == ["a/2/cg/x"])
        #expect(try await qPaths(cg.whereField(id, in: ["cg/z", "b/1/cg/y"])) == ["b/1/cg/y", "cg/z"])
        #expect(try await qPaths(cg.whereField(id, isEqualTo: db.document("cg/z"))) == ["cg/z"])
        // Ranges compare full paths.
        #expect(try await qPaths(cg.whereField(id, isGreaterThan: "a/1/cg/x")) == ["a/2/cg/x", "b/1/cg/y", "cg/z"])
        #expect(try await qPaths(cg.whereField(id, isLessThan: db.document("b/1/cg/y"))) == ["a/1/cg/x", "a/2/cg/x"])
    }

    // MARK: Server-side checks arrive as errors

    @Test func serverSideLimitsFailTheQuery() async throws {
        let c = qDB().collection("c")
        let inError = try #require(await qError(c.whereField("a", in: Array(0..<31))))
        #expect(inError.domain == FirestoreErrorDomain)
        #expect(inError.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(inError.localizedDescription == "'IN' supports up to 30 comparison values.")
        #expect(await qError(c.whereField("a", in: Array(0..<30))) == nil)

        let notInError = try #require(await qError(c.whereField("a", notIn: Array(0..<11))))
        #expect(notInError.code == FirestoreErrorCode.invalidArgument.rawValue)

        // DNF budget: 6 × 6 = 36 disjunctions.
        let dnf = try #require(await qError(c.whereField("a", in: Array(0..<6)).whereField("b", in: Array(0..<6))))
        #expect(dnf.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(await qError(c.whereField("a", in: Array(0..<5)).whereField("b", in: Array(0..<6))) == nil)
    }

    @Test func orderByAnEqualityFieldIsRejectedByTheServer() async throws {
        let c = qDB().collection("c")
        let error = try #require(await qError(c.whereField("a", isEqualTo: 1).order(by: "a")))
        #expect(error.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(error.localizedDescription == "Order by clause cannot contain a field with an equality filter a")
    }

    // MARK: Programmer errors (docs/semantics.md#composite-filters-and-limits; the SDK's messages)

    @Test func operatorConflicts() {
        let c = qDB().collection("c")
        func rejection(_ base: Query, _ filter: Filter) -> String? { qRejection { try base.filtered(by: filter) } }
        let notEqual = c.whereField("a", isNotEqualTo: 1)
        #expect(rejection(notEqual, .whereField("b", isNotEqualTo: 2)) == "Invalid Query. You cannot use more than one 'notEqual' filter.")
        #expect(rejection(notEqual, .whereField("b", notIn: [2])) == "Invalid Query. You cannot use 'notIn' filters with 'notEqual' filters.")
        let notIn = c.whereField("a", notIn: [1])
        #expect(rejection(notIn, .whereField("b", isNotEqualTo: 2)) == "Invalid Query. You cannot use 'notEqual' filters with 'notIn' filters.")
        #expect(rejection(notIn, .whereField("b", in: [2])) == "Invalid Query. You cannot use 'in' filters with 'notIn' filters.")
        #expect(rejection(notIn, .whereField("b", arrayContainsAny: [2])) == "Invalid Query. You cannot use 'arrayContainsAny' filters with 'notIn' filters.")
        #expect(rejection(notIn, .whereField("b", notIn: [2])) == "Invalid Query. You cannot use more than one 'notIn' filter.")
        let inQuery = c.whereField("a", in: [1])
        #expect(rejection(inQuery, .whereField("b", notIn: [2])) == "Invalid Query. You cannot use 'notIn' filters with 'in' filters.")
        #expect(rejection(c.whereField("a", arrayContainsAny: [1]), .whereField("b", notIn: [2]))
                == "Invalid Query. You cannot use 'notIn' filters with 'arrayContainsAny' filters.")
        // `!= null` / `!= NaN` are notEqual filters to the SDK.
        #expect(rejection(c.whereField("a", isNotEqualTo: NSNull()), .whereField("b", isNotEqualTo: Double.nan))
                == "Invalid Query. You cannot use more than one 'notEqual' filter.")
        // Allowed combinations.
        #expect(rejection(inQuery, .whereField("b", in: [2])) == nil)
        #expect(rejection(inQuery, .whereField("b", arrayContains: 2)) == nil)
        #expect(rejection(c.whereField("a", arrayContains: 1), .whereField("b", arrayContainsAny: [2])) == nil)
        #expect(rejection(notEqual, .whereField("b", isLessThan: 2)) == nil)
    }

    @Test func operatorConflictsInsideCompositeFilters() {
        let c = qDB().collection("c")
        // The flattened filters of the whole query count, OR branches included, and the
        // leaves of one composite are checked against each other in order.
        #expect(qRejection { try c.filtered(by: .orFilter([.whereField("a", notIn: [1]), .whereField("b", in: [2])])) }
                == "Invalid Query. You cannot use 'in' filters with 'notIn' filters.")
        #expect(qRejection { try c.whereFilter(.orFilter([.whereField("a", isNotEqualTo: 1), .whereField("b", isEqualTo: 2)]))
            .filtered(by: .whereField("c", isNotEqualTo: 3)) } == "Invalid Query. You cannot use more than one 'notEqual' filter.")
        // The first conflicting filter in query order is named.
        #expect(qRejection { try c.whereField("a", in: [1]).whereField("b", isNotEqualTo: 1).filtered(by: .whereField("c", notIn: [1])) }
                == "Invalid Query. You cannot use 'notIn' filters with 'in' filters.")
    }

    @Test func emptyListsAreRejected() {
        let c = qDB().collection("c")
        #expect(qRejection { try c.filtered(by: .whereField("a", in: [])) } == "Invalid Query. A non-empty array is required for 'in' filters.")
        #expect(qRejection { try c.filtered(by: .whereField("a", notIn: [])) } == "Invalid Query. A non-empty array is required for 'notIn' filters.")
        #expect(qRejection { try c.filtered(by: .whereField("a", arrayContainsAny: [])) }
                == "Invalid Query. A non-empty array is required for 'arrayContainsAny' filters.")
        #expect(qRejection { try c.filtered(by: .whereField(FieldPath.documentID(), in: [])) }
                == "Invalid Query. A non-empty array is required for 'in' filters.")
    }

    @Test func documentIDOperandChecks() {
        let db = qDB()
        let c = db.collection("c")
        let cg = db.collectionGroup("cg")
        let id = FieldPath.documentID()
        #expect(qRejection { try c.filtered(by: .whereField(id, isEqualTo: "x/y")) }
                == "Invalid query. When querying a collection by document ID you must provide a plain document ID, but 'x/y' contains a '/' character.")
        #expect(qRejection { try c.filtered(by: .whereField(id, in: ["ok", "x/y"])) }
                == "Invalid query. When querying a collection by document ID you must provide a plain document ID, but 'x/y' contains a '/' character.")
        #expect(qRejection { try c.filtered(by: .whereField(id, isEqualTo: "")) }
                == "Invalid query. When querying by document ID you must provide a valid document ID, but it was an empty string.")
        #expect(qRejection { try cg.filtered(by: .whereField(id, isEqualTo: "a/b/cg")) }
                == "Invalid query. When querying a collection group by document ID, the value provided must result in a valid document path, but 'a/b/cg' is not because it has an odd number of segments.")
        #expect(qRejection { try c.filtered(by: .whereField(id, isEqualTo: 5)) }
                == "Invalid query. When querying by document ID you must provide a valid string or DocumentReference, but it was of type: Int")
        #expect(qRejection { try c.filtered(by: .whereField(id, arrayContains: "x")) }
                == "Invalid query. You can't perform arrayContains queries on document ID since document IDs are not arrays.")
        #expect(qRejection { try c.filtered(by: .whereField(id, arrayContainsAny: ["x"])) }
                == "Invalid query. You can't perform arrayContainsAny queries on document ID since document IDs are not arrays.")
        #expect(qRejection { try cg.filtered(by: .whereField(id, isEqualTo: "a/b")) } == nil)
        #expect(qRejection { try c.filtered(by: .whereField(id, isEqualTo: c.document("x"))) } == nil)
    }

    @Test func unsupportedAndNestedValuesAreRejected() {
        let c = qDB().collection("c")
        #expect(qRejection { try c.filtered(by: .whereField("a", isEqualTo: NSObject())) } == "Unsupported type: NSObject")
        #expect(qRejection { try c.filtered(by: .whereField("a", isEqualTo: [[1]])) } == "Nested arrays are not supported")
        #expect(qRejection { try c.filtered(by: .whereField("a", arrayContainsAny: [[1]])) } == "Nested arrays are not supported")
        #expect(qRejection { try c.filtered(by: .whereField("a", isEqualTo: FieldValue.serverTimestamp())) }
                == "FieldValue.serverTimestamp() can only be used with updateData() and setData()")
        // `in` / `not-in` elements may be arrays.
        #expect(qRejection { try c.filtered(by: .whereField("a", in: [[1], [2]])) } == nil)
    }
}
