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

    /// Runs until SIGINT/SIGTERM or `POST /shutdown`; returns the exit status.
    static func run(_ args: [String]) -> Int32 {
        var host = "127.0.0.1", port = 8080, project = "demo-hearth"
        var seed: String?, indexes: String?, indexMode: IndexMode?, readyFile: String?
        var rules: String?, workspace: String?
        var historyLimit = VersionHistoryBudget.defaultLimit
        var consolePort: Int?, console = true
        var limits = HTTPLimits()
        var compactAfter = DurableStore.Options().compactionThreshold
        var dataDir: String?, truncateDamagedLog = false, importPath: String?, exportOnExit: String?, configFile: String?
        var explicitProject: String?, explicitHost = false, explicitPort = false
        // gcloud writes `--flag=value`; both spellings are accepted.
        let args = args.flatMap { arg -> [String] in
            guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") else { return [arg] }
            return [String(arg[..<eq]), String(arg[arg.index(after: eq)...])]
        }
        var i = 0
        func value() -> String? {
            i += 1
            return i < args.count ? args[i] : nil
        }
        while i < args.count {
            let flag = args[i]
            if flag == "--no-console" { console = false; i += 1; continue }
            if flag == "--truncate-damaged-log" { truncateDamagedLog = true; i += 1; continue }
            guard let v = flag == "-h" || flag == "--help" ? "" : value() else { return fail("\(flag) needs a value") }
            switch flag {
            case "-h", "--help": print(usage); return 0
            case "--host": host = v; explicitHost = true
            case "--port":
                guard let p = Int(v), (0...65535).contains(p) else { return fail("--port must be 0…65535, got '\(v)'") }
                port = p
                explicitPort = true
            case "--host-port":
                guard let colon = v.lastIndex(of: ":"), let p = Int(v[v.index(after: colon)...]), (0...65535).contains(p) else {
                    return fail("--host-port must be HOST:PORT, got '\(v)'")
                }
                let h = String(v[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                if !h.isEmpty { host = h == "localhost" ? "127.0.0.1" : h }
                port = p
                explicitHost = true
                explicitPort = true
            case "--project": project = v; explicitProject = v
            case "--data-dir": dataDir = v
            case "--compact-after":
                guard let n = ByteSize.parse(v), n > 0 else { return fail("--compact-after must be a size (bytes, or with K, M or G), got '\(v)'") }
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
                default: return fail("--index-mode must be enforce, warn, off or learn, got '\(v)'")
                }
            case "--ready-file": readyFile = v
            case "--rules": rules = v
            case "--workspace": workspace = v
            case "--history-limit":
                guard let n = ByteSize.parse(v) else { return fail("--history-limit must be a size (bytes, or with K, M or G), got '\(v)'") }
                historyLimit = n
            case "--console-port":
                guard let p = Int(v), (0...65535).contains(p) else { return fail("--console-port must be 0…65535, got '\(v)'") }
                consolePort = p
            default:
                guard ServerLimitFlags.handles(flag) else { return fail("unknown flag '\(flag)'") }
                if let problem = ServerLimitFlags.apply(flag, v, to: &limits) { return fail(problem) }
            }
            i += 1
        }
        if let workspace {
            // A Firebase project folder: its rules, indexes and seed documents, where present,
            // for --project (explicit flags win).
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: workspace, isDirectory: &isDirectory), isDirectory.boolValue else {
                return fail("--workspace \(workspace) is not a directory")
            }
            func file(_ name: String) -> String? {
                let path = (workspace as NSString).appendingPathComponent(name)
                return FileManager.default.fileExists(atPath: path) ? path : nil
            }
            rules = rules ?? file("firestore.rules")
            indexes = indexes ?? file("firestore.indexes.json")
            seed = seed ?? file("documents.json")
            if rules == nil && indexes == nil && seed == nil {
                return fail("--workspace \(workspace) has none of firestore.rules, firestore.indexes.json, documents.json")
            }
        }
        // firebase.json: host and port unless given, and each database's rules and indexes.
        var config: FirebaseConfig?
        if let configFile {
            do { config = try FirebaseConfig.load(configFile) } catch { return failData(error.message) }
            if !explicitHost, let h = config?.host { host = h == "localhost" ? "127.0.0.1" : h }
            if !explicitPort, let p = config?.port { port = p }
            if explicitProject == nil, let p = defaultProject(besides: configFile) { project = p }
        }
        var configuration: IndexConfiguration?
        if let indexes {
            guard let data = FileManager.default.contents(atPath: indexes) else { return fail("cannot read \(indexes)") }
            do { configuration = try IndexConfiguration(json: data) } catch { return fail("\(indexes): \(error.message)") }
        }
        // The data directory opens before anything listens: damage stops start-up here.
        var store: DurableStore?
        if let dataDir {
            do {
                store = try DurableStore.open(directory: dataDir, options: .init(compactionThreshold: compactAfter, truncateDamagedLog: truncateDamagedLog,
                    notice: { FileHandle.standardError.write(Data("hearth serve: \($0)\n".utf8)) }))
            } catch {
                return failData("cannot open the data directory: \(error.message)")
            }
            print("hearth serve: data directory \(dataDir): \(store!.recoveryReport)")
        }
        let state = EmulatorState(indexes: configuration, indexMode: indexMode, historyLimit: historyLimit, store: store)
        // Everything below that fails must release the data directory.
        func failAfterOpen(_ message: String) -> Int32 {
            store?.close()
            return failData(message)
        }
        for entry in config?.databases ?? [] {
            // The single form is the project's (every database, as the official emulator
            // applies it); the list form gives each database its own.
            let id = DatabaseID(project: project, database: entry.database)
            let perDatabase = config?.isListForm == true
            if let file = entry.indexes, indexes == nil {
                guard let data = FileManager.default.contents(atPath: file) else { return failAfterOpen("cannot read \(file), which \(configFile!) names") }
                do {
                    let parsed = try IndexConfiguration(json: data)
                    if perDatabase { state.setIndexes(parsed, forDatabase: id) } else { state.setIndexes(parsed, forProject: project) }
                } catch {
                    return failAfterOpen("\(file): \(error.message)")
                }
            }
            if let file = entry.rules, rules == nil {
                guard let source = FileManager.default.contents(atPath: file).flatMap({ String(data: $0, encoding: .utf8) }) else {
                    return failAfterOpen("cannot read \(file), which \(configFile!) names")
                }
                do {
                    let loaded = try ProjectRules(ProjectRules.File(name: file, content: source))
                    for w in loaded.diagnostics { FileHandle.standardError.write(Data("\(w)\n".utf8)) }
                    if perDatabase { state.rules.set(loaded, forDatabase: id) } else { state.rules.set(loaded, forProject: project) }
                    print("enforcing security rules from \(file) for \(perDatabase ? id.name : "projects/\(project)")")
                } catch {
                    return failAfterOpen("\(file) does not compile:\n\(error)")
                }
            }
        }
        if let rules {
            guard let source = FileManager.default.contents(atPath: rules).flatMap({ String(data: $0, encoding: .utf8) }) else {
                return fail("cannot read \(rules)")
            }
            do {
                let loaded = try ProjectRules(ProjectRules.File(name: rules, content: source))
                for w in loaded.diagnostics { FileHandle.standardError.write(Data("\(w)\n".utf8)) }
                state.rules.set(loaded, forProject: project)
                print("enforcing security rules from \(rules) for projects/\(project)")
            } catch {
                return failAfterOpen("\(rules) does not compile:\n\(error)")
            }
        }
        if let importPath {
            let progress = ProgressLine("importing \(importPath)")
            do {
                let summary = try state.importData(importPath, project: explicitProject ?? (isHearthJSON(importPath) ? project : nil),
                                                   progress: { progress.update($0) })
                progress.finish("imported \(summary.documents) documents from \(importPath) in \(String(format: "%.1f", summary.seconds)) s"
                    + summary.perDatabase.keys.sorted(by: { $0.name < $1.name }).map { " — \($0.name): \(summary.perDatabase[$0]!)" }.joined()
                    + (summary.skipped > 0 ? " (\(summary.skipped) entities in a Datastore namespace skipped)" : ""))
            } catch {
                progress.abandon()
                return failAfterOpen("cannot import \(importPath): \(error.message)")
            }
        }
        if let seed {
            guard let data = FileManager.default.contents(atPath: seed) else { return failAfterOpen("cannot read \(seed)") }
            do {
                let n = try SeedLoader.load(data, into: state.database(DatabaseID(project: project)))
                print("loaded \(n) documents from \(seed) into projects/\(project)/databases/(default)")
            } catch { return failAfterOpen("\(seed): \(error.message)") }
        } else if indexes == nil && rules == nil && config == nil && dataDir == nil && importPath == nil {
            loadDocumentedApps(state)
        }

        // Signals are handled on a dispatch source, so the default handlers must be off.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let server: EmulatorServer
        do {
            server = try EmulatorServer(host: host, port: port, state: state, limits: limits)
        } catch {
            return failAfterOpen("cannot listen on \(host):\(port): \(error)")
        }
        if console {
            // The official emulator's UI port by default; when another emulator holds it, any
            // free port (an explicit --console-port must be free).
            let consoleServer: ConsoleServer
            let info = ConsoleServer.Info(emulatorAddress: server.address)
            do {
                consoleServer = try ConsoleServer(host: host, port: consolePort ?? 4000, state: state, info: info)
            } catch {
                guard consolePort == nil, let fallback = try? ConsoleServer(host: host, port: 0, state: state, info: info) else {
                    server.stop()
                    return failAfterOpen("cannot listen on \(host):\(consolePort ?? 4000) for the console: \(error)")
                }
                consoleServer = fallback
            }
            server.onStop { consoleServer.stop() }
            print("hearth serve: console at \(consoleServer.url)")
        }
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
        _ = sources
        var status: Int32 = 0
        if let exportOnExit {
            let progress = ProgressLine("exporting to \(exportOnExit)")
            do {
                let summary = try state.exportAll(to: exportOnExit, progress: { progress.update($0) })
                progress.finish("exported \(summary.documents) documents to \(exportOnExit)")
            } catch {
                progress.abandon()
                FileHandle.standardError.write(Data("hearth serve: --export-on-exit failed; \(exportOnExit) keeps its previous contents: \(error.message)\n".utf8))
                status = 1
            }
        }
        store?.close()
        print("hearth serve: stopped")
        return status
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

    /// A problem with the user's files or data (no usage text: the flags were fine).
    private static func failData(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("hearth serve: \(message)\n".utf8))
        return 1
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("hearth serve: \(message)\n\n\(usage)\n".utf8))
        return 2
    }
}
