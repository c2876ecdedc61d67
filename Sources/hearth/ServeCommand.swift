// `hearth serve`: the emulator process.
import Foundation
import HearthCore
import HearthServer
import HearthTransport
#if canImport(Glibc)
import Glibc
#endif

enum ServeCommand {
    static var usage: String { mainUsage + "\n\nServer budgets (docs/server.md; sizes in bytes or with K, M or G):\n" + ServerLimitFlags.usage }

    private static let mainUsage = """
        usage: hearth serve [--host H] [--port N] [--host-port H:N] [--project P] [--seed FILE]
                            [--indexes FILE] [--index-mode enforce|warn|off|learn] [--ready-file PATH]
                            [--rules FILE] [--workspace DIR] [--config firebase.json]
                            [--data-dir DIR [--truncate-damaged-log] [--compact-after SIZE]] [--import PATH]
                            [--export-on-exit DIR] [--history-limit SIZE]
                            [--console-port N | --no-console] [budget flags below]
          --host        address to bind (default 127.0.0.1; 0.0.0.0 for all interfaces)
          --port        port (default 8080; 0 picks a free one)
          --host-port   both at once, as gcloud spells it (localhost:8080, [::1]:8080)
          --project     project id the seed, rules and Hearth JSON imports are for (default
                        demo-hearth, or .firebaserc's default beside --config); given, an
                        export is imported into it too (else into its own project)
          --data-dir    keep every database in DIR: each acknowledged commit is on disk, and
                        a restart brings everything back (one process per DIR)
          --truncate-damaged-log  start even when a log file in --data-dir is damaged before
                        later data, keeping what precedes the damage (the rest is lost)
          --compact-after  fold the log of --data-dir into a snapshot, in the background,
                        once it grows past SIZE (default 64M; bytes, or K/M/G)
          --import      load an export at start-up: the official emulator's or gcloud's
                        export folder or .overall_export_metadata file, a firebase-tools
                        export folder, or a Hearth JSON file (alias --import-data)
          --export-on-exit  on exit, write every database as a firebase-tools export folder
                        at DIR, replacing the old one only once the new one is complete
          --config      firebase.json: its firestore rules and indexes (per database in the
                        list form) and emulators.firestore host and port
          --seed        Hearth JSON documents (docs/formats.md) to load at start-up
          --indexes     firestore.indexes.json declaring composite indexes
          --index-mode  what a query missing a composite index does
          --ready-file  write host:port to PATH once listening
          --rules       Firestore security rules enforced for --project (all its databases)
          --workspace   a project folder: its firestore.rules, firestore.indexes.json and
                        documents.json (each where present) for --project
          --history-limit  memory for past document versions (reads at an earlier read
                        time, one hour kept); past it the oldest go first and a read older
                        than what is left gets FAILED_PRECONDITION (default 128MiB;
                        bytes, or K/M/G)
          --console-port  port of the web console at /ui/ (default 4000, or a free port
                        when 4000 is taken; 0 picks a free one)
          --no-console  do not serve the console

        With no --seed/--indexes/--rules in a checkout with Seeds/<app>/, every documented app
        is loaded as project demo-<app>, with Rules/<app>.rules when present.
        """

    /// Runs until SIGINT/SIGTERM or `POST /shutdown`; returns the exit status (0; 1 for a
    /// problem with the user's files or data; 2 for a flag that is wrong).
    static func run(_ args: [String]) -> Int32 {
        do throws(Failure) {
            var options = try Options.parse(args)
            if options.showHelp { print(usage); return 0 }
            try options.takeWorkspaceFiles()
            let config = try options.takeFirebaseConfig()
            let indexes = try readIndexes(options.indexes)
            // The data directory opens before anything listens: damage stops start-up here.
            let store = try openDataDirectory(options)
            defer { store?.close() }  // on every failure below too (closing twice is harmless)
            let state = EmulatorState(indexes: indexes, indexMode: options.indexMode, historyLimit: options.historyLimit, store: store)
            try applyFirebaseConfig(config, options, to: state)
            try applyRules(options, to: state)
            try importData(options, into: state)
            try loadSeed(options, hasConfig: config != nil, into: state)
            let server = try startServers(options, state)
            waitForStop(server, readyFile: options.readyFile)
            let status = exportOnExit(options, state)
            store?.close()
            print("hearth serve: stopped")
            return status
        } catch {
            return error.report()
        }
    }

