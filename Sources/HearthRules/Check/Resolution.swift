/// What an identifier in an expression refers to, decided at compile time by its scope.
enum ResolvedName: Sendable {
    /// A function parameter or `let` (index into the call frame).
    case local(Int)
    /// A wildcard variable of an enclosing `match`.
    case wildcard(String)
    case request
    case resource
    case namespace(BuiltinNamespace)
    /// Not in scope: a compile warning and a run-time error, as in production.
    case unknown(String)
}

/// What a `name(args)` call refers to.
enum CallTarget: Sendable {
    case user(Int)
    case builtin(GlobalFunction)
    case unknown(String)
}

enum BuiltinNamespace: String, Sendable, CaseIterable {
    case math, timestamp, duration, latlng, hashing
}

enum GlobalFunction: String, Sendable, CaseIterable {
    case string, int, float, path, debug, get, exists, getAfter, existsAfter

    var arity: Int { 1 }
}

/// A function after resolution: its frame holds the parameters, then the lets.
struct CompiledFunction: Sendable {
    let declaration: FunctionDeclaration
    var frameSize: Int { declaration.parameters.count + declaration.lets.count }
}

/// A match block flattened with its ancestors: the full pattern and its own allows.
struct FlatMatch: Sendable {
    let segments: [MatchSegment]
    let allows: [AllowStatement]
}
