import Foundation
import HearthCore

/// A rules test-case file (docs/formats.md#rules-test-cases): a rules file, seed data and
/// cases, each run from the seeded state and compared with its expected verdict.
public struct RulesTestSuite {
    public struct Case {
        public var name: String
        public var auth: RulesAuth?
        public var method: RulesMethod
        public var path: ResourcePath
        public var data: MapValue?
        public var query: StructuredQuery?
        public var expectAllow: Bool
        public var time: Timestamp?
        public var database: String
    }

    public struct Result {
        public var testCase: Case
        public var decision: RulesDecision
        public var passed: Bool { decision.allowed == testCase.expectAllow }

        /// `PASS name` or `FAIL name: expected deny, got allow (…deciding allow…)`.
        public var line: String {
            if passed { return "PASS \(testCase.name)" }
            let expected = testCase.expectAllow ? "allow" : "deny"
            let actual = decision.allowed ? "allow" : "deny"
            return "FAIL \(testCase.name): expected \(expected), got \(actual) (\(decision.explanation))"
        }
    }

    public struct LoadError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public var rulesPath: String
    public var program: RulesProgram
    public var seed: [ResourcePath: MapValue]
    public var cases: [Case]
    public var projectID: String

    /// Loads a case file; `rules` and a string `data` are relative to the file's folder.
    /// A file that cannot be read or parsed is a `LoadError` naming it; rules that do not
    /// compile are a `RulesCompileError` (its diagnostics say where).
    public static func load(path: String) throws -> RulesTestSuite {
        let url = URL(fileURLWithPath: path)
        let json = try parseJSON(url, path)
        let folder = url.deletingLastPathComponent()
        guard let rulesName = json["rules"]?.stringValue else { throw LoadError(message: "\(path): missing \"rules\"") }
        let rulesURL = URL(fileURLWithPath: rulesName, relativeTo: folder)
        let source = try read(rulesURL, "\(path): the rules file \(rulesURL.path)")
        let program = try RulesProgram.compile(source: source, file: rulesURL.relativePath)
        let project = json["project"]?.stringValue ?? "demo-hearth"
        var seed: [ResourcePath: MapValue] = [:]
        do {
            switch json["data"] {
            case .string(let dataPath)?:
                let dataURL = URL(fileURLWithPath: dataPath, relativeTo: folder)
                seed = try Self.documents(try parseJSON(dataURL, "\(path): the data file \(dataURL.path)"), project: project)
            case let inline?: seed = try Self.documents(inline, project: project)
            case nil: break
            }
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError(message: "\(path): \"data\": \(error)")
        }
        guard case .array(let items)? = json["cases"] else { throw LoadError(message: "\(path): missing \"cases\"") }
        var cases: [Case] = []
        for (i, item) in items.enumerated() {
            do {
                cases.append(try parseCase(item, project: project))
            } catch {
                throw LoadError(message: "\(path): case \(i + 1): \(error)")
            }
        }
        return RulesTestSuite(rulesPath: rulesURL.relativePath, program: program, seed: seed, cases: cases, projectID: project)
    }

