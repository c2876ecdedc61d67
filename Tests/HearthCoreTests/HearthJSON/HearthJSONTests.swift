import Foundation
import Testing
@testable import HearthCore

/// Hearth JSON (docs/formats.md#hearth-json): exact integers and doubles, the tagged types, errors naming where.
@Suite struct HearthJSONTests {
    let db = DatabaseID(project: "p")

    /// Strings are written as they are when nothing in them needs escaping (copied whole),
    /// and escaped byte by byte otherwise; both read back as written.
    @Test func stringsAreEscapedOnlyWhereJSONRequires() throws {
        let cases: [(String, String)] = [
            ("plain", #""plain""#),
            ("projects/p/databases/(default)/documents/c/d", #""projects/p/databases/(default)/documents/c/d""#),
            ("", #""""#),
            ("é 𝄞 ☃", "\"é 𝄞 ☃\""),
            ("a\"b", #""a\"b""#),
            ("back\\slash", #""back\\slash""#),
            ("line\nfeed\r\t", #""line\nfeed\r\t""#),
            ("\u{01}\u{1f}", #""\u0001\u001f""#),
            ("ünï\u{7f}", "\"ünï\u{7f}\""),
        ]
        for (text, written) in cases {
            #expect(String(decoding: JSON.string(text).bytes, as: UTF8.self) == written)
            #expect(try JSON.parse(written) == .string(text))
        }
    }

    @Test func integersAndDoublesStayApartAndExact() throws {
        let m = try HearthJSON.map(JSON.parse(#"{"a": 9007199254740993, "b": 1.0, "max": 9223372036854775807, "min": -9223372036854775808, "e": 1e2, "x": {"$double": 3}, "n": {"$double": "NaN"}}"#), database: db)
        #expect(m["a"] == .integer(9_007_199_254_740_993))
        #expect(m["b"] == .double(1.0))
        #expect(m["max"] == .integer(.max) && m["min"] == .integer(.min))
        #expect(m["e"] == .double(100) && m["x"] == .double(3))
        #expect(m["n"]?.isNaN == true)
    }

    @Test func taggedTypes() throws {
        let m = try HearthJSON.map(JSON.parse(#"{"t": {"$timestamp": "2026-01-01T09:00:00.123456Z"}, "r": {"$reference": "users/alice"}, "b": {"$bytes": "aGk="}, "g": {"$geopoint": [1.5, -2]}, "v": {"$vector": [1, 2.5]}, "m": {"$map": {"$x": 1}}, "plain": {"k": [true, null, "s"]}}"#), database: db)
        #expect(m["t"] == .timestamp(Timestamp(rfc3339: "2026-01-01T09:00:00.123456Z")!))
        #expect(m["r"] == .reference(DocumentName(database: db, path: ResourcePath(segments: ["users", "alice"]))))
        #expect(m["b"] == .bytes(Data("hi".utf8)))
        #expect(m["g"] == .geoPoint(GeoPoint(latitude: 1.5, longitude: -2)))
        #expect(m["v"] == .vector([1, 2.5]))
        #expect(m["m"] == .map(MapValue([("$x", .integer(1))])))
        #expect(m["plain"] == .map(MapValue([("k", .array([.boolean(true), .null, .string("s")]))])))
    }

    @Test func documentsKeepFileOrderAndErrorsSayWhere() throws {
        let docs = try HearthJSON.documents(Data(#"{"b/2": {}, "a/1": {"x": 1}}"#.utf8), database: db)
        #expect(docs.map(\.path.description) == ["b/2", "a/1"])
        func message(_ text: String) -> String? {
            do { _ = try HearthJSON.documents(Data(text.utf8), database: db); return nil } catch { return error.message }
        }
        #expect(message(#"{"a": {}}"#)?.contains("\"a\" is not a document path") == true)
        #expect(message(#"{"a/1": {"n": {"m": 99999999999999999999}}}"#)?.contains("at a/1.n.m: integer 99999999999999999999 is out of the int64 range") == true)
        #expect(message(#"{"a/1": {"t": {"$timestamp": "yesterday"}}}"#)?.contains("at a/1.t: \"yesterday\" is not an RFC 3339 timestamp") == true)
        #expect(message(#"{"a/1": {"l": [1, {"$nope": 1}]}}"#)?.contains("at a/1.l[1]: unknown or malformed tag $nope") == true)
        #expect(message(#"{"a/1": "#)?.contains("not valid JSON") == true)
        #expect(message(#"[1]"#)?.contains("must be an object") == true)
    }
}
