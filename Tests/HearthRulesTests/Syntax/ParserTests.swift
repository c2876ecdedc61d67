import Testing
@testable import HearthRules

@Suite struct ParserTests {
    @Test func parsesTheWholeGrammar() throws {
        let p = try RulesProgram.compile(source: """
            rules_version = '2';
            function top(a) { return a == 1; }
            service cloud.firestore {
              function svc() { return true; }
              match /databases/{database}/documents {
                match /a/{b}/c/{d=**} {
                  function local(x, y) {
                    let z = x + y;
                    return z > 0
                  }
                  allow read, write: if local(1, 2) && top(1) && svc()
                  allow get;
                  match /e/{f} { allow list: if /databases/$(database)/documents/a/$(b) is path; }
                }
              }
            }
            """)
        #expect(p.version == 2)
        #expect(p.file.functions.map(\.name) == ["top", "svc"])
        let m = try #require(p.file.matches.first?.children.first)
        #expect(m.segments == [.literal("a"), .single("b"), .literal("c"), .recursive("d")])
        #expect(m.allows[0].methods == [.get, .list, .create, .update, .delete])
        #expect(m.allows[1].condition == nil)
        #expect(m.functions[0].lets.map(\.name) == ["z"])
        #expect(m.allows[0].location.line == 11)
    }

    @Test func versionOneIsTheDefault() throws {
        let p = try RulesProgram.compile(source: "service cloud.firestore { match /databases/{d}/documents { allow read; } }")
        #expect(p.version == 1)
        #expect(p.warnings.map(\.message).contains("Ruleset uses old version (version [1]). Please update to the latest version (version [2])."))
    }

    /// docs/rules-language.md#precedence: unary > * / % > + - > relational > == != > is > in > && > || > ?:
    @Test func precedenceFollowsTheEmulator() {
        #expect(errors("'a' in ['a'] == true"))        // 'a' in (['a'] == true)
        #expect(!holds("true == 'a' in ['a']"))        // (true == 'a') in ['a'] → false
        #expect(holds("1 == 1 is bool"))
        #expect(errors("1 in [1] is bool"))
        #expect(holds("['a'] == ['a'] in [true]"))
        #expect(holds("1 + 2 * 3 == 7"))
        #expect(holds("-2 * 3 == -6"))
        #expect(holds("false ? false : true ? true : false"))
        #expect(holds("true || false && false"))
        #expect(holds("!false == true"))
    }

    @Test func literals() {
        #expect(holds(".5 == 0.5"))
        #expect(holds("1. == 1.0"))
        #expect(holds("-9223372036854775808 < 0"))
        #expect(holds("'\\x41\\u00e9\\t' == 'Aé\t'"))
        #expect(holds("b'*' == b'\\x2A' && b'*' == b'\\052'"))
        #expect(holds("\"dq\" == 'dq'"))
        #expect(holds("[1, 2,].size() == 2"))
        #expect(holds("/* block */ true"))
    }

    private func firstError(_ source: String) -> RulesDiagnostic? {
        RulesProgram.diagnose(source: source, file: "f.rules").first { $0.severity == .error }
    }

    private func wrapped(_ condition: String) -> String {
        "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /x/{id} { allow get: if \(condition); }\n  }\n}\n"
    }