    /// A file's text; `what` names it in the error (Foundation's own error is a Cocoa
    /// dictionary dump, not a message).
    private static func read(_ url: URL, _ what: String) throws(LoadError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { throw LoadError(message: "\(what): no such file") }
        guard !isDirectory.boolValue else { throw LoadError(message: "\(what): is a directory") }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw LoadError(message: "\(what): cannot be read") }
        guard let text = String(data: data, encoding: .utf8) else { throw LoadError(message: "\(what): not UTF-8 text") }
        return text
    }

    private static func parseJSON(_ url: URL, _ what: String) throws(LoadError) -> JSON {
        let text = try read(url, what)
        do { return try JSON.parse(text) } catch { throw LoadError(message: "\(what): not JSON: \(error)") }
    }

    /// The seeded documents (of the default database) by path.
    static func documents(_ json: JSON, project: String) throws -> [ResourcePath: MapValue] {
        var out: [ResourcePath: MapValue] = [:]
        for (path, fields) in try HearthJSON.documents(json, database: DatabaseID(project: project)) { out[path] = fields }
        return out
    }

    static func parseCase(_ json: JSON, project: String) throws -> Case {
        let name = json["name"]?.stringValue ?? "(unnamed)"
        let database = json["database"]?.stringValue ?? "(default)"
        var auth: RulesAuth?
        if let a = json["auth"], a != .null {
            guard let uid = a["uid"]?.stringValue else { throw LoadError(message: "auth needs a uid") }
            let claims = try a["token"].map { j throws in try HearthJSON.map(j, database: DatabaseID(project: project, database: database)) } ?? MapValue()
            auth = RulesAuth.mockUser(uid: uid, projectID: project, claims: claims)
        }
        guard let methodName = json["method"]?.stringValue, let method = RulesMethod(rawValue: methodName) else {
            throw LoadError(message: "\"method\" must be get, list, create, update or delete")
        }
        guard let pathText = json["path"]?.stringValue else { throw LoadError(message: "missing \"path\"") }
        let path = try ResourcePath.parse(pathText)
        guard let expect = json["expect"]?.stringValue, expect == "allow" || expect == "deny" else {
            throw LoadError(message: "\"expect\" must be \"allow\" or \"deny\"")
        }
        let data = try json["data"].map { j throws in try HearthJSON.map(j, database: DatabaseID(project: project, database: database)) }
        var time: Timestamp?
        if let t = json["time"]?.stringValue {
            guard let parsed = Timestamp(rfc3339: t) else { throw LoadError(message: "invalid time \(t)") }
            time = parsed
        }
        var query: StructuredQuery?
        if method == .list {
            guard path.isCollection else { throw LoadError(message: "a list path must be a collection") }
            let group = json["collectionGroup"] == .bool(true)
            var q = StructuredQuery(parent: group ? .root : path.parent, collectionID: path.lastSegment, allDescendants: group)
            if let spec = json["query"] {
                var filters: [QueryFilter] = []
                if case .array(let clauses)? = spec["where"] {
                    for clause in clauses {
                        guard case .array(let parts) = clause, parts.count == 3, let field = parts[0].stringValue,
                              let op = parts[1].stringValue else { throw LoadError(message: "a where clause is [field, op, value]") }
                        let value = try HearthJSON.value(parts[2], database: DatabaseID(project: project, database: database))
                        let fieldPath = try FieldPath.parseDotted(field)
                        let ops: [String: FieldOperator] = ["==": .equal, "!=": .notEqual, "<": .lessThan, "<=": .lessThanOrEqual,
                                                            ">": .greaterThan, ">=": .greaterThanOrEqual, "array-contains": .arrayContains,
                                                            "in": .in, "not-in": .notIn, "array-contains-any": .arrayContainsAny]
                        guard let fop = ops[op] else { throw LoadError(message: "unknown operator \(op)") }
                        filters.append(.field(fieldPath, fop, value))
                    }
                }
                if !filters.isEmpty { q.filter = filters.count == 1 ? filters[0] : .composite(.and, filters) }
                if case .array(let orders)? = spec["orderBy"] {
                    for o in orders {
                        guard case .array(let parts) = o, let f = parts.first?.stringValue else { throw LoadError(message: "orderBy is [[field, dir]]") }
                        q.orderBy.append(Ordering(try FieldPath.parseDotted(f), descending: parts.count > 1 && parts[1].stringValue == "desc"))
                    }
                }
                if case .number(let n)? = spec["limit"] { q.limit = Int(n) }
            }
            query = q
        }
        return Case(name: name, auth: auth, method: method, path: path, data: data, query: query,
                    expectAllow: expect == "allow", time: time, database: database)
    }

    /// Runs every case; each starts from the seeded state.
    public func run(coverage: RulesCoverage? = nil, now: Timestamp = Timestamp(date: Date())) -> [Result] {
        cases.map { c in
            let store = RulesDocumentStore(seed, database: c.database)
            var newData: MapValue?
            switch c.method {
            case .create: newData = c.data ?? MapValue()
            case .update:
                // Top-level field mask: written fields replace stored ones, others are kept.
                var merged = store.document(at: c.path, database: c.database)?.fields ?? MapValue()
                for (k, v) in c.data ?? MapValue() { merged[k] = v }
                newData = merged
            default: break
            }
            let request = RulesRequest(method: c.method, path: c.path, database: c.database, auth: c.auth,
                                       time: c.time ?? now, newData: newData, query: c.query)
            return Result(testCase: c, decision: program.evaluate(request, data: store, coverage: coverage))
        }
    }
}
