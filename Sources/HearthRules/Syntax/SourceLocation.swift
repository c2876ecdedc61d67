/// A position in a rules source file: 1-based line and column (columns count UTF-8 bytes,
/// which equals characters for the ASCII that rules are written in).
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
