/// The official emulator's compile-time type warnings on `allow` conditions and function
/// bodies (the rules load and run the same; the warnings tell the author what will fail or
/// always be false):
///
/// - "Invalid type. Received one of [int]. Expected one of [bool]." — an operand of `&&`,
///   `||`, `!` or a `?:` condition, the right side of `in` ([list, set, map, constraint]),
///   the receiver of `.field` ([map]) or of `[i]` where the element cannot be a string
///   ([list, map, path]), an arithmetic operand, the argument of `get`/`exists`/`getAfter`/
///   `existsAfter` ([path]) or of `int()` ([int, float, string]);
/// - "Invalid type. Permission statements expect a boolean value. Received one of [int]." —
///   an `allow` condition;
/// - "The sub-expressions are not comparable, so this comparison will always return false."
///   (`true` for `!=`) — `==`/`!=` between types no value of which can be equal;
/// - "Invalid type. There is no type for variable 'id' that satisfies all clauses." — after
///   a wildcard variable failed an expectation;
/// - "Ternary operator result if condition is true has a different type than if condition is
///   false." — at the `?` of a conditional whose branches share no type.
///
/// Function bodies and their `let` values are checked once each, called or not (a `let`
/// variable that fails is reported at its value). Each warning names the node's focus token
/// (`Expr.focus`). Types are inferred only where the emulator's are known (literals,
/// operators, wildcards, lets, the conversions and a few methods, each observed on it);
/// anything else — `request`, `resource`, fields, parameters, user functions — is unknown and
/// never warned about, so a warning here is one the emulator gives too.
/// docs/rules-language.md#type-warnings.
struct TypeCheck {
    struct Warning {
        let location: SourceLocation
        let endOffset: Int
        let message: String
    }

    let names: [ResolvedName?]
    let calls: [CallTarget?]
    let pathWildcards: Set<Int>
    private(set) var diagnostics: [Warning] = []

    init(names: [ResolvedName?], calls: [CallTarget?], pathWildcards: Set<Int>) {
        self.names = names
        self.calls = calls
        self.pathWildcards = pathWildcards
    }

    /// The value types, in the order the emulator lists them.
    enum T: Int, CaseIterable, Comparable {
        case bool, int, float, string, bytes, duration, timestamp, latlng, list, set, map, path, null, constraint

        var name: String { String(describing: self) }
        static func < (a: T, b: T) -> Bool { a.rawValue < b.rawValue }
    }

    typealias Types = Set<T>

    static let boolean: Types = [.bool]
    static let sum: Types = [.int, .float, .string, .duration, .timestamp]
    static let difference: Types = [.int, .float, .duration, .timestamp]
    static let product: Types = [.int, .float]
    static let negation: Types = [.int, .float, .duration]
    static let container: Types = [.list, .set, .map, .constraint]
    static let indexable: Types = [.list, .map, .path]

    /// An `allow` condition.
    mutating func checkCondition(_ e: Expr) {
        check(e, expecting: Self.boolean, permission: true)
    }

    /// The `let` values of the function being checked, by frame index: a `let` variable
    /// that cannot be what its place needs is reported at its value, as the emulator does.
    private var letValues: [Int: Expr] = [:]

    /// A function's lets and body, once whether or not it is called (as the emulator checks
    /// them: its parameters and its result are of no known type).
    mutating func checkFunction(_ d: FunctionDeclaration) {
        letValues = [:]
        for (i, l) in d.lets.enumerated() {
            check(l.value, expecting: nil)
            letValues[d.parameters.count + i] = l.value
        }
        check(d.body, expecting: nil)
        letValues = [:]
    }

