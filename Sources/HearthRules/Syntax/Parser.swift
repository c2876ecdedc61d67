/// Recursive-descent parser for the whole rules language; never traps on any input. A syntax
/// error in an `allow` statement is recorded and parsing resumes after that statement (as
/// the official emulator does, so one compile reports each broken statement); any other
/// syntax error stops it. Each error says what was expected.
struct Parser {
    struct SyntaxError: Error {
        let location: SourceLocation
        let message: String
        /// The last byte of the token the error names (the emulator's `endOffset`), if any.
        var endOffset: Int? = nil
    }

    private var tokens: [Token]
    private var position = 0
    private var nextID = 0
    private var version = 1
    /// Guards recursion so adversarial nesting cannot overflow the stack.
    private var depth = 0
    private static let maxDepth = 1_000
    /// Errors recovered from so far (statement by statement).
    private var recovered: [SyntaxError] = []

    init(tokens: [Token]) { self.tokens = tokens }

    static func parse(_ source: String) -> (file: RulesFile?, errors: [(SourceLocation, String, endOffset: Int?)]) {
        if source.utf8.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            return (nil, [(SourceLocation(line: 0, column: 0, offset: 0), "Rules content empty. Compilation aborted.", nil)])
        }
        let (tokens, lexErrors) = Lexer.tokenize(source)
        if let first = lexErrors.first { return (nil, [(first.0, first.1, nil)]) }
        var parser = Parser(tokens: tokens)
        do {
            let file = try parser.parseFile()
            if parser.recovered.isEmpty { return (file, []) }
            return (nil, parser.recovered.map { ($0.location, $0.message, $0.endOffset) })
        } catch {
            return (nil, (parser.recovered + [error]).map { ($0.location, $0.message, $0.endOffset) })
        }
    }

    /// After a syntax error inside a statement: skips to just past its `;`, or to the `}`
    /// or next `allow`/`match`/`function` that ends it (brackets balanced), always moving.
    private mutating func skipStatement(from start: Int) {
        if position == start && current.kind != .eof { _ = advance() }
        var nesting = 0
        while current.kind != .eof {
            let t = current
            if nesting == 0 {
                if t.isSymbol(";") { _ = advance(); return }
                if t.isSymbol("}") || t.isIdentifier("allow") || t.isIdentifier("match") || t.isIdentifier("function") { return }
            }
            if t.isSymbol("(") || t.isSymbol("[") || t.isSymbol("{") { nesting += 1 }
            if t.isSymbol(")") || t.isSymbol("]") || t.isSymbol("}") { nesting = max(0, nesting - 1) }
            _ = advance()
        }
    }

    // MARK: Token helpers

    private var current: Token { tokens[position] }
    private func peek(_ n: Int = 1) -> Token { tokens[min(position + n, tokens.count - 1)] }

    private mutating func advance() -> Token {
        let t = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return t
    }

    /// The official emulator names only the token it did not expect (what was expected is
    /// left to the reader, as there; the end of the file is `<EOF>`).
    private func unexpected(_ expected: String) -> SyntaxError {
        let t = current
        if t.kind == .eof { return SyntaxError(location: t.location, message: "Unexpected '<EOF>'.") }
        return SyntaxError(location: t.location, message: "Unexpected '\(t.text)'.", endOffset: t.end - 1)
    }

    /// The file's first declaration is missing: the emulator's parser generator says which
    /// keywords could start one (`rules_version` only while it may still come).
    private func mismatchedFirstDeclaration(versionDeclared: Bool) -> SyntaxError {
        let t = current
        let text = t.kind == .eof ? "<EOF>" : t.text
        let expected = ["'function'", "'import'", "'service'"] + (versionDeclared ? [] : ["'rules_version'"])
        return SyntaxError(location: t.location, message: "mismatched input '\(text)' expecting {\(expected.joined(separator: ", "))}",
                           endOffset: t.kind == .eof ? nil : t.end - 1)
    }

    private mutating func expectSymbol(_ s: String, _ what: String? = nil) throws(SyntaxError) -> Token {
        guard current.isSymbol(s) else { throw unexpected(what ?? "'\(s)'") }
        return advance()
    }

    private mutating func expectIdentifier(_ what: String) throws(SyntaxError) -> String {
        guard case .identifier(let name) = current.kind else { throw unexpected(what) }
        _ = advance()
        return name
    }

    private mutating func acceptSymbol(_ s: String) -> Bool {
        if current.isSymbol(s) { _ = advance(); return true }
        return false
    }

    private func isPathSegmentToken(_ t: Token) -> Bool {
        if case .symbol(let s) = t.kind, s.utf8.count > 1, s.utf8.first == UInt8(ascii: "/") { return true }
        return false
    }

    private mutating func enter() throws(SyntaxError) {
        if depth >= Self.maxDepth { throw SyntaxError(location: current.location, message: ExpressionLimits.message) }
        depth += 1
    }

    // MARK: File structure

    mutating func parseFile() throws(SyntaxError) -> RulesFile {
        var functions: [FunctionDeclaration] = []
        var hasVersion = false
        if current.isIdentifier("rules_version") {
            _ = advance()
            _ = try expectSymbol("=")
            let loc = current.location
            guard case .string(let v) = current.kind else { throw unexpected("a version string ('1' or '2')") }
            _ = advance()
            guard v == "1" || v == "2" else {
                throw SyntaxError(location: loc, message: "Unsupported rules_version '\(v)'; expected '1' or '2'.")
            }
            version = v == "2" ? 2 : 1
            hasVersion = true
            _ = acceptSymbol(";")
        }
        while current.isIdentifier("function") { functions.append(try parseFunction()) }
        if current.isIdentifier("rules_version") {
            throw SyntaxError(location: current.location, message: "rules_version must be the first declaration in the file.")
        }
        guard current.isIdentifier("service") else {
            if functions.isEmpty { throw mismatchedFirstDeclaration(versionDeclared: hasVersion) }
            throw unexpected("'function', 'service' or 'rules_version'")
        }
        let serviceLocation = advance().location
        let first = try expectIdentifier("a service name (cloud.firestore)")
        var name = first
        while acceptSymbol(".") { name += "." + (try expectIdentifier("a service name (cloud.firestore)")) }
        guard name == "cloud.firestore" else {
            throw SyntaxError(location: serviceLocation, message: "Unsupported service '\(name)'; expected 'cloud.firestore'.")
        }
        let bodyLocation = try expectSymbol("{").location
        var matches: [MatchBlock] = []
        var serviceFunctionCount = 0
        while !current.isSymbol("}") {
            if current.isIdentifier("function") {
                functions.append(try parseFunction())
                serviceFunctionCount += 1
            }
            else if current.isIdentifier("match") { matches.append(try parseMatch()) }
            else if isPathSegmentToken(current) || current.isSymbol("/") {
                throw SyntaxError(location: current.location, message: "Missing 'match' keyword before path.")
            } else { throw unexpected("'function', 'match' or '}'") }
        }
        if matches.isEmpty && serviceFunctionCount == 0 {
            throw SyntaxError(location: bodyLocation, message: "The 'service' body must contain at least one declaration.")
        }
        _ = advance()
        while current.isIdentifier("function") { functions.append(try parseFunction()) }
        guard current.kind == .eof else { throw unexpected("end of file") }
        return RulesFile(version: version, hasVersionDeclaration: hasVersion, functions: functions, matches: matches,
                         serviceLocation: serviceLocation, expressionCount: nextID)
    }

    private mutating func parseMatch() throws(SyntaxError) -> MatchBlock {
        try enter()
        defer { depth -= 1 }
        let location = advance().location
        var segments: [MatchSegment] = []
        while true {
            let t = current
            if isPathSegmentToken(t), case .symbol(let s) = t.kind {
                // `(default)` keeps its parentheses: the database id is literally "(default)".
                segments.append(.literal(String(s.dropFirst())))
                _ = advance()
            } else if t.isSymbol("/"), peek().isSymbol("{") {
                _ = advance()
                _ = advance()
                let name = try expectIdentifier("a wildcard name")
                if acceptSymbol("=") {
                    _ = try expectSymbol("**", "'**'")
                    segments.append(.recursive(name))
                } else {
                    segments.append(.single(name))
                }
                _ = try expectSymbol("}")
            } else {
                break
            }
        }
        if segments.isEmpty { throw unexpected("a path starting with '/'") }
        _ = try expectSymbol("{")
        var functions: [FunctionDeclaration] = []
        var allows: [AllowStatement] = []
        var children: [MatchBlock] = []
        while !current.isSymbol("}") {
            if current.isIdentifier("function") { functions.append(try parseFunction()) }
            else if current.isIdentifier("match") { children.append(try parseMatch()) }
            else if current.isIdentifier("allow") {
                let start = position
                do throws(SyntaxError) {
                    allows.append(try parseAllow())
                } catch {
                    recovered.append(error)
                    skipStatement(from: start)
                }
            }
            else if isPathSegmentToken(current) || current.isSymbol("/") {
                throw SyntaxError(location: current.location, message: "Missing 'match' keyword before path.")
            } else { throw unexpected("'allow', 'match', 'function' or '}'") }
        }
        _ = advance()
        return MatchBlock(segments: segments, location: location, functions: functions, allows: allows, children: children)
    }

    private mutating func parseAllow() throws(SyntaxError) -> AllowStatement {
        let location = advance().location
        var written: [String] = []
        var methods = Set<RulesMethod>()
        repeat {
            let name = try expectIdentifier("a method (read, write, get, list, create, update, delete)")
            switch name {
            case "read": methods.formUnion([.get, .list])
            case "write": methods.formUnion([.create, .update, .delete])
            default:
                // An unknown method is only a warning in production (the checker reports it).
                if let m = RulesMethod(rawValue: name) { methods.insert(m) }
            }
            written.append(name)
        } while acceptSymbol(",")
        var condition: Expr?
        if acceptSymbol(":") {
            guard current.isIdentifier("if") else {
                throw SyntaxError(location: current.location, message: "Missing 'if' before conditional expression.")
            }
            _ = advance()
            // Nothing that can start an expression: the emulator names both problems.
            if current.isSymbol(")") || current.isSymbol(";") || current.isSymbol("}") || current.isSymbol("]") || current.isSymbol(",") {
                recovered.append(SyntaxError(location: current.location, message: "Missing conditional expression after 'if'."))
                throw unexpected("an expression")
            }
            condition = try parseTopExpression()
        }
        _ = acceptSymbol(";")
        return AllowStatement(writtenMethods: written, methods: methods, condition: condition, location: location)
    }

    private mutating func parseFunction() throws(SyntaxError) -> FunctionDeclaration {
        let location = advance().location
        let nameLocation = current.location
        let name = try expectIdentifier("a function name")
        _ = try expectSymbol("(")
        var params: [String] = []
        var paramLocations: [SourceLocation] = []
        if !current.isSymbol(")") {
            repeat {
                paramLocations.append(current.location)
                params.append(try expectIdentifier("a parameter name"))
            } while acceptSymbol(",")
        }
        _ = try expectSymbol(")", "',' or ')'")
        _ = try expectSymbol("{")
        var lets: [LetBinding] = []
        while current.isIdentifier("let") {
            let letLoc = advance().location
            let nameLoc = current.location
            let n = try expectIdentifier("a variable name")
            _ = try expectSymbol("=")
            let value = try parseTopExpression()
            guard acceptSymbol(";") else {
                throw SyntaxError(location: current.location, message: "missing ';' at '\(current.text)'")
            }
            lets.append(LetBinding(name: n, value: value, location: letLoc, nameLocation: nameLoc))
        }
        guard current.isIdentifier("return") else { throw unexpected("'let' or 'return'") }
        _ = advance()
        let body = try parseTopExpression()
        _ = acceptSymbol(";")
        _ = try expectSymbol("}")
        return FunctionDeclaration(name: name, nameLocation: nameLocation, parameters: params, parameterLocations: paramLocations,
                                   lets: lets, body: body, location: location)
    }

    // MARK: Expressions (precedence per docs/rules-language.md#precedence)

    /// A new node. Refuses one taller than `ExpressionLimits.maxHeight`, so no tree is ever
    /// deeper than what the walks over it (and its release) can afford in stack.
    private mutating func make(_ kind: Expr.Kind, _ location: SourceLocation, focus: Token? = nil) throws(SyntaxError) -> Expr {
        defer { nextID += 1 }
        let end = position > 0 ? tokens[position - 1].end : 0
        let e = Expr(id: nextID, location: location, endOffset: end, kind: kind,
                     focus: focus?.location, focusEnd: focus.map { $0.end - 1 })
        if e.height > ExpressionLimits.maxHeight {
            throw SyntaxError(location: current.location, message: ExpressionLimits.message)
        }
        return e
    }

    /// A whole expression (an `allow` condition, a `let` value, a function's result), with
    /// production's nesting limit checked: each node too deep is reported, and parsing goes on.
    private mutating func parseTopExpression() throws(SyntaxError) -> Expr {
        let e = try parseExpression()
        recovered += ExpressionLimits.tooDeep(e).map { SyntaxError(location: $0, message: ExpressionLimits.message) }
        return e
    }

    mutating func parseExpression() throws(SyntaxError) -> Expr {
        try enter()
        defer { depth -= 1 }
        let condition = try parseOr()
        guard current.isSymbol("?") else { return condition }
        let question = advance()
        let a = try parseExpression()
        _ = try expectSymbol(":", "':' of the conditional expression")
        let b = try parseExpression()
        return try make(.ternary(condition, a, b), condition.start, focus: question)
    }

    private mutating func parseOr() throws(SyntaxError) -> Expr {
        var left = try parseAnd()
        while current.isSymbol("||") {
            let op = advance()
            let right = try parseAnd()
            left = try make(.or(left, right), left.start, focus: op)
        }
        return left
    }

    private mutating func parseAnd() throws(SyntaxError) -> Expr {
        var left = try parseIn()
        while current.isSymbol("&&") {
            let op = advance()
            let right = try parseIn()
            left = try make(.and(left, right), left.start, focus: op)
        }
        return left
    }

    private mutating func parseIn() throws(SyntaxError) -> Expr {
        var left = try parseEquality()
        while current.isIdentifier("in") {
            let token = advance()
            let right = try parseEquality()
            left = try make(.binary(.in, left, right), left.start, focus: token)
        }
        return left
    }

    /// `==`, `!=` and `is`, one precedence level, left to right (as the official emulator
    /// parses them: `'a' is string == true` is `('a' is string) == true`, and
    /// `1 is int == 'x' is string` is `((1 is int) == 'x') is string`).
    private mutating func parseEquality() throws(SyntaxError) -> Expr {
        var left = try parseRelational()
        while true {
            if current.isIdentifier("is") {
                let token = advance()
                let loc = current.location
                let name = try expectIdentifier("a type name")
                guard let type = TypeName(rawValue: name) else {
                    throw SyntaxError(location: loc, message: "Unknown type '\(name)'; expected one of \(TypeName.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                left = try make(.isType(left, type), left.start, focus: token)
                continue
            }
            let op: Expr.BinaryOp
            if current.isSymbol("==") { op = .equal } else if current.isSymbol("!=") { op = .notEqual } else { return left }
            let token = advance()
            let right = try parseRelational()
            left = try make(.binary(op, left, right), left.start, focus: token)
        }
    }

    private mutating func parseRelational() throws(SyntaxError) -> Expr {
        var left = try parseAdditive()
        while true {
            let op: Expr.BinaryOp
            if current.isSymbol("<") { op = .less } else if current.isSymbol("<=") { op = .lessEqual }
            else if current.isSymbol(">") { op = .greater } else if current.isSymbol(">=") { op = .greaterEqual }
            else { return left }
            let token = advance()
            let right = try parseAdditive()
            left = try make(.binary(op, left, right), left.start, focus: token)
        }
    }

    private mutating func parseAdditive() throws(SyntaxError) -> Expr {
        var left = try parseMultiplicative()
        while true {
            let op: Expr.BinaryOp
            if current.isSymbol("+") { op = .add } else if current.isSymbol("-") { op = .subtract } else { break }
            let token = advance()
            let right = try parseMultiplicative()
            left = try make(.binary(op, left, right), left.start, focus: token)
        }
        if current.isSymbol("++") || current.isSymbol("--") { throw incrementOrDecrement() }
        return left
    }

    /// `++`/`--` (the current token), prefix or postfix: refused where the official emulator
    /// refuses it — at the token after the operator (`1-- == 1` is reported at `==`).
    private func incrementOrDecrement() -> SyntaxError {
        SyntaxError(location: peek().location, message: "Increment (++) and decrement (--) operators are not supported.")
    }

    private mutating func parseMultiplicative() throws(SyntaxError) -> Expr {
        var left = try parseUnary()
        while true {
            let op: Expr.BinaryOp
            if current.isSymbol("*") { op = .multiply } else if current.isSymbol("/") { op = .divide }
            else if current.isSymbol("%") { op = .remainder } else { break }
            let token = advance()
            let right = try parseUnary()
            left = try make(.binary(op, left, right), left.start, focus: token)
        }
        // `a /b`: production lexes `/b` as a path, so a division needs a space after '/'.
        if isPathSegmentToken(current) {
            throw SyntaxError(location: current.location,
                              message: "Missing 'match' keyword before path. Unexpected '\(current.text)' (write '/ ' for division).")
        }
        return left
    }

    private mutating func parseUnary() throws(SyntaxError) -> Expr {
        try enter()
        defer { depth -= 1 }
        let loc = current.location
        if current.isSymbol("++") || current.isSymbol("--") { throw incrementOrDecrement() }
        let operatorToken = current
        if acceptSymbol("!") {
            let operand = try parseUnary()
            return try make(.unary(.not, operand), loc, focus: operatorToken)
        }
        if acceptSymbol("-") {
            // Production rejects a negation of a negation written without parentheses.
            if current.isSymbol("-") { throw unexpected("an operand after '-'") }
            // Fold `-literal` so Int64.min is expressible.
            if case .int(let v) = current.kind, !isPostfixFollowing(1) {
                _ = advance()
                return try make(.int(v == .min ? .min : -v), loc, focus: operatorToken)
            }
            let operand = try parseUnary()
            return try make(.unary(.negate, operand), loc, focus: operatorToken)
        }
        return try parsePostfix()
    }

    /// True when the token `n` ahead is followed by a postfix operator (`-1.x` stays unary).
    private func isPostfixFollowing(_ n: Int) -> Bool {
        let t = peek(n)
        return t.isSymbol(".") || t.isSymbol("[")
    }

    private mutating func parseArguments() throws(SyntaxError) -> [Expr] {
        var args: [Expr] = []
        if !current.isSymbol(")") {
            repeat { args.append(try parseExpression()) } while acceptSymbol(",")
        }
        _ = try expectSymbol(")", "',' or ')'")
        return args
    }

    private mutating func parsePostfix() throws(SyntaxError) -> Expr {
        var expr = try parsePrimary()
        while true {
            if acceptSymbol(".") {
                let nameToken = current
                let name = try expectIdentifier("a field or method name")
                if acceptSymbol("(") {
                    let args = try parseArguments()
                    expr = try make(.method(expr, name, args), expr.start, focus: nameToken)
                } else {
                    expr = try make(.member(expr, name), expr.start, focus: nameToken)
                }
            } else if acceptSymbol("[") {
                let index = try parseExpression()
                if acceptSymbol(":") {
                    let end = try parseExpression()
                    _ = try expectSymbol("]")
                    expr = try make(.slice(expr, index, end), expr.start)
                } else {
                    _ = try expectSymbol("]", "']' or ':'")
                    expr = try make(.index(expr, index), expr.start)
                }
            } else {
                return expr
            }
        }
    }

    private static let reserved: Set<String> = ["in", "is", "if", "let", "return", "function", "match", "allow", "service", "rules_version"]

    private mutating func parsePrimary() throws(SyntaxError) -> Expr {
        let t = current
        let loc = t.location
        switch t.kind {
        case .int(let v):
            if v == .min { throw SyntaxError(location: loc, message: "Integer literal out of range: 9223372036854775808.") }
            _ = advance()
            return try make(.int(v), loc, focus: t)
        case .float(let d):
            _ = advance()
            return try make(.float(d), loc, focus: t)
        case .string(let s):
            _ = advance()
            return try make(.string(s), loc, focus: t)
        case .bytes(let b):
            _ = advance()
            return try make(.bytes(b), loc, focus: t)
        case .identifier(let name):
            switch name {
            case "true": _ = advance(); return try make(.bool(true), loc, focus: t)
            case "false": _ = advance(); return try make(.bool(false), loc, focus: t)
            case "null": _ = advance(); return try make(.null, loc, focus: t)
            default: break
            }
            if Self.reserved.contains(name) { throw unexpected("an expression") }
            _ = advance()
            if acceptSymbol("(") {
                let args = try parseArguments()
                return try make(.call(name, args), loc, focus: t)
            }
            return try make(.identifier(name), loc, focus: t)
        case .symbol(let s):
            if s == "(" {
                _ = advance()
                let inner = try parseExpression()
                _ = try expectSymbol(")")
                return inner.parenthesized(at: loc)
            }
            if s == "[" {
                _ = advance()
                var items: [Expr] = []
                if !current.isSymbol("]") {
                    repeat {
                        if current.isSymbol("]") { break }  // trailing comma
                        items.append(try parseExpression())
                    } while acceptSymbol(",")
                }
                _ = try expectSymbol("]", "',' or ']'")
                return try make(.list(items), loc)
            }
            if s == "{" {
                _ = advance()
                var entries: [(key: Expr, value: Expr)] = []
                if !current.isSymbol("}") {
                    repeat {
                        if current.isSymbol("}") { break }
                        let key = try parseExpression()
                        _ = try expectSymbol(":", "':' after the map key")
                        let value = try parseExpression()
                        entries.append((key, value))
                    } while acceptSymbol(",")
                }
                _ = try expectSymbol("}", "',' or '}'")
                return try make(.map(entries), loc)
            }
            if isPathSegmentToken(t) || (s == "/" && (peek().isSymbol("$(") || peek().isSymbol("{"))) {
                return try parsePathLiteral()
            }
            if s == "++" || s == "--" { throw incrementOrDecrement() }
            throw unexpected("an expression")
        case .eof:
            throw unexpected("an expression")
        }
    }

    /// `/a/(default)/$(expr)/{name}` — segments must touch: whitespace ends the literal.
    private mutating func parsePathLiteral() throws(SyntaxError) -> Expr {
        let first = current
        let loc = first.location
        var parts: [Expr.PathPart] = []
        var isFirst = true
        while true {
            let t = current
            if !isFirst && t.spaceBefore { break }
            if isPathSegmentToken(t), case .symbol(let s) = t.kind {
                parts.append(.literal(String(s.dropFirst())))
                _ = advance()
            } else if t.isSymbol("/"), peek().isSymbol("$("), !peek().spaceBefore {
                _ = advance()
                _ = advance()
                let inner = try parseExpression()
                _ = try expectSymbol(")", "')' closing '$('")
                parts.append(.interpolation(inner))
            } else if t.isSymbol("/"), peek().isSymbol("{"), !peek().spaceBefore {
                _ = advance()
                _ = advance()
                let name = try expectIdentifier("a placeholder name")
                _ = try expectSymbol("}")
                parts.append(.placeholder(name))
            } else {
                break
            }
            isFirst = false
        }
        return try make(.path(parts), loc, focus: first)
    }
}
