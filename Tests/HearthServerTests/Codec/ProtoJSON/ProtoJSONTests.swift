import Foundation
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

@Suite struct ProtoJSONTests {
    private func value(_ text: String) throws -> Value {
        try ProtoValue.decode(try JSON.parse(Array(text.utf8)), context: "v")
    }

    @Test func integersKeepFullInt64Precision() throws {
        #expect(try value(#"{"integerValue": "9007199254740993"}"#) == .integer(9_007_199_254_740_993))
        #expect(try value(#"{"integerValue": "-9223372036854775808"}"#) == .integer(.min))
        #expect(try value(#"{"integerValue": 9223372036854775807}"#) == .integer(.max))
        #expect(String(decoding: ProtoValue.encode(.integer(.max)).bytes, as: UTF8.self) == #"{"integerValue":"9223372036854775807"}"#)
    }

    @Test func doublesIncludingSpecialValuesRoundTrip() throws {
        #expect(try value(#"{"doubleValue": 1.0}"#) == .double(1.0))
        #expect(try value(#"{"doubleValue": "NaN"}"#).isNaN)
        #expect(try value(#"{"doubleValue": "-Infinity"}"#) == .double(-.infinity))
        #expect(try value(#"{"doubleValue": "-0"}"#) == .double(-0.0))
        #expect(String(decoding: ProtoValue.encode(.double(3)).bytes, as: UTF8.self) == #"{"doubleValue":3.0}"#)
        #expect(String(decoding: ProtoValue.encode(.double(.infinity)).bytes, as: UTF8.self) == #"{"doubleValue":"Infinity"}"#)
    }

    @Test func timestampsBytesReferencesAndGeoPoints() throws {
        #expect(try value(#"{"timestampValue": "2024-01-02T03:04:05.123456789Z"}"#) == .timestamp(Timestamp(seconds: 1_704_164_645, nanos: 123_456_789)))
        #expect(try value(#"{"timestampValue": "2024-01-02T04:04:05+01:00"}"#) == .timestamp(Timestamp(seconds: 1_704_164_645, nanos: 0)))
        #expect(try value(#"{"bytesValue": "AP_-"}"#) == .bytes(Data([0, 255, 254])))
        #expect(try value(#"{"referenceValue": "projects/p/databases/(default)/documents/c/d"}"#)
                == .reference(DocumentName(database: DatabaseID(project: "p"), path: ResourcePath(segments: ["c", "d"]))))
        #expect(try value(#"{"geoPointValue": {"latitude": 1.5, "longitude": -2.25}}"#) == .geoPoint(GeoPoint(latitude: 1.5, longitude: -2.25)))
        #expect(try value(#"{"nullValue": "NULL_VALUE"}"#) == .null)
        #expect(try value(#"{"arrayValue": {}}"#) == .array([]))
    }

    @Test func vectorsTravelAsTypedMaps() throws {
        let v = Value.vector([1, 2.5])
        let round = try ProtoValue.decode(ProtoValue.encode(v), context: "v")
        #expect(round == v)
    }

    @Test(arguments: [
        (#"{}"#, "type unset"),
        (#"{"integerValue": "1", "stringValue": "x"}"#, "Multiple values"),
        (#"{"integerValue": "abc"}"#, "integer_value"),
        (#"{"timestampValue": "2024-01-02t03:04:05z"}"#, "timestamp_value"),
        (#"{"fooValue": 1}"#, "Unknown name \"fooValue\""),
    ])
    func badValuesAreRejectedNamingTheField(_ text: String, _ fragment: String) {
        do {
            _ = try value(text)
            Issue.record("accepted \(text)")
        } catch let error as FirestoreError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(fragment), "\(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func structuredQueryDecodesEveryPart() throws {
        let text = """
            {"select": {"fields": [{"fieldPath": "a"}]}, "from": [{"collectionId": "c", "allDescendants": true}],
             "where": {"compositeFilter": {"op": "OR", "filters": [
                {"fieldFilter": {"field": {"fieldPath": "a"}, "op": 5, "value": {"integerValue": "1"}}},
                {"unaryFilter": {"op": "IS_NULL", "field": {"fieldPath": "b"}}}]}},
             "orderBy": [{"field": {"fieldPath": "a"}, "direction": "DESCENDING"}],
             "startAt": {"values": [{"integerValue": "5"}], "before": true}, "endAt": {"values": [{"integerValue": "0"}]},
             "offset": 2, "limit": 3}
            """
        let q = try ProtoQuery.decode(try JSON.parse(Array(text.utf8)), parent: .root)
        #expect(q.collectionID == "c" && q.allDescendants)
        #expect(q.projection == [FieldPath(["a"])])
        #expect(q.filter == .composite(.or, [.field(FieldPath(["a"]), .equal, .integer(1)), .unary(FieldPath(["b"]), .isNull)]))
        #expect(q.orderBy == [Ordering(FieldPath(["a"]), descending: true)])
        #expect(q.startAt == Cursor(values: [.integer(5)], before: true))
        #expect(q.endAt == Cursor(values: [.integer(0)], before: false))
        #expect(q.offset == 2 && q.limit == 3)
        let plain = try ProtoQuery.decode(try JSON.parse(Array(#"{"from": [{"collectionId": "c"}], "limit": "7"}"#.utf8)), parent: .root)
        #expect(plain.limit == 7)
        // A wrapper's JSON form is its bare value; the object form is refused (as the emulator does).
        #expect(throws: FirestoreError.self) {
            try ProtoQuery.decode(try JSON.parse(Array(#"{"from": [{"collectionId": "c"}], "limit": {"value": 3}}"#.utf8)), parent: .root)
        }
    }

    @Test func jsonReaderRejectsDeepNestingAndBadUTF8() {
        #expect(throws: JSON.SyntaxError.self) { try JSON.parse(Array(String(repeating: "[", count: 10_000).utf8)) }
        #expect(throws: JSON.SyntaxError.self) { try JSON.parse([34, 0xFF, 34]) }
        #expect((try? JSON.parse(Array(#"{"a": "\ud83d\ude00"}"#.utf8)))?["a"] == .string("😀"))
    }

    @Test func seedLoaderKeepsIntegersAndDoublesApart() throws {
        let seed = #"{"c/d": {"i": 9007199254740993, "d": 1.0, "t": {"$timestamp": "2026-01-01T09:00:00Z"}, "m": {"$map": {"$x": 1}}}}"#
        let docs = try SeedLoader.documents(Data(seed.utf8), database: DatabaseID(project: "p"))
        #expect(docs.count == 1)
        #expect(docs[0].1["i"] == .integer(9_007_199_254_740_993))
        #expect(docs[0].1["d"] == .double(1.0))
        #expect(docs[0].1["m"] == .map(MapValue([("$x", .integer(1))])))
    }

    @Test func authorizationHeaders() throws {
        #expect(try AuthContext.parse(nil) == .signedOut)
        #expect(try AuthContext.parse("Bearer owner") == .admin)
        let header = Data(#"{"alg":"none"}"#.utf8).base64EncodedString()
        let payload = Data(#"{"sub":"alice","email":"a@x"}"#.utf8).base64EncodedString()
        #expect(try AuthContext.parse("Bearer \(header).\(payload).").uid == "alice")
        #expect(throws: FirestoreError.invalidArgument("invalid jwt")) { try AuthContext.parse("Bearer garbage") }
        #expect(throws: FirestoreError(.unknown, "")) { try AuthContext.parse("Basic abc") }
    }
}
