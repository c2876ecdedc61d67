import HearthCore

/// A local slot of a function frame: `let` values are computed eagerly, but an error in a
/// let only matters if the let is read (docs/rules-language.md#functions).
enum Slot {
    case value(RulesValue)
    case error(RulesError)
}

/// Tree-walking evaluation of expressions with production's error semantics (docs/rules-language.md#errors-and-truthiness).
struct Evaluator {
    let context: EvaluationContext
    let program: RulesProgram

    init(context: EvaluationContext) {
        self.context = context
        self.program = context.program
    }

    static let maxCallDepth = 20

    /// Evaluates, counting against the request's budget and recording coverage when enabled.
    func eval(_ e: Expr, _ frame: inout [Slot]) throws(RulesError) -> RulesValue {
        try count(e)
        guard let coverage = context.coverage else { return try evaluate(e, &frame) }
        do {
            let v = try evaluate(e, &frame)
            coverage.record(e.id, v)
            return v
        } catch {
            coverage.recordError(e.id)
            throw error
        }
    }

    /// One more expression against the request's budget (production's 1,000).
    private func count(_ e: Expr) throws(RulesError) {
        context.evaluations += 1
        guard context.evaluations <= EvaluationContext.maxEvaluations else {
            context.coverage?.recordError(e.id)
            throw .tooManyEvaluations
        }
    }

    /// Subtrees up to this tall are evaluated by plain recursion; a taller `.name`, `[i]`,
    /// `[i:j]` or `.f()` (a long receiver chain: nothing else gets this tall, see
    /// `ExpressionLimits`) goes through `evaluateLongChain`, which loops.
    static let recursionHeight: Int32 = 64

    /// The receiver of a chain link (`a` in `a.b`, `a[i]`, `a[i:j]`, `a.f()`), nil otherwise.
    private func receiver(_ e: Expr) -> Expr? {
        switch e.kind {
        case .member(let r, _), .index(let r, _), .slice(let r, _, _): return r
        case .method(let r, _, _): if case .namespace? = program.names[r.id] { return nil } else { return r }
        default: return nil
        }
    }

    /// `top` (already counted) and the links below it down to a subtree short enough to
    /// recurse into, applied innermost first in a loop. Each inner link counts on the way
    /// down, as a recursive evaluation would (so the budget runs out at the same node), is
    /// covered like any node, and fails with its receiver.
    private func evaluateLongChain(_ top: Expr, _ frame: inout [Slot]) throws(RulesError) -> RulesValue {
        var links = [top]
        var base = receiver(top)!
        while base.height > Self.recursionHeight, let r = receiver(base) {
            try count(base)
            links.append(base)
            base = r
        }
        var value: Result<RulesValue, RulesError>
        do { value = .success(try eval(base, &frame)) } catch { value = .failure(error) }
        for link in links.reversed() {
            // The top link's coverage is its caller's (`eval`).
            let isTop = link === top
            do {
                let result = try apply(link, to: try value.get(), &frame)
                if !isTop { context.coverage?.record(link.id, result) }
                value = .success(result)
            } catch {
                if !isTop { context.coverage?.recordError(link.id) }
                value = .failure(error)
            }
        }
        return try value.get()
    }

    /// One link of a chain on its receiver's value.
    private func apply(_ e: Expr, to receiver: RulesValue, _ frame: inout [Slot]) throws(RulesError) -> RulesValue {
        switch e.kind {
        case .member(_, let name):
            return try Self.member(receiver, name)
        case .index(_, let indexExpr):
            let i = try eval(indexExpr, &frame)
            return try Self.index(receiver, i)
        case .slice(_, let a, let b):
            let (i, j) = try pair(a, b, &frame)
            return try Self.slice(receiver, i, j)
        case .method(_, let name, let argExprs):
            return try Builtins.callMethod(receiver, name, operands(argExprs, &frame))
        default:
            preconditionFailure("not a chain link")
        }
    }

    /// Evaluates an operand without throwing, for `&&`/`||` absorption.
    private func capture(_ e: Expr, _ frame: inout [Slot]) -> Slot {
        do { return .value(try eval(e, &frame)) } catch { return .error(error) }
    }

