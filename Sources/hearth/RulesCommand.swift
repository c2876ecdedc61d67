// `hearth rules check` and `hearth rules test` (docs/formats.md#rules-test-cases).
import Foundation
import HearthRules
import HearthCore

enum RulesCommand {
    static func printError(_ s: String) {
        FileHandle.standardError.write((s + "\n").data(using: .utf8)!)
    }

    static let usage = """
        usage: hearth rules check FILE…
               hearth rules test CASES.json… [--coverage FILE.json|FILE.html]
          check       compile each rules file; print FILE:LINE:COL diagnostics (exit 1 on any error)
          test        run each case file (docs/formats.md#rules-test-cases): PASS/FAIL per case
                      and a count (exit 1 on any failure)
          --coverage  write which rules each case reached, as JSON or an HTML page
        """

    /// Whether `args` ask for help (then the usage is printed).
    static func wantsHelp(_ args: [String]) -> Bool { args.contains { $0 == "-h" || $0 == "--help" } }

    /// Exit status: 0 when every file compiles, 1 otherwise; diagnostics as FILE:LINE:COL.
    static func check(_ files: [String]) -> Int32 {
        if wantsHelp(files) { print(usage); return 0 }
        if let flag = files.first(where: { $0.hasPrefix("-") }) { printError("hearth rules check: unknown flag '\(flag)'\n\n\(usage)"); return 2 }
        guard !files.isEmpty else { printError("hearth rules check: no rules file given\n\n\(usage)"); return 2 }
        var failed = false
        for f in files {
            guard let source = FileManager.default.contents(atPath: f).flatMap({ String(data: $0, encoding: .utf8) }) else {
                printError("\(f): error: " + (FileManager.default.fileExists(atPath: f) ? "cannot read the file" : "no such file"))
                failed = true
                continue
            }
            let diagnostics = RulesProgram.diagnose(source: source, file: f)
            for d in diagnostics { print(d.description) }
            if diagnostics.contains(where: { $0.severity == .error }) { failed = true }
        }
        return failed ? 1 : 0
    }

    static func test(_ args: [String]) -> Int32 {
        if wantsHelp(args) { print(usage); return 0 }
        var files: [String] = []
        var coveragePath: String?
        var i = 0
        while i < args.count {
            if args[i] == "--coverage" {
                guard i + 1 < args.count else { printError("hearth rules test: --coverage needs FILE.json or FILE.html"); return 2 }
                coveragePath = args[i + 1]
                i += 2
            } else if args[i].hasPrefix("-") {
                printError("hearth rules test: unknown flag '\(args[i])'\n\n\(usage)")
                return 2
            } else {
                files.append(args[i])
                i += 1
            }
        }
        guard !files.isEmpty else { printError("hearth rules test: no case file given\n\n\(usage)"); return 2 }
        var passed = 0, failed = 0
        var reports: [CoverageReport] = []
        for f in files {
            let suite: RulesTestSuite
            do {
                suite = try RulesTestSuite.load(path: f)
            } catch let e as RulesCompileError {
                for d in e.diagnostics { print(d.description) }
                failed += 1
                continue
            } catch {
                print("FAIL \(error)")
                failed += 1
                continue
            }
            let coverage = coveragePath == nil ? nil : suite.program.makeCoverage()
            for r in suite.run(coverage: coverage) {
                print(r.line)
                if r.passed { passed += 1 } else { failed += 1 }
            }
            if let coverage { reports.append(CoverageReport(program: suite.program, coverage: coverage)) }
        }
        if let coveragePath {
            let text: String
            if coveragePath.hasSuffix(".html") {
                text = CoverageReport.htmlPage(reports)
            } else {
                text = String(decoding: JSON.array(reports.map(\.jsonValue)).prettyBytes, as: UTF8.self)
            }
            do { try text.write(toFile: coveragePath, atomically: true, encoding: .utf8) }
            catch { printError("cannot write \(coveragePath): \(error)"); return 1 }
        }
        print("\(passed) passed, \(failed) failed")
        return failed > 0 ? 1 : 0
    }
}
