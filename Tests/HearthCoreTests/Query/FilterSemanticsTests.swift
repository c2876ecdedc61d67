import Foundation
import Testing
@testable import HearthCore

/// Production's per-operator semantics (docs/semantics.md#filters), on its own test vectors. Every
/// query is run twice — from indexes and by a full scan — and both must agree.
@Suite struct FilterSemanticsTests {
    /// The `zip` collection of docs/semantics.md#filters: NaN, numbers, arrays, a map, null and a missing field.
    static func zipDatabase() throws -> Database {
        try makeQueryDatabase([
            ("z/a", testFields(["zip": .double(.nan)])),
            ("z/b", testFields(["zip": .integer(91102)])),
            ("z/c", testFields(["zip": .integer(98101)])),
            ("z/d", testFields(["zip": .integer(98103)])),
            ("z/e", testFields(["zip": .array([.integer(98101)])])),
            ("z/f", testFields(["zip": .array([.integer(98101), .integer(98102)])])),
            ("z/g", testFields(["zip": .array([.string("98101"), testMap(["zip": .integer(98101)])])])),
            ("z/h", testFields(["zip": testMap(["code": .integer(500)])])),
            ("z/i", testFields(["zip": .null])),
            ("z/j", testFields(["other": .integer(1)])),
        ])
    }

    func zip(_ filter: QueryFilter, _ db: Database) throws -> [String] {
        try checkedIDs(db, testQuery("z", where: filter))
    }

    @Test func notEqualExcludesNullAndMissingAndOrdersByValue() throws {
        let db = try Self.zipDatabase()
        #expect(try zip(field("zip", .notEqual, .integer(98101)), db) == ["a", "b", "d", "e", "f", "g", "h"])
        #expect(try zip(field("zip", .notEqual, testMap(["code": .integer(500)])), db) == ["a", "b", "c", "d", "e", "f", "g"])
        #expect(try zip(field("zip", .notEqual, .array([.null])), db) == ["a", "b", "c", "d", "e", "f", "g", "h"])
        // The SDKs send `!= NaN` as IS_NOT_NAN; a raw NOT_EQUAL NaN keeps NaN (NaN equals
        // nothing), as the official emulator answers.
        #expect(try zip(field("zip", .notEqual, .double(.nan)), db) == ["a", "b", "c", "d", "e", "f", "g", "h"])
        #expect(try zip(field("zip", .notEqual, .null), db) == [])
        #expect(try zip(unary("zip", .isNotNaN), db) == ["b", "c", "d", "e", "f", "g", "h"])
        #expect(try zip(unary("zip", .isNotNull), db) == ["a", "b", "c", "d", "e", "f", "g", "h"])
    }

    @Test func notIn() throws {
        let db = try Self.zipDatabase()
        let list: Value = .array([.integer(98101), .integer(98103), .array([.integer(98101), .integer(98102)])])
        #expect(try zip(field("zip", .notIn, list), db) == ["a", "b", "e", "g", "h"])
        #expect(try zip(field("zip", .notIn, .array([testMap(["code": .integer(500)])])), db) == ["a", "b", "c", "d", "e", "f", "g"])
        #expect(try zip(field("zip", .notIn, .array([.null])), db) == [])
        #expect(try zip(field("zip", .notIn, .array([.double(.nan)])), db) == ["b", "c", "d", "e", "f", "g", "h"])
        #expect(try zip(field("zip", .notIn, .array([.double(.nan), .integer(98101)])), db) == ["b", "d", "e", "f", "g", "h"])
    }

    @Test func inMatchesWholeValuesNeverNullOrNaN() throws {
        let db = try Self.zipDatabase()
        let list: Value = .array([.integer(98101), .integer(98103), .array([.integer(98101), .integer(98102)])])
        #expect(try zip(field("zip", .in, list), db) == ["c", "d", "f"])
        #expect(try zip(field("zip", .in, .array([testMap(["code": .integer(500)])])), db) == ["h"])
        #expect(try zip(field("zip", .in, .array([.null])), db) == [])
        #expect(try zip(field("zip", .in, .array([.null, .integer(98101)])), db) == ["c"])
        #expect(try zip(field("zip", .in, .array([.double(.nan)])), db) == [])
        #expect(try zip(field("zip", .in, .array([.double(.nan), .integer(98101)])), db) == ["c"])
        // An int filter matches the equal double.
        #expect(try zip(field("zip", .in, .array([.double(98101.0)])), db) == ["c"])
    }

    @Test func equalityAndUnaryNullNaN() throws {
        let db = try Self.zipDatabase()
        #expect(try zip(field("zip", .equal, .integer(98101)), db) == ["c"])
        #expect(try zip(field("zip", .equal, .double(98101)), db) == ["c"])
        #expect(try zip(unary("zip", .isNull), db) == ["i"])
        // Null and NaN are only matched by the unary filters (emulator-observed).
        #expect(try zip(field("zip", .equal, .null), db) == [])
        #expect(try zip(unary("zip", .isNaN), db) == ["a"])
        #expect(try zip(field("zip", .equal, .double(.nan)), db) == [])
        #expect(try zip(field("zip", .equal, .array([.integer(98101)])), db) == ["e"])
    }

