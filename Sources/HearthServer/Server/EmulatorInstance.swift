import Foundation
import HearthCore
import HearthLock
#if canImport(Glibc)
import Glibc
#endif

/// An emulator built from an `EmulatorConfiguration`: `init` opens the data directory and
/// loads everything start-up loads (firebase.json, rules, indexes, the import, the seed, the
/// documented apps), in that order; `start()` listens; `finish()` runs --export-on-exit and
/// closes the data directory. `hearth serve`, `hearth exec` and the CLI tests all go through
/// here; an embedder may too (it installs no signal handlers and never exits the process).
/// It lives in Server/ beside `EmulatorServer`: it starts the front ends, so it sits above
/// them (its configuration, in Emulator/, knows none of them).
public final class EmulatorInstance: Sendable {
    public let configuration: EmulatorConfiguration
    public let state: EmulatorState
    private let store: DurableStore?
    private let servers = HearthMutex<[EmulatorServer]>([])
    private let console = HearthMutex<ConsoleServer?>(nil)
    private let requestFeed = HearthMutex<RequestFeedServer?>(nil)
    private let stopped = DispatchSemaphore(value: 0)

    /// Loads the state the configuration describes; nothing listens yet.
    public init(_ configuration: EmulatorConfiguration) throws(EmulatorConfiguration.Problem) {
        var c = configuration
        try Self.takeWorkspaceFiles(&c)
        let firebase = try Self.takeFirebaseConfig(&c)
        c.host = c.host ?? "127.0.0.1"
        c.port = c.port ?? 8080
        self.configuration = c
        let indexes = try Self.readIndexes(c.indexes)
        // The data directory opens before anything listens: damage stops start-up here.
        store = try Self.openDataDirectory(c)
        state = EmulatorState(indexes: indexes, indexMode: c.indexMode, historyLimit: c.historyLimit, store: store,
                              functionsEmulator: c.functionsEmulator, triggersPaused: c.triggersPaused)
        for rule in c.faults {
            do throws(FirestoreError) { try state.faults.add(rule) } catch {
                store?.close()
                throw .usage("--fault: \(error.message)")
            }
        }
        do {
            if c.singleProjectMode { state.expectOnlyProject(c.project) }
            try applyFirebaseConfig(firebase)
            try applyRules()
            try importData()
            try loadSeed()
            try loadDocumentedApps()
            for project in c.projects { try setUp(project) }
            // Every index setting is known now: a data directory's databases that nothing
            // above touched build their declared indexes here, before the server listens.
            state.configureOpenDatabases()
        } catch {
            store?.close()
            throw error
        }
    }

    // MARK: Serving

    /// The main server (REST, gRPC, WebChannel), once `start()` has run.
    public var server: EmulatorServer? { servers.withLock { $0.first } }
    /// The main server and, with --webchannel_port, the second one.
    public var allServers: [EmulatorServer] { servers.withLock { $0 } }

