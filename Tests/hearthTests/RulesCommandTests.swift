import Foundation
import Testing

/// `hearth rules check` and `hearth rules test`: exit codes, help, and files that are wrong.
@Suite struct RulesCommandTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /notes/{id} {
              allow read: if request.auth != null;
            }
          }
        }
        """

    @Test("help for rules, rules check and rules test prints the usage and exits 0",
          arguments: [["rules", "--help"], ["rules", "check", "--help"], ["rules", "test", "--help"], ["rules", "test", "x.json", "-h"]])
    func help(_ args: [String]) throws {
        let run = try HearthCLI.run(args)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("usage: hearth rules check FILE…"))
        #expect(run.stderr.isEmpty)
    }

    @Test("rules with no or an unknown subcommand, or an unknown flag, exit 2 with the usage",
          arguments: [(["rules"], "hearth rules: which one, check or test?"), (["rules", "lint"], "hearth rules: unknown command 'lint'"),
                      (["rules", "check"], "hearth rules check: no rules file given"), (["rules", "test"], "hearth rules test: no case file given"),
                      (["rules", "test", "--verbose", "a.json"], "hearth rules test: unknown flag '--verbose'"),
                      (["rules", "check", "--strict"], "hearth rules check: unknown flag '--strict'"),
                      (["rules", "test", "a.json", "--coverage"], "hearth rules test: --coverage needs FILE.json or FILE.html")])
    func usageErrors(_ args: [String], _ message: String) throws {
        let run = try HearthCLI.run(args)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix(message + "\n"))
    }

    @Test("rules check: 0 for rules that compile, 1 with FILE:LINE:COL for rules that do not, 1 for a missing file")
    func check() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.rules.write(to: dir.appendingPathComponent("good.rules"), atomically: true, encoding: .utf8)
        try "rules_version = '2';\nservice cloud.firestore {\n  match /x { allow read: if ; }\n}\n"
            .write(to: dir.appendingPathComponent("bad.rules"), atomically: true, encoding: .utf8)
        let good = try HearthCLI.run(["rules", "check", "good.rules"], in: dir)
        #expect(good.status == 0)
        let bad = try HearthCLI.run(["rules", "check", "good.rules", "bad.rules"], in: dir)
        #expect(bad.status == 1)
        #expect(bad.stdout.hasPrefix("bad.rules:3:"))
        let missing = try HearthCLI.run(["rules", "check", "gone.rules"], in: dir)
        #expect(missing.status == 1)
        #expect(missing.stderr == "gone.rules: error: no such file\n")
    }

    @Test("rules test: PASS and FAIL lines and a count; exit 1 on a failed case or a missing file, never a raw Foundation error")
    func test() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.rules.write(to: dir.appendingPathComponent("notes.rules"), atomically: true, encoding: .utf8)
        try #"""
            {"rules": "notes.rules", "data": {"notes/a": {"text": "hi"}},
             "cases": [{"name": "signed in reads", "auth": {"uid": "u"}, "method": "get", "path": "notes/a", "expect": "allow"},
                       {"name": "anonymous reads", "method": "get", "path": "notes/a", "expect": "deny"}]}
            """#.write(to: dir.appendingPathComponent("pass.cases.json"), atomically: true, encoding: .utf8)
        try #"""
            {"rules": "notes.rules", "cases": [{"name": "wrong", "method": "get", "path": "notes/a", "expect": "allow"}]}
            """#.write(to: dir.appendingPathComponent("fail.cases.json"), atomically: true, encoding: .utf8)
        let pass = try HearthCLI.run(["rules", "test", "pass.cases.json"], in: dir)
        #expect(pass.status == 0)
        #expect(pass.stdout == "PASS signed in reads\nPASS anonymous reads\n2 passed, 0 failed\n")
        let fail = try HearthCLI.run(["rules", "test", "pass.cases.json", "fail.cases.json"], in: dir)
        #expect(fail.status == 1)
        #expect(fail.stdout.contains("FAIL wrong: expected allow, got deny"))
        #expect(fail.stdout.hasSuffix("2 passed, 1 failed\n"))
        let missing = try HearthCLI.run(["rules", "test", "gone.cases.json"], in: dir)
        #expect(missing.status == 1)
        #expect(missing.stdout == "FAIL gone.cases.json: no such file\n0 passed, 1 failed\n")
        #expect(!missing.stdout.contains("NSCocoaErrorDomain") && !missing.stderr.contains("NSCocoaErrorDomain"))
    }

    @Test("rules test --coverage writes the JSON report")
    func coverage() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.rules.write(to: dir.appendingPathComponent("notes.rules"), atomically: true, encoding: .utf8)
        try #"{"rules": "notes.rules", "cases": [{"name": "n", "method": "get", "path": "notes/a", "expect": "deny"}]}"#
            .write(to: dir.appendingPathComponent("c.cases.json"), atomically: true, encoding: .utf8)
        let run = try HearthCLI.run(["rules", "test", "c.cases.json", "--coverage", "cov.json"], in: dir)
        #expect(run.status == 0)
        let report = try String(contentsOf: dir.appendingPathComponent("cov.json"), encoding: .utf8)
        #expect(report.hasPrefix("["))
        #expect(report.contains("notes.rules"))
    }
}
