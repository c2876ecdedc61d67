import Foundation
import Testing
@testable import Hearth

/// Round trips of every value type through `setData` / `getDocument`, and the shapes
/// `data()` hands back (docs/embedded-api.md#linux-and-apple-platforms, docs/semantics.md#values).
@Suite struct ValueBridgingTests {
    @Test func integersReadBackAsNSNumberCastingToEveryNumericType() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["i": 42, "neg": -7, "big": Int64.max, "small": Int64.min])
        let data = try #require(try await apiData(ref))
        #expect(data["i"] is NSNumber)
        #expect(apiNumberKind(data["i"]) == "integer")
        #expect(data["i"] as? Int == 42)
        #expect(data["i"] as? Int64 == 42)
        #expect(data["i"] as? Int32 == 42)
        #expect(data["i"] as? Double == 42.0)
        #expect(data["neg"] as? Int == -7)
        #expect(data["big"] as? Int64 == Int64.max)
        #expect(data["small"] as? Int64 == Int64.min)
    }

    /// The bridged fields are converted once per stored version and Firestore instance; each
    /// caller still gets a value it can change alone, and a fork reads references of its own.
    @Test func repeatedReadsShareNothingMutableAndReferencesFollowTheReader() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        try await ref.setData(["n": 1, "link": db.document("c/other")])
        var first = try #require(try await ref.getDocument().data())
        first["n"] = 99
        let second = try #require(try await ref.getDocument().data())
        #expect(second["n"] as? Int == 1)
        #expect((second["link"] as? DocumentReference)?.firestore === db)
        let fork = db.fork()
        let forked = try #require(try await fork.document("c/d").getDocument().data())
        #expect((forked["link"] as? DocumentReference)?.firestore === fork)
        #expect((try await ref.getDocument().data()?["link"] as? DocumentReference)?.firestore === db)
        // A snapshot's reference names its document and instance (a new object per call, as the SDK's).
        let snapshot = try await fork.document("c/d").getDocument()
        #expect(snapshot.reference == fork.document("c/d"))
        #expect(snapshot.reference.firestore === fork)
        let result = try #require(try await fork.collection("c").getDocuments().documents.first)
        #expect(result.reference.path == "c/d" && result.documentID == "d")
    }

    @Test func doublesAndBoolsKeepTheirTypes() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["d": 1.5, "t": true, "f": false, "inf": Double.infinity, "negZero": -0.0])
        let data = try #require(try await apiData(ref))
        #expect(apiNumberKind(data["d"]) == "double")
        #expect(data["d"] as? Double == 1.5)
        #expect(data["d"] as? Float == 1.5)
        #expect(data["t"] as? Bool == true)
        #expect(data["f"] as? Bool == false)
        #expect(apiNumberKind(data["t"]) == "bool")
        #expect(apiNumberKind(data["f"]) == "bool")
        #expect(data["inf"] as? Double == .infinity)
        let negZero = try #require(data["negZero"] as? Double)
        #expect(negZero == 0 && negZero.sign == .minus)
    }

    @Test func nanRoundTrips() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["nan": Double.nan])
        let value = try #require(try await apiData(ref)?["nan"] as? Double)
        #expect(value.isNaN)
    }

    @Test func oneAndOnePointZeroAreDistinctStoredTypes() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["int": 1, "double": 1.0])
        let data = try #require(try await apiData(ref))
        #expect(apiNumberKind(data["int"]) == "integer")
        #expect(apiNumberKind(data["double"]) == "double")
        #expect(data["int"] as? Int == 1)
        #expect(data["double"] as? Double == 1.0)
        let stored = try #require(ref.firestore.database.document(ref.key)?.fields)
        #expect(stored["int"] == .integer(1))
        #expect(stored["double"] == .double(1.0))
    }

    /// Values read back and written again keep their stored types (0 and 1 stay integers,
    /// booleans stay booleans, 1.0 stays a double).
    @Test func dataReadBackWritesBackUnchanged() async throws {
        let db = apiDB()
        let source = db.document("c/source")
        let copy = db.document("c/copy")
        try await source.setData([
            "zero": 0, "one": 1, "minusOne": -1, "big": 1 << 40, "double": 1.0, "half": 0.5,
            "t": true, "f": false, "s": "x", "n": NSNull(), "ts": apiTime(5, 6000),
            "geo": GeoPoint(latitude: 1, longitude: 2), "bytes": Data([1, 2]), "ref": db.document("a/b"),
            "vec": VectorValue([1, 2]), "list": [0, 1, 1.0, true, ["m": [false]]], "map": ["k": 1, "z": 0.0],
        ])
        let data = try #require(try await apiData(source))
        try await copy.setData(data)
        let original = try #require(db.database.document(source.key)?.fields)
        let rewritten = try #require(db.database.document(copy.key)?.fields)
        #expect(original == rewritten)
        #expect(rewritten["zero"] == .integer(0))
        #expect(rewritten["one"] == .integer(1))
        #expect(rewritten["f"] == .boolean(false))
    }

    @Test func fixedWidthAndFoundationNumbersAreAccepted() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData([
            "i8": Int8(-8), "i16": Int16(16), "i32": Int32(-32), "i64": Int64(64),
            "u8": UInt8(8), "u16": UInt16(16), "u32": UInt32(32), "u": UInt(7), "u64": UInt64(Int64.max),
            "float": Float(2.5),
            "nsInt": NSNumber(value: 5), "nsDouble": NSNumber(value: 0.25), "nsBool": NSNumber(value: true),
            "nsString": NSString(string: "text"),
        ])
        let data = try #require(try await apiData(ref))
        for key in ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u", "u64", "nsInt"] {
            #expect(apiNumberKind(data[key]) == "integer", "\(key)")
        }
        #expect(data["i8"] as? Int == -8)
        #expect(data["i32"] as? Int == -32)
        #expect(data["u32"] as? Int == 32)
        #expect(data["u64"] as? Int64 == Int64.max)
        #expect(apiNumberKind(data["float"]) == "double")
        #expect(data["float"] as? Double == 2.5)
        #expect(data["nsInt"] as? Int == 5)
        #expect(data["nsDouble"] as? Double == 0.25)
        #expect(data["nsBool"] as? Bool == true)
        #expect(data["nsString"] as? String == "text")
    }

    @Test func stringsBytesAndNull() async throws {
        let ref = apiDB().document("c/d")
        let bytes = Data([0, 1, 0x7F, 0x80, 0xFF])
        try await ref.setData(["s": "héllo 🔥", "empty": "", "b": bytes, "n": NSNull()])
        let data = try #require(try await apiData(ref))
        #expect(data["s"] as? String == "héllo 🔥")
        #expect(data["empty"] as? String == "")
        #expect(data["b"] as? Data == bytes)
        #expect(data["n"] is NSNull)
        #expect(data.count == 4)
    }

    @Test func optionalsInsideDictionariesBecomeNullOrTheirValue() async throws {
        let ref = apiDB().document("c/d")
        let bio: String? = nil
        let name: String? = "Ada"
        let age: Int?? = .some(nil)
        try await ref.setData([
            "bio": bio as Any, "name": name as Any, "age": age as Any,
            "list": [bio as Any, name as Any], "nested": ["bio": bio as Any],
        ])
        let data = try #require(try await apiData(ref))
        #expect(data["bio"] is NSNull)
        #expect(data["name"] as? String == "Ada")
        #expect(data["age"] is NSNull)
        let list = try #require(data["list"] as? [Any])
        #expect(list.count == 2)
        #expect(list[0] is NSNull)
        #expect(list[1] as? String == "Ada")
        #expect((data["nested"] as? [String: Any])?["bio"] is NSNull)
    }

    @Test func datesBecomeTimestampsTruncatedToMicroseconds() async throws {
        let ref = apiDB().document("c/d")
        let date = Date(timeIntervalSince1970: 1000.123456789)
        try await ref.setData([
            "date": date,
            "ts": apiTime(1_700_000_000, 123_456_789),
            "before1970": apiTime(-5, 999_999_999),
        ])
        let data = try #require(try await apiData(ref))
        let fromDate = try #require(data["date"] as? Timestamp)
        #expect(fromDate.seconds == 1000)
        #expect(fromDate.nanoseconds == 123_456_000)
        #expect(data["ts"] as? Timestamp == apiTime(1_700_000_000, 123_456_000))
        #expect(data["before1970"] as? Timestamp == apiTime(-5, 999_999_000))
        #expect(abs(fromDate.dateValue().timeIntervalSince1970 - 1000.123456) < 1e-7)
    }

    @Test func nestedMapsAndArrays() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData([
            "map": ["a": 1, "b": ["c": "deep", "list": [1, "two", 3.0]]],
            "array": [1, 2, 3],
            "mixed": [["k": [true, false]], "s", NSNull()],
            "emptyMap": [String: Any](),
            "emptyArray": [Any](),
        ])
        let data = try #require(try await apiData(ref))
        let map = try #require(data["map"] as? [String: Any])
        #expect(map["a"] as? Int == 1)
        let b = try #require(map["b"] as? [String: Any])
        #expect(b["c"] as? String == "deep")
        let list = try #require(b["list"] as? [Any])
        #expect(list.count == 3)
        #expect(list[0] as? Int == 1)
        #expect(list[1] as? String == "two")
        #expect(apiNumberKind(list[2]) == "double")
        #expect(data["array"] as? [Int] == [1, 2, 3])
        #expect(data["array"] as? [Double] == [1, 2, 3])
        let mixed = try #require(data["mixed"] as? [Any])
        #expect((mixed[0] as? [String: Any])?["k"] as? [Bool] == [true, false])
        #expect(mixed[1] as? String == "s")
        #expect(mixed[2] is NSNull)
        #expect((data["emptyMap"] as? [String: Any])?.isEmpty == true)
        #expect((data["emptyArray"] as? [Any])?.isEmpty == true)
    }

    @Test func foundationContainersAreAccepted() async throws {
        let ref = apiDB().document("c/d")
        let dict = NSDictionary(dictionary: ["x": 1, "y": "z"])
        let array = NSArray(array: [1, "two"])
        try await ref.setData(["dict": dict, "array": array])
        let data = try #require(try await apiData(ref))
        let d = try #require(data["dict"] as? [String: Any])
        #expect(d["x"] as? Int == 1)
        #expect(d["y"] as? String == "z")
        let a = try #require(data["array"] as? [Any])
        #expect(a.count == 2)
        #expect(a[0] as? Int == 1)
        #expect(a[1] as? String == "two")
    }

    @Test func referencesGeoPointsAndVectors() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        let target = db.collection("users").document("u1")
        try await ref.setData([
            "ref": target,
            "geo": GeoPoint(latitude: 48.8584, longitude: 2.2945),
            "vec": FieldValue.vector([1.0, 2.5, -3.0]),
            "vecF": FieldValue.vector([Float(0.5)]),
        ])
        let data = try #require(try await apiData(ref))
        let readRef = try #require(data["ref"] as? DocumentReference)
        #expect(readRef == target)
        #expect(readRef.path == "users/u1")
        #expect(readRef.firestore === db)
        let geo = try #require(data["geo"] as? GeoPoint)
        #expect(geo.latitude == 48.8584)
        #expect(geo.longitude == 2.2945)
        #expect(geo == GeoPoint(latitude: 48.8584, longitude: 2.2945))
        #expect((data["vec"] as? VectorValue)?.array == [1.0, 2.5, -3.0])
        #expect(data["vec"] as? VectorValue == VectorValue([1.0, 2.5, -3.0]))
        #expect((data["vecF"] as? VectorValue)?.array == [0.5])
    }

    @Test func setDataKeysAreLiteralFieldNames() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a.b": 1, "a": ["b": 2]])
        let snap = try await ref.getDocument()
        #expect(snap.data()?["a.b"] as? Int == 1)
        #expect(snap.get("a.b") as? Int == 2)
        #expect(snap.get(FieldPath(["a.b"])) as? Int == 1)
    }

    /// Maps with the same field names share one dictionary layout (`FieldNameLayouts`):
    /// names match byte-wise, so "é" and "e" + combining accent keep their own keys, and
    /// each map's values land under their own names whatever the names before it.
    @Test func dataKeepsEachMapsOwnFieldNames() async throws {
        let db = apiDB()
        let composed = "\u{E9}", decomposed = "e\u{301}"
        try await db.document("c/a").setData([composed: 1, "b": 2, "c": 3, "d": ["x": 1, "y": 2, "z": 3, composed: 4]])
        try await db.document("c/b").setData([decomposed: 10, "b": 20, "c": 30, "d": ["x": 10, "y": 20, "z": 30, decomposed: 40]])
        for round in 0..<2 {
            for (id, name, scale) in [("a", composed, 1), ("b", decomposed, 10)] {
                let data = try #require(try await apiData(db.document("c/\(id)")), "round \(round)")
                let names = data.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
                #expect(names == [Array(name.utf8), Array("b".utf8), Array("c".utf8), Array("d".utf8)].sorted { $0.lexicographicallyPrecedes($1) })
                let nested = try #require(data["d"] as? [String: Any])
                #expect(nested.keys.contains { Array($0.utf8) == Array(name.utf8) })
                #expect(data["b"] as? Int == 2 * scale && data["c"] as? Int == 3 * scale)
                #expect(nested["x"] as? Int == scale && nested["z"] as? Int == 3 * scale)
            }
        }
        // More shapes than are kept, each read twice: every value under its own name.
        for n in 0..<40 {
            let fields = Dictionary(uniqueKeysWithValues: (0..<(4 + n % 7)).map { ("f\(n)_\($0)", $0 * n) })
            try await db.document("shapes/\(n)").setData(fields)
        }
        for _ in 0..<2 {
            for n in 0..<40 {
                let data = try #require(try await apiData(db.document("shapes/\(n)")))
                #expect(data.count == 4 + n % 7)
                for i in 0..<(4 + n % 7) { #expect(data["f\(n)_\(i)"] as? Int == i * n) }
            }
        }
    }

    @Test func snapshotAccessors() async throws {
        let ref = apiDB().document("people/ada")
        try await ref.setData(["name": "Ada", "address": ["city": "London", "geo": ["lat": 51.5]]])
        let snap = try await ref.getDocument()
        #expect(snap.exists)
        #expect(snap.documentID == "ada")
        #expect(snap.reference == ref)
        #expect(snap.metadata.hasPendingWrites == false)
        #expect(snap.metadata.isFromCache == false)
        #expect(snap["name"] as? String == "Ada")
        #expect(snap.get("address.city") as? String == "London")
        #expect(snap["address.geo.lat"] as? Double == 51.5)
        #expect(snap.get(FieldPath(["address", "city"])) as? String == "London")
        #expect(snap.get(FieldPath.documentID()) as? String == "ada")
        #expect(snap.get("missing") == nil)
        #expect(snap.get("address.missing.deeper") == nil)
        #expect(snap.get("name.notAMap") == nil)
        #expect(snap.data(with: .estimate)?["name"] as? String == "Ada")
        #expect(snap.get("name", serverTimestampBehavior: .previous) as? String == "Ada")
    }

    @Test func missingDocumentSnapshot() async throws {
        let ref = apiDB().document("c/nothing")
        let snap = try await ref.getDocument()
        #expect(!snap.exists)
        #expect(snap.data() == nil)
        #expect(snap.get("a") == nil)
        #expect(snap.documentID == "nothing")
        #expect(snap.reference == ref)
        let fromServer = try await ref.getDocument(source: .server)
        #expect(!fromServer.exists)
    }

    @Test func setReplacesTheWholeDocument() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 1, "b": 2])
        try await ref.setData(["c": 3])
        let data = try #require(try await apiData(ref))
        #expect(data.count == 1)
        #expect(data["c"] as? Int == 3)
    }

    @Test func emptyDocumentExists() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData([:])
        let snap = try await ref.getDocument()
        #expect(snap.exists)
        #expect(snap.data()?.isEmpty == true)
    }

    @Test func readsAreIndependentOfLaterWrites() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["v": 1])
        let before = try await ref.getDocument()
        try await ref.setData(["v": 2])
        #expect(before.data()?["v"] as? Int == 1)
        #expect(try await apiData(ref)?["v"] as? Int == 2)
    }
}