    /// The operands of an operator, a literal, an index, a slice or a call, evaluated as the
    /// official emulator does (recorded with debug() in
    /// Tests/Differential/cases/rules_operand_order.py): last to first, every one even when
    /// another errs, then the first error in written order is the result. It shows in the
    /// order debug() prints and in which `get()`s are made; the verdict is the same as
    /// stopping at the first error. Costs one array of slots per node with operands.
    private func operands(_ exprs: [Expr], _ frame: inout [Slot]) throws(RulesError) -> [RulesValue] {
        var slots = [Slot](repeating: .value(.null), count: exprs.count)
        for i in exprs.indices.reversed() { slots[i] = capture(exprs[i], &frame) }
        var out: [RulesValue] = []
        out.reserveCapacity(slots.count)
        for slot in slots {
            switch slot {
            case .value(let v): out.append(v)
            case .error(let e): throw e
            }
        }
        return out
    }

    /// Two operands, right then left (see `operands`), the left one's error first.
    private func pair(_ l: Expr, _ r: Expr, _ frame: inout [Slot]) throws(RulesError) -> (RulesValue, RulesValue) {
        let b = capture(r, &frame)
        let a = capture(l, &frame)
        switch (a, b) {
        case (.error(let e), _), (_, .error(let e)): throw e
        case (.value(let x), .value(let y)): return (x, y)
        }
    }