    @Test func rangesAreTypeBracketedAndSkipNaN() throws {
        let db = try Self.zipDatabase()
        #expect(try zip(field("zip", .greaterThan, .integer(0)), db) == ["b", "c", "d"])
        #expect(try zip(field("zip", .lessThan, .integer(98102)), db) == ["b", "c"])
        #expect(try zip(field("zip", .greaterThanOrEqual, .double(98101)), db) == ["c", "d"])
        #expect(try zip(field("zip", .lessThanOrEqual, .double(.infinity)), db) == ["b", "c", "d"])
        #expect(try zip(field("zip", .greaterThan, .string("")), db) == [])
        #expect(try zip(field("zip", .greaterThanOrEqual, .array([])), db) == ["e", "f", "g"])
        #expect(try zip(field("zip", .greaterThan, .map(MapValue())), db) == ["h"])
        #expect(try zip(field("zip", .greaterThanOrEqual, .null), db) == [])
        #expect(try zip(field("zip", .lessThanOrEqual, .null), db) == [])
        #expect(try zip(field("zip", .greaterThan, .null), db) == [])
        #expect(try zip(field("zip", .greaterThan, .double(.nan)), db) == [])
    }

    @Test func arrayContainsAndAny() throws {
        let db = try makeQueryDatabase([
            ("c/a", testFields(["array": .array([.integer(42)])])),
            ("c/b", testFields(["array": .array([.string("a"), .integer(42), .string("c")])])),
            ("c/c", testFields(["array": .array([.double(41.999), .string("42"), testMap(["a": .array([.integer(42)])])])])),
            ("c/d", testFields(["array": .array([.integer(42)]), "array2": .array([.string("bingo")])])),
            ("c/e", testFields(["array": .array([.integer(43)])])),
            ("c/f", testFields(["array": .array([testMap(["a": .integer(42)])])])),
            ("c/g", testFields(["array": .integer(42)])),
            ("c/h", testFields(["array": .array([.null])])),
            ("c/i", testFields(["array": .array([.double(.nan)])])),
        ])
        func q(_ f: QueryFilter) throws -> [String] { try checkedIDs(db, testQuery("c", where: f)) }
        #expect(try q(field("array", .arrayContains, .integer(42))) == ["a", "b", "d"])
        #expect(try q(field("array", .arrayContains, .double(42))) == ["a", "b", "d"])
        #expect(try q(field("array", .arrayContains, .null)) == [])
        #expect(try q(field("array", .arrayContains, .double(.nan))) == [])
        #expect(try q(field("array", .arrayContainsAny, .array([.integer(42), .integer(43)]))) == ["a", "b", "d", "e"])
        #expect(try q(field("array", .arrayContainsAny, .array([testMap(["a": .integer(42)])]))) == ["f"])
        #expect(try q(field("array", .arrayContainsAny, .array([.null]))) == [])
        #expect(try q(field("array", .arrayContainsAny, .array([.null, .integer(43)]))) == ["e"])
        #expect(try q(field("array", .arrayContainsAny, .array([.double(.nan)]))) == [])
        #expect(try q(field("array", .arrayContainsAny, .array([.double(.nan), .integer(43)]))) == ["e"])
    }

    @Test func unaryNullAndNaNTogether() throws {
        let db = try makeQueryDatabase([
            ("c/a", testFields(["null": .null, "nan": .double(.nan)])),
            ("c/b", testFields(["null": .null, "nan": .integer(0)])),
            ("c/c", testFields(["null": .boolean(false), "nan": .double(.nan)])),
            ("c/d", testFields(["inf": .double(.infinity)])),
            ("c/e", testFields(["inf": .double(-.infinity)])),
        ])
        #expect(try checkedIDs(db, testQuery("c", where: and(unary("null", .isNull), unary("nan", .isNaN)))) == ["a"])
        #expect(try checkedIDs(db, testQuery("c", where: field("inf", .equal, .double(.infinity)))) == ["d"])
    }

    @Test func documentIDFilters() throws {
        let db = try makeQueryDatabase(["aa", "ab", "ba", "bb"].map { ("c/\($0)", testFields(["v": .integer(1)])) })
        func name(_ id: String) -> Value { testReference("c/\(id)") }
        #expect(try checkedIDs(db, testQuery("c", where: field("__name__", .notEqual, name("aa")))) == ["ab", "ba", "bb"])
        #expect(try checkedIDs(db, testQuery("c", where: field("__name__", .in, .array([name("aa"), name("ab")])))) == ["aa", "ab"])
        #expect(try checkedIDs(db, testQuery("c", where: field("__name__", .notIn, .array([name("aa"), name("ab")])))) == ["ba", "bb"])
        #expect(try checkedIDs(db, testQuery("c", where: field("__name__", .equal, name("ba")))) == ["ba"])
        #expect(try checkedIDs(db, testQuery("c", where: field("__name__", .greaterThan, name("ab")))) == ["ba", "bb"])
        #expect(try checkedIDs(db, testQuery("c", where: and(field("__name__", .greaterThanOrEqual, name("ab")), field("__name__", .lessThan, name("bb"))))) == ["ab", "ba"])
        // Operands must be references in this database; not-array operators only.
        expectFirestoreError(.invalidArgument) { try db.runQuery(testQuery("c", where: field("__name__", .equal, .string("aa")))) }
        expectFirestoreError(.invalidArgument) { try db.runQuery(testQuery("c", where: field("__name__", .equal, testReference("c/aa", project: "other")))) }
        expectFirestoreError(.invalidArgument) { try db.runQuery(testQuery("c", where: field("__name__", .arrayContains, name("aa")))) }
    }

    @Test func numericDocumentIDsSortFirst() throws {
        let db = try makeQueryDatabase(["b", "__id7__", "a", "__id-3__", "__id12__"].map { ("c/\($0)", MapValue()) })
        #expect(try checkedIDs(db, testQuery("c")) == ["__id-3__", "__id7__", "__id12__", "a", "b"])
        #expect(try checkedIDs(db, testQuery("c", orderBy: [desc("__name__")])) == ["b", "a", "__id12__", "__id7__", "__id-3__"])
    }
}
