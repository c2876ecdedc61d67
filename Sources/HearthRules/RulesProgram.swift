/// # HearthRules — the Firestore security rules engine
///
/// Compile once, evaluate many times (a `RulesProgram` is immutable and `Sendable`):
///
/// ```swift
/// let program = try RulesProgram.compile(source: text, file: "firestore.rules")
///     // throws RulesCompileError(diagnostics:) — each `file:line:col: error: message`
/// program.warnings                       // what production reports but still accepts
///
/// // One document request. `data` is the state *before* the request (any RulesDataSource).
/// let decision = program.evaluate(
///     RulesRequest(method: .update, path: try ResourcePath.parse("posts/p1"),
///                  auth: .mockUser(uid: "alice"), time: now,
///                  newData: mergedFields),           // request.resource.data (create/update)
///     data: store)
/// decision.allowed                       // any applicable allow evaluated to true
/// decision.decidingAllow?.location.line  // the allow that granted
/// decision.denialMessage                 // names method, path, each allow's outcome + debug()
/// decision.debugOutput                   // what debug() printed during this request
///
/// // A batch or transaction commit: each write is checked on its own, getAfter() sees
/// // the state after all writes; 10 document accesses per write, 20 per batch.
/// program.evaluateBatch([RulesWrite(path: p, newData: fieldsAfterWrite /* nil = delete */)],
///                       auth: auth, time: now, data: store).allowed
///
/// // A query (`list`): proved from its constraints; only documents its `__name__` equalities
/// // name are read (docs/rules-language.md#list-queries).
/// program.allowsQuery(structuredQuery, auth: auth, time: now, data: store).allowed
/// ```
///
/// Pass a `RulesCoverage` (`program.makeCoverage()`) to any of the calls to count each
/// expression's evaluations and results; `CoverageReport` renders it as JSON or HTML.
///
/// What the caller supplies, and what the engine does itself:
/// - `newData` is the whole document after the write (merges and transforms already
///   applied, `serverTimestamp()` = `time`); the engine builds `request.resource` from it
///   and `resource` from `data` (null on create, as the emulator does).
/// - The method of a batch write follows from `data`: nil `newData` = delete, an existing
///   document = update, else create. A transaction's reads are ordinary `.get` requests.
/// - `RulesDataSource.document(at:database:)` is the only way the engine reads data.
/// - `RulesAuth.mockUser(uid:projectID:claims:)` builds the claims of an emulator
///   mock-user token; `RulesAuth(uid:token:)` takes any claims.
/// - Every verdict follows the official emulator where it differs from the docs
///   (docs/rules-language.md, the points marked "observed"); `Tests/RulesCorpus` pins them down case by case.
import HearthCore

public final class RulesProgram: Sendable {
    public let fileName: String
    public let source: String
    public let file: RulesFile
    /// Warnings (unknown names, unused functions, old version…): the ruleset still loads.
    public let warnings: [RulesDiagnostic]
    let functions: [CompiledFunction]
    let names: [ResolvedName?]
    let calls: [CallTarget?]
    let matches: [FlatMatch]
    /// The most levels of recursion one evaluation can stack up (an expression's height, plus
    /// that of the functions it calls, through their calls). Deep programs are evaluated on a
    /// `LargeStack` thread; `inlineLevels` and fewer run on the caller's thread, which costs
    /// about 4 KB of stack a level in a debug build (the documented apps need 15–25).
    let evaluationLevels: Int
    static let inlineLevels = 32

    private init(fileName: String, source: String, file: RulesFile, checker: Checker) {
        self.fileName = fileName
        self.source = source
        self.file = file
        self.warnings = Self.emulatorPositions(checker.diagnostics.filter { $0.severity == .warning }, source: source)
        self.functions = checker.functions
        self.names = checker.names
        self.calls = checker.calls
        self.matches = checker.flatMatches
        self.evaluationLevels = Self.evaluationLevels(file, checker.functions, checker.calls)
    }

