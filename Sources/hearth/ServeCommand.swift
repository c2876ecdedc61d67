// `hearth serve`: the emulator process (issue 7).
import Foundation
import HearthCore
import HearthServer
#if canImport(Glibc)
import Glibc
#endif

enum ServeCommand {
    static let usage = """
        usage: hearth serve [--host H] [--port N] [--project P] [--seed FILE] [--indexes FILE]
                            [--index-mode enforce|warn|off|learn] [--ready-file PATH]
                            [--rules FILE] [--workspace DIR] [--history-limit SIZE]
                            [--console-port N | --no-console]
          --host        address to bind (default 127.0.0.1; 0.0.0.0 for all interfaces)
          --port        port (default 8080; 0 picks a free one)
          --project     project id the seed is loaded into (default demo-hearth)
          --seed        Hearth JSON documents (DESIGN.md) to load at start-up
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
        var i = 0
        func value() -> String? {
            i += 1
            return i < args.count ? args[i] : nil
        }
        while i < args.count {
            let flag = args[i]
            if flag == "--no-console" { console = false; i += 1; continue }
            guard let v = flag == "-h" || flag == "--help" ? "" : value() else { return fail("\(flag) needs a value") }
            switch flag {
            case "-h", "--help": print(usage); return 0
            case "--host": host = v
            case "--port":
                guard let p = Int(v), (0...65535).contains(p) else { return fail("--port must be 0…65535, got '\(v)'") }
                port = p
            case "--project": project = v
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
            default: return fail("unknown flag '\(flag)'")
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
        var configuration: IndexConfiguration?
        if let indexes {
            guard let data = FileManager.default.contents(atPath: indexes) else { return fail("cannot read \(indexes)") }
            do { configuration = try IndexConfiguration(json: data) } catch { return fail("\(indexes): \(error.message)") }
        }
        let state = EmulatorState(indexes: configuration, indexMode: indexMode, historyLimit: historyLimit)
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
                return fail("\(rules) does not compile:\n\(error)")
            }
        }
        if let seed {
            guard let data = FileManager.default.contents(atPath: seed) else { return fail("cannot read \(seed)") }
            do {
                let n = try SeedLoader.load(data, into: state.database(DatabaseID(project: project)))
                print("loaded \(n) documents from \(seed) into projects/\(project)/databases/(default)")
            } catch { return fail("\(seed): \(error.message)") }
        } else if indexes == nil && rules == nil {
            loadDocumentedApps(state)
        }

        // Signals are handled on a dispatch source, so the default handlers must be off.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let server: EmulatorServer
        do {
            server = try EmulatorServer(host: host, port: port, state: state)
        } catch {
            return fail("cannot listen on \(host):\(port): \(error)")
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
                    return fail("cannot listen on \(host):\(consolePort ?? 4000) for the console: \(error)")
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
        print("hearth serve: stopped")
        return 0
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

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("hearth serve: \(message)\n\n\(usage)\n".utf8))
        return 2
    }
}
