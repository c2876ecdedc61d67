import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// Security rules enforced by the server over loopback: loading them
/// (`PUT …:securityRules`), the three auth modes, every REST method family and coverage.
@Suite struct SecurityRulesTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /posts/{id} {
              allow get: if request.auth != null;
              allow list: if request.auth != null && resource.data.owner == request.auth.uid;
              allow create: if request.auth.uid == request.resource.data.owner;
              allow update: if request.auth.uid == resource.data.owner;
            }
            match /cities/{city} {
              allow read: if true;
              allow update: if getAfter(/databases/$(database)/documents/countries/$(request.resource.data.country)).data.updated == request.time;
            }
            match /countries/{country} {
              allow read, write: if true;
            }
            match /notes/{note} {
              allow create: if existsAfter(/databases/$(database)/documents/owners/$(request.auth.uid));
            }
            match /owners/{uid} {
              allow create: if request.auth.uid == uid;
            }
            match /staff/{doc} {
              allow get: if request.auth.token.role == 'admin';
            }
          }
        }
        """

    static let project = "/v1/projects/r/databases/%28default%29/documents"
    static let name = "projects/r/databases/(default)/documents"
    static let owner = ["Authorization": "Bearer owner"]

    /// An unsigned (`alg: none`) JWT with these claims, as the emulator SDK helpers send.
    static func user(_ claims: String) -> [String: String] {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        return ["Authorization": "Bearer \(b64(#"{"alg":"none","typ":"JWT"}"#)).\(b64(claims))."]
    }

    static let alice = user(#"{"sub":"alice","user_id":"alice","iss":"https://securetoken.google.com/r"}"#)
    static let bob = user(#"{"sub":"bob"}"#)

    static func rulesBody(_ source: String, ignoreErrors: Bool = false) -> String {
        let file = JSON.object([("name", .string("firestore.rules")), ("content", .string(source))])
        var pairs: [(String, JSON)] = [("rules", .object([("files", .array([file]))]))]
        if ignoreErrors { pairs.append(("ignore_errors", .bool(true))) }
        return String(decoding: JSON.object(pairs).bytes, as: UTF8.self)
    }

    /// A server with `rules` loaded for project `r` and a few documents written as owner.
    func withRules(_ body: (RawHTTPClient) throws -> Void) throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let put = c.request("PUT", "/emulator/v1/projects/r:securityRules", body: Self.rulesBody(Self.rules))
            #expect(put?.status == 200)
            #expect(put?.json == .object([]))
            for (path, fields) in [("posts/a1", #"{"owner": {"stringValue": "alice"}}"#),
                                   ("posts/b1", #"{"owner": {"stringValue": "bob"}}"#),
                                   ("cities/paris", #"{"country": {"stringValue": "fr"}}"#),
                                   ("countries/fr", #"{"updated": {"nullValue": null}}"#),
                                   ("staff/s1", #"{"x": {"integerValue": "1"}}"#)] {
                #expect(c.request("PATCH", "\(Self.project)/\(path)", body: #"{"fields": \#(fields)}"#, headers: Self.owner)?.status == 200)
            }
            try body(c)
        }
    }

    static func expectDenied(_ r: RawHTTPClient.Response?, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r?.status == 403, sourceLocation: sourceLocation)
        #expect(r?.json?["error"]?["status"] == .string("PERMISSION_DENIED"), sourceLocation: sourceLocation)
        let message = r?.json?["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains(fragment), "message: \(message)", sourceLocation: sourceLocation)
    }

    // MARK: Loading rules

    @Test func loadingRulesReportsIssuesWithPositions() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let broken = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /posts/{id} { allow get: if foo bar; }\n  }\n}\n"
            // Errors: 400 with the official emulator's text, and the project keeps no rules.
            let bad = c.request("PUT", "/emulator/v1/projects/e:securityRules", body: Self.rulesBody(broken))
            #expect(bad?.status == 400)
            #expect(bad?.json?["error"]?["message"]?.stringValue?.hasPrefix("Error compiling rules:\nL4:43 Unexpected 'bar'") == true)
            #expect(c.request("GET", "/v1/projects/e/databases/(default)/documents/posts/x")?.status == 404)

            // ignore_errors: 200 with issues (positions), the broken rules are stored and every
            // request of the project is answered with the compile failure, the owner's too.
            let kept = c.request("PUT", "/emulator/v1/projects/e:securityRules", body: Self.rulesBody(broken, ignoreErrors: true))
            #expect(kept?.status == 200)
            let issue = kept?.json?["issues"]?.arrayValue?.first
            #expect(issue?["severity"] == .string("ERROR"))
            #expect(issue?["sourcePosition"]?["fileName"] == .string("firestore.rules"))
            #expect(issue?["sourcePosition"]?["line"] == .int(4))
            #expect(issue?["sourcePosition"]?["column"] == .int(43))
            #expect(issue?["description"]?.stringValue?.hasPrefix("Unexpected 'bar'") == true)
            let refused = c.request("GET", "/v1/projects/e/databases/(default)/documents/posts/x", headers: Self.owner)
            #expect(refused?.status == 400)
            #expect(refused?.json?["error"]?["message"]?.stringValue?.hasPrefix("Error compiling rules:") == true)

            // Warnings only: 200 with WARNING issues; the rules are in force.
            let unused = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    function unused() { return true; }\n    match /a/{b} { allow read: if true; }\n  }\n}\n"
            let warned = c.request("PUT", "/emulator/v1/projects/e:securityRules", body: Self.rulesBody(unused))
            #expect(warned?.status == 200)
            #expect(warned?.json?["issues"]?.arrayValue?.first?["severity"] == .string("WARNING"))
            #expect(warned?.json?["issues"]?.arrayValue?.first?["sourcePosition"]?["line"] == .int(4))
            #expect(c.request("GET", "/v1/projects/e/databases/(default)/documents/a/x")?.status == 404)
            #expect(c.request("GET", "/v1/projects/e/databases/(default)/documents/z/x")?.status == 403)

            // GET returns the stored file; an empty request is the official 500 UNKNOWN.
            let stored = c.request("GET", "/emulator/v1/projects/e:securityRules")
            #expect(stored?.json?["rules"]?["files"]?.arrayValue?.first?["content"] == .string(unused))
            #expect(c.request("PUT", "/emulator/v1/projects/e:securityRules", body: "{}")?.status == 500)
            #expect(c.request("PUT", "/emulator/v1/projects/e:securityRules", body: #"{"rules": {"files": []}}"#)?.status == 500)
        }
    }

    @Test func severalFilesCompileEachAndEnforceTheFirst() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            func body(_ files: [(String, String)]) -> String {
                let items: [JSON] = files.map { .object([("name", .string($0.0)), ("content", .string($0.1))]) }
                return String(decoding: JSON.object([("rules", .object([("files", .array(items))]))]).bytes, as: UTF8.self)
            }
            func source(_ condition: String) -> String {
                "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /{d=**} { allow read: if \(condition); }\n  }\n}\n"
            }
            // As the official emulator: the first file decides, whatever the second says.
            #expect(c.request("PUT", "/emulator/v1/projects/m:securityRules", body: body([("a.rules", source("true")), ("b.rules", source("false"))]))?.status == 200)
            #expect(c.request("GET", "/v1/projects/m/databases/(default)/documents/c/x")?.status == 404)
            #expect(c.request("PUT", "/emulator/v1/projects/m:securityRules", body: body([("b.rules", source("false")), ("a.rules", source("true"))]))?.status == 200)
            #expect(c.request("GET", "/v1/projects/m/databases/(default)/documents/c/x")?.status == 403)
            let stored = c.request("GET", "/emulator/v1/projects/m:securityRules")
            #expect(stored?.json?["rules"]?["files"]?.arrayValue?.map { $0["name"] } == [.string("b.rules"), .string("a.rules")])
            // A second file that does not compile fails the load; the previous rules stay.
            let bad = c.request("PUT", "/emulator/v1/projects/m:securityRules", body: body([("a.rules", source("true")), ("c.rules", "garbage")]))
            #expect(bad?.status == 400)
            #expect(bad?.json?["error"]?["message"]?.stringValue?.hasPrefix("Error compiling rules:\nL1:1 ") == true)
            #expect(c.request("GET", "/v1/projects/m/databases/(default)/documents/c/x")?.status == 403)
        }
    }

    // MARK: Auth modes

    @Test func ownerBypassesAndProjectsWithoutRulesAllowEverything() throws {
        try withRules { c in
            // Another project has no rules: signed-out reads and writes pass.
            #expect(c.request("PATCH", "/v1/projects/open/databases/(default)/documents/z/1", body: "{}")?.status == 200)
            #expect(c.request("GET", "/v1/projects/open/databases/(default)/documents/z/1")?.status == 200)
            // The owner ignores r's rules: a collection with no allow at all, any write, any query.
            #expect(c.request("PATCH", "\(Self.project)/nowhere/1", body: "{}", headers: Self.owner)?.status == 200)
            #expect(c.request("GET", "\(Self.project)/nowhere/1", headers: Self.owner)?.status == 200)
            #expect(c.request("GET", "\(Self.project)/posts", headers: Self.owner)?.json?["documents"]?.arrayValue?.count == 2)
            #expect(c.request("DELETE", "\(Self.project)/posts/b1", headers: Self.owner)?.status == 200)
            // The same requests signed out are checked.
            Self.expectDenied(c.request("GET", "\(Self.project)/nowhere/1"), "No matching allow statements")
            Self.expectDenied(c.request("PATCH", "\(Self.project)/nowhere/2", body: "{}"), "create")
        }
    }

    @Test func getsFollowTheRulesForEachAuthMode() throws {
        try withRules { c in
            #expect(c.request("GET", "\(Self.project)/posts/a1", headers: Self.alice)?.status == 200)
            // Allowed but missing: 404; denied and missing: 403 (rules come first).
            #expect(c.request("GET", "\(Self.project)/posts/none", headers: Self.alice)?.status == 404)
            Self.expectDenied(c.request("GET", "\(Self.project)/posts/none"), "false for 'get' @ L5")
            Self.expectDenied(c.request("GET", "\(Self.project)/posts/a1"), "get /databases/(default)/documents/posts/a1")
            // Token claims reach request.auth.token.
            #expect(c.request("GET", "\(Self.project)/staff/s1", headers: Self.user(#"{"sub":"x","role":"admin"}"#))?.status == 200)
            Self.expectDenied(c.request("GET", "\(Self.project)/staff/s1", headers: Self.alice), "for 'get' @ L24")
            // batchGet: one denied document fails the whole request.
            let both = #"{"documents": ["\#(Self.name)/posts/a1", "\#(Self.name)/staff/s1"]}"#
            Self.expectDenied(c.request("POST", "\(Self.project):batchGet", body: both, headers: Self.alice), "staff/s1")
            let one = c.request("POST", "\(Self.project):batchGet", body: #"{"documents": ["\#(Self.name)/posts/a1"]}"#, headers: Self.alice)
            #expect(one?.json?.arrayValue?.first?["found"]?["name"] == .string("\(Self.name)/posts/a1"))
            // Reads in a transaction are gets.
            let txn = c.request("POST", "\(Self.project):beginTransaction", body: "{}", headers: Self.alice)?.json?["transaction"]?.stringValue ?? ""
            let encoded = txn.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "=", with: "%3D")
            Self.expectDenied(c.request("GET", "\(Self.project)/staff/s1?transaction=\(encoded)", headers: Self.alice), "staff/s1")
            #expect(c.request("GET", "\(Self.project)/posts/a1?transaction=\(encoded)", headers: Self.alice)?.status == 200)
        }
    }

    @Test func queriesAreProvedNotFiltered() throws {
        try withRules { c in
            func query(_ filter: String?) -> String {
                let w = filter.map { #", "where": {"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL", "value": {"stringValue": "\#($0)"}}}"# } ?? ""
                return #"{"structuredQuery": {"from": [{"collectionId": "posts"}]\#(w)}}"#
            }
            let mine = c.request("POST", "\(Self.project):runQuery", body: query("alice"), headers: Self.alice)
            #expect(mine?.status == 200)
            #expect(mine?.json?.arrayValue?.compactMap { $0["document"] }.count == 1)
            Self.expectDenied(c.request("POST", "\(Self.project):runQuery", body: query(nil), headers: Self.alice), "for 'list' @ L6")
            Self.expectDenied(c.request("POST", "\(Self.project):runQuery", body: query("bob"), headers: Self.alice), "list")
            Self.expectDenied(c.request("POST", "\(Self.project):runQuery", body: query("alice")), "list")
            // Aggregations are checked as their query; listDocuments as an unfiltered list.
            let count = #"{"structuredAggregationQuery": {"structuredQuery": \#(query("alice").dropFirst(#"{"structuredQuery": "#.count).dropLast()), "aggregations": [{"alias": "n", "count": {}}]}}"#
            let counted = c.request("POST", "\(Self.project):runAggregationQuery", body: count, headers: Self.alice)
            #expect(counted?.json?.arrayValue?.first?["result"]?["aggregateFields"]?["n"] == .object([("integerValue", .string("1"))]))
            Self.expectDenied(c.request("POST", "\(Self.project):runAggregationQuery", body: count, headers: Self.bob), "list")
            Self.expectDenied(c.request("GET", "\(Self.project)/posts", headers: Self.alice), "list /databases/(default)/documents/posts")
            #expect(c.request("GET", "\(Self.project)/cities")?.json?["documents"]?.arrayValue?.count == 1)
        }
    }

    // MARK: Writes

    @Test func writesAreCheckedAsAWhole() throws {
        try withRules { c in
            #expect(c.request("POST", "\(Self.project)/posts?documentId=a2", body: #"{"fields": {"owner": {"stringValue": "alice"}}}"#, headers: Self.alice)?.status == 200)
            Self.expectDenied(c.request("POST", "\(Self.project)/posts?documentId=a3", body: #"{"fields": {"owner": {"stringValue": "bob"}}}"#, headers: Self.alice), "false for 'create' @ L7")
            #expect(c.request("PATCH", "\(Self.project)/posts/a1?updateMask.fieldPaths=title", body: #"{"fields": {"title": {"stringValue": "hi"}}}"#, headers: Self.alice)?.status == 200)
            Self.expectDenied(c.request("PATCH", "\(Self.project)/posts/b1", body: #"{"fields": {"owner": {"stringValue": "alice"}}}"#, headers: Self.alice), "update")
            Self.expectDenied(c.request("DELETE", "\(Self.project)/posts/a1", headers: Self.alice), "delete")
            // A commit with one denied write writes nothing.
            let mixed = """
                {"writes": [{"update": {"name": "\(Self.name)/posts/a4", "fields": {"owner": {"stringValue": "alice"}}}},
                            {"update": {"name": "\(Self.name)/posts/b4", "fields": {"owner": {"stringValue": "bob"}}}}]}
                """
            Self.expectDenied(c.request("POST", "\(Self.project):commit", body: mixed, headers: Self.alice), "posts/b4")
            #expect(c.request("GET", "\(Self.project)/posts/a4", headers: Self.owner)?.status == 404)
            #expect(c.request("GET", "\(Self.project)/posts/a2", headers: Self.owner)?.json?["fields"]?["owner"] == .object([("stringValue", .string("alice"))]))
            // batchWrite stays admin-only (as on the official emulator), and the owner is not checked.
            Self.expectDenied(c.request("POST", "\(Self.project):batchWrite", body: mixed, headers: Self.alice), "Batch writes require admin authentication.")
            let batch = c.request("POST", "\(Self.project):batchWrite", body: mixed, headers: Self.owner)
            #expect(batch?.json?["status"]?.arrayValue == [.object([]), .object([])])
        }
    }

    @Test func getAfterAndExistsAfterSeeTheWholeBatch() throws {
        try withRules { c in
            let city = #"{"update": {"name": "\#(Self.name)/cities/paris", "fields": {"country": {"stringValue": "fr"}, "pop": {"integerValue": "2"}}}}"#
            let country = #"{"update": {"name": "\#(Self.name)/countries/fr"}, "updateTransforms": [{"fieldPath": "updated", "setToServerValue": "REQUEST_TIME"}]}"#
            Self.expectDenied(c.request("POST", "\(Self.project):commit", body: #"{"writes": [\#(city)]}"#, headers: Self.alice), "update")
            #expect(c.request("POST", "\(Self.project):commit", body: #"{"writes": [\#(city), \#(country)]}"#, headers: Self.alice)?.status == 200)
            #expect(c.request("GET", "\(Self.project)/cities/paris")?.json?["fields"]?["pop"] == .object([("integerValue", .string("2"))]))

            let note = #"{"update": {"name": "\#(Self.name)/notes/n1"}}"#
            let ownerDoc = #"{"update": {"name": "\#(Self.name)/owners/alice"}}"#
            Self.expectDenied(c.request("POST", "\(Self.project):commit", body: #"{"writes": [\#(note)]}"#, headers: Self.alice), "notes/n1")
            #expect(c.request("POST", "\(Self.project):commit", body: #"{"writes": [\#(note), \#(ownerDoc)]}"#, headers: Self.alice)?.status == 200)
            // In a transaction: the same check at commit.
            let txn = c.request("POST", "\(Self.project):beginTransaction", body: "{}", headers: Self.bob)?.json?["transaction"]?.stringValue ?? ""
            let note2 = #"{"update": {"name": "\#(Self.name)/notes/n2"}}"#
            Self.expectDenied(c.request("POST", "\(Self.project):commit", body: #"{"writes": [\#(note2)], "transaction": "\#(txn)"}"#, headers: Self.bob), "notes/n2")
        }
    }

    // MARK: Coverage

    @Test func coverageCountsEveryEvaluation() throws {
        try withRules { c in
            _ = c.request("GET", "\(Self.project)/posts/a1", headers: Self.alice)
            _ = c.request("GET", "\(Self.project)/posts/a1")
            _ = c.request("GET", "\(Self.project)/posts/a1", headers: Self.owner)   // not evaluated
            let report = c.request("GET", "/emulator/v1/projects/r:ruleCoverage")
            #expect(report?.status == 200)
            #expect(report?.json?["rules"]?["files"]?.arrayValue?.first?["name"] == .string("firestore.rules"))
            let entry = report?.json?["expressions"]?.arrayValue?.first { $0["expression"] == .string("request.auth != null") && $0["line"] == .int(5) }
            #expect(entry?["evaluations"] == .int(2))
            #expect(entry?["true"] == .int(1))
            #expect(entry?["false"] == .int(1))
            let unevaluated = report?.json?["expressions"]?.arrayValue?.first { $0["line"] == .int(24) }
            #expect(unevaluated?["evaluations"] == .int(0))
            let html = c.request("GET", "/emulator/v1/projects/r:ruleCoverage.html")
            #expect(html?.status == 200)
            #expect(html?.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(html?.text.contains("request.auth != null") == true)
            // Reloading the rules starts the counts again.
            _ = c.request("PUT", "/emulator/v1/projects/r:securityRules", body: Self.rulesBody(Self.rules))
            let fresh = c.request("GET", "/emulator/v1/projects/r:ruleCoverage")?.json?["expressions"]?.arrayValue ?? []
            #expect(!fresh.isEmpty && fresh.allSatisfy { $0["evaluations"] == .int(0) })
        }
    }
}
