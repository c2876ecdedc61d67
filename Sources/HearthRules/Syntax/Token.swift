/// One lexical token of the rules language.
struct Token: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case int(Int64)
        case float(Double)
        case string(String)
        case bytes([UInt8])
        /// Punctuation and operators, spelled as in source (`&&`, `{`, `$(`…).
        case symbol(String)
        case eof
    }

    var kind: Kind
    var location: SourceLocation
    /// Source bytes [start, end) — needed to tell `7 /2` (path) from `7 / 2` (division).
    var end: Int
    /// True when whitespace or a comment separated this token from the previous one.
    var spaceBefore: Bool

    var text: String {
        switch kind {
        case .identifier(let s): return s
        case .int(let i): return String(i)
        case .float(let d): return String(d)
        case .string(let s): return "'\(s)'"
        case .bytes: return "b'…'"
        case .symbol(let s): return s
        case .eof: return "<EOF>"
        }
    }

    func isSymbol(_ s: String) -> Bool {
        if case .symbol(let t) = kind { return t == s }
        return false
    }

    func isIdentifier(_ s: String) -> Bool {
        if case .identifier(let t) = kind { return t == s }
        return false
    }
}
