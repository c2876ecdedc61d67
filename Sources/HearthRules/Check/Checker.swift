import Foundation

/// Resolves every name against its lexical scope and reports what production reports at
/// compile time: errors (duplicate functions, recursion, bad globs, limits, invalid literal
/// regexes) and warnings (unknown names, unused functions and variables, old version).
struct Checker {
    let file: RulesFile
    let fileName: String
    private(set) var diagnostics: [RulesDiagnostic] = []
    private(set) var functions: [CompiledFunction] = []
    private(set) var names: [ResolvedName?]
    private(set) var calls: [CallTarget?]
    private(set) var flatMatches: [FlatMatch] = []
    /// Calls from each user function (for recursion) and whether a function is used.
    private var callGraph: [Int: Set<Int>] = [:]
    private var used = Set<Int>()
    /// Identifiers naming a `{name=**}` wildcard (a path; other wildcards are strings).
    private var pathWildcards = Set<Int>()

    init(file: RulesFile, fileName: String) {
        self.file = file
        self.fileName = fileName
        names = Array(repeating: nil, count: file.expressionCount)
        calls = Array(repeating: nil, count: file.expressionCount)
    }

    private struct Scope {
        /// Function tables, outermost first.
        var functionTables: [[String: Int]]
        var wildcards: Set<String>
        /// The `{name=**}` ones: bound to a path, the others to a string.
        var recursiveWildcards: Set<String> = []
        var locals: [String: Int] = [:]
        var currentFunction: Int?
    }

    private mutating func error(_ loc: SourceLocation, _ message: String) {
        diagnostics.append(RulesDiagnostic(.error, file: fileName, at: loc, message))
    }

    private mutating func warning(_ loc: SourceLocation, _ message: String, naming name: String? = nil) {
        let end = name.map { loc.offset + max($0.utf8.count, 1) - 1 }
        diagnostics.append(RulesDiagnostic(.warning, file: fileName, at: loc, message, endOffset: end))
    }

    mutating func run() {
        if !file.hasVersionDeclaration {
            // The emulator gives this one no position (line 0).
            warning(SourceLocation(line: 0, column: 0, offset: 0), "Ruleset uses old version (version [1]). Please update to the latest version (version [2]).")
        }
        let global = declare(file.functions)
        var scope = Scope(functionTables: [global], wildcards: [])
        resolveFunctions(file.functions, table: global, scope: scope)
        for m in file.matches { walk(m, prefix: [], scope: &scope, depth: 1, insideGlob: false) }
        checkRecursion()
        var types = TypeCheck(names: names, calls: calls, pathWildcards: pathWildcards)
        for f in functions { types.checkFunction(f.declaration) }
        for m in flatMatches { for allow in m.allows { if let c = allow.condition { types.checkCondition(c) } } }
        for d in types.diagnostics {
            diagnostics.append(RulesDiagnostic(.warning, file: fileName, at: d.location, d.message, endOffset: d.endOffset))
        }
        for (i, f) in functions.enumerated() where !used.contains(i) {
            warning(f.declaration.nameLocation, "Unused function: \(f.declaration.name).")
        }
        diagnostics.sort { $0.location < $1.location }
    }

    /// Registers functions of one scope level; a repeated name is an error (no overloading).
    private mutating func declare(_ decls: [FunctionDeclaration]) -> [String: Int] {
        var table: [String: Int] = [:]
        for d in decls {
            if table[d.name] != nil {
                error(d.nameLocation, "Function \(d.name) is already defined.")
                continue
            }
            if d.parameters.count > 7 { error(d.location, "Maximum allowed function arguments of 7 for function \(d.name) is reached.") }
            // The emulator accepts 11 lets and rejects 12 (docs/rules-language.md#limits).
            if d.lets.count > 11 { error(d.lets[11].location, "Maximum allowed variable count of 10 for a given function has been reached.") }
            if !d.lets.isEmpty && file.version < 2 {
                error(d.lets[0].location, "Let bindings are not allowed in rules_version=\"1\";")
            }
            var seen = Set<String>()
            for p in d.parameters where !seen.insert(p).inserted {
                error(d.location, "Duplicate parameter name: \(p).")
            }
            table[d.name] = functions.count
            functions.append(CompiledFunction(declaration: d))
        }
        return table
    }

