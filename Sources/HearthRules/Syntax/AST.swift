/// The syntax tree of a rules file. Every node keeps its source position; expressions also
/// carry a dense `id` (0..<count) that coverage and identifier resolution index by.

/// An expression node. Immutable, so a compiled program can be shared between threads.
public final class Expr: Sendable {
    public let id: Int
    public let location: SourceLocation
    /// Byte offset just past the expression's last token (for coverage spans).
    public let endOffset: Int
    public let kind: Kind
    /// The token the official emulator names when it reports on this node (its compile-time
    /// type warnings): the operator of a unary or binary node, the name of a call or method,
    /// else the node's first token — its outermost opening parenthesis, if any.
    public let focus: SourceLocation
    /// The offset of the focus token's last byte.
    public let focusEnd: Int
    /// Where each pair of parentheses around this expression opens, outermost first.
    /// Production counts a parenthesised group as one level of nesting (`ExpressionLimits`).
    public let parentheses: [SourceLocation]
    /// Nodes on the longest path from here down to a leaf, this one included: what every
    /// recursive walk of the tree (and its release) costs in stack; bounded by the parser.
    let height: Int32
    /// Production's nesting below (and around) this node: parentheses and every child count
    /// one level, except the receiver of `.name`, `[i]`, `[i:j]` and `.f()`, which sits at its
    /// parent's level (`a.b.c` is not deep; `a + (b + c)` is).
    let nesting: Int32

    init(id: Int, location: SourceLocation, endOffset: Int, kind: Kind, parentheses: [SourceLocation] = [],
         focus: SourceLocation? = nil, focusEnd: Int? = nil) {
        self.id = id
        self.location = location
        self.endOffset = endOffset
        self.kind = kind
        self.parentheses = parentheses
        self.focus = focus ?? location
        self.focusEnd = focusEnd ?? (focus ?? location).offset
        var height: Int32 = 0
        var nesting: Int32 = 0
        Self.forEachChild(kind) { child, isReceiver in
            height = max(height, child.height)
            nesting = max(nesting, child.nesting + (isReceiver ? 0 : 1))
        }
        self.height = height + 1
        self.nesting = nesting + Int32(parentheses.count)
    }

    /// Where the expression's text starts: its outermost opening parenthesis, if any (a node
    /// built on it, like `(a).b` or `(a) + b`, starts there too).
    public var start: SourceLocation { parentheses.first ?? location }

    /// The same expression inside one more pair of parentheses, opening at `location`.
    func parenthesized(at location: SourceLocation) -> Expr {
        // An operator stays the focus; anything else is named by its parenthesis.
        let keepsFocus: Bool
        switch kind {
        case .unary, .binary, .and, .or, .method, .isType, .ternary: keepsFocus = true
        default: keepsFocus = false
        }
        return Expr(id: id, location: self.location, endOffset: endOffset, kind: kind, parentheses: [location] + parentheses,
                    focus: keepsFocus ? focus : location, focusEnd: keepsFocus ? focusEnd : location.offset)
    }

    /// Calls `body` on each direct sub-expression, saying whether it is a receiver.
    static func forEachChild(_ kind: Kind, _ body: (Expr, _ isReceiver: Bool) -> Void) {
        switch kind {
        case .null, .bool, .int, .float, .string, .bytes, .identifier: break
        case .list(let items): for i in items { body(i, false) }
        case .map(let entries): for (k, v) in entries { body(k, false); body(v, false) }
        case .member(let r, _): body(r, true)
        case .index(let a, let b): body(a, true); body(b, false)
        case .slice(let a, let b, let c): body(a, true); body(b, false); body(c, false)
        case .call(_, let args): for a in args { body(a, false) }
        case .method(let r, _, let args): body(r, true); for a in args { body(a, false) }
        case .unary(_, let a): body(a, false)
        case .binary(_, let a, let b), .and(let a, let b), .or(let a, let b): body(a, false); body(b, false)
        case .ternary(let a, let b, let c): body(a, false); body(b, false); body(c, false)
        case .isType(let a, _): body(a, false)
        case .path(let parts): for p in parts { if case .interpolation(let x) = p { body(x, false) } }
        }
    }