    /// Parses and checks; throws every diagnostic (errors and warnings) when there is an error.
    /// Runs on a `LargeStack` thread: the parser and checker recurse once per level.
    public static func compile(source: String, file: String = "firestore.rules") throws(RulesCompileError) -> RulesProgram {
        let result: Result<RulesProgram, RulesCompileError> = LargeStack.run {
            let (parsed, syntaxErrors) = Parser.parse(source)
            guard let parsed else {
                let errors = syntaxErrors.map { RulesDiagnostic(.error, file: file, at: $0.0, $0.1, endOffset: $0.endOffset) }
                return .failure(RulesCompileError(diagnostics: emulatorPositions(errors, source: source)))
            }
            var checker = Checker(file: parsed, fileName: file)
            checker.run()
            if checker.diagnostics.contains(where: { $0.severity == .error }) {
                return .failure(RulesCompileError(diagnostics: emulatorPositions(checker.diagnostics, source: source)))
            }
            return .success(RulesProgram(fileName: file, source: source, file: parsed, checker: checker))
        }
        return try result.get()
    }

    /// Diagnostics as they are handed out: positions in UTF-16 code units, as the official
    /// emulator counts them (the compiler counts bytes; an ASCII source needs nothing).
    private static func emulatorPositions(_ diagnostics: [RulesDiagnostic], source: String) -> [RulesDiagnostic] {
        guard source.utf8.contains(where: { $0 >= 0x80 }) else { return diagnostics }
        let bytes = Array(source.utf8)
        return diagnostics.map { $0.countingUTF16(of: bytes) }
    }

    /// An upper bound on `evaluationLevels`: each expression's height plus the deepest user
    /// function it calls (calls are acyclic in a program that compiled).
    private static func evaluationLevels(_ file: RulesFile, _ functions: [CompiledFunction], _ calls: [CallTarget?]) -> Int {
        var memo: [Int: Int] = [:]
        func levels(_ e: Expr) -> Int {
            var callee = 0
            func visit(_ x: Expr) {
                if case .user(let f)? = calls[x.id] { callee = max(callee, levels(function: f)) }
                forEachChild(x, visit)
            }
            visit(e)
            return Int(e.height) + callee
        }
        func levels(function f: Int) -> Int {
            if let known = memo[f] { return known }
            memo[f] = 0  // a cycle (only in programs that do not compile) ends here
            let d = functions[f].declaration
            let n = (d.lets.map(\.value) + [d.body]).map(levels).max() ?? 0
            memo[f] = n
            return n
        }
        var deepest = 0
        func walk(_ m: MatchBlock) {
            for a in m.allows { if let c = a.condition { deepest = max(deepest, levels(c)) } }
            m.children.forEach(walk)
        }
        file.matches.forEach(walk)
        return deepest
    }

    /// Runs an evaluation on this thread, or on a `LargeStack` one for a deep program.
    private func onEnoughStack<T>(_ body: () -> T) -> T {
        evaluationLevels <= Self.inlineLevels ? body() : LargeStack.run(body)
    }

    /// Every diagnostic for a source, errors and warnings, without throwing.
    public static func diagnose(source: String, file: String = "firestore.rules") -> [RulesDiagnostic] {
        do {
            return try compile(source: source, file: file).warnings
        } catch {
            return error.diagnostics
        }
    }

    public var version: Int { file.version }

    public func makeCoverage() -> RulesCoverage { RulesCoverage(expressionCount: file.expressionCount) }

    // MARK: Evaluation

    /// Authorizes one request. A `list` request with a query goes through the prover.
    public func evaluate(_ request: RulesRequest, data: any RulesDataSource, coverage: RulesCoverage? = nil) -> RulesDecision {
        if request.method == .list {
            // Without a query, a list is the whole collection at `path`.
            let query = request.query ?? StructuredQuery(parent: request.path.parent, collectionID: request.path.lastSegment)
            return allowsQuery(query, database: request.database, auth: request.auth, time: request.time, data: data, coverage: coverage)
        }
        var after: [ResourcePath: MapValue?] = [:]
        switch request.method {
        case .create, .update: after[request.path] = .some(request.newData ?? MapValue())
        case .delete: after[request.path] = .some(nil)
        case .get, .list: break
        }
        let batch = BatchState(accessLimit: EvaluationContext.accessLimit, after: after)
        return evaluateSingle(request, data: data, batch: batch, coverage: coverage)
    }