    /// Why start-up stopped: a flag (exit 2, with the usage) or the user's files and data
    /// (exit 1, no usage text: the flags were fine).
    enum Failure: Error {
        case usage(String)
        case data(String)

        func report() -> Int32 {
            switch self {
            case .usage(let message):
                FileHandle.standardError.write(Data("hearth serve: \(message)\n\n\(ServeCommand.usage)\n".utf8))
                return 2
            case .data(let message):
                FileHandle.standardError.write(Data("hearth serve: \(message)\n".utf8))
                return 1
            }
        }
    }

    /// The command line, parsed; `--workspace` and `--config` fill what the flags left open.
    struct Options {
        var showHelp = false
        var host = "127.0.0.1", port = 8080, project = "demo-hearth"
        var seed: String?, indexes: String?, indexMode: IndexMode?, readyFile: String?
        var rules: String?, workspace: String?
        var historyLimit = VersionHistoryBudget.defaultLimit
        var consolePort: Int?, console = true
        var limits = HTTPLimits()
        var compactAfter = DurableStore.Options().compactionThreshold
        var dataDir: String?, truncateDamagedLog = false, importPath: String?, exportOnExit: String?, configFile: String?
        var explicitProject: String?, explicitHost = false, explicitPort = false

        /// Flags that take no value.
        private static let switches: Set<String> = ["-h", "--help", "--no-console", "--truncate-damaged-log"]
        /// Flags that take one (besides the budget flags).
        private static let valued: Set<String> = [
            "--host", "--port", "--host-port", "--project", "--data-dir", "--compact-after", "--import", "--import-data",
            "--export-on-exit", "--config", "--seed", "--indexes", "--index-mode", "--ready-file", "--rules", "--workspace",
            "--history-limit", "--console-port",
        ]

        static func parse(_ arguments: [String]) throws(Failure) -> Options {
            // gcloud writes `--flag=value`; both spellings are accepted.
            let args = arguments.flatMap { arg -> [String] in
                guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") else { return [arg] }
                return [String(arg[..<eq]), String(arg[arg.index(after: eq)...])]
            }
            var options = Options()
            var i = 0
            while i < args.count {
                let flag = args[i]
                if switches.contains(flag) {
                    options.set(flag)
                    i += 1
                    continue
                }
                guard valued.contains(flag) || ServerLimitFlags.handles(flag) else {
                    throw .usage(flag.hasPrefix("-") ? "unknown flag '\(flag)'" : "unexpected argument '\(flag)' (serve takes only flags)")
                }
                guard i + 1 < args.count else { throw .usage("\(flag) needs a value") }
                try options.set(flag, args[i + 1])
                i += 2
            }
            return options
        }

        private mutating func set(_ flag: String) {
            switch flag {
            case "--no-console": console = false
            case "--truncate-damaged-log": truncateDamagedLog = true
            default: showHelp = true
            }
        }

