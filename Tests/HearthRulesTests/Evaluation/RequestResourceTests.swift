import Foundation
import HearthCore
import Testing
@testable import HearthRules

/// `request` and `resource` by method (docs/rules-language.md#request, #resource).
@Suite struct RequestResourceTests {
    let rules = """
        match /docs/{id} {
          allow get: if resource.data.owner == request.auth.uid;
          allow create: if resource == null && request.resource.data.owner == request.auth.uid
            && request.resource.id == id && request.resource.__name__ == request.path;
          allow update: if request.resource.data.keys().hasAll(['owner', 'n']) && request.resource.data.n > resource.data.n;
          allow delete: if request.resource == null && resource.data.owner == request.auth.uid;
        }
        match /probe/{id} {
          allow get: if request.method == 'get' && request.path == /databases/$(database)/documents/probe/$(id)
            && request.auth.token.firebase.sign_in_provider == 'custom' && request.auth.token.sub == 'alice'
            && request.auth.token.email == 'a@x' && request.time == timestamp.value(1714979289000);
        }
        match /missingResource/{id} {
          allow get: if request.resource == null;
          allow list: if request.query.limit == null;
        }
        """

    let docs = ["docs/d1": fields(("owner", .string("alice")), ("n", .integer(1)))]

    func decide(_ method: RulesMethod, _ p: String, newData: MapValue? = nil, auth: RulesAuth? = .mockUser(uid: "alice")) throws -> RulesDecision {
        try program(rules).evaluate(RulesRequest(method: method, path: path(p), auth: auth, time: testTime, newData: newData), data: store(docs))
    }

    @Test func methods() throws {
        #expect(try decide(.get, "docs/d1").allowed)
        #expect(try !decide(.get, "docs/d1", auth: .mockUser(uid: "bob")).allowed)
        #expect(try !decide(.get, "docs/d1", auth: nil).allowed)
        #expect(try decide(.create, "docs/d2", newData: fields(("owner", .string("alice")))).allowed)
        #expect(try !decide(.create, "docs/d2", newData: fields(("owner", .string("bob")))).allowed)
        #expect(try decide(.update, "docs/d1", newData: fields(("owner", .string("alice")), ("n", .integer(2)))).allowed)
        #expect(try !decide(.update, "docs/d1", newData: fields(("owner", .string("alice")), ("n", .integer(1)))).allowed)
        #expect(try decide(.delete, "docs/d1").allowed)
        #expect(try !decide(.delete, "docs/d1", auth: .mockUser(uid: "bob")).allowed)
    }

    @Test func requestFields() throws {
        let auth = RulesAuth.mockUser(uid: "alice", claims: fields(("email", .string("a@x"))))
        #expect(try decide(.get, "probe/p", auth: auth).allowed)
    }

    @Test func requestResourceOnGetIsAnError() throws {
        let d = try decide(.get, "missingResource/x")
        #expect(d.outcomes.first?.result == .error("Property resource is undefined on object."))
    }

    @Test func deniedDecisionExplainsItself() throws {
        let d = try decide(.get, "docs/d1", auth: nil)
        #expect(d.explanation == "Null value error. for 'get' @ L5")
        #expect(d.denialMessage.contains("get /databases/(default)/documents/docs/d1"))
        let none = try decide(.get, "elsewhere/x")
        #expect(none.explanation == "No matching allow statements")
        let allowed = try decide(.get, "docs/d1")
        #expect(allowed.decidingAllow?.location.line == 5)
    }

    @Test func debugOutputIsCapturedPerRequest() throws {
        let p = try program("match /d/{id} { allow get: if debug(id) == 'x' && debug({'k': [1, true]}) != null; }")
        let d = p.evaluate(RulesRequest(method: .get, path: path("d/x"), auth: nil, time: testTime), data: store([:]))
        #expect(d.allowed)
        // The emulator's log format (protobuf text format), one entry per debug() call.
        #expect(d.debugOutput == ["string_value: \"x\"", """
            map_value {
              fields {
                key: "k"
                value {
                  list_value {
                    values {
                      int_value: 1
                    }
                    values {
                      bool_value: true
                    }
                  }
                }
              }
            }
            """])
        #expect(DebugFormat.text(.duration(RulesDuration(seconds: 90, nanos: 0))) == "duration_value {\n  seconds: 90\n}")
        #expect(DebugFormat.text(.path(RulesPath(["a", "b"]))) == "path_value {\n  segments {\n    simple: \"a\"\n  }\n  segments {\n    simple: \"b\"\n  }\n}")
        #expect(DebugFormat.text(.map(RulesMap())) == "map_value {\n}")
        #expect(DebugFormat.text(.string("é")) == "string_value: \"\\303\\251\"")
        #expect(d.denialMessage.contains("debug():"))
    }

    @Test func storedValuesConvertToRulesTypes() throws {
        let name = DocumentName(database: DatabaseID(project: "p"), path: path("users/alice"))
        let doc = fields(("ref", .reference(name)), ("g", .geoPoint(GeoPoint(latitude: 1, longitude: 2))),
                         ("t", .timestamp(Timestamp(seconds: 0, nanos: 0))), ("f", .double(2)), ("b", .bytes(Data([1]))))
        #expect(holds("get(/databases/$(database)/documents/s/d).data.ref == /databases/$(database)/documents/users/alice", docs: ["s/d": doc]))
        #expect(holds("get(/databases/$(database)/documents/s/d).data.g is latlng && get(/databases/$(database)/documents/s/d).data.t == timestamp.value(0)", docs: ["s/d": doc]))
        #expect(holds("get(/databases/$(database)/documents/s/d).data.f is float && get(/databases/$(database)/documents/s/d).data.b == b'\\x01'", docs: ["s/d": doc]))
    }

    @Test func documentAccess() throws {
        let d = ["s/d": fields(("n", .integer(7)))]
        #expect(holds("get(/databases/$(database)/documents/s/d).data.n == 7 && get(/databases/$(database)/documents/s/d).id == 'd'", docs: d))
        #expect(holds("exists(/databases/$(database)/documents/s/d) && !exists(/databases/$(database)/documents/s/none)", docs: d))
        #expect(errors("get(/databases/$(database)/documents/s/none) == null", docs: d))   // docs/rules-language.md#document-access
        #expect(try outcome("exists('/databases/(default)/documents/s/d')", docs: d)
                == .error("Unsupported operation error. Received: exists(string). Expected: exists(path)."))
        #expect(errors("exists(/s/d)", docs: d))
        #expect(errors("exists(/databases/$(database)/documents/s)", docs: d))
        #expect(errors("exists(/databases/other/documents/s/d)", docs: d))
        #expect(holds("exists(path('/databases/(default)/documents/s/d'))", docs: d))
    }
}