    /// Authorizes the writes of one batch or transaction commit, write by write.
    public func evaluateBatch(_ writes: [RulesWrite], database: String = "(default)", auth: RulesAuth?, time: Timestamp,
                              data: any RulesDataSource, coverage: RulesCoverage? = nil) -> RulesBatchDecision {
        var after: [ResourcePath: MapValue?] = [:]
        for w in writes { after[w.path] = .some(w.newData) }
        let batch = BatchState(accessLimit: 20, after: after)
        var decisions: [RulesDecision] = []
        for w in writes {
            let exists = data.document(at: w.path, database: database) != nil
            let method: RulesMethod = w.newData == nil ? .delete : (exists ? .update : .create)
            let request = RulesRequest(method: method, path: w.path, database: database, auth: auth, time: time, newData: w.newData)
            decisions.append(evaluateSingle(request, data: data, batch: batch, coverage: coverage))
        }
        return RulesBatchDecision(decisions: decisions)
    }

    /// Authorizes a query: allowed only when, for every disjunct of its filter, some
    /// applicable `list` allow is proved true for every document it could return.
    public func allowsQuery(_ query: StructuredQuery, database: String = "(default)", auth: RulesAuth?, time: Timestamp,
                            data: any RulesDataSource, coverage: RulesCoverage? = nil) -> RulesDecision {
        allowsQuery(query, in: DatabaseID(project: "rules", database: database), auth: auth, time: time, data: data, coverage: coverage)
    }

    /// The same, with the query's names (`__name__` filters, cursors) checked against
    /// `database`, the project included: a request's query names its own project.
    public func allowsQuery(_ query: StructuredQuery, in database: DatabaseID, auth: RulesAuth?, time: Timestamp,
                            data: any RulesDataSource, coverage: RulesCoverage? = nil) -> RulesDecision {
        let disjuncts: Result<[QueryProver.Disjunct], FirestoreError>
        do {
            disjuncts = .success(try QueryProver.disjuncts(for: query, in: database))
        } catch {
            disjuncts = .failure(error)
        }
        return prove(query, disjuncts, database: database.database, auth: auth, time: time, data: data, coverage: coverage)
    }

    /// The same for a query the engine has already validated and normalised (its
    /// disjuncts are reused).
    public func allowsQuery(_ query: NormalizedQuery, auth: RulesAuth?, time: Timestamp,
                            data: any RulesDataSource, coverage: RulesCoverage? = nil) -> RulesDecision {
        let database = query.database.database
        return prove(query.query, .success(QueryProver.disjuncts(for: query, database: database)),
                     database: database, auth: auth, time: time, data: data, coverage: coverage)
    }

    private func prove(_ query: StructuredQuery, _ disjuncts: Result<[QueryProver.Disjunct], FirestoreError>, database: String,
                       auth: RulesAuth?, time: Timestamp, data: any RulesDataSource, coverage: RulesCoverage?) -> RulesDecision {
        onEnoughStack { proveDisjuncts(query, disjuncts, database: database, auth: auth, time: time, data: data, coverage: coverage) }
    }