        private mutating func set(_ flag: String, _ v: String) throws(Failure) {
            switch flag {
            case "--host": host = v; explicitHost = true
            case "--port":
                guard let p = Int(v), (0...65535).contains(p) else { throw .usage("--port must be 0…65535, got '\(v)'") }
                port = p
                explicitPort = true
            case "--host-port":
                guard let colon = v.lastIndex(of: ":"), let p = Int(v[v.index(after: colon)...]), (0...65535).contains(p) else {
                    throw .usage("--host-port must be HOST:PORT, got '\(v)'")
                }
                let h = String(v[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                if !h.isEmpty { host = h == "localhost" ? "127.0.0.1" : h }
                port = p
                explicitHost = true
                explicitPort = true
            case "--project": project = v; explicitProject = v
            case "--data-dir": dataDir = v
            case "--compact-after":
                guard let n = ByteSize.parse(v), n > 0 else { throw .usage("--compact-after must be a size (bytes, or with K, M or G), got '\(v)'") }
                compactAfter = n
            case "--import", "--import-data": importPath = v
            case "--export-on-exit": exportOnExit = v
            case "--config": configFile = v
            case "--seed": seed = v
            case "--indexes": indexes = v
            case "--index-mode":
                switch v {
                case "enforce": indexMode = .enforce
                case "warn": indexMode = .warn
                case "off": indexMode = .off
                case "learn": indexMode = .learn
                default: throw .usage("--index-mode must be enforce, warn, off or learn, got '\(v)'")
                }
            case "--ready-file": readyFile = v
            case "--rules": rules = v
            case "--workspace": workspace = v
            case "--history-limit":
                guard let n = ByteSize.parse(v) else { throw .usage("--history-limit must be a size (bytes, or with K, M or G), got '\(v)'") }
                historyLimit = n
            case "--console-port":
                guard let p = Int(v), (0...65535).contains(p) else { throw .usage("--console-port must be 0…65535, got '\(v)'") }
                consolePort = p
            default:
                if let problem = ServerLimitFlags.apply(flag, v, to: &limits) { throw .usage(problem) }
            }
        }

        /// A Firebase project folder: its rules, indexes and seed documents, where present,
        /// for --project (explicit flags win).
        mutating func takeWorkspaceFiles() throws(Failure) {
            guard let workspace else { return }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: workspace, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw .usage("--workspace \(workspace) is not a directory")
            }
            func file(_ name: String) -> String? {
                let path = (workspace as NSString).appendingPathComponent(name)
                return FileManager.default.fileExists(atPath: path) ? path : nil
            }
            rules = rules ?? file("firestore.rules")
            indexes = indexes ?? file("firestore.indexes.json")
            seed = seed ?? file("documents.json")
            if rules == nil && indexes == nil && seed == nil {
                throw .usage("--workspace \(workspace) has none of firestore.rules, firestore.indexes.json, documents.json")
            }
        }

        /// firebase.json: host and port unless given (and the project from `.firebaserc`
        /// beside it); each database's rules and indexes are applied later.
        mutating func takeFirebaseConfig() throws(Failure) -> FirebaseConfig? {
            guard let configFile else { return nil }
            let config: FirebaseConfig
            do { config = try FirebaseConfig.load(configFile) } catch { throw .data(error.message) }
            if !explicitHost, let h = config.host { host = h == "localhost" ? "127.0.0.1" : h }
            if !explicitPort, let p = config.port { port = p }
            if explicitProject == nil, let p = ServeCommand.defaultProject(besides: configFile) { project = p }
            return config
        }
    }

    private static func readIndexes(_ path: String?) throws(Failure) -> IndexConfiguration? {
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .data("cannot read \(path)") }
        do { return try IndexConfiguration(json: data) } catch { throw .data("\(path): \(error.message)") }
    }

    private static func openDataDirectory(_ o: Options) throws(Failure) -> DurableStore? {
        guard let dataDir = o.dataDir else { return nil }
        let store: DurableStore
        do {
            store = try DurableStore.open(directory: dataDir, options: .init(compactionThreshold: o.compactAfter, truncateDamagedLog: o.truncateDamagedLog,
                notice: { FileHandle.standardError.write(Data("hearth serve: \($0)\n".utf8)) }))
        } catch {
            throw .data("cannot open the data directory: \(error.message)")
        }
        print("hearth serve: data directory \(dataDir): \(store.recoveryReport)")
        return store
    }

    /// firebase.json's rules and indexes, where no flag gave them: the single form is the
    /// project's (every database, as the official emulator applies it); the list form gives
    /// each database its own.
    private static func applyFirebaseConfig(_ config: FirebaseConfig?, _ o: Options, to state: EmulatorState) throws(Failure) {
        guard let config, let configFile = o.configFile else { return }
        let perDatabase = config.isListForm
        for entry in config.databases {
            let id = DatabaseID(project: o.project, database: entry.database)
            if let file = entry.indexes, o.indexes == nil {
                guard let data = FileManager.default.contents(atPath: file) else { throw .data("cannot read \(file), which \(configFile) names") }
                let parsed: IndexConfiguration
                do { parsed = try IndexConfiguration(json: data) } catch { throw .data("\(file): \(error.message)") }
                if perDatabase { state.setIndexes(parsed, forDatabase: id) } else { state.setIndexes(parsed, forProject: o.project) }
            }
            if let file = entry.rules, o.rules == nil {
                let loaded = try compileRules(file, namedBy: configFile)
                if perDatabase { state.rules.set(loaded, forDatabase: id) } else { state.rules.set(loaded, forProject: o.project) }
                print("enforcing security rules from \(file) for \(perDatabase ? id.name : "projects/\(o.project)")")
            }
        }
    }

