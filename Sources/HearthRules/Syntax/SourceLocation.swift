/// A position in a rules source file: 1-based line and column. Inside the compiler both
/// count UTF-8 bytes (the lexer walks bytes); a `RulesDiagnostic` handed out by
/// `RulesProgram.compile` counts UTF-16 code units instead, as the official emulator (a JVM)
/// does — the two differ only after non-ASCII text on the line (`'é'` in a string).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    /// Byte offset from the start of the file.
    public var offset: Int

    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool { a.offset < b.offset }

    public var description: String { "\(line):\(column)" }
}

/// A compile-time message tied to a source position, printed as `FILE:LINE:COL: error: …`.
public struct RulesDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable { case error, warning }

    public var severity: Severity
    public var file: String
    public var location: SourceLocation
    public var message: String
    /// The offset of the last byte of what the diagnostic names (the official emulator's
    /// `endOffset`, inclusive); nil when it names a position only.
    public var endOffset: Int?

    public init(_ severity: Severity, file: String, at location: SourceLocation, _ message: String, endOffset: Int? = nil) {
        self.severity = severity
        self.file = file
        self.location = location
        self.message = message
        self.endOffset = endOffset
    }

    /// The same diagnostic with its column and offsets counted in UTF-16 code units of
    /// `source` instead of UTF-8 bytes. O(offset); nothing to do for an ASCII source.
    func countingUTF16(of source: [UInt8]) -> RulesDiagnostic {
        guard location.line != 0 else { return self }
        /// UTF-16 units of `source[from..<to]`, `to` moved back to the start of its character.
        func units(_ from: Int, _ to: Int) -> Int {
            var end = min(max(to, from), source.count)
            while end > from, end < source.count, source[end] & 0xC0 == 0x80 { end -= 1 }
            var n = 0
            for b in source[from..<end] where b & 0xC0 != 0x80 { n += b >= 0xF0 ? 2 : 1 }
            return n
        }
        var out = self
        let lineStart = location.offset - (location.column - 1)
        out.location = SourceLocation(line: location.line, column: units(lineStart, location.offset) + 1, offset: units(0, location.offset))
        out.endOffset = endOffset.map { units(0, $0) }
        return out
    }

    /// Line 0: a diagnostic about the whole file.
    public var description: String {
        location.line == 0 ? "\(file): \(severity.rawValue): \(message)"
            : "\(file):\(location.line):\(location.column): \(severity.rawValue): \(message)"
    }
}

/// Thrown by `RulesProgram.compile` when the source has errors; carries every diagnostic
/// (errors and warnings) in source order.
public struct RulesCompileError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [RulesDiagnostic]

    public init(diagnostics: [RulesDiagnostic]) { self.diagnostics = diagnostics }

    public var errors: [RulesDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