    /// The official emulator's two passes (recorded in Tests/Differential/cases/rules_by_name.py,
    /// docs/rules-language.md#list-queries). First pass, disjunct by disjunct in the filter's
    /// order: a disjunct whose `__name__` equalities name one document (`in` on the name gives
    /// one disjunct per name) is checked against the allows matching that document's path,
    /// its wildcards bound from the name and `resource` not read yet (reading it fails the
    /// allow); any other disjunct is proved from its constraints, the document wildcard
    /// unbound. A disjunct no allow grants denies the query at once, unless an allow erred on
    /// a named disjunct: that one waits for the second pass, which reads its document and
    /// evaluates its allows again with it as `resource`. Every outcome evaluated goes into a
    /// denial's explanation (a granted one shows as `false` there, as on the emulator). The
    /// cost of the second pass: one document read per named disjunct that needs it.
    private func proveDisjuncts(_ query: StructuredQuery, _ symbolic: Result<[QueryProver.Disjunct], FirestoreError>, database: String,
                                auth: RulesAuth?, time: Timestamp, data: any RulesDataSource, coverage: RulesCoverage?) -> RulesDecision {
        let request = RulesRequest.list(query, database: database, auth: auth, time: time)
        let batch = BatchState(accessLimit: EvaluationContext.accessLimit, after: [:])
        let context = EvaluationContext(program: self, data: data, request: request, batch: batch, coverage: coverage)
        var decision = RulesDecision(allowed: false, method: .list, resourcePath: query.collectionPath, database: database,
                                     isCollectionGroup: query.allDescendants, decidingAllow: nil, outcomes: [], debugOutput: [],
                                     request: request)
        let disjuncts: [QueryProver.Disjunct]
        switch symbolic {
        case .success(let d): disjuncts = d
        case .failure(let error):
            decision.outcomes = [AllowOutcome(location: file.serviceLocation, methods: [], result: .error(error.message))]
            return decision
        }
        var outcomes: [AllowOutcome] = []
        var deciding: AllowOutcome?
        /// Runs the allows in order until one grants; whether one granted, and whether one erred.
        func run(_ applicable: [(AllowStatement, [String: RulesValue])]) -> (granted: AllowOutcome?, erred: Bool) {
            var erred = false
            for (allow, bindings) in applicable {
                context.wildcards = bindings
                let o = evaluate(allow, context)
                outcomes.append(o)
                if o.result == .granted { return (o, erred) }
                if case .error = o.result { erred = true }
            }
            return (nil, erred)
        }
        func denied() -> RulesDecision {
            decision.outcomes = outcomes
            decision.debugOutput = context.debugOutput
            return decision
        }
        var collectionAllows: [(AllowStatement, [String: RulesValue])]?
        var secondPass: [(document: ResourcePath, allows: [(AllowStatement, [String: RulesValue])])] = []
        for disjunct in disjuncts {
            let applicable: [(AllowStatement, [String: RulesValue])]
            if let named = disjunct.namedDocument {
                context.listResource = .unread
                applicable = allowsCovering(document: named, method: .list, database: database)
            } else {
                context.listResource = .symbolic(disjunct.resource)
                if collectionAllows == nil { collectionAllows = applicableAllows(method: .list, database: database, query: query) }
                applicable = collectionAllows ?? []
            }
            let (granted, erred) = run(applicable)
            if let granted {
                deciding = deciding ?? granted
                continue
            }
            guard erred, let named = disjunct.namedDocument else { return denied() }
            secondPass.append((named, applicable))
        }
        for (named, applicable) in secondPass {
            let document = data.document(at: named, database: database)
            context.listResource = .document(document.map { context.resourceObject(path: named, fields: $0.fields) })
            guard let granted = run(applicable).granted else { return denied() }
            deciding = deciding ?? granted
        }
        decision.allowed = true
        decision.decidingAllow = deciding
        decision.outcomes = deciding.map { [$0] } ?? []
        decision.debugOutput = context.debugOutput
        return decision
    }

    private func evaluateSingle(_ request: RulesRequest, data: any RulesDataSource, batch: BatchState, coverage: RulesCoverage?) -> RulesDecision {
        onEnoughStack { evaluateMatches(request, data: data, batch: batch, coverage: coverage) }
    }