    /// Walks `e`, checking its parts; when `expected` is given, `e` itself must be able to
    /// be one of those types (a conditional passes the expectation to its branches). A node
    /// that fails its expectation is reported alone: what is below it is not checked (as
    /// the emulator reports `int(1 && true)` once, for the argument).
    private mutating func check(_ e: Expr, expecting expected: Types?, permission: Bool = false) {
        if case .ternary(let c, let a, let b) = e.kind {
            check(c, expecting: Self.boolean)
            check(a, expecting: expected)
            check(b, expecting: expected)
            // Branches no value of which shares a type (`c ? 1 : 1.0` too; not `c ? 1 : -1`,
            // whose negation may be an int): reported at the `?`, as the emulator does —
            // unless a branch was already reported for failing what the place expects.
            let branchFailed = expected.map { want in [a, b].contains { type($0)?.isDisjoint(with: want) == true } } ?? false
            if !branchFailed, let ta = type(a), let tb = type(b), ta.isDisjoint(with: tb) {
                warn(e, "Ternary operator result if condition is true has a different type than if condition is false.")
            }
            return
        }
        if let expected, case .local(let i)? = names[e.id], let value = letValues[i] {
            if let t = type(value), t.isDisjoint(with: expected) {
                warn(value, "Invalid type. Received one of \(list(t)). Expected one of \(list(expected)).")
            }
            return
        }
        if let expected, let t = type(e), t.isDisjoint(with: expected) {
            warn(e, permission ? "Invalid type. Permission statements expect a boolean value. Received one of \(list(t))."
                               : "Invalid type. Received one of \(list(t)). Expected one of \(list(expected)).")
            if case .wildcard(let name)? = names[e.id] {
                warn(e, "Invalid type. There is no type for variable '\(name)' that satisfies all clauses.")
            }
            return
        }
        switch e.kind {
        case .and(let a, let b), .or(let a, let b):
            check(a, expecting: Self.boolean)
            check(b, expecting: Self.boolean)
        case .unary(let op, let a):
            check(a, expecting: op == .not ? Self.boolean : Self.negation)
        case .binary(let op, let a, let b):
            switch op {
            case .add: check(a, expecting: Self.sum); check(b, expecting: Self.sum)
            case .subtract: check(a, expecting: Self.difference); check(b, expecting: Self.difference)
            case .multiply, .divide, .remainder: check(a, expecting: Self.product); check(b, expecting: Self.product)
            case .in: check(a, expecting: nil); check(b, expecting: Self.container)
            case .equal, .notEqual:
                check(a, expecting: nil)
                check(b, expecting: nil)
                if let ta = type(a), let tb = type(b), !Self.comparable(ta, tb) {
                    warn(e, "The sub-expressions are not comparable, so this comparison will always return \(op == .equal ? "false" : "true").")
                }
            case .less, .lessEqual, .greater, .greaterEqual:
                check(a, expecting: nil)
                check(b, expecting: nil)
            }
        case .member(let r, _):
            check(r, expecting: [.map])
        case .index(let r, let i):
            // Indexing a string gives a string: the receiver is only held to the other
            // indexable types when the element must be something a string is not.
            check(r, expecting: expected.flatMap { $0.contains(.string) ? nil : Self.indexable })
            check(i, expecting: nil)
        case .call(_, let args):
            var wants: Types?
            if case .builtin(let g)? = calls[e.id] {
                switch g {
                case .get, .exists, .getAfter, .existsAfter: wants = [.path]
                case .int: wants = [.int, .float, .string]
                default: wants = nil
                }
            }
            for a in args { check(a, expecting: wants) }
        default:
            forEachChild(e) { check($0, expecting: nil) }
        }
    }

    /// The types `e` may have, or nil when not known here.
    private func type(_ e: Expr) -> Types? {
        switch e.kind {
        case .null: return [.null]
        case .bool: return Self.boolean
        case .int(let v):
            // The parser folds `-1` into a literal; the emulator types it as a negation.
            return v < 0 ? Self.negation : [.int]
        case .float: return [.float]
        case .string: return [.string]
        case .bytes: return [.bytes]
        case .list: return [.list]
        case .map: return [.map]
        case .path: return [.path]
        case .identifier:
            guard case .wildcard? = names[e.id] else { return nil }
            return pathWildcards.contains(e.id) ? [.path] : [.string]
        case .unary(let op, _): return op == .not ? Self.boolean : Self.negation
        case .and, .or, .isType: return Self.boolean
        case .binary(let op, _, _):
            switch op {
            case .add: return Self.sum
            case .subtract: return Self.difference
            case .multiply, .divide, .remainder: return Self.product
            case .less, .lessEqual, .greater, .greaterEqual, .equal, .notEqual, .in: return Self.boolean
            }
        case .ternary(_, let a, let b):
            guard let ta = type(a), let tb = type(b) else { return nil }
            return ta.union(tb)
        case .call:
            guard case .builtin(let g)? = calls[e.id] else { return nil }
            switch g {
            case .int: return [.int]
            case .float: return [.float]
            case .string: return [.string]
            case .path: return [.path]
            case .exists, .existsAfter: return Self.boolean
            case .get, .getAfter, .debug: return nil
            }
        case .method(let receiver, let name, _):
            if case .namespace(let ns)? = names[receiver.id] {
                switch (ns, name) {
                case (.duration, "value"): return [.duration]
                case (.timestamp, "date"), (.timestamp, "value"): return [.timestamp]
                case (.math, "abs"): return Self.product
                case (.math, "floor"): return [.float]
                default: return nil
                }
            }
            switch name {
            case "size", "year": return [.int]
            case "lower": return [.string]
            case "split", "keys": return [.list]
            default: return nil
            }
        case .member, .index, .slice: return nil
        }
    }

    /// Whether some value of `a` can equal some value of `b`: the same type, or two numbers.
    static func comparable(_ a: Types, _ b: Types) -> Bool {
        for x in a {
            for y in b where x == y || (Self.product.contains(x) && Self.product.contains(y)) { return true }
        }
        return false
    }

    private func list(_ t: Types) -> String {
        "[" + t.sorted().map(\.name).joined(separator: ", ") + "]"
    }

    private mutating func warn(_ e: Expr, _ message: String) {
        diagnostics.append(Warning(location: e.focus, endOffset: e.focusEnd, message: message))
    }
}