    public enum Kind: Sendable {
        case null
        case bool(Bool)
        case int(Int64)
        case float(Double)
        case string(String)
        case bytes([UInt8])
        case list([Expr])
        case map([(key: Expr, value: Expr)])
        case identifier(String)
        case member(Expr, String)
        case index(Expr, Expr)
        case slice(Expr, Expr, Expr)
        /// `name(args)`: a user function or a global built-in.
        case call(String, [Expr])
        /// `receiver.name(args)`: a method, or a namespaced built-in when the receiver is
        /// a namespace identifier (`math.abs(x)`).
        case method(Expr, String, [Expr])
        case unary(UnaryOp, Expr)
        case binary(BinaryOp, Expr, Expr)
        case and(Expr, Expr)
        case or(Expr, Expr)
        case ternary(Expr, Expr, Expr)
        case isType(Expr, TypeName)
        case path([PathPart])
    }

    public enum UnaryOp: String, Sendable { case not = "!", negate = "-" }

    public enum BinaryOp: String, Sendable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
        case less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
        case equal = "==", notEqual = "!=", `in` = "in"
    }

    public enum PathPart: Sendable {
        /// A literal segment (`(default)` keeps its parentheses).
        case literal(String)
        /// `$(expr)`: the value's text, or a path's segments spliced in.
        case interpolation(Expr)
        /// `{name}`: a placeholder filled by `path.bind()`.
        case placeholder(String)
    }
}

/// The type names accepted after `is`.
public enum TypeName: String, Sendable, CaseIterable {
    case bool, bytes, float, int, number, string, list, map, timestamp, duration, path, latlng, set
    case mapDiff = "map_diff"
    case constraint
}

/// The granular methods a request has, and the two convenience names that expand to them.
public enum RulesMethod: String, Sendable, CaseIterable, Hashable {
    case get, list, create, update, delete
}

public struct AllowStatement: Sendable {
    /// The methods as written (`read`, `write` expanded in `methods`).
    public let writtenMethods: [String]
    public let methods: Set<RulesMethod>
    /// nil for `allow read;` — always grants.
    public let condition: Expr?
    public let location: SourceLocation
}

public struct LetBinding: Sendable {
    public let name: String
    public let value: Expr
    /// Where `let` is written.
    public let location: SourceLocation
    /// Where the name is written (the emulator reports an unused one there).
    public let nameLocation: SourceLocation
}

public struct FunctionDeclaration: Sendable {
    public let name: String
    /// Where the name is written (the emulator reports a function's problems there).
    public let nameLocation: SourceLocation
    public let parameters: [String]
    /// Where each parameter is written.
    public let parameterLocations: [SourceLocation]
    public let lets: [LetBinding]
    public let body: Expr
    public let location: SourceLocation
}

public enum MatchSegment: Sendable, Hashable {
    case literal(String)
    /// `{name}`: exactly one segment, bound as a string.
    case single(String)
    /// `{name=**}`: v2 zero or more segments, v1 one or more; bound as a path.
    case recursive(String)

    public var variable: String? {
        switch self {
        case .literal: nil
        case .single(let n), .recursive(let n): n
        }
    }
}

public final class MatchBlock: Sendable {
    public let segments: [MatchSegment]
    public let location: SourceLocation
    public let functions: [FunctionDeclaration]
    public let allows: [AllowStatement]
    public let children: [MatchBlock]

    init(segments: [MatchSegment], location: SourceLocation, functions: [FunctionDeclaration],
         allows: [AllowStatement], children: [MatchBlock]) {
        self.segments = segments
        self.location = location
        self.functions = functions
        self.allows = allows
        self.children = children
    }
}

public struct RulesFile: Sendable {
    /// 1 or 2 (`rules_version` absent → 1).
    public let version: Int
    public let hasVersionDeclaration: Bool
    /// Functions at file scope and at service scope (both are global to every match).
    public let functions: [FunctionDeclaration]
    public let matches: [MatchBlock]
    public let serviceLocation: SourceLocation
    /// Number of expression nodes; ids are 0..<expressionCount.
    public let expressionCount: Int
}