    private func evaluateMatches(_ request: RulesRequest, data: any RulesDataSource, batch: BatchState, coverage: RulesCoverage?) -> RulesDecision {
        let context = EvaluationContext(program: self, data: data, request: request, batch: batch, coverage: coverage)
        var decision = RulesDecision(allowed: false, method: request.method, resourcePath: request.path, database: request.database,
                                     decidingAllow: nil, outcomes: [], debugOutput: [], request: request)
        let path: [String?] = ["databases", request.database, "documents"] + request.path.segments.map { Optional($0) }
        outer: for m in matches {
            guard let bindings = PathMatcher.match(m.segments, path, version: file.version) else { continue }
            for allow in m.allows where allow.methods.contains(request.method) {
                context.wildcards = bindings
                let o = evaluate(allow, context)
                decision.outcomes.append(o)
                if o.result == .granted {
                    decision.allowed = true
                    decision.decidingAllow = o
                    break outer
                }
            }
        }
        decision.debugOutput = context.debugOutput
        return decision
    }

    private func evaluate(_ allow: AllowStatement, _ context: EvaluationContext) -> AllowOutcome {
        var outcome = AllowOutcome(location: allow.location, methods: allow.writtenMethods, result: .notGranted)
        guard let condition = allow.condition else {
            outcome.result = .granted
            return outcome
        }
        var frame: [Slot] = []
        do {
            let v = try Evaluator(context: context).eval(condition, &frame)
            switch v {
            case .bool(true): outcome.result = .granted
            case .bool(false): break
            default: outcome.result = .error("Type error. Received: [\(v.typeName)] Expected: [bool].")
            }
        } catch {
            // `resource` read before a named document was (a list's first pass): the
            // emulator names the condition's position instead of a cause.
            outcome.result = .error(error == .unreadResource ? "evaluation error at L\(condition.start.line):\(condition.start.column)" : error.message)
        }
        return outcome
    }

    /// The allows for `method` on the document at `path`, with their wildcard bindings.
    private func allowsCovering(document path: ResourcePath, method: RulesMethod, database: String) -> [(AllowStatement, [String: RulesValue])] {
        let full: [String?] = ["databases", database, "documents"] + path.segments.map { Optional($0) }
        var out: [(AllowStatement, [String: RulesValue])] = []
        for m in matches {
            guard let bindings = PathMatcher.match(m.segments, full, version: file.version) else { continue }
            for allow in m.allows where allow.methods.contains(method) { out.append((allow, bindings)) }
        }
        return out
    }

    /// The allows covering a `list` of this query, with their wildcard bindings; the
    /// document segment is unknown (its wildcard reads as null, docs/rules-language.md#list-queries).
    private func applicableAllows(method: RulesMethod, database: String, query: StructuredQuery) -> [(AllowStatement, [String: RulesValue])] {
        let prefix: [String?] = ["databases", database, "documents"] + query.parent.segments.map { Optional($0) }
        var out: [(AllowStatement, [String: RulesValue])] = []
        for m in matches {
            let bindings: [String: RulesValue]?
            if query.allDescendants {
                bindings = Self.groupMatch(m.segments, prefix: prefix, collectionID: query.collectionID, version: file.version)
            } else {
                bindings = PathMatcher.match(m.segments, prefix + [query.collectionID, nil], version: file.version)
            }
            guard let bindings else { continue }
            for allow in m.allows where allow.methods.contains(method) { out.append((allow, bindings)) }
        }
        return out
    }

    /// A collection-group query covers `prefix/…any depth…/collectionID/doc`: only a pattern
    /// whose recursive wildcard can absorb the unknown depth applies.
    static func groupMatch(_ pattern: [MatchSegment], prefix: [String?], collectionID: String, version: Int) -> [String: RulesValue]? {
        guard let g = pattern.firstIndex(where: { if case .recursive = $0 { return true } else { return false } }) else { return nil }
        let head = Array(pattern[..<g]), tail = Array(pattern[(g + 1)...])
        guard head.count <= prefix.count, tail.count <= 2,
              var bindings = PathMatcher.match(head, Array(prefix.prefix(head.count)), version: version) else { return nil }
        let end: [String?] = [collectionID, nil]
        guard let tailBindings = PathMatcher.match(tail, Array(end.suffix(tail.count)), version: version) else { return nil }
        bindings.merge(tailBindings) { $1 }
        return bindings
    }
}
