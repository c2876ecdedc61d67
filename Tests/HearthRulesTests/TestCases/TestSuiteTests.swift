import Foundation
import HearthCore
import Testing
@testable import HearthRules

/// The `hearth rules test` case format (docs/formats.md#rules-test-cases) and the Hearth JSON it reads.
@Suite struct TestSuiteTests {
    @Test func hearthJSONKeepsIntegersAndDoublesApart() throws {
        let j = try JSON.parse(#"{"i": 9007199254740993, "d": 1.0, "max": 9223372036854775807, "min": -9223372036854775808, "t": {"$timestamp": "2026-01-01T09:00:00Z"}, "r": {"$reference": "users/alice"}, "b": {"$bytes": "aGk="}, "g": {"$geopoint": [1, 2]}, "m": {"$map": {"$x": 1}}, "e": "\u00e9\ud83d\ude00"}"#)
        let m = try HearthJSON.map(j, database: DatabaseID(project: "demo-hearth"))
        #expect(m["i"] == .integer(9_007_199_254_740_993))
        #expect(m["d"] == .double(1.0))
        #expect(m["max"] == .integer(.max) && m["min"] == .integer(.min))
        #expect(m["t"] == .timestamp(Timestamp(rfc3339: "2026-01-01T09:00:00Z")!))
        #expect(m["b"] == .bytes(Data("hi".utf8)))
        #expect(m["g"] == .geoPoint(GeoPoint(latitude: 1, longitude: 2)))
        #expect(m["m"] == .map(MapValue([("$x", .integer(1))])))
        #expect(m["e"] == .string("é😀"))
        if case .reference(let r)? = m["r"] { #expect(r.path == path("users/alice")) } else { Issue.record("not a reference") }
        #expect(throws: JSON.SyntaxError.self) { try JSON.parse("{\"a\": }") }
        #expect(throws: FirestoreError.self) { try HearthJSON.value(JSON.parse("99999999999999999999"), database: DatabaseID(project: "p")) }
    }

    @Test func runsACaseFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /goals/{g} {
                  allow read: if request.auth.uid == resource.data.owner;
                  allow update: if request.auth.uid == resource.data.owner && request.resource.data.owner == resource.data.owner
                    && request.resource.data.keys().hasAll(['title', 'owner']);
                  allow create: if request.auth.token.email_verified == true;
                }
              }
            }
            """.write(to: dir.appendingPathComponent("g.rules"), atomically: true, encoding: .utf8)
        try """
            {"rules": "g.rules",
             "data": {"goals/g1": {"owner": "alice", "title": "t"}},
             "cases": [
               {"name": "owner reads", "auth": {"uid": "alice"}, "method": "get", "path": "goals/g1", "expect": "allow"},
               {"name": "stranger reads", "auth": {"uid": "bob"}, "method": "get", "path": "goals/g1", "expect": "deny"},
               {"name": "owner retitles, owner kept by the mask", "auth": {"uid": "alice"}, "method": "update", "path": "goals/g1", "data": {"title": "x"}, "expect": "allow"},
               {"name": "verified creates", "auth": {"uid": "bob", "token": {"email_verified": true}}, "method": "create", "path": "goals/g2", "data": {"owner": "bob"}, "expect": "allow"},
               {"name": "own goals query", "auth": {"uid": "alice"}, "method": "list", "path": "goals", "query": {"where": [["owner", "==", "alice"]], "orderBy": [["title", "desc"]], "limit": 5}, "expect": "allow"},
               {"name": "wrong expectation", "method": "get", "path": "goals/g1", "expect": "allow"}
             ]}
            """.write(to: dir.appendingPathComponent("g.cases.json"), atomically: true, encoding: .utf8)
        let suite = try RulesTestSuite.load(path: dir.appendingPathComponent("g.cases.json").path)
        let results = suite.run()
        #expect(results.map(\.passed) == [true, true, true, true, true, false])
        #expect(results[5].line == "FAIL wrong expectation: expected allow, got deny (Null value error. for 'get' @ L5)")
        #expect(results[0].line == "PASS owner reads")
    }

    @Test("a case file, rules file or data file that cannot be read is named, with what is wrong")
    func unreadableFilesAreNamed() throws {
        func message(_ path: String) -> String? {
            do { _ = try RulesTestSuite.load(path: path); return nil } catch { return (error as? RulesTestSuite.LoadError)?.message }
        }
        #expect(message("/nonexistent/x.cases.json") == "/nonexistent/x.cases.json: no such file")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = dir.appendingPathComponent("a.cases.json").path
        try #"{"rules": "missing.rules", "cases": []}"#.write(toFile: cases, atomically: true, encoding: .utf8)
        #expect(message(cases).map { $0.hasPrefix("\(cases): the rules file /") && $0.hasSuffix("/missing.rules: no such file") } == true)
        try "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{d}/documents {\n    match /{document=**} { allow read: if true; }\n  }\n}\n"
            .write(to: dir.appendingPathComponent("r.rules"), atomically: true, encoding: .utf8)
        try #"{"rules": "r.rules", "data": "seed.json", "cases": []}"#.write(toFile: cases, atomically: true, encoding: .utf8)
        #expect(message(cases).map { $0.hasPrefix("\(cases): the data file /") && $0.hasSuffix("/seed.json: no such file") } == true)
        try "{".write(toFile: cases, atomically: true, encoding: .utf8)
        #expect(message(cases)?.hasPrefix("\(cases): not JSON: ") == true)
    }
}