    private func evaluate(_ e: Expr, _ frame: inout [Slot]) throws(RulesError) -> RulesValue {
        switch e.kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .float(let d): return .float(d)
        case .string(let s): return .string(s)
        case .bytes(let b): return .bytes(b)
        case .list(let items):
            return .list(try operands(items, &frame))
        case .map(let entries):
            let values = try operands(entries.flatMap { [$0.key, $0.value] }, &frame)
            var m = RulesMap()
            for i in stride(from: 0, to: values.count, by: 2) {
                guard case .string(let key) = values[i] else { throw RulesError("Map keys must be strings.") }
                m.append(key, values[i + 1])
            }
            return .map(m)
        case .identifier:
            return try lookup(e, &frame)
        case .member(let target, let name):
            if e.height > Self.recursionHeight { return try evaluateLongChain(e, &frame) }
            if case .request? = program.names[target.id], context.coverage == nil {
                try count(target)
                return try context.requestField(name)
            }
            let v = try eval(target, &frame)
            return try Self.member(v, name)
        case .index(let target, let indexExpr):
            if e.height > Self.recursionHeight { return try evaluateLongChain(e, &frame) }
            let (v, i) = try pair(target, indexExpr, &frame)
            return try Self.index(v, i)
        case .slice(let target, let a, let b):
            if e.height > Self.recursionHeight { return try evaluateLongChain(e, &frame) }
            let v = try operands([target, a, b], &frame)
            return try Self.slice(v[0], v[1], v[2])
        case .call(_, let argExprs):
            return try call(e, argExprs, &frame)
        case .method(let receiverExpr, let name, let argExprs):
            if case .namespace(let ns)? = program.names[receiverExpr.id] {
                return try Builtins.callNamespace(ns, name, operands(argExprs, &frame))
            }
            if e.height > Self.recursionHeight { return try evaluateLongChain(e, &frame) }
            var values = try operands([receiverExpr] + argExprs, &frame)
            let receiver = values.removeFirst()
            return try Builtins.callMethod(receiver, name, values)
        case .unary(let op, let operand):
            let v = try eval(operand, &frame)
            return try Operators.unary(op, v)
        case .binary(.in, let l, let r):
            // `x in y` is y's membership test: y is its first operand (x is evaluated first,
            // y's error wins, as recorded).
            let (b, a) = try pair(r, l, &frame)
            return try Operators.binary(.in, a, b)
        case .binary(let op, let l, let r):
            let (a, b) = try pair(l, r, &frame)
            return try Operators.binary(op, a, b)
        case .and(let l, let r):
            let a = capture(l, &frame)
            if case .value(.bool(false)) = a { return .bool(false) }
            let b = capture(r, &frame)
            if case .value(.bool(false)) = b { return .bool(false) }
            return try Self.combine(a, b)
        case .or(let l, let r):
            let a = capture(l, &frame)
            if case .value(.bool(true)) = a { return .bool(true) }
            let b = capture(r, &frame)
            if case .value(.bool(true)) = b { return .bool(true) }
            return try Self.combine(a, b)
        case .ternary(let c, let a, let b):
            let cond = try eval(c, &frame)
            guard case .bool(let flag) = cond else {
                throw RulesError("Type error. Received: [\(cond.typeName)] Expected: [bool].")
            }
            return try eval(flag ? a : b, &frame)
        case .isType(let operand, let type):
            let v = try eval(operand, &frame)
            return .bool(Operators.isType(v, type))
        case .path(let parts):
            var segments: [String] = []
            for p in parts {
                switch p {
                case .literal(let s): segments.append(s)
                case .placeholder(let s): segments.append("{\(s)}")
                case .interpolation(let x):
                    switch try eval(x, &frame) {
                    case .string(let s):
                        // One segment even when it holds '/' (observed: `$('a/b')` is a
                        // single segment 'a/b').
                        segments.append(s)
                    case .path(let sub): segments.append(contentsOf: sub.segments)
                    case .int(let i): segments.append(String(i))
                    case let other:
                        throw RulesError("Unsupported operation error. Received: $(\(other.typeName)). Expected: $(string).")
                    }
                }
            }
            return .path(RulesPath(segments))
        }
    }

    /// Both operands of `&&`/`||` were evaluated and neither decided: an error wins, then
    /// a non-bool is an error, else the (equal) bool.
    private static func combine(_ a: Slot, _ b: Slot) throws(RulesError) -> RulesValue {
        if case .error(let e) = a { throw e }
        if case .error(let e) = b { throw e }
        guard case .value(.bool(let x)) = a, case .value(.bool(_)) = b else {
            var received: [String] = []
            if case .value(let v) = a, !v.isBool { received.append(v.typeName) }
            if case .value(let v) = b, !v.isBool { received.append(v.typeName) }
            throw RulesError("Type error. Received: [\(received.joined(separator: ", "))] Expected: [bool].")
        }
        return .bool(x)
    }

    private func lookup(_ e: Expr, _ frame: inout [Slot]) throws(RulesError) -> RulesValue {
        switch program.names[e.id] {
        case .local(let i)?:
            guard i < frame.count else { throw RulesError("Variable read before it was bound.") }
            switch frame[i] {
            case .value(let v): return v
            case .error(let err): throw err
            }
        case .wildcard(let name)?:
            guard let v = context.wildcards[name] else { throw .nullValue }  // a list's unknown document
            return v
        case .request?: return context.requestVariable()
        case .resource?: return try context.resourceVariable()
        case .namespace(let ns)?: throw RulesError("\(ns.rawValue) is a namespace, not a value.")
        case .unknown?:
            // Not in scope where it is written (a compile warning): a run-time error, even
            // when the request's match binds that name (emulator: functions.rules "global");
            // the emulator reports it as a null value.
            throw .nullValue
        case nil: throw RulesError("Unresolved identifier.")
        }
    }

    private func call(_ e: Expr, _ argExprs: [Expr], _ frame: inout [Slot]) throws(RulesError) -> RulesValue {
        let args = try operands(argExprs, &frame)
        switch program.calls[e.id] {
        case .user(let index)?:
            let fn = program.functions[index].declaration
            guard args.count == fn.parameters.count else {
                throw RulesError("Function \(fn.name) expects \(fn.parameters.count) arguments, received \(args.count).")
            }
            guard context.callDepth < Self.maxCallDepth else { throw RulesError("Maximum function call depth exceeded.") }
            context.callDepth += 1
            defer { context.callDepth -= 1 }
            var inner: [Slot] = args.map { .value($0) }
            inner.reserveCapacity(fn.parameters.count + fn.lets.count)
            for l in fn.lets { inner.append(capture(l.value, &inner)) }
            return try eval(fn.body, &inner)
        case .builtin(let g)?:
            return try callGlobal(g, args)
        case .unknown(let name)?:
            throw .functionNotFound(name)
        case nil:
            throw RulesError("Unresolved call.")
        }
    }

    private func callGlobal(_ g: GlobalFunction, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        guard args.count == 1 else { throw RulesError("Function \(g.rawValue) expects 1 argument, received \(args.count).") }
        let x = args[0]
        switch g {
        case .debug:
            context.debugOutput.append(DebugFormat.text(x))
            return x
        case .get, .getAfter:
            guard let fields = try context.access(g.rawValue, x, after: g == .getAfter) else {
                // The emulator's text for a missing document (docs/rules-language.md#document-access: an error, not null).
                throw RulesError("Service call error. Function: [\(g.rawValue)], Argument: [\(x)]: no such document.")
            }
            guard case .path(let p) = x, let docPath = p.documentPath(database: context.request.database) else { throw .nullValue }
            return context.resourceObject(path: docPath, fields: fields)
        case .exists, .existsAfter:
            return .bool(try context.access(g.rawValue, x, after: g == .existsAfter) != nil)
        case .string, .int, .float, .path:
            return try Builtins.convert(g, x)
        }
    }

    // MARK: Member access, indexing, slicing (docs/rules-language.md#member-access-indexing-and-slicing)

    static func member(_ v: RulesValue, _ name: String) throws(RulesError) -> RulesValue {
        switch v {
        case .map(let m):
            guard let x = m[name] else { throw .undefinedProperty(name) }
            return x
        case .null: throw .nullValue
        default:
            throw RulesError("Unsupported operation error. Received: \(v.typeName).\(name). Expected: map.\(name).")
        }
    }

    static func index(_ v: RulesValue, _ i: RulesValue) throws(RulesError) -> RulesValue {
        switch (v, i) {
        case let (.map(m), .string(k)):
            guard let x = m[k] else { throw .undefinedProperty(k) }
            return x
        case let (.list(l), .int(n)):
            guard n >= 0, n < l.count else { throw .indexOutOfBounds(n, size: l.count) }
            return l[Int(n)]
        case let (.string(s), .int(n)):
            let units = Array(s.utf16)
            guard n >= 0, n < units.count else { throw .indexOutOfBounds(n, size: units.count) }
            return .string(String(decoding: units[Int(n)...Int(n)], as: UTF16.self))
        case let (.path(p), .int(n)):
            guard n >= 0, n < p.segments.count else { throw .indexOutOfBounds(n, size: p.segments.count) }
            return .string(p.segments[Int(n)])
        case let (.path(p), .string(k)):
            // A templated path's binding by name.
            guard let i = p.segments.firstIndex(of: "{\(k)}") else { throw .undefinedProperty(k) }
            return .string(p.segments[i])
        case (.null, _): throw .nullValue
        default:
            throw .unsupported("\(v.typeName)[\(i.typeName)]", expected: "map[string], list[int], string[int] or path[int]")
        }
    }

    /// The official emulator's checks of `x[i:j]`, in its order: the first index must be
    /// inside (`i < size`, so any slice of an empty value fails), then the last one taken
    /// (`j - 1`, so `[0:0]` fails with Index [-1] while `[1:1]` is empty), then `i <= j`.
    static func checkSlice(_ i: Int64, _ j: Int64, size: Int) throws(RulesError) {
        guard i >= 0, i < size else { throw .indexOutOfBounds(i, size: size) }
        guard j >= 1, j <= size else { throw .indexOutOfBounds(j &- 1, size: size) }  // wraps as the JVM's long does
        guard i <= j else { throw RulesError("Illegal range error. From index: [\(i)] , To index: [\(j)].") }
    }

    static func slice(_ v: RulesValue, _ a: RulesValue, _ b: RulesValue) throws(RulesError) -> RulesValue {
        guard case .int(let i) = a, case .int(let j) = b else {
            throw .unsupported("\(v.typeName)[\(a.typeName):\(b.typeName)]", expected: "\(v.typeName)[int:int]")
        }
        switch v {
        case .list(let l):
            try checkSlice(i, j, size: l.count)
            return .list(Array(l[Int(i)..<Int(j)]))
        case .string(let s):
            let units = Array(s.utf16)
            try checkSlice(i, j, size: units.count)
            return .string(String(decoding: units[Int(i)..<Int(j)], as: UTF16.self))
        case .path(let p):
            try checkSlice(i, j, size: p.segments.count)
            return .path(RulesPath(Array(p.segments[Int(i)..<Int(j)])))
        case .null: throw .nullValue
        default:
            throw .unsupported("\(v.typeName)[int:int]", expected: "list[int:int], string[int:int] or path[int:int]")
        }
    }
}
