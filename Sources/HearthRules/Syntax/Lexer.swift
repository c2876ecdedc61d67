/// Turns rules source into tokens. Never fails hard: malformed input becomes a diagnostic
/// and lexing continues, so the parser always sees an `.eof`-terminated stream.
struct Lexer {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private(set) var errors: [(SourceLocation, String)] = []

    init(_ source: String) { bytes = Array(source.utf8) }

    static func tokenize(_ source: String) -> (tokens: [Token], errors: [(SourceLocation, String)]) {
        var lexer = Lexer(source)
        var tokens: [Token] = []
        while true {
            let t = lexer.next()
            tokens.append(t)
            if t.kind == .eof { break }
        }
        return (tokens, lexer.errors)
    }

    private var location: SourceLocation { SourceLocation(line: line, column: index - lineStart + 1, offset: index) }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        index + ahead < bytes.count ? bytes[index + ahead] : nil
    }

    static func isIdentStart(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 }
    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
    static func isIdentPart(_ b: UInt8) -> Bool { isIdentStart(b) || isDigit(b) }
    /// Characters of a bare path segment (`/users-2`, `/a.b`); non-ASCII bytes too.
    static func isPathChar(_ b: UInt8) -> Bool {
        isIdentPart(b) || b == 45 || b == 46 || b == 126 || b == 37 || b == 64 || b == 43 || b >= 0x80
    }

    /// Skips whitespace and comments; returns whether anything was skipped.
    private mutating func skipTrivia() -> Bool {
        let start = index
        while let b = peek() {
            if b == 10 {
                index += 1
                line += 1
                lineStart = index
            } else if b == 32 || b == 9 || b == 13 || b == 12 {
                index += 1
            } else if b == 47, peek(1) == 47 {
                while let c = peek(), c != 10 { index += 1 }
            } else if b == 47, peek(1) == 42 {
                let loc = location
                index += 2
                var closed = false
                while let c = peek() {
                    if c == 42, peek(1) == 47 { index += 2; closed = true; break }
                    if c == 10 { line += 1; lineStart = index + 1 }
                    index += 1
                }
                if !closed { errors.append((loc, "Unterminated comment.")) }
            } else {
                break
            }
        }
        return index != start
    }

    mutating func next() -> Token {
        let space = skipTrivia()
        let loc = location
        func token(_ kind: Token.Kind) -> Token { Token(kind: kind, location: loc, end: index, spaceBefore: space) }
        guard let b = peek() else { return token(.eof) }

        if Self.isIdentStart(b) {
            // Bytes literal: b'…' / b"…".
            if b == 98, let q = peek(1), q == 39 || q == 34 {
                index += 1
                let s = scanQuoted(bytesLiteral: true)
                return token(.bytes(s))
            }
            let start = index
            while let c = peek(), Self.isIdentPart(c) { index += 1 }
            return token(.identifier(String(decoding: bytes[start..<index], as: UTF8.self)))
        }
        if Self.isDigit(b) { return token(scanNumber(loc)) }
        // `.5` is a float literal in production.
        if b == 46, let c = peek(1), Self.isDigit(c) { return token(scanNumber(loc)) }
        if b == 39 || b == 34 {
            let s = scanQuoted(bytesLiteral: false)
            return token(.string(String(decoding: s, as: UTF8.self)))
        }
        // `/word` or `/(word)` is one path-segment token: production lexes `7 /2` as a path.
        if b == 47, let c = peek(1) {
            if Self.isPathChar(c) {
                index += 1
                let start = index
                while let d = peek(), Self.isPathChar(d) { index += 1 }
                return token(.symbol("/" + String(decoding: bytes[start..<index], as: UTF8.self)))
            }
            if c == 40 {
                var j = index + 2
                while j < bytes.count, Self.isPathChar(bytes[j]) { j += 1 }
                if j < bytes.count, bytes[j] == 41, j > index + 2 {
                    let text = String(decoding: bytes[(index + 1)...j], as: UTF8.self)
                    index = j + 1
                    return token(.symbol("/" + text))
                }
            }
        }
        let two: [String] = ["&&", "||", "==", "!=", "<=", ">=", "$(", "++", "--", "**"]
        if let c = peek(1) {
            let pair = String(decoding: [b, c], as: UTF8.self)
            if two.contains(pair) {
                index += 2
                return token(.symbol(pair))
            }
        }
        let single = "{}()[],;:.?!-+*/%<>=&|$"
        if b < 0x80, single.utf8.contains(b) {
            index += 1
            return token(.symbol(String(UnicodeScalar(b))))
        }
        // Skip one whole UTF-8 character so the message shows it intact.
        let start = index
        index += 1
        while let c = peek(), c & 0xC0 == 0x80 { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        errors.append((loc, "Unexpected '\(text)'."))
        return next()
    }

    private mutating func scanNumber(_ loc: SourceLocation) -> Token.Kind {
        let start = index
        while let c = peek(), Self.isDigit(c) { index += 1 }
        var isFloat = false
        // `1.5`, `.5` and `1.` are floats, and so is the `1.` of `1.size()`: as on the official
        // emulator, a name right after it is then unexpected ("Unexpected 'size'.").
        if peek() == 46 {
            isFloat = true
            index += 1
            while let c = peek(), Self.isDigit(c) { index += 1 }
        }
        var text = String(decoding: bytes[start..<index], as: UTF8.self)
        if text.hasPrefix(".") { text = "0" + text }
        if text.hasSuffix(".") { text += "0" }
        if isFloat { return .float(Double(text) ?? .nan) }
        if let v = Int64(text) { return .int(v) }
        // 9223372036854775808 is only valid after unary minus; the parser folds it.
        // 2^63 is only valid after unary minus: it lexes as Int64.min, which the parser
        // accepts only as the operand of `-` (no other literal can produce that value).
        if text == "9223372036854775808" { return .int(.min) }
        errors.append((loc, "Integer literal out of range: \(text)."))
        return .int(0)
    }

    /// Scans a quoted literal starting at the quote; returns its bytes (escapes resolved).
    private mutating func scanQuoted(bytesLiteral: Bool) -> [UInt8] {
        let quote = bytes[index]
        let openLoc = location
        index += 1
        var out: [UInt8] = []
        func hexValue(_ b: UInt8) -> UInt32? {
            switch b {
            case 48...57: return UInt32(b - 48)
            case 65...70: return UInt32(b - 55)
            case 97...102: return UInt32(b - 87)
            default: return nil
            }
        }
        func appendScalar(_ v: UInt32, _ loc: SourceLocation) {
            if bytesLiteral, v < 256 { out.append(UInt8(v)); return }
            if let s = Unicode.Scalar(v) { out.append(contentsOf: Array(String(Character(s)).utf8)) }
            else { errors.append((loc, "Invalid escape sequence: not a Unicode scalar.")) }
        }
        while true {
            guard let b = peek(), b != 10 else {
                errors.append((openLoc, "Unterminated string literal."))
                return out
            }
            if b == quote { index += 1; return out }
            if b != 92 { out.append(b); index += 1; continue }
            let escLoc = location
            index += 1
            guard let e = peek() else { continue }
            index += 1
            switch e {
            case 92: out.append(92)
            case 39: out.append(39)
            case 34: out.append(34)
            case 96: out.append(96)
            case 63: out.append(63)
            case 110: out.append(10)
            case 114: out.append(13)
            case 116: out.append(9)
            case 97: out.append(7)
            case 98: out.append(8)
            case 102: out.append(12)
            case 118: out.append(11)
            case 120, 117:  // \xHH, \uHHHH (production has no \U)
                let n = e == 120 ? 2 : 4
                var v: UInt32 = 0
                var ok = true
                for _ in 0..<n {
                    guard let c = peek(), let h = hexValue(c) else { ok = false; break }
                    v = v * 16 + h
                    index += 1
                }
                if ok { appendScalar(v, escLoc) } else { errors.append((escLoc, "Invalid escape sequence: expected \(n) hex digits.")) }
            case 48...55:  // \ooo: exactly three octal digits
                var v = UInt32(e - 48)
                var ok = true
                for _ in 0..<2 {
                    guard let c = peek(), c >= 48, c <= 55 else { ok = false; break }
                    v = v * 8 + UInt32(c - 48)
                    index += 1
                }
                if ok && v < 256 { appendScalar(v, escLoc) } else { errors.append((escLoc, "Invalid escape sequence: expected 3 octal digits.")) }
            default:
                errors.append((escLoc, "Invalid escape sequence: '\\\(String(UnicodeScalar(e)))'."))
            }
        }
    }
}
