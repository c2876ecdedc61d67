import HearthCore
import HearthTransport

/// What an `EmbeddedEmulator` starts with: the part of `hearth serve`'s flags a test
/// process needs, as a value (docs/ios-app-tests.md). Plain data: `configuration` turns it
/// into the `EmulatorConfiguration` every way of starting the emulator uses, and reading
/// and compiling what it names happens at start-up, which reports what is wrong.
public struct EmbeddedEmulatorOptions: Sendable {
    /// A file's contents, given inline or by path (read when the emulator starts).
    public typealias Input = EmulatorConfiguration.Input
    /// One project's set-up: rules, composite indexes, seed documents.
    public typealias Project = EmulatorConfiguration.ProjectSetup

    /// The address to bind: loopback by default, as a test wants it.
    public var host: String
    /// 0 (the default) picks a free port; `EmbeddedEmulator.address` says which.
    public var port: Int
    /// The projects to set up; the first is `EmbeddedEmulator.projectID`. Any other
    /// project a client names works too, empty and without rules.
    public var projects: [Project]
    /// An export loaded at start (`--import`): the official emulator's or gcloud's export,
    /// a firebase-tools export folder, or a Hearth JSON file — into the first project, as
    /// `hearth serve --import PATH --project ID` loads it.
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

    /// The emulator's configuration: these settings, no console, nothing printed, no export
    /// on exit — what a test process wants.
    public var configuration: EmulatorConfiguration {
        var c = EmulatorConfiguration()
        c.host = host
        c.port = port
        c.projects = projects
        if let first = projects.first {
            c.project = first.id
            c.projectIsExplicit = true
        }
        c.importPath = importPath
        c.dataDirectory = dataDirectory
        c.indexMode = indexMode
        c.historyLimit = historyLimit
        c.limits = limits
        c.console = false
        c.output = .silent
        return c
    }
}
