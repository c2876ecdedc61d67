import HearthCore
import Testing
@testable import HearthRules

@Suite struct CoverageTests {
    @Test func countsEvaluationsAndResults() throws {
        let p = try program("match /d/{id} { allow get: if id == 'a' || id.size() > 3; }")
        let coverage = p.makeCoverage()
        for id in ["a", "b", "long"] {
            _ = p.evaluate(RulesRequest(method: .get, path: path("d/\(id)"), auth: nil, time: testTime), data: store([:]), coverage: coverage)
        }
        let report = CoverageReport(program: p, coverage: coverage)
        let byText = Dictionary(report.entries.map { ($0.text, $0.counts) }, uniquingKeysWith: { a, _ in a })
        let whole = try #require(byText["id == 'a' || id.size() > 3"])
        #expect(whole.evaluations == 3 && whole.trueResults == 2 && whole.falseResults == 1)
        let left = try #require(byText["id == 'a'"])
        #expect(left.evaluations == 3 && left.trueResults == 1)
        let right = try #require(byText["id.size() > 3"])
        #expect(right.evaluations == 2)    // short-circuited once
        #expect(report.coveredFraction == 1)
        let json = try JSON.parse(report.json())
        let expressions = try #require(json["expressions"]?.arrayValue)
        let size = try #require(expressions.first { $0["expression"] == .string("id.size() > 3") })
        #expect(size["evaluations"] == .int(2) && size["true"] == .int(1) && size["false"] == .int(1) && size["errors"] == .int(0))
        #expect(json["covered"] == .number("1.0000"))
        #expect(report.html().contains("<tr class=\"hit\">"))
    }

    @Test func recordsErrorsAndUnreachedExpressions() throws {
        let p = try program("match /d/{id} { allow get: if resource.data.x == 1; allow list: if false; }")
        let coverage = p.makeCoverage()
        _ = p.evaluate(RulesRequest(method: .get, path: path("d/x"), auth: nil, time: testTime), data: store([:]), coverage: coverage)
        let report = CoverageReport(program: p, coverage: coverage)
        #expect(report.entries.first { $0.text == "resource.data" }?.counts.errors == 1)
        #expect(report.entries.first { $0.text == "false" }?.counts.evaluations == 0)
        #expect(report.coveredFraction < 1)
    }
}