    /// Listens on the configured port (and --webchannel_port, and the console's), announces
    /// the address (output and --ready-file) and returns the main server.
    @discardableResult
    public func start() throws(EmulatorConfiguration.Problem) -> EmulatorServer {
        let c = configuration
        let host = c.host ?? "127.0.0.1", port = c.port ?? 8080
        let main: EmulatorServer
        do { main = try EmulatorServer(host: host, port: port, state: state, limits: c.limits) } catch {
            throw .data("cannot listen on \(host):\(port): \(Self.describe(error))")
        }
        var started = [main]
        if let webChannelPort = c.webChannelPort {
            do { started.append(try EmulatorServer(host: host, port: webChannelPort, state: state, limits: c.limits)) } catch {
                main.stop()
                throw .data("cannot listen on \(host):\(webChannelPort) (--webchannel_port): \(Self.describe(error))")
            }
        }
        let all = started
        // One stop stops them all; `stopped` is signalled when the main one has stopped.
        for s in all { s.onStop { for other in all { other.stop() } } }
        main.onStop { [stopped] in stopped.signal() }
        servers.withLock { $0 = all }
        if let webSocketPort = c.webSocketPort {
            do { try startRequestFeed(main, port: webSocketPort) } catch {
                main.stop()
                throw error
            }
        }
        if c.console {
            do { try startConsole(main) } catch {
                main.stop()
                throw error
            }
        }
        c.output.line("hearth serve: Firestore REST and gRPC APIs listening on \(main.address)")
        if all.count > 1 { c.output.line("hearth serve: and on \(all[1].address) (--webchannel_port)") }
        if let feed = requestFeed.withLock({ $0 }) {
            c.output.line("hearth serve: the Emulator UI's Requests feed at ws://\(feed.host.contains(":") ? "[\(feed.host)]" : feed.host):\(feed.port)/requests")
        }
        if let f = c.functionsEmulator {
            c.output.line("hearth serve: Cloud Functions triggers go to \(f)" + (c.triggersPaused ? " (paused)" : ""))
        }
        c.output.line("export FIRESTORE_EMULATOR_HOST=\(main.address)")
        if let readyFile = c.readyFile {
            do { try Data((main.address + "\n").utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic) }
            catch { c.output.warning("cannot write \(readyFile): \(error)") }
        }
        if c.exitOnStdinEOF { stopAtEndOfStandardInput() }
        return main
    }