    private static func applyRules(_ o: Options, to state: EmulatorState) throws(Failure) {
        guard let rules = o.rules else { return }
        state.rules.set(try compileRules(rules, namedBy: nil), forProject: o.project)
        print("enforcing security rules from \(rules) for projects/\(o.project)")
    }

    /// Compiles a rules file, printing its warnings.
    private static func compileRules(_ file: String, namedBy configFile: String?) throws(Failure) -> ProjectRules {
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

    private static func importData(_ o: Options, into state: EmulatorState) throws(Failure) {
        guard let importPath = o.importPath else { return }
        let progress = ProgressLine("importing \(importPath)")
        do {
            let summary = try state.importData(importPath, project: o.explicitProject ?? (isHearthJSON(importPath) ? o.project : nil),
                                               progress: { progress.update($0) })
            progress.finish("imported \(summary.documents) documents from \(importPath) in \(String(format: "%.1f", summary.seconds)) s"
                + summary.perDatabase.keys.sorted(by: { $0.name < $1.name }).map { " — \($0.name): \(summary.perDatabase[$0]!)" }.joined()
                + (summary.skipped > 0 ? " (\(summary.skipped) entities in a Datastore namespace skipped)" : ""))
        } catch {
            progress.abandon()
            throw .data("cannot import \(importPath): \(error.message)")
        }
    }

    /// `--seed`; with no data flags at all, the checkout's documented apps.
    private static func loadSeed(_ o: Options, hasConfig: Bool, into state: EmulatorState) throws(Failure) {
        guard let seed = o.seed else {
            if o.indexes == nil && o.rules == nil && !hasConfig && o.dataDir == nil && o.importPath == nil { loadDocumentedApps(state) }
            return
        }
        guard let data = FileManager.default.contents(atPath: seed) else { throw .data("cannot read \(seed)") }
        do {
            let n = try SeedLoader.load(data, into: state.database(DatabaseID(project: o.project)))
            print("loaded \(n) documents from \(seed) into projects/\(o.project)/databases/(default)")
        } catch { throw .data("\(seed): \(error.message)") }
    }

    /// The emulator's port (REST, gRPC, WebChannel) and, unless --no-console, the console's.
    private static func startServers(_ o: Options, _ state: EmulatorState) throws(Failure) -> EmulatorServer {
        // Signals are handled on a dispatch source, so the default handlers must be off.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let server: EmulatorServer
        do {
            server = try EmulatorServer(host: o.host, port: o.port, state: state, limits: o.limits)
        } catch {
            throw .data("cannot listen on \(o.host):\(o.port): \(error)")
        }
        guard o.console else { return server }
        // The official emulator's UI port by default; when another emulator holds it, any
        // free port (an explicit --console-port must be free).
        let consoleServer: ConsoleServer
        let info = ConsoleServer.Info(emulatorAddress: server.address)
        do {
            consoleServer = try ConsoleServer(host: o.host, port: o.consolePort ?? 4000, state: state, info: info)
        } catch {
            guard o.consolePort == nil, let fallback = try? ConsoleServer(host: o.host, port: 0, state: state, info: info) else {
                server.stop()
                throw .data("cannot listen on \(o.host):\(o.consolePort ?? 4000) for the console: \(error)")
            }
            consoleServer = fallback
        }
        server.onStop { consoleServer.stop() }
        print("hearth serve: console at \(consoleServer.url)")
        return server
    }

    /// Announces the address (stdout and --ready-file) and blocks until SIGINT, SIGTERM or
    /// `POST /shutdown` stops the server.
    private static func waitForStop(_ server: EmulatorServer, readyFile: String?) {
        let done = DispatchSemaphore(value: 0)
        server.onStop { done.signal() }
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { server.stop() }
            source.resume()
            sources.append(source)
        }
        print("hearth serve: Firestore REST and gRPC APIs listening on \(server.address)")
        print("export FIRESTORE_EMULATOR_HOST=\(server.address)")
        fflush(nil)
        if let readyFile {
            do { try Data((server.address + "\n").utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic) }
            catch { FileHandle.standardError.write(Data("hearth serve: cannot write \(readyFile): \(error)\n".utf8)) }
        }
        done.wait()
        withExtendedLifetime(sources) {}
    }