    private mutating func resolveFunctions(_ decls: [FunctionDeclaration], table: [String: Int], scope: Scope) {
        for d in decls {
            guard let index = table[d.name], functions[index].declaration.location == d.location else { continue }
            var inner = scope
            inner.currentFunction = index
            inner.locals = [:]
            for (i, p) in d.parameters.enumerated() { inner.locals[p] = i }
            for (i, l) in d.lets.enumerated() {
                resolve(l.value, &inner)
                inner.locals[l.name] = d.parameters.count + i
            }
            resolve(d.body, &inner)
            // Unused parameters and lets: nothing else in the function reads them.
            let reads = localReads(d)
            for (i, p) in d.parameters.enumerated() where !reads.contains(i) {
                warning(d.parameterLocations[i], "Unused variable: \(p).")
            }
            for (i, l) in d.lets.enumerated() where !reads.contains(d.parameters.count + i) {
                warning(l.nameLocation, "Unused variable: \(l.name).")
            }
        }
    }

    private func localReads(_ d: FunctionDeclaration) -> Set<Int> {
        var out = Set<Int>()
        func visit(_ e: Expr) {
            if case .local(let i)? = names[e.id] { out.insert(i) }
            forEachChild(e, visit)
        }
        for l in d.lets { visit(l.value) }
        visit(d.body)
        return out
    }

    private mutating func walk(_ m: MatchBlock, prefix: [MatchSegment], scope: inout Scope, depth: Int, insideGlob: Bool) {
        let segments = prefix + m.segments
        if depth == 11 { error(m.location, "Maximum allowed resource rule depth of 10 is reached.") }
        if insideGlob { warning(m.location, "Glob(**) resource rules should not have child resource rules.") }
        let globs = segments.filter { if case .recursive = $0 { return true } else { return false } }
        if file.version < 2 {
            if let i = m.segments.firstIndex(where: { if case .recursive = $0 { return true } else { return false } }),
               i != m.segments.count - 1 {
                error(m.location, "Invalid glob match expression. Glob matches are permitted as the last segment in a match declaration path.")
            }
        } else if globs.count > 1 {
            error(m.location, "Invalid glob match expression. Only one glob match is permitted in a match declaration path.")
        }
        if m.allows.isEmpty && m.children.isEmpty && m.functions.isEmpty {
            error(m.location, "The 'match' body must contain at least one declaration.")
        }
        for allow in m.allows {
            for name in allow.writtenMethods where name != "read" && name != "write" && RulesMethod(rawValue: name) == nil {
                warning(allow.location, "Invalid method name: \(name).")
            }
        }
        var seen = Set<String>()
        for s in segments {
            if let v = s.variable, !seen.insert(v).inserted {
                error(m.location, "Variable \(v) already exists in the PathTemplate.")
            }
        }
        if segments.filter({ $0.variable != nil }).count > 20 { error(m.location, "More than 20 capture variables in a match path.") }
        if segments.count > 100 { error(m.location, "More than 100 path segments in a match path.") }

        var inner = scope
        for s in m.segments {
            if let v = s.variable { inner.wildcards.insert(v) }
            if case .recursive(let v) = s { inner.recursiveWildcards.insert(v) } else if let v = s.variable { inner.recursiveWildcards.remove(v) }
        }
        let table = declare(m.functions)
        inner.functionTables.append(table)
        resolveFunctions(m.functions, table: table, scope: inner)
        for allow in m.allows {
            if let c = allow.condition {
                var s = inner
                s.currentFunction = nil
                resolve(c, &s)
            }
        }
        if !m.allows.isEmpty { flatMatches.append(FlatMatch(segments: segments, allows: m.allows)) }
        let isGlob = m.segments.contains { if case .recursive = $0 { return true } else { return false } }
        for child in m.children {
            walk(child, prefix: segments, scope: &inner, depth: depth + 1, insideGlob: insideGlob || isGlob)
        }
    }

