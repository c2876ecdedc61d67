import Testing
@testable import HearthRules

/// Which allows apply (docs/rules-language.md#match-paths).
@Suite struct PathMatchingTests {
    func allowed(_ p: RulesProgram, _ docPath: String, _ method: RulesMethod = .get) -> Bool {
        p.evaluate(RulesRequest(method: method, path: path(docPath), auth: .mockUser(uid: "alice"), time: testTime), data: store([:])).allowed
    }

    @Test func singleWildcardsAndNesting() throws {
        let p = try program("""
            match /cities/{city} {
              allow get: if city == 'SF';
              match /landmarks/{l} { allow get: if city == 'LA' && l == 'x'; }
            }
            """)
        #expect(allowed(p, "cities/SF"))
        #expect(!allowed(p, "cities/LA"))
        #expect(!allowed(p, "cities/SF/landmarks/x"))   // parent rules do not cascade
        #expect(allowed(p, "cities/LA/landmarks/x"))
    }

    @Test func recursiveWildcardVersion2MatchesZeroOrMore() throws {
        let p = try program("""
            match /cities/{city}/{rest=**} { allow get: if string(rest) == '/landmarks/l1' || city == 'SF'; }
            match /{anything=**}/posts/{post} { allow get: if post == 'p1'; }
            """)
        #expect(allowed(p, "cities/SF"))
        #expect(allowed(p, "cities/LA/landmarks/l1"))
        #expect(!allowed(p, "cities/LA/landmarks/l2"))
        #expect(allowed(p, "posts/p1"))
        #expect(allowed(p, "a/b/c/d/posts/p1"))
        #expect(!allowed(p, "users/u/posts/p2"))
    }

    @Test func recursiveWildcardVersion1MatchesOneOrMore() throws {
        let p = try program("match /cities/{city}/{rest=**} { allow get: if true; }\nmatch /towns/{doc=**} { allow get: if doc[0] == 't1'; }", version: "1")
        #expect(!allowed(p, "cities/LA"))
        #expect(allowed(p, "cities/LA/landmarks/l1"))
        #expect(allowed(p, "towns/t1/x/y"))
        #expect(!allowed(p, "towns/t2"))
    }

    @Test func overlappingMatchesAnyAllowWins() throws {
        let p = try program("""
            match /shared/{doc} { allow get: if request.auth.uid == 'bob'; }
            match /shared/{doc} { allow get: if request.auth.uid == 'alice'; }
            match /{coll}/{doc} { allow write: if coll == 'open'; }
            """)
        #expect(allowed(p, "shared/s"))
        #expect(allowed(p, "open/x", .create) && allowed(p, "open/x", .update) && allowed(p, "open/x", .delete))
        #expect(!allowed(p, "open/x", .get))
    }

    @Test func matcherBindsPaths() {
        let pattern: [MatchSegment] = [.literal("a"), .recursive("rest"), .single("last")]
        let b = PathMatcher.match(pattern, ["a", "x", "y", "z"], version: 2)
        guard case .path(let rest)? = b?["rest"], case .string(let last)? = b?["last"] else {
            Issue.record("no match")
            return
        }
        #expect(rest.segments == ["x", "y"])
        #expect(last == "z")
        #expect(PathMatcher.match(pattern, ["a"], version: 2) == nil)
        #expect(PathMatcher.match(pattern, ["a", "z"], version: 2) != nil)
        #expect(PathMatcher.match(pattern, ["a", "z"], version: 1) == nil)
    }
}