    /// Compile errors the emulator reports (docs/rules-language.md#compile-time-diagnostics), with file:line:col.
    @Test func diagnosticsNamePositionAndExpectation() throws {
        let e1 = try #require(firstError(wrapped("1e3 == 1")))
        #expect(e1.description == "f.rules:4:36: error: Unexpected 'e3'.")
        let e2 = try #require(firstError(wrapped("0x10 == 16")))
        #expect(e2.message.hasPrefix("Unexpected 'x10'"))
        let e3 = try #require(firstError(wrapped("--3 == 3")))
        #expect(e3.message == "Increment (++) and decrement (--) operators are not supported.")
        #expect(e3.location.column == 37)  // at the token after the operator, as the emulator places it
        let postfix = try #require(firstError(wrapped("1-- == 1")))
        #expect(postfix.message == "Increment (++) and decrement (--) operators are not supported.")
        #expect(postfix.location.column == 39)
        let e4 = try #require(firstError(wrapped("7 /2 == 3")))
        #expect(e4.message.hasPrefix("Missing 'match' keyword before path."))
        #expect(e4.location.column == 37)
        #expect(firstError(wrapped("7 / 2 == 3")) == nil)
        #expect(firstError(wrapped("7/ 2 == 3")) == nil)
        let e5 = try #require(firstError(wrapped("'abc'.matches('(')")))
        #expect(e5.message == "Invalid regular expression pattern. Pattern: (.")
        #expect(firstError(wrapped("'abc'.replace('(', 'x') == 'x'")) == nil)
        let e6 = try #require(firstError("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /x/{id} { allow get: true; }\n  }\n}\n"))
        #expect(e6.message == "Missing 'if' before conditional expression.")
        let e7 = try #require(firstError(wrapped("'\\d' == 'd'")))
        #expect(e7.message.contains("Invalid escape sequence"))
        let e8 = try #require(firstError("rules_version = '2';\n"))
        // The official emulator's parser-generator text for a missing first declaration.
        #expect(e8.message == "mismatched input '<EOF>' expecting {'function', 'import', 'service'}")
        #expect(e8.location.line == 2)
        // `1.` is a float, so a name right after it is unexpected (as on the official emulator).
        let e10 = try #require(firstError(wrapped("1.size() == 1")))
        #expect(e10.message == "Unexpected 'size'.")
        #expect(firstError(wrapped("1. == 1.0")) == nil)
        let e9 = try #require(firstError(wrapped("1 is integer")))
        #expect(e9.message.hasPrefix("Unknown type 'integer'"))
        #expect(firstError(wrapped("9223372036854775808 > 0")) != nil)
        #expect(firstError(wrapped("- -1 == 1")) != nil)
        #expect(firstError(wrapped("-(-1) == 1")) == nil)
        #expect(firstError(wrapped("'\\U0001F600' == 'x'")) != nil)
        #expect(firstError(wrapped(String(repeating: "(", count: 150) + "true" + String(repeating: ")", count: 150))) != nil)
        #expect(firstError("function f() { return true; }\nrules_version = '2';\nservice cloud.firestore { match /a/b { allow read; } }") != nil)
        #expect(firstError("service cloud.firestore { }") != nil)
    }

    // The official emulator reports every broken allow statement of a compile (observed
    // 2026-11-22: L4:59 and L6:39 for this file); Hearth resumes after each one too.
    @Test func everyBrokenAllowStatementIsReported() {
        let source = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{db}/documents {
                match /a/{id} { allow read: if request.auth != null &&; }
                match /b/{id} { allow read: if true }
                match /c/{id} { allow write: if ((; allow read: if (1 + ; }
              }
            }
            """
        let errors = RulesProgram.diagnose(source: source).filter { $0.severity == .error }
        #expect(errors.map { "\($0.location.line):\($0.location.column)" } == ["4:59", "6:39", "6:61"])
        #expect(errors.allSatisfy { $0.message.hasPrefix("Unexpected ';'") })
    }

    @Test func semicolonsAreOptionalAfterAllowAndReturn() throws {
        _ = try RulesProgram.compile(source: """
            rules_version = '2'
            service cloud.firestore {
              match /databases/{database}/documents {
                function f() { return true }
                match /x/{id} {
                  allow get: if f()
                  allow list: if true
                }
              }
            }
            """)
        let missingLetSemicolon = RulesProgram.diagnose(source: """
            rules_version = '2';
            service cloud.firestore { match /x/{id} { function f() { let a = 1 return a == 1; } allow get: if f(); } }
            """)
        #expect(missingLetSemicolon.contains { $0.severity == .error && $0.message == "missing ';' at 'return'" })
    }
}
