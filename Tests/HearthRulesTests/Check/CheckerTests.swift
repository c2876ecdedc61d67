import Testing
@testable import HearthRules

/// What the official emulator reports at compile time (probed on emulator 1.19.9):
/// errors reject the ruleset, warnings are reported but the ruleset loads.
@Suite struct CheckerTests {
    private func diagnostics(_ body: String, functions: String = "", version: String = "rules_version = '2';\n") -> [RulesDiagnostic] {
        RulesProgram.diagnose(source: version + "service cloud.firestore {\n" + functions
            + "  match /databases/{database}/documents {\n" + body + "\n  }\n}\n")
    }

    private func errors(_ d: [RulesDiagnostic]) -> [String] { d.filter { $0.severity == .error }.map(\.message) }
    private func warnings(_ d: [RulesDiagnostic]) -> [String] { d.filter { $0.severity == .warning }.map(\.message) }

    @Test func duplicateFunctionsInOneScopeAreErrors() {
        let d = diagnostics("    function f(a) { return a; }\n    function f(a, b) { return a; }\n    match /x/{id} { allow get: if f(1); }")
        #expect(errors(d) == ["Function f is already defined."])
        // The same name at another level shadows instead.
        let shadow = diagnostics("    match /x/{id} { function f() { return true; } allow get: if f(); }", functions: "  function f() { return false; }\n")
        #expect(errors(shadow).isEmpty)
        #expect(warnings(shadow) == ["Unused function: f."])
    }

    @Test func recursionIsAnError() {
        #expect(errors(diagnostics("    function f(a) { return f(a); }\n    match /x/{id} { allow get: if f(1); }")) == ["Recursive call is not allowed."])
        #expect(errors(diagnostics("    function f(a) { return g(a); }\n    function g(a) { return f(a); }\n    match /x/{id} { allow get: if f(1); }"))
            .first?.hasPrefix("Detected a call cycle between") == true)
    }

    @Test func arityMismatchesAreWarnings() {
        let d = diagnostics("    function f(a) { return a; }\n    match /x/{id} { allow get: if f(1, 2) || string(1, 2) == '' || 'a'.foo(); }")
        #expect(errors(d).isEmpty)
        #expect(warnings(d).contains("Incorrect number of arguments supplied to function: f."))
        #expect(warnings(d).contains("Incorrect number of arguments supplied to function: string."))
        #expect(warnings(d).contains("Invalid function name: foo."))
    }

    @Test func unknownNamesAreWarnings() {
        let d = diagnostics("    match /x/{id} { allow get: if nope == 1 || undefinedFn() || math.isInfinite(1.0) || bool('true'); allow foo: if true; }")
        #expect(errors(d).isEmpty)
        #expect(warnings(d).contains("Invalid variable name: nope."))
        #expect(warnings(d).contains("Invalid function name: undefinedFn."))
        #expect(warnings(d).contains("Invalid function name: math.isInfinite."))
        #expect(warnings(d).contains("Invalid function name: bool."))
        #expect(warnings(d).contains("Invalid method name: foo."))
        // The name's span, as the official emulator reports it (endOffset inclusive).
        for name in ["nope", "undefinedFn"] {
            let w = d.first { $0.message.hasSuffix(" name: \(name).") }
            #expect(w.map { $0.endOffset! - $0.location.offset + 1 } == name.utf8.count)
        }
    }

    @Test func globRules() {
        #expect(errors(diagnostics("    match /x/{a=**}/y/{id} { allow get: if true; }", version: ""))
            == ["Invalid glob match expression. Glob matches are permitted as the last segment in a match declaration path."])
        #expect(errors(diagnostics("    match /x/{a=**}/y/{id} { allow get: if true; }")).isEmpty)
        #expect(errors(diagnostics("    match /x/{a=**} { match /y/{b=**} { allow get: if true; } }"))
            == ["Invalid glob match expression. Only one glob match is permitted in a match declaration path."])
        #expect(errors(diagnostics("    match /x/{id}/y/{id} { allow get: if true; }")) == ["Variable id already exists in the PathTemplate."])
        #expect(warnings(diagnostics("    match /x/{a=**} { match /y/{id} { allow get: if true; } }"))
            .contains("Glob(**) resource rules should not have child resource rules."))
    }

    @Test func limits() {
        func lets(_ n: Int) -> String {
            "    function f() { " + (0..<n).map { "let a\($0) = \($0);" }.joined(separator: " ") + " return "
                + (0..<n).map { "a\($0)" }.joined(separator: " + ") + " == 1; }\n    match /x/{id} { allow get: if f(); }"
        }
        #expect(errors(diagnostics(lets(11))).isEmpty)  // the emulator accepts 11
        #expect(errors(diagnostics(lets(12))) == ["Maximum allowed variable count of 10 for a given function has been reached."])
        #expect(errors(diagnostics("    function f(a,b,c,d,e,g,h,i) { return a; }\n    match /x/{id} { allow get: if f(1,2,3,4,5,6,7,8); }"))
            == ["Maximum allowed function arguments of 7 for function f is reached."])
        let deep = "    " + (0..<11).map { "match /l\($0)/{v\($0)} { " }.joined() + "allow get: if true;" + String(repeating: " }", count: 11)
        #expect(errors(diagnostics(deep)) == ["Maximum allowed resource rule depth of 10 is reached."])
        #expect(errors(diagnostics("    function f() { let a = 1; return a == 1; }\n    match /x/{id} { allow get: if f(); }", version: ""))
            == ["Let bindings are not allowed in rules_version=\"1\";"])
    }

    @Test func unusedVariables() {
        let d = diagnostics("    function f(a, b) { let c = 1; return a; }\n    match /x/{id} { allow get: if f(1, 2); }")
        #expect(warnings(d) == ["Unused variable: b.", "Unused variable: c."])
    }

    @Test func compileErrorCarriesEveryDiagnostic() {
        do {
            _ = try RulesProgram.compile(source: "rules_version = '2';\nservice cloud.firestore {\n match /a/{x} {\n  function f() { return f(); }\n  allow get: if f();\n }\n}\n", file: "r.rules")
            Issue.record("expected a compile error")
        } catch {
            #expect(error.errors.map(\.description) == ["r.rules:4:3: error: Recursive call is not allowed."])
        }
    }
}
