import Foundation
import HearthCore

/// Renders coverage as JSON (one entry per expression) or as an HTML page of the rules
/// source where each expression shows its hit count and results.
public struct CoverageReport {
    public struct Entry {
        public var id: Int
        public var location: SourceLocation
        public var endOffset: Int
        public var text: String
        public var counts: RulesCoverage.Counts
    }

    public let program: RulesProgram
    public let entries: [Entry]

    public init(program: RulesProgram, coverage: RulesCoverage) {
        self.program = program
        let counts = coverage.snapshot
        var nodes: [Expr] = []
        func visit(_ e: Expr) {
            nodes.append(e)
            forEachChild(e, visit)
        }
        for f in program.file.functions { f.lets.forEach { visit($0.value) }; visit(f.body) }
        func walk(_ m: MatchBlock) {
            for f in m.functions { f.lets.forEach { visit($0.value) }; visit(f.body) }
            for a in m.allows { if let c = a.condition { visit(c) } }
            m.children.forEach(walk)
        }
        program.file.matches.forEach(walk)
        let bytes = Array(program.source.utf8)
        entries = nodes.sorted { ($0.location.offset, -$0.endOffset) < ($1.location.offset, -$1.endOffset) }.map { e in
            let end = min(max(e.endOffset, e.location.offset), bytes.count)
            let text = String(decoding: bytes[min(e.location.offset, bytes.count)..<end], as: UTF8.self)
            return Entry(id: e.id, location: e.location, endOffset: end, text: text,
                         counts: e.id < counts.count ? counts[e.id] : RulesCoverage.Counts())
        }
    }

    /// Fraction of expressions evaluated at least once.
    public var coveredFraction: Double {
        entries.isEmpty ? 1 : Double(entries.filter { $0.counts.evaluations > 0 }.count) / Double(entries.count)
    }

    /// `{"file", "covered", "expressions": [{"line", "column", "expression", "evaluations",
    /// "true", "false", "errors", "other"}]}`.
    public var jsonValue: JSON {
        .object([
            ("file", .string(program.fileName)),
            ("covered", .number(String(format: "%.4f", coveredFraction))),
            ("expressions", .array(entries.map { e in
                .object([
                    ("line", .int(e.location.line)), ("column", .int(e.location.column)), ("expression", .string(e.text)),
                    ("evaluations", .int(e.counts.evaluations)), ("true", .int(e.counts.trueResults)),
                    ("false", .int(e.counts.falseResults)), ("errors", .int(e.counts.errors)), ("other", .int(e.counts.otherValues)),
                ])
            })),
        ])
    }

    /// `jsonValue`, pretty-printed.
    public func json() -> String { String(decoding: jsonValue.prettyBytes, as: UTF8.self) }

    /// One HTML page for one or more rules files.
    public static func htmlPage(_ reports: [CoverageReport]) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>Rules coverage</title>
        <style>body{font-family:sans-serif}table{border-collapse:collapse}td{vertical-align:top;padding:0 6px}
        pre{margin:0}.n{color:#888;text-align:right}.hit{background:#e6ffe6}.part{background:#fff7d6}.miss{background:#ffe6e6}
        .c{font-size:11px}.h{color:#060}.m{color:#a00}</style></head><body>
        \(reports.map { $0.htmlSection() }.joined(separator: "\n"))
        </body></html>

        """
    }

    public func html() -> String { Self.htmlPage([self]) }

    /// The source with each line's expressions, their hit counts and results.
    func htmlSection() -> String {
        func esc(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        let lines = program.source.split(separator: "\n", omittingEmptySubsequences: false)
        var byLine: [Int: [Entry]] = [:]
        for e in entries { byLine[e.location.line, default: []].append(e) }
        var rows = ""
        for (i, line) in lines.enumerated() {
            let n = i + 1
            let es = byLine[n] ?? []
            let cls = es.isEmpty ? "" : (es.allSatisfy { $0.counts.evaluations > 0 } ? "hit" : (es.contains { $0.counts.evaluations > 0 } ? "part" : "miss"))
            let notes = es.filter { $0.text.count <= 80 }.map { e in
                "<span class=\"\(e.counts.evaluations > 0 ? "h" : "m")\" title=\"col \(e.location.column)\">\(esc(e.text)) "
                    + "×\(e.counts.evaluations) (t \(e.counts.trueResults), f \(e.counts.falseResults), err \(e.counts.errors))</span>"
            }.joined(separator: " ")
            rows += "<tr class=\"\(cls)\"><td class=\"n\">\(n)</td><td><pre>\(esc(String(line)))</pre></td><td class=\"c\">\(notes)</td></tr>\n"
        }
        return """
            <h1>\(esc(program.fileName))</h1><p>\(String(format: "%.1f", coveredFraction * 100))% of expressions evaluated.</p>
            <table>
            \(rows)</table>
            """
    }
}
