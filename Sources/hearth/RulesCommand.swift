// `hearth rules check` and `hearth rules test` (docs/formats.md#rules-test-cases).
import Foundation
import HearthRules
import HearthCore

enum RulesCommand {
    static func printError(_ s: String) {
        FileHandle.standardError.write((s + "\n").data(using: .utf8)!)
    }

    /// Exit status: 0 when every file compiles, 1 otherwise; diagnostics as FILE:LINE:COL.
    static func check(_ files: [String]) -> Int32 {
        guard !files.isEmpty else { printError("usage: hearth rules check FILE…"); return 2 }
        var failed = false
        for f in files {
            guard let source = try? String(contentsOfFile: f, encoding: .utf8) else {
                printError("\(f): error: cannot read file")
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
        var files: [String] = []
        var coveragePath: String?
        var i = 0
        while i < args.count {
            if args[i] == "--coverage" {
                guard i + 1 < args.count else { printError("--coverage needs FILE.json or FILE.html"); return 2 }
                coveragePath = args[i + 1]
                i += 2
            } else {
                files.append(args[i])
                i += 1
            }
        }
        guard !files.isEmpty else { printError("usage: hearth rules test CASES.json… [--coverage FILE.json|FILE.html]"); return 2 }
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
                print("FAIL \(f): \(error)")
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