    private mutating func resolve(_ e: Expr, _ scope: inout Scope) {
        switch e.kind {
        case .identifier(let name):
            if let i = scope.locals[name] { names[e.id] = .local(i) }
            else if scope.wildcards.contains(name) {
                names[e.id] = .wildcard(name)
                if scope.recursiveWildcards.contains(name) { pathWildcards.insert(e.id) }
            }
            else if name == "request" { names[e.id] = .request }
            else if name == "resource" { names[e.id] = .resource }
            else if let ns = BuiltinNamespace(rawValue: name) { names[e.id] = .namespace(ns) }
            else {
                names[e.id] = .unknown(name)
                warning(e.location, "Invalid variable name: \(name).", naming: name)
            }
        case .call(let name, let args):
            for a in args { resolve(a, &scope) }
            if let index = scope.functionTables.reversed().lazy.compactMap({ $0[name] }).first {
                calls[e.id] = .user(index)
                used.insert(index)
                if let from = scope.currentFunction { callGraph[from, default: []].insert(index) }
                // Production only warns; the call fails at run time.
                if functions[index].declaration.parameters.count != args.count {
                    warning(e.location, "Incorrect number of arguments supplied to function: \(name).")
                }
            } else if let g = GlobalFunction(rawValue: name) {
                calls[e.id] = .builtin(g)
                if args.count != g.arity {
                    warning(e.location, "Incorrect number of arguments supplied to function: \(name).")
                }
            } else {
                calls[e.id] = .unknown(name)
                warning(e.location, "Invalid function name: \(name).", naming: name)
            }
        case .method(let receiver, let name, let args):
            resolve(receiver, &scope)
            for a in args { resolve(a, &scope) }
            if case .namespace(let ns)? = names[receiver.id] {
                if !Builtins.namespaceFunctionExists(ns, name) { warning(e.focus, "Invalid function name: \(ns.rawValue).\(name).") }
            } else if !Builtins.methodNames.contains(name) {
                warning(e.focus, "Invalid function name: \(name).")
            }
            // A literal pattern passed to matches/split must compile (production checks it).
            if name == "matches" || name == "split", args.count == 1, case .string(let pattern) = args[0].kind,
               RegexCache.compile(pattern) == nil {
                error(args[0].location, "Invalid regular expression pattern. Pattern: \(pattern).")
            }
        default:
            forEachChild(e) { resolve($0, &scope) }
        }
    }

    private mutating func checkRecursion() {
        // Depth-first search for a cycle through the call graph.
        var state = [Int: Int]()  // 1 = on stack, 2 = done
        var reported = Set<Int>()
        func dfs(_ f: Int, _ checker: inout Checker) {
            state[f] = 1
            for g in checker.callGraph[f] ?? [] {
                if state[g] == 1 {
                    if reported.insert(g).inserted {
                        let d = checker.functions[g].declaration
                        if g == f {
                            checker.error(d.location, "Recursive call is not allowed.")
                        } else {
                            let other = checker.functions[f].declaration.name
                            checker.error(d.location, "Detected a call cycle between [\(d.name),\(other)] functions.")
                        }
                    }
                } else if state[g] == nil {
                    dfs(g, &checker)
                }
            }
            state[f] = 2
        }
        for f in functions.indices where state[f] == nil { dfs(f, &self) }
    }
}

/// Calls `body` on each direct sub-expression.
func forEachChild(_ e: Expr, _ body: (Expr) -> Void) {
    Expr.forEachChild(e.kind) { child, _ in body(child) }
}
