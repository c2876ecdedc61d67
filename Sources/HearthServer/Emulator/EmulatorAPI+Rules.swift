import Foundation
import HearthCore
import HearthTransport
import HearthRules

/// The rules endpoints, shaped as the official emulator answers them (docs/protocol.md#emulator-endpoints):
///
/// - `PUT /emulator/v1/projects/{p}:securityRules` with `{"rules": {"files": [{"name",
///   "content"}]}, "ignore_errors": bool}` → `{}` for clean rules, `{"issues": [...]}` for
///   warnings; rules that do not compile → 400 `Error compiling rules:\nL4:43 …` (the
///   previous rules stay) — unless `ignore_errors`: then 200 with the issues, and the broken
///   rules are stored (every request of the project then gets that 400). An empty request
///   or no files → 500 UNKNOWN. Several files: each must compile, the first is enforced.
/// - `GET …:securityRules` → the stored files and their issues.
/// - `GET …:ruleCoverage` → `{"rules": {"files"}, "file", "covered", "expressions": [{line,
///   column, expression, evaluations, true, false, errors, other}]}` — every evaluation since
///   the rules were loaded; `…:ruleCoverage.html` the same as an annotated source page.
extension EmulatorAPI {
    func putSecurityRules(project: String, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let rulesJSON = o.take("rules")
        let ignore = try o.take("ignoreErrors").map { j throws(FirestoreError) in
            try ProtoJSON.bool(j, context: "ignore_errors")
        } ?? false
        try o.finish()
        guard let rulesJSON else { throw FirestoreError(.unknown, "") }
        var r = try ProtoObject(rulesJSON, context: "rules")
        let filesJSON = r.take("files")
        try r.finish()
        guard let filesJSON, case .array(let items) = filesJSON, !items.isEmpty else { throw FirestoreError(.unknown, "") }
        var files: [ProjectRules.File] = []
        for (i, item) in items.enumerated() {
            var f = try ProtoObject(item, context: "rules.files[\(i)]")
            let name = try f.take("name").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: "rules.files[\(i)].name") } ?? ""
            let content = try f.take("content").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: "rules.files[\(i)].content") } ?? ""
            _ = f.take("fingerprint")
            try f.finish()
            files.append(ProjectRules.File(name: name.isEmpty ? "firestore.rules" : name, content: content))
        }
        let loaded: ProjectRules
        do {
            loaded = try ProjectRules(files: files, keepingErrors: ignore)
        } catch {
            throw FirestoreError(.invalidArgument, ProjectRules.compileFailureMessage(error.errors))
        }
        state.rules.set(loaded, forProject: project)
        return .json(200, Self.issuesBody(loaded).bytes)
    }

    /// What a project without loaded rules answers with: the open rules every request is
    /// checked against (as the official emulator names and writes them).
    static let openRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /{document=**} {
              allow read, write: if true;
            }
          }
        }
        """

    func getSecurityRules(project: String) -> HTTPResponse {
        guard let rules = state.rules.rules(forProject: project) else {
            let file: JSON = .object([("content", .string(Self.openRules)), ("name", .string("OPEN_RULES"))])
            return .json(200, JSON.object([("rules", .object([("files", .array([file]))]))]).bytes)
        }
        var pairs: [(String, JSON)] = [("rules", Self.filesJSON(rules))]
        if case .object(let issues) = Self.issuesBody(rules) { pairs += issues }
        return .json(200, JSON.object(pairs).bytes)
    }

    func ruleCoverage(project: String) throws(FirestoreError) -> HTTPResponse {
        guard let rules = state.rules.rules(forProject: project) else {
            return .json(200, JSON.object([("rules", .object([("files", .array([]))])), ("covered", .int(1)), ("expressions", .array([]))]).bytes)
        }
        if let failure = rules.compileFailure { throw failure }
        guard let program = rules.program, let coverage = rules.coverage else { throw FirestoreError(.internal, "Rules without coverage.") }
        let report = CoverageReport(program: program, coverage: coverage)
        var pairs: [(String, JSON)] = [("rules", Self.filesJSON(rules))]
        if case .object(let fields) = report.jsonValue { pairs += fields }
        return .json(200, JSON.object(pairs).bytes)
    }

    func ruleCoverageHTML(project: String) throws(FirestoreError) -> HTTPResponse {
        guard let rules = state.rules.rules(forProject: project) else {
            return Self.html("<!doctype html><html><head><meta charset=\"utf-8\"><title>Rules coverage</title></head>"
                             + "<body><p>No security rules are loaded for project \(project); every request is allowed.</p></body></html>\n")
        }
        if let failure = rules.compileFailure { throw failure }
        guard let program = rules.program, let coverage = rules.coverage else { throw FirestoreError(.internal, "Rules without coverage.") }
        return Self.html(CoverageReport(program: program, coverage: coverage).html())
    }

    // MARK: JSON shapes

    private static func html(_ page: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
    }

    /// `{"files": [{"name", "content"}]}`.
    static func filesJSON(_ rules: ProjectRules) -> JSON {
        .object([("files", .array(rules.files.map { .object([("name", .string($0.name)), ("content", .string($0.content))]) }))])
    }

    /// `{}` or `{"issues": [{"sourcePosition": {fileName, line, column, currentOffset,
    /// endOffset}, "description", "severity"}]}`.
    static func issuesBody(_ rules: ProjectRules) -> JSON {
        guard !rules.diagnostics.isEmpty else { return .object([]) }
        let issues: [JSON] = rules.diagnostics.map { d in
            // proto3 JSON leaves zeros out: a whole-file diagnostic (line 0) is just its file.
            var position: [(String, JSON)] = [("fileName", .string(d.file))]
            if d.location.line != 0 {
                position += [("line", .int(d.location.line)), ("column", .int(d.location.column))]
                if d.location.offset != 0 { position.append(("currentOffset", .int(d.location.offset))) }
                position.append(("endOffset", .int(d.endOffset ?? d.location.offset)))
            }
            return .object([
                ("sourcePosition", .object(position)),
                ("description", .string(d.message)),
                ("severity", .string(d.severity == .error ? "ERROR" : "WARNING")),
            ])
        }
        return .object([("issues", .array(issues))])
    }
}
