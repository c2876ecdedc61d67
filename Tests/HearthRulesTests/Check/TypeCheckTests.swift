import Testing
@testable import HearthRules

/// The compile-time type warnings, each as the official emulator gave it for the same
/// condition (text, column and the last column of the token it names).
@Suite struct TypeCheckTests {
    /// `allow get: if CONDITION;` on /c/{id} (column 21 is the condition's first character).
    private func warnings(_ condition: String, match: String = "/c/{id}") -> [String] {
        let source = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match \(match) {\n      allow get: if \(condition);\n    }\n  }\n}\n"
        return RulesProgram.diagnose(source: source).filter { $0.severity == .warning }.map { d in
            "\(d.location.column)-\((d.endOffset ?? d.location.offset) - d.location.offset): \(d.message)"
        }
    }

    @Test("operands that cannot have the type the operator needs", arguments: [
        ("1 ? true : false", ["21-0: Invalid type. Received one of [int]. Expected one of [bool]."]),
        ("true && 1", ["29-0: Invalid type. Received one of [int]. Expected one of [bool]."]),
        ("!(1)", ["22-0: Invalid type. Received one of [int]. Expected one of [bool]."]),
        ("1 + 1 ? true : false", ["23-0: Invalid type. Received one of [int, float, string, duration, timestamp]. Expected one of [bool]."]),
        ("-1 ? true : false", ["21-0: Invalid type. Received one of [int, float, duration]. Expected one of [bool]."]),
        ("'a' - 1 == 2", ["21-2: Invalid type. Received one of [string]. Expected one of [int, float, duration, timestamp]."]),
        ("'a' in 'abc'", ["28-4: Invalid type. Received one of [string]. Expected one of [list, set, map, constraint]."]),
        ("'abc'.length == 1", ["21-4: Invalid type. Received one of [string]. Expected one of [map]."]),
        ("'abc'[0]", ["21-4: Invalid type. Received one of [string]. Expected one of [list, map, path]."]),
        ("exists('/x')", ["28-3: Invalid type. Received one of [string]. Expected one of [path]."]),
        ("int(1 && true) == 1", ["27-1: Invalid type. Received one of [bool]. Expected one of [int, float, string]."]),
        ("'abc'.size() ? true : false", ["27-3: Invalid type. Received one of [int]. Expected one of [bool]."]),
        ("true ? 1 : 2", ["28-0: Invalid type. Received one of [int]. Expected one of [bool].",
                          "32-0: Invalid type. Received one of [int]. Expected one of [bool]."]),
        ("get('/databases/' + database + '/documents/o/b').data.x == 1",
         ["50-0: Invalid type. Received one of [int, float, string, duration, timestamp]. Expected one of [path]."]),
        ("1", ["21-0: Invalid type. Permission statements expect a boolean value. Received one of [int]."]),
    ] as [(String, [String])])
    func expectations(_ condition: String, _ expected: [String]) {
        #expect(warnings(condition) == expected)
    }

    @Test("comparisons that can never be true", arguments: [
        ("1 == 'a'", ["23-1: The sub-expressions are not comparable, so this comparison will always return false."]),
        ("1 != 'a'", ["23-1: The sub-expressions are not comparable, so this comparison will always return true."]),
        ("'a' == null", ["25-1: The sub-expressions are not comparable, so this comparison will always return false."]),
        ("1 is int == 'x' is string", ["30-1: The sub-expressions are not comparable, so this comparison will always return false."]),
        ("id == 1", ["24-1: The sub-expressions are not comparable, so this comparison will always return false."]),
    ] as [(String, [String])])
    func comparisons(_ condition: String, _ expected: [String]) {
        #expect(warnings(condition) == expected)
    }

    /// Recorded from the official emulator (differential corpus: rules_random, probes): a
    /// conditional whose branches share no type is reported at its `?` — unless a branch
    /// already failed what the place expects; positions count characters after non-ASCII
    /// text, as the emulator (a JVM) counts UTF-16 units.
    @Test("conditionals whose branches have different types", arguments: [
        ("debug(true ? 1 : 'a') != null", ["32-0: Ternary operator result if condition is true has a different type than if condition is false."]),
        ("debug(true ? 1 : 1.0) != null", ["32-0: Ternary operator result if condition is true has a different type than if condition is false."]),
        ("debug((true ? 1 : 'a')) != null", ["33-0: Ternary operator result if condition is true has a different type than if condition is false."]),
        ("debug('éé✓' == 'x' ? [1] : {}) != null", ["40-0: Ternary operator result if condition is true has a different type than if condition is false."]),
        ("debug(true ? 1 : -1) != null", []),
        ("debug(true ? 'a' : string(1)) != null", []),
        ("(true ? 1 : 'a') ? true : false", ["29-0: Invalid type. Received one of [int]. Expected one of [bool].",
                                            "33-2: Invalid type. Received one of [string]. Expected one of [bool]."]),
    ] as [(String, [String])])
    func conditionals(_ condition: String, _ expected: [String]) {
        #expect(warnings(condition) == expected)
    }

    @Test("what is not known, or may match, is never warned about", arguments: [
        "request.auth != null", "resource.data.x ? true : false", "1 == 1.5", "(1 + 1) == 'a'", "1 < 'a'",
        "null == null", "'abc'[0] == 'a'", "debug('abc'[0]) == 1", "[1][0] ? true : false", "'a'.matches('a') ? true : false",
        "get(/databases/x) ? true : false", "request.time - request.time == 1", "'a' == id",
    ])
    func silent(_ condition: String) {
        #expect(warnings(condition) == [])
    }

    @Test func functionBodiesAndLetsAreCheckedOnce() {
        func warnings(function: String, condition: String) -> [String] {
            let source = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    \(function)\n    match /c/{id} { allow get: if \(condition); }\n  }\n}\n"
            return RulesProgram.diagnose(source: source).filter { $0.severity == .warning }.map { "\($0.location.column): \($0.message)" }
        }
        let intOperand = "Invalid type. Received one of [int]. Expected one of [bool]."
        #expect(warnings(function: "function f() { return 1 && true; }", condition: "f() || f()") == ["27: \(intOperand)"])
        #expect(warnings(function: "function f() { return 1 && true; }", condition: "true") == ["14: Unused function: f.", "27: \(intOperand)"])
        // A let that fails is reported at its value; compared, it is not known.
        #expect(warnings(function: "function f() { let y = 1; return y && true; }", condition: "f()") == ["28: \(intOperand)"])
        #expect(warnings(function: "function f() { let y = 1; return y == 'a'; }", condition: "f()") == [])
        #expect(warnings(function: "function f(x) { return x == 'a'; }", condition: "f(1)") == [])
    }

    @Test func wildcardsAreStringsOrPaths() {
        #expect(warnings("id ? true : false") == ["21-1: Invalid type. Received one of [string]. Expected one of [bool].",
                                                  "21-1: Invalid type. There is no type for variable 'id' that satisfies all clauses."])
        #expect(warnings("rest == 'a'", match: "/c/{rest=**}") == ["26-1: The sub-expressions are not comparable, so this comparison will always return false."])
    }
}