    /// A bind failure as firebase-tools recognises it: it reads the emulator's stderr for the
    /// words "address already in use", lower case (downloadableEmulators.ts), to tell the user
    /// the port is taken.
    private static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        return text.contains("Address already in use") ? "address already in use (\(text))" : text
    }

    /// The Emulator UI's Requests feed (--websocket_port) on its own port, same host, with the
    /// main port's deadlines; it stops with the main server.
    private func startRequestFeed(_ main: EmulatorServer, port: Int) throws(EmulatorConfiguration.Problem) {
        let c = configuration
        let host = c.host ?? "127.0.0.1"
        let feed: RequestFeedServer
        do {
            feed = try RequestFeedServer(host: host, port: port, state: state, limits: RequestFeedServer.limits(like: main.limits),
                                         webSocketLimits: RequestFeedServer.webSocketLimits(like: main.limits))
        } catch {
            throw .data("cannot listen on \(host):\(port) (--websocket_port): \(Self.describe(error))")
        }
        main.onStop { feed.stop() }
        requestFeed.withLock { $0 = feed }
    }

    /// The Requests feed, once `start()` has run with a WebSocket port.
    public var requestFeedServer: RequestFeedServer? { requestFeed.withLock { $0 } }

    /// The official emulator's UI port by default; when another emulator holds it, any free
    /// port (an explicit --console-port must be free).
    private func startConsole(_ main: EmulatorServer) throws(EmulatorConfiguration.Problem) {
        let c = configuration
        let host = c.host ?? "127.0.0.1"
        let info = ConsoleServer.Info(emulatorAddress: main.address)
        let consoleServer: ConsoleServer
        do {
            consoleServer = try ConsoleServer(host: host, port: c.consolePort ?? 4000, state: state, info: info)
        } catch {
            guard c.consolePort == nil, let fallback = try? ConsoleServer(host: host, port: 0, state: state, info: info) else {
                throw .data("cannot listen on \(host):\(c.consolePort ?? 4000) for the console: \(error)")
            }
            consoleServer = fallback
        }
        main.onStop { consoleServer.stop() }
        console.withLock { $0 = consoleServer }
        c.output.line("hearth serve: console at \(consoleServer.url)")
    }

    /// A thread that blocks reading standard input and stops the servers at end of file
    /// (or a read error). Costs one parked thread; input itself is discarded.
    private func stopAtEndOfStandardInput() {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let n = read(STDIN_FILENO, &buffer, buffer.count)
                if n > 0 { continue }
                if n < 0 && errno == EINTR { continue }
                break
            }
            configuration.output.warning("standard input closed (\(SuiteLauncherJAR.stdinFlag)): stopping")
            stop()
        }
        thread.name = "hearth-stdin-watch"
        thread.start()
    }

    /// Stops every server (idempotent).
    public func stop() {
        for s in servers.withLock({ $0 }) { s.stop() }
    }

    /// Blocks until the servers have stopped (`stop()`, `POST /shutdown`, end of stdin).
    public func waitUntilStopped() {
        stopped.wait()
        stopped.signal()  // later waiters return too
    }

    /// Closes the data directory without exporting: what a start-up that failed after `init`
    /// does (an export then would replace the last good one with what was only loaded).
    public func close() {
        store?.close()
    }

    /// After the servers stopped: --export-on-exit, then the data directory is closed.
    /// Returns the exit status (1 when the export failed and the old one was kept).
    public func finish() -> Int32 {
        defer { store?.close() }
        guard let target = configuration.exportOnExit else { return 0 }
        let progress = configuration.output.progress("exporting to \(target)")
        do {
            let summary = try state.exportAll(to: target, progress: { progress.update($0) })
            progress.finish("exported \(summary.documents) documents to \(target)")
            return 0
        } catch {
            progress.abandon()
            configuration.output.warning("--export-on-exit failed; \(target) keeps its previous contents: \(error.message)")
            return 1
        }
    }

    // MARK: Start-up, step by step

    /// A Firebase project folder: its rules, indexes and seed documents, where present
    /// (explicit settings win).
    private static func takeWorkspaceFiles(_ c: inout EmulatorConfiguration) throws(EmulatorConfiguration.Problem) {
        guard let workspace = c.workspace else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: workspace, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .usage("--workspace \(workspace) is not a directory")
        }
        func file(_ name: String) -> String? {
            let path = (workspace as NSString).appendingPathComponent(name)
            return FileManager.default.fileExists(atPath: path) ? path : nil
        }
        c.rules = c.rules ?? file("firestore.rules")
        c.indexes = c.indexes ?? file("firestore.indexes.json")
        c.seed = c.seed ?? file("documents.json")
        if c.rules == nil && c.indexes == nil && c.seed == nil {
            throw .usage("--workspace \(workspace) has none of firestore.rules, firestore.indexes.json, documents.json")
        }
    }

    /// firebase.json: host and port unless given elsewhere (the caller leaves them at their
    /// defaults then), and the project from `.firebaserc` beside it unless one was given.
    private static func takeFirebaseConfig(_ c: inout EmulatorConfiguration) throws(EmulatorConfiguration.Problem) -> FirebaseConfig? {
        guard let file = c.firebaseConfig else { return nil }
        let config: FirebaseConfig
        do { config = try FirebaseConfig.load(file) } catch { throw .data(error.message) }
        if c.host == nil, let h = config.host { c.host = h == "localhost" ? "127.0.0.1" : h }
        if c.port == nil, let p = config.port { c.port = p }
        if !c.projectIsExplicit, let p = defaultProject(besides: file) { c.project = p }
        return config
    }

    /// The default project in `.firebaserc` beside a firebase.json, as firebase-tools uses it.
    private static func defaultProject(besides configFile: String) -> String? {
        let rc = ((configFile as NSString).deletingLastPathComponent as NSString).appendingPathComponent(".firebaserc")
        guard let data = FileManager.default.contents(atPath: rc), let json = try? JSON.parse(Array(data)) else { return nil }
        return json["projects"]?["default"]?.stringValue
    }

    private static func readIndexes(_ path: String?) throws(EmulatorConfiguration.Problem) -> IndexConfiguration? {
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .data("cannot read \(path)") }
        do { return try IndexConfiguration(json: data) } catch { throw .data("\(path): \(error.message)") }
    }

    private static func openDataDirectory(_ c: EmulatorConfiguration) throws(EmulatorConfiguration.Problem) -> DurableStore? {
        guard let dataDir = c.dataDirectory else { return nil }
        let store: DurableStore
        let warning = c.output.warning
        do {
            store = try DurableStore.open(directory: dataDir, options: .init(compactionThreshold: c.compactAfter, truncateDamagedLog: c.truncateDamagedLog,
                                                                             notice: { warning($0) }))
        } catch {
            throw .data("cannot open the data directory: \(error.message)")
        }
        c.output.line("hearth serve: data directory \(dataDir): \(store.recoveryReport)")
        return store
    }

    /// firebase.json's rules and indexes, where no setting gave them: the single form is the
    /// project's (every database, as the official emulator applies it); the list form gives
    /// each database its own.
    private func applyFirebaseConfig(_ config: FirebaseConfig?) throws(EmulatorConfiguration.Problem) {
        let c = configuration
        guard let config, let configFile = c.firebaseConfig else { return }
        let perDatabase = config.isListForm
        for entry in config.databases {
            let id = DatabaseID(project: c.project, database: entry.database)
            if let file = entry.indexes, c.indexes == nil {
                guard let data = FileManager.default.contents(atPath: file) else { throw .data("cannot read \(file), which \(configFile) names") }
                let parsed: IndexConfiguration
                do { parsed = try IndexConfiguration(json: data) } catch { throw .data("\(file): \(error.message)") }
                if perDatabase { state.setIndexes(parsed, forDatabase: id) } else { state.setIndexes(parsed, forProject: c.project) }
            }
            if let file = entry.rules, c.rules == nil {
                let loaded = try compileRules(file, namedBy: configFile)
                if perDatabase { state.rules.set(loaded, forDatabase: id) } else { state.rules.set(loaded, forProject: c.project) }
                c.output.line("enforcing security rules from \(file) for \(perDatabase ? id.name : "projects/\(c.project)")")
            }
        }
    }

    /// `rules`, as the JAR's --rules: every project's until a project is given its own.
    private func applyRules() throws(EmulatorConfiguration.Problem) {
        guard let rules = configuration.rules else { return }
        state.rules.setDefault(try compileRules(rules, namedBy: nil))
        configuration.output.line("enforcing security rules from \(rules) for every project")
    }

    /// Compiles a rules file, reporting its warnings.
    private func compileRules(_ file: String, namedBy configFile: String?) throws(EmulatorConfiguration.Problem) -> ProjectRules {
        guard let source = FileManager.default.contents(atPath: file).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw .data("cannot read \(file)" + (configFile.map { ", which \($0) names" } ?? ""))
        }
        do {
            let loaded = try ProjectRules(ProjectRules.File(name: file, content: source))
            for w in loaded.diagnostics { FileHandle.standardError.write(Data("\(w)\n".utf8)) }
            return loaded
        } catch {
            throw .data("\(file) does not compile:\n\(error)")
        }
    }

    private func importData() throws(EmulatorConfiguration.Problem) {
        let c = configuration
        guard let importPath = c.importPath else { return }
        let progress = c.output.progress("importing \(importPath)")
        do {
            let summary = try state.importData(importPath, project: c.projectIsExplicit || Self.isHearthJSON(importPath) ? c.project : nil,
                                               progress: { progress.update($0) })
            progress.finish("imported \(summary.documents) documents from \(importPath) in \(String(format: "%.1f", summary.seconds)) s"
                + summary.perDatabase.keys.sorted(by: { $0.name < $1.name }).map { " — \($0.name): \(summary.perDatabase[$0]!)" }.joined()
                + (summary.skipped > 0 ? " (\(summary.skipped) entities in a Datastore namespace skipped)" : ""))
        } catch {
            progress.abandon()
            throw .data("cannot import \(importPath): \(error.message)")
        }
    }

    private static func isHearthJSON(_ path: String) -> Bool {
        if case .hearthJSON? = try? ImportSource.locate(path) { return true }
        return false
    }

    private func loadSeed() throws(EmulatorConfiguration.Problem) {
        let c = configuration
        guard let seed = c.seed else { return }
        guard let data = FileManager.default.contents(atPath: seed) else { throw .data("cannot read \(seed)") }
        do {
            let n = try SeedLoader.load(data, into: state.database(DatabaseID(project: c.project)))
            c.output.line("loaded \(n) documents from \(seed) into projects/\(c.project)/databases/(default)")
        } catch { throw .data("\(seed): \(error.message)") }
    }

    /// A project set up in code: its indexes, rules and seed, each inline or from a file.
    private func setUp(_ project: EmulatorConfiguration.ProjectSetup) throws(EmulatorConfiguration.Problem) {
        if let indexes = project.indexes {
            let (name, text) = try Self.contents(of: indexes, default: "firestore.indexes.json")
            do { state.setIndexes(try IndexConfiguration(json: Data(text.utf8)), forProject: project.id) } catch {
                throw .data("\(name): \(error.message)")
            }
        }
        if let rules = project.rules {
            let (name, text) = try Self.contents(of: rules, default: "firestore.rules")
            do { state.rules.set(try ProjectRules(ProjectRules.File(name: name, content: text)), forProject: project.id) } catch {
                throw .data("\(name) does not compile:\n\(error)")
            }
        }
        if let seed = project.seed {
            let (name, text) = try Self.contents(of: seed, default: "seed")
            do { _ = try SeedLoader.load(Data(text.utf8), into: state.database(DatabaseID(project: project.id))) } catch {
                throw .data("\(name): \(error.message)")
            }
        }
    }

    /// An input's name (for messages) and text.
    private static func contents(of input: EmulatorConfiguration.Input, default name: String) throws(EmulatorConfiguration.Problem) -> (String, String) {
        switch input {
        case .contents(let text): return (name, text)
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw .data("cannot read \(path)")
            }
            return (path, text)
        }
    }

    /// The documented apps of the checkout `documentedApps` names: each `Seeds/<app>/` as
    /// project `demo-<app>`, with its indexes and, when `Rules/<app>.rules` exists, its rules
    /// (a rules file that does not compile is reported and skipped).
    private func loadDocumentedApps() throws(EmulatorConfiguration.Problem) {
        guard let root = configuration.documentedApps else { return }
        let fm = FileManager.default
        let seeds = (root as NSString).appendingPathComponent("Seeds")
        guard let apps = try? fm.contentsOfDirectory(atPath: seeds).sorted(), !apps.isEmpty else {
            throw .data("no documented apps at \(seeds) (they ship with Hearth's source checkout)")
        }
        var rows: [(String, Int, String)] = []
        for app in apps {
            let project = "demo-\(app)"
            let rulesFile = loadAppRules((root as NSString).appendingPathComponent("Rules/\(app).rules"), project: project)
            let folder = (seeds as NSString).appendingPathComponent(app)
            if let idx = fm.contents(atPath: folder + "/firestore.indexes.json"), let config = try? IndexConfiguration(json: idx) {
                state.setIndexes(config, forProject: project)
            }
            guard let data = fm.contents(atPath: folder + "/documents.json") else { continue }
            do {
                rows.append((project, try SeedLoader.load(data, into: state.database(DatabaseID(project: project))), rulesFile ?? "none (all allowed)"))
            } catch {
                configuration.output.warning("\(folder)/documents.json: \(error.message)")
            }
        }
        func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: n, withPad: " ", startingAt: 0) }
        configuration.output.line(pad("project", 28) + pad("documents", 12) + "rules")
        for (p, n, r) in rows { configuration.output.line(pad(p, 28) + pad(String(n), 12) + r) }
    }

    /// Loads an app's rules for `project`; returns the file's path when they are enforced.
    private func loadAppRules(_ path: String, project: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), let source = String(data: data, encoding: .utf8) else { return nil }
        do {
            state.rules.set(try ProjectRules(ProjectRules.File(name: path, content: source)), forProject: project)
            return path
        } catch {
            configuration.output.warning("\(path) does not compile; \(project) runs without rules:\n\(error)")
            return nil
        }
    }

    /// The checkout this binary was built from, when it is still there: where `--demo-apps`
    /// finds the documented apps wherever `hearth` runs. (`#filePath` is this file's path at
    /// build time: Sources/HearthServer/Server/EmulatorInstance.swift.)
    public static var sourceCheckout: String? {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let seeds = url.appendingPathComponent("Seeds").path
        return FileManager.default.fileExists(atPath: seeds) ? url.path : nil
    }
}
