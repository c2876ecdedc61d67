import Foundation
import HearthCore
import HearthTransport

/// Everything an emulator process is configured with, as one value: `hearth serve`'s and
/// `hearth exec`'s flags (the CLI parses them into this), the official emulator JAR's flags
/// as firebase-tools passes them (`--project_id`, `--seed_from_export`, …; the CLI maps them
/// onto the same fields), what firebase.json and a `--workspace` folder add, and the
/// server's budgets. `EmulatorInstance` turns it into a loaded state and running servers,
/// so the CLI, `hearth exec`, the tests and an embedder start the emulator the same way.
///
/// Paths are used as given (relative ones against the working directory). Nothing here
/// looks at the working directory by itself: the documented apps load only when
/// `documentedApps` asks for them.
public struct EmulatorConfiguration: Sendable {
    // MARK: Where it listens

    /// Address to bind (`--host`); nil: firebase.json's, else 127.0.0.1 (the JAR's default
    /// is localhost, the same loopback).
    public var host: String?
    /// Port of REST, gRPC and WebChannel (`--port`; 0 picks a free one); nil: firebase.json's,
    /// else 8080.
    public var port: Int?
    /// The JAR's separate WebChannel port (`--webchannel_port`). Hearth serves WebChannel on
    /// `port` already; when set, this port is opened too and answers exactly as `port` does.
    public var webChannelPort: Int?
    /// The web console's port (nil: 4000, or a free one when 4000 is taken).
    public var consolePort: Int?
    public var console = true
    /// Connection and buffer budgets (docs/server.md).
    public var limits = HTTPLimits()
    /// A file that gets `host:port` once the server listens (for harnesses).
    public var readyFile: String?

    // MARK: Project

    /// The project that seeds, rules, indexes and Hearth JSON imports are for.
    public var project = "demo-hearth"
    /// Whether `project` was given (`--project`, `--project_id`); when not, firebase.json's
    /// `.firebaserc` may name it, and an export is imported into its own project.
    public var projectIsExplicit = false
    /// The JAR's `--single_project_mode`: requests to another project still work, but the
    /// first one to each other project logs the JAR's warning.
    public var singleProjectMode = false
    /// The JAR's `--database-edition`: both editions serve the same API here (pipelines
    /// work in either), so it is recorded only.
    public var databaseEdition: DatabaseEdition = .standard

    public enum DatabaseEdition: String, Sendable, CaseIterable { case standard, enterprise }

    // MARK: Data at start-up

    /// Hearth JSON documents for `project` (`--seed`).
    public var seed: String?
    /// Faults injected from the start (`--fault SPEC`, repeatable; docs/faults.md): a rule
    /// without a project applies to every project.
    public var faults: [FaultRule] = []
    /// Declared composite indexes (`--indexes`) and what a query missing one does.
    public var indexes: String?
    public var indexMode: IndexMode?
    /// Security rules (`--rules`): as the JAR means it, the rules of every project that has
    /// none of its own (a `PUT …:securityRules` gives a project its own).
    public var rules: String?
    /// A project folder: its firestore.rules, firestore.indexes.json and documents.json fill
    /// `rules`, `indexes` and `seed` where those are not set.
    public var workspace: String?
    /// firebase.json: host and port unless given, each database's rules and indexes.
    public var firebaseConfig: String?
    /// An export or Hearth JSON to load (`--import`, the JAR's `--seed_from_export` and
    /// `--import-data`).
    public var importPath: String?
    /// The checkout whose documented apps (`Seeds/<app>/`, `Rules/<app>.rules`) load as
    /// projects `demo-<app>` (`--demo-apps`); nil loads none.
    public var documentedApps: String?

    // MARK: Storage

    /// The data directory: every database on disk (`--data-dir`).
    public var dataDirectory: String?
    public var truncateDamagedLog = false
    public var compactAfter = DurableStore.Options().compactionThreshold
    /// Memory for past document versions.
    public var historyLimit = VersionHistoryBudget.defaultLimit
    /// Where every database is exported when the server stops (`--export-on-exit`).
    public var exportOnExit: String?

