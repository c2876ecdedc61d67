import HearthCore
import HearthRules

/// The security rules loaded for one project (every database of it), as
/// `PUT /emulator/v1/projects/{p}:securityRules`, `--rules` or a documented app's
/// `Rules/<app>.rules` set them: the files as sent, what the compiler said, and either the
/// compiled program with its coverage counts or — for rules stored with `ignore_errors` —
/// the compile failure every request of the project is then answered with (as the
/// official emulator does).
public struct ProjectRules: Sendable {
    /// One rules file as sent (`{"name", "content"}`).
    public struct File: Sendable, Equatable {
        public var name: String
        public var content: String

        public init(name: String, content: String) {
            self.name = name
            self.content = content
        }
    }

    public let files: [File]
    /// Errors and warnings, in source order.
    public let diagnostics: [RulesDiagnostic]
    /// nil when the rules did not compile (stored anyway with `ignore_errors`).
    public let program: RulesProgram?
    /// Counts every evaluation of `program`'s expressions since the rules were loaded.
    public let coverage: RulesCoverage?

    /// Compiles `file`; with errors, throws `RulesCompileError` unless `keepingErrors`.
    public init(_ file: File, keepingErrors: Bool = false) throws(RulesCompileError) {
        try self.init(files: [file], keepingErrors: keepingErrors)
    }

    /// Compiles every file, as the official emulator does when a request sends several: an
    /// error in any of them fails the load, and the FIRST file is the one enforced (its
    /// warnings are the ones reported; the others' warnings are not).
    public init(files: [File], keepingErrors: Bool = false) throws(RulesCompileError) {
        precondition(!files.isEmpty, "ProjectRules needs a file")
        self.files = files
        var failure: RulesCompileError?
        var first: RulesProgram?
        for (i, file) in files.enumerated() {
            do {
                let program = try RulesProgram.compile(source: file.content, file: file.name)
                if i == 0 { first = program }
            } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure {
            guard keepingErrors else { throw failure }
            program = nil
            diagnostics = failure.diagnostics
            coverage = nil
        } else {
            let program = first!
            self.program = program
            diagnostics = program.warnings
            coverage = program.makeCoverage()
        }
    }

    public var errors: [RulesDiagnostic] { diagnostics.filter { $0.severity == .error } }

    /// The official emulator's text for rules that do not compile:
    /// `Error compiling rules:\nL4:43 Unexpected 'bar'.` (one line per error).
    public static func compileFailureMessage(_ errors: [RulesDiagnostic]) -> String {
        (["Error compiling rules:"] + errors.map { "L\($0.location.line):\($0.location.column) \($0.message)" })
            .joined(separator: "\n")
    }

    /// The error every request of a project with uncompilable stored rules gets.
    public var compileFailure: FirestoreError? {
        program == nil ? FirestoreError(.invalidArgument, Self.compileFailureMessage(errors)) : nil
    }
}