    /// --export-on-exit; the exit status (1 when the export failed and the old one was kept).
    private static func exportOnExit(_ o: Options, _ state: EmulatorState) -> Int32 {
        guard let exportOnExit = o.exportOnExit else { return 0 }
        let progress = ProgressLine("exporting to \(exportOnExit)")
        do {
            let summary = try state.exportAll(to: exportOnExit, progress: { progress.update($0) })
            progress.finish("exported \(summary.documents) documents to \(exportOnExit)")
            return 0
        } catch {
            progress.abandon()
            FileHandle.standardError.write(Data("hearth serve: --export-on-exit failed; \(exportOnExit) keeps its previous contents: \(error.message)\n".utf8))
            return 1
        }
    }

    /// The default project in `.firebaserc` beside a firebase.json, as firebase-tools uses it.
    private static func defaultProject(besides configFile: String) -> String? {
        let rc = ((configFile as NSString).deletingLastPathComponent as NSString).appendingPathComponent(".firebaserc")
        guard let data = FileManager.default.contents(atPath: rc), let json = try? JSON.parse(Array(data)) else { return nil }
        return json["projects"]?["default"]?.stringValue
    }

    private static func isHearthJSON(_ path: String) -> Bool {
        if case .hearthJSON? = try? ImportSource.locate(path) { return true }
        return false
    }

    /// With no data flags in a checkout with `Seeds/<app>/documents.json`, each documented
    /// app is loaded as project `demo-<app>`, with its security rules from `Rules/<app>.rules`
    /// when that file exists (a file that does not compile is reported and skipped).
    private static func loadDocumentedApps(_ state: EmulatorState) {
        let fm = FileManager.default
        guard let apps = try? fm.contentsOfDirectory(atPath: "Seeds").sorted(), !apps.isEmpty else { return }
        var rows: [(String, Int, String)] = []
        for app in apps {
            let project = "demo-\(app)"
            let rulesFile = loadRules(app: app, project: project, into: state)
            if let idx = fm.contents(atPath: "Seeds/\(app)/firestore.indexes.json"), let config = try? IndexConfiguration(json: idx) {
                state.setIndexes(config, forProject: project)
            }
            guard let data = fm.contents(atPath: "Seeds/\(app)/documents.json") else { continue }
            do {
                rows.append((project, try SeedLoader.load(data, into: state.database(DatabaseID(project: project))), rulesFile ?? "none (all allowed)"))
            } catch {
                FileHandle.standardError.write(Data("hearth serve: Seeds/\(app)/documents.json: \(error.message)\n".utf8))
            }
        }
        guard !rows.isEmpty else { return }
        func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: n, withPad: " ", startingAt: 0) }
        print(pad("project", 28) + pad("documents", 12) + "rules")
        for (p, n, r) in rows { print(pad(p, 28) + pad(String(n), 12) + r) }
    }

    /// Loads `Rules/<app>.rules` for `project`; returns the file's path when it is enforced.
    private static func loadRules(app: String, project: String, into state: EmulatorState) -> String? {
        let path = "Rules/\(app).rules"
        guard let data = FileManager.default.contents(atPath: path), let source = String(data: data, encoding: .utf8) else { return nil }
        do {
            state.rules.set(try ProjectRules(ProjectRules.File(name: path, content: source)), forProject: project)
            return path
        } catch {
            FileHandle.standardError.write(Data("hearth serve: \(path) does not compile; \(project) runs without rules:\n\(error)\n".utf8))
            return nil
        }
    }
}
