import HearthCore
import HearthTransport

/// What an `EmbeddedEmulator` starts with: the part of `hearth serve`'s flags a test
/// process needs, as a value (docs/ios-app-tests.md). Plain data — reading and compiling
/// the files it names happens in `EmbeddedEmulator.init`, which reports what is wrong.
public struct EmbeddedEmulatorOptions: Sendable {
    /// A file's contents, given inline or by path (read when the emulator starts).
    public enum Input: Sendable, Equatable {
        case contents(String)
        case file(String)
    }

    /// One project's set-up: its security rules (every database of the project), its
    /// composite indexes (`firestore.indexes.json`) and the Hearth JSON documents
    /// (docs/formats.md) its `(default)` database starts with.
    public struct Project: Sendable {
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

    /// The address to bind: loopback by default, as a test wants it.
    public var host: String
    /// 0 (the default) picks a free port; `EmbeddedEmulator.address` says which.
    public var port: Int
    /// The projects to set up; the first is `EmbeddedEmulator.projectID`. Any other
    /// project a client names works too, empty and without rules.
    public var projects: [Project]
    /// An export loaded at start (`--import`): the official emulator's or gcloud's export,
    /// a firebase-tools export folder, or a Hearth JSON file (into the first project; an
    /// export goes into the project it was taken from).
    public var importPath: String?
    /// Keep every database in this directory (`--data-dir`): a later emulator on the same
    /// directory starts with what this one left. Nil (the default) keeps everything in memory.
    public var dataDirectory: String?
    /// What a query missing a composite index does (`--index-mode`); nil: enforce when a
    /// project declares indexes, else warn.
    public var indexMode: IndexMode?
    /// Memory for past document versions (`--history-limit`).
    public var historyLimit: Int
    /// The server's budgets and thread counts (docs/server.md).
    public var limits: HTTPLimits

    public init(host: String = "127.0.0.1", port: Int = 0, projects: [Project] = [Project("demo-hearth")],
                importPath: String? = nil, dataDirectory: String? = nil, indexMode: IndexMode? = nil,
                historyLimit: Int = VersionHistoryBudget.defaultLimit, limits: HTTPLimits = HTTPLimits()) {
        self.host = host
        self.port = port
        self.projects = projects
        self.importPath = importPath
        self.dataDirectory = dataDirectory
        self.indexMode = indexMode
        self.historyLimit = historyLimit
        self.limits = limits
    }
}
