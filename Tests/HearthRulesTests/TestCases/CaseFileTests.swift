import Foundation
import Testing
@testable import HearthRules

/// The repository's rule case files, run as `hearth rules test` runs them: the recorded
/// corpus (Tests/RulesCorpus, each verdict recorded from the official emulator) and the
/// documented apps' cases (Rules/, on each app's seed documents). Any failed case fails.
@Suite struct CaseFileTests {
    /// The repository's root, found from this file (Tests/HearthRulesTests/TestCases/).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func caseFiles(in folder: String) -> [String] {
        let dir = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".cases.json") }.sorted().map { "\(folder)/\($0)" }
    }

    static let corpus = caseFiles(in: "Tests/RulesCorpus")
    static let apps = caseFiles(in: "Rules")

    @Test("the case files are where this suite looks") func found() {
        #expect(Self.corpus.count >= 7)
        #expect(Self.apps.count >= 5)
    }

    @Test("the recorded corpus: every verdict of the official emulator is reproduced", arguments: corpus)
    func corpusFile(_ file: String) throws {
        try expectAllPass(file)
    }

    @Test("the documented apps' rules: every allow and deny case passes", arguments: apps)
    func appFile(_ file: String) throws {
        try expectAllPass(file)
    }

    private func expectAllPass(_ file: String) throws {
        let suite = try RulesTestSuite.load(path: Self.root.appendingPathComponent(file).path)
        let results = suite.run()
        #expect(!results.isEmpty, "\(file) has no cases")
        for failed in results where !failed.passed {
            Issue.record("\(file): \(failed.line)")
        }
    }
}
