import Foundation
import Testing
@testable import Hearth

/// Every `FieldValue` sentinel end to end (docs/semantics.md#writes, #field-transforms).
@Suite struct FieldValueTests {
    // MARK: serverTimestamp

    @Test func serverTimestampIsTheCommitTime() async throws {
        let (db, clock) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["created": FieldValue.serverTimestamp(), "name": "x"])
        #expect(try await apiData(ref)?["created"] as? Timestamp == apiTime(apiEpochSeconds))

        clock.advance(by: 5)
        try await ref.updateData(["updated": FieldValue.serverTimestamp(), "nested.at": FieldValue.serverTimestamp()])
        let data = try #require(try await apiData(ref))
        #expect(data["created"] as? Timestamp == apiTime(apiEpochSeconds))
        #expect(data["updated"] as? Timestamp == apiTime(apiEpochSeconds + 5))
        #expect((data["nested"] as? [String: Any])?["at"] as? Timestamp == apiTime(apiEpochSeconds + 5))
    }

    @Test func serverTimestampIsTheSameAcrossABatch() async throws {
        let (db, clock) = apiClockedDB()
        clock.advance(by: 0.25)
        let a = db.document("c/a"), b = db.document("c/b"), c = db.document("other/c")
        try await db.batch()
            .setData(["t": FieldValue.serverTimestamp()], forDocument: a)
            .setData(["t": FieldValue.serverTimestamp(), "m": ["t": FieldValue.serverTimestamp()]], forDocument: b)
            .setData(["t": FieldValue.serverTimestamp()], forDocument: c, merge: true)
            .commit()
        let expected = apiTime(apiEpochSeconds, 250_000_000)
        #expect(try await apiData(a)?["t"] as? Timestamp == expected)
        let bData = try #require(try await apiData(b))
        #expect(bData["t"] as? Timestamp == expected)
        #expect((bData["m"] as? [String: Any])?["t"] as? Timestamp == expected)
        #expect(try await apiData(c)?["t"] as? Timestamp == expected)
    }

    @Test func commitTimesStrictlyIncreaseWhenTheClockStandsStill() async throws {
        let (db, _) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["t": FieldValue.serverTimestamp()])
        let first = try #require(try await apiData(ref)?["t"] as? Timestamp)
        try await ref.setData(["t": FieldValue.serverTimestamp()])
        let second = try #require(try await apiData(ref)?["t"] as? Timestamp)
        #expect(first == apiTime(apiEpochSeconds))
        #expect(second == apiTime(apiEpochSeconds, 1000))
    }

    @Test func serverTimestampWorksInSetMergeAndMergeFields() async throws {
        let (db, clock) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["at": FieldValue.serverTimestamp(), "m": ["at": FieldValue.serverTimestamp()]], merge: true)
        clock.advance(by: 1)
        try await ref.setData(["m": ["at": FieldValue.serverTimestamp()]], mergeFields: ["m.at"])
        let data = try #require(try await apiData(ref))
        #expect(data["at"] as? Timestamp == apiTime(apiEpochSeconds))
        #expect((data["m"] as? [String: Any])?["at"] as? Timestamp == apiTime(apiEpochSeconds + 1))
    }

    // MARK: increment

    @Test func incrementIntegers() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["n": 5])
        try await ref.updateData(["n": FieldValue.increment(Int64(3))])
        var data = try #require(try await apiData(ref))
        #expect(data["n"] as? Int == 8)
        #expect(apiNumberKind(data["n"]) == "integer")
        try await ref.updateData(["n": FieldValue.increment(Int64(-10))])
        data = try #require(try await apiData(ref))
        #expect(data["n"] as? Int == -2)
        #expect(apiNumberKind(data["n"]) == "integer")
    }

    @Test func incrementDoubles() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["int": 5, "double": 1.5])
        try await ref.updateData(["int": FieldValue.increment(0.5), "double": FieldValue.increment(Int64(2))])
        let data = try #require(try await apiData(ref))
        #expect(data["int"] as? Double == 5.5)
        #expect(apiNumberKind(data["int"]) == "double")
        #expect(data["double"] as? Double == 3.5)
        #expect(apiNumberKind(data["double"]) == "double")
    }

    @Test func incrementOfMissingOrNonNumericFieldSetsTheOperand() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["s": "text", "null": NSNull(), "map": ["a": 1]])
        try await ref.updateData([
            "missing": FieldValue.increment(Int64(7)), "s": FieldValue.increment(2.5),
            "null": FieldValue.increment(Int64(1)), "map": FieldValue.increment(Int64(4)),
        ])
        let data = try #require(try await apiData(ref))
        #expect(data["missing"] as? Int == 7)
        #expect(apiNumberKind(data["missing"]) == "integer")
        #expect(data["s"] as? Double == 2.5)
        #expect(data["null"] as? Int == 1)
        #expect(data["map"] as? Int == 4)
    }

    @Test func incrementSaturatesAtTheInt64Bounds() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["max": Int64.max - 1, "min": Int64.min + 1])
        try await ref.updateData(["max": FieldValue.increment(Int64(10)), "min": FieldValue.increment(Int64(-10))])
        var data = try #require(try await apiData(ref))
        #expect(data["max"] as? Int64 == Int64.max)
        #expect(data["min"] as? Int64 == Int64.min)
        try await ref.updateData(["max": FieldValue.increment(Int64.max), "min": FieldValue.increment(Int64.min)])
        data = try #require(try await apiData(ref))
        #expect(data["max"] as? Int64 == Int64.max)
        #expect(data["min"] as? Int64 == Int64.min)
        #expect(apiNumberKind(data["max"]) == "integer")
    }

    @Test func incrementWithSetMergeCreatesTheDocument() async throws {
        let db = apiDB()
        let ref = db.document("stats/s")
        try await ref.setData(["views": FieldValue.increment(Int64(1)), "m": ["likes": FieldValue.increment(Int64(2))]], merge: true)
        try await ref.setData(["views": FieldValue.increment(Int64(1))], merge: true)
        let data = try #require(try await apiData(ref))
        #expect(data["views"] as? Int == 2)
        #expect((data["m"] as? [String: Any])?["likes"] as? Int == 2)

        let missing = db.document("stats/none")
        let error = await apiError { try await missing.updateData(["views": FieldValue.increment(Int64(1))]) }
        #expect(error?.code == FirestoreErrorCode.notFound.rawValue)
        #expect(try await missing.getDocument().exists == false)
    }

    @Test func incrementInPlainSetWritesTheOperand() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["n": 100])
        try await ref.setData(["n": FieldValue.increment(Int64(3))])
        #expect(try await apiData(ref)?["n"] as? Int == 3)
    }

    // MARK: arrayUnion / arrayRemove

    @Test func arrayUnionAppendsMissingElementsInOrder() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": [1, 2, 2]])
        try await ref.updateData(["a": FieldValue.arrayUnion([2, 3, 3, 1.0, "x", ["k": 1]])])
        let a = try #require(try await apiData(ref)?["a"] as? [Any])
        #expect(a.count == 6)
        #expect(a[0] as? Int == 1)
        #expect(a[1] as? Int == 2)
        #expect(a[2] as? Int == 2)
        #expect(a[3] as? Int == 3)
        #expect(a[4] as? String == "x")
        #expect((a[5] as? [String: Any])?["k"] as? Int == 1)
    }

    @Test func arrayUnionOnMissingOrNonArrayFieldStartsEmpty() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["s": "text"])
        try await ref.updateData(["s": FieldValue.arrayUnion([1, 1]), "new": FieldValue.arrayUnion(["a", NSNull(), NSNull()])])
        let data = try #require(try await apiData(ref))
        #expect(data["s"] as? [Int] == [1])
        let new = try #require(data["new"] as? [Any])
        #expect(new.count == 2)
        #expect(new[0] as? String == "a")
        #expect(new[1] is NSNull)
    }

    @Test func arrayRemoveRemovesEveryOccurrence() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": [1, 2, 1, 3, "x", 2.0, ["k": 1], NSNull()]])
        try await ref.updateData(["a": FieldValue.arrayRemove([1, "x", 2, ["k": 1], NSNull(), "absent"])])
        #expect(try await apiData(ref)?["a"] as? [Int] == [3])
    }

    @Test func arrayRemoveOnMissingOrNonArrayFieldGivesEmptyArray() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["n": 5])
        try await ref.updateData(["n": FieldValue.arrayRemove([5]), "missing": FieldValue.arrayRemove([1])])
        let data = try #require(try await apiData(ref))
        #expect((data["n"] as? [Any])?.isEmpty == true)
        #expect((data["missing"] as? [Any])?.isEmpty == true)
    }

    @Test func arrayTransformsInSetMerge() async throws {
        let ref = apiDB().document("users/u")
        try await ref.setData(["tags": ["a"]])
        try await ref.setData(["tags": FieldValue.arrayUnion(["b"]), "removed": FieldValue.arrayRemove(["z"])], merge: true)
        let data = try #require(try await apiData(ref))
        #expect(data["tags"] as? [String] == ["a", "b"])
        #expect((data["removed"] as? [Any])?.isEmpty == true)
    }

    // MARK: maximum / minimum

    @Test func maximumAndMinimumOfIntegers() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["hi": 5, "lo": 5, "keepHi": 5, "keepLo": 5])
        try await ref.updateData([
            "hi": FieldValue.maximum(Int64(7)), "lo": FieldValue.minimum(Int64(3)),
            "keepHi": FieldValue.maximum(Int64(3)), "keepLo": FieldValue.minimum(Int64(7)),
        ])
        let data = try #require(try await apiData(ref))
        #expect(data["hi"] as? Int == 7)
        #expect(data["lo"] as? Int == 3)
        #expect(data["keepHi"] as? Int == 5)
        #expect(data["keepLo"] as? Int == 5)
    }

    @Test func maximumAndMinimumMixedTypesKeepTheWinnersType() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 5, "b": 5, "c": 2.5, "eq": 3, "eqD": 3.0])
        try await ref.updateData([
            "a": FieldValue.maximum(7.5), "b": FieldValue.minimum(4.5), "c": FieldValue.maximum(Int64(2)),
            "eq": FieldValue.maximum(3.0), "eqD": FieldValue.minimum(Int64(3)),
        ])
        let data = try #require(try await apiData(ref))
        #expect(data["a"] as? Double == 7.5)
        #expect(apiNumberKind(data["a"]) == "double")
        #expect(data["b"] as? Double == 4.5)
        #expect(data["c"] as? Double == 2.5)
        #expect(apiNumberKind(data["c"]) == "double")
        #expect(apiNumberKind(data["eq"]) == "integer")
        #expect(apiNumberKind(data["eqD"]) == "double")
    }

    @Test func maximumAndMinimumOfMissingOrNonNumericFieldSetTheOperand() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["s": "x"])
        try await ref.updateData(["s": FieldValue.minimum(Int64(9)), "missing": FieldValue.maximum(1.5)])
        let data = try #require(try await apiData(ref))
        #expect(data["s"] as? Int == 9)
        #expect(data["missing"] as? Double == 1.5)
    }

    @Test func maximumWithNaNGivesNaN() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 5, "b": Double.nan])
        try await ref.updateData(["a": FieldValue.maximum(Double.nan), "b": FieldValue.minimum(Int64(1))])
        let data = try #require(try await apiData(ref))
        #expect((data["a"] as? Double)?.isNaN == true)
        #expect((data["b"] as? Double)?.isNaN == true)
    }

    // MARK: Combinations

    @Test func transformsApplyAfterTheDataOfTheSameWrite() async throws {
        let (db, _) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["n": 1, "keep": true])
        try await ref.updateData([
            "n": FieldValue.increment(Int64(1)), "m": ["a": 1, "t": FieldValue.serverTimestamp()],
            "list": FieldValue.arrayUnion([1]),
        ])
        let data = try #require(try await apiData(ref))
        #expect(data["n"] as? Int == 2)
        #expect(data["keep"] as? Bool == true)
        #expect(data["list"] as? [Int] == [1])
        let m = try #require(data["m"] as? [String: Any])
        #expect(m["a"] as? Int == 1)
        #expect(m["t"] as? Timestamp == apiTime(apiEpochSeconds, 1000))
    }

    @Test func sentinelEqualityAndMethodNames() {
        #expect(FieldValue.delete() == FieldValue.delete())
        #expect(FieldValue.increment(Int64(1)) == FieldValue.increment(Int64(1)))
        #expect(FieldValue.increment(Int64(1)) != FieldValue.increment(Int64(2)))
        #expect(FieldValue.increment(Int64(1)) != FieldValue.increment(1.0))
        #expect(FieldValue.serverTimestamp() != FieldValue.delete())
        #expect(FieldValue.arrayUnion([1]).methodName == "FieldValue.arrayUnion()")
        #expect(FieldValue.maximum(1.0).methodName == "FieldValue.maximum()")
        #expect(FieldValue.vector([1.0, 2.0]) == VectorValue([1.0, 2.0]))
        #expect(FieldValue.vector([Float(1.5)]).array == [1.5])
    }

    @Test func fieldValueCannotBeEncodedByOtherEncoders() {
        struct Model: Encodable { let v: FieldValue }
        #expect(throws: FirestoreEncodingError.self) { try JSONEncoder().encode(Model(v: FieldValue.serverTimestamp())) }
    }
}