    // MARK: Emulator Suite

    /// The Functions emulator's `host:port` (`--functions_emulator`), where Cloud Functions
    /// triggers are delivered (nil: nowhere until `PUT /emulator/v1/triggers:config` names it).
    public var functionsEmulator: String?
    /// Start with trigger delivery paused (`--triggers-paused`): events queue until resumed.
    public var triggersPaused = false
    /// The Emulator UI's Requests feed port (`--websocket_port`): `EmulatorInstance.start()`
    /// opens a `RequestFeedServer` there (docs/emulator-suite.md).
    public var webSocketPort: Int?
    /// Stop when standard input reaches end of file: the Suite launcher's JVM holds the other
    /// end of that pipe, so its death (SIGKILL included) stops Hearth on every platform.
    public var exitOnStdinEOF = false

    // MARK: Output

    /// Where start-up lines go (loaded N documents, listening on …): stdout by default.
    public var output: Output = .standardStreams

    // MARK: Projects set up in code

    /// Projects an embedder sets up (`EmbeddedEmulator`'s options): each one's rules,
    /// composite indexes and seed documents, given inline or by path. Applied after
    /// everything the flags above load.
    public var projects: [ProjectSetup] = []

    /// A file's contents, given inline or by path (read at start-up).
    public enum Input: Sendable, Equatable {
        case contents(String)
        case file(String)
    }

    /// One project's set-up: its security rules (every database of the project), its
    /// composite indexes (`firestore.indexes.json`) and the Hearth JSON documents
    /// (docs/formats.md) its `(default)` database starts with.
    public struct ProjectSetup: Sendable {
        public var id: String
        public var rules: Input?
        public var indexes: Input?
        public var seed: Input?

        public init(_ id: String, rules: Input? = nil, indexes: Input? = nil, seed: Input? = nil) {
            self.id = id
            self.rules = rules
            self.indexes = indexes
            self.seed = seed
        }
    }

    public init() {}

    /// What start-up tells the user, and how long work shows progress.
    public struct Output: Sendable {
        /// A line for the user (the CLI: stdout).
        public var line: @Sendable (String) -> Void
        /// A problem that does not stop start-up (the CLI: stderr).
        public var warning: @Sendable (String) -> Void
        /// Progress of an import or export labelled with what it does.
        public var progress: @Sendable (String) -> any EmulatorProgress

        public init(line: @escaping @Sendable (String) -> Void, warning: @escaping @Sendable (String) -> Void,
                    progress: @escaping @Sendable (String) -> any EmulatorProgress) {
            self.line = line
            self.warning = warning
            self.progress = progress
        }

        /// Says nothing (an embedder's tests); progress is not shown either.
        public static let silent = Output(line: { _ in }, warning: { _ in }, progress: { _ in SilentProgress() })

        public static let standardStreams = Output(
            line: { print($0); fflush(nil) },
            warning: { FileHandle.standardError.write(Data("hearth serve: \($0)\n".utf8)) },
            progress: { _ in SummaryProgress() })
    }

    /// Why start-up stopped: a setting that is wrong (the CLI's exit 2, with the usage) or
    /// the user's files and data (exit 1).
    public enum Problem: Error, Equatable {
        case usage(String)
        case data(String)

        public var message: String {
            switch self {
            case .usage(let m), .data(let m): return m
            }
        }
    }
}

/// Progress of a long import or export.
public protocol EmulatorProgress: Sendable {
    func update(_ count: Int)
    func finish(_ summary: String)
    func abandon()
}

/// Progress that shows only the summary line, on stdout.
struct SummaryProgress: EmulatorProgress {
    func update(_ count: Int) {}
    func finish(_ summary: String) { print("hearth: \(summary)"); fflush(nil) }
    func abandon() {}
}

/// Progress that shows nothing (`Output.silent`).
struct SilentProgress: EmulatorProgress {
    func update(_ count: Int) {}
    func finish(_ summary: String) {}
    func abandon() {}
}
