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
                            [--console-port N | --no-console] [--demo-apps] [--fault SPEC]...
                            [budget flags below]
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
          --rules       Firestore security rules for every project that has none of its own
                        (the official emulator's meaning; PUT :securityRules replaces them
                        for one project)
          --workspace   a project folder: its firestore.rules, firestore.indexes.json and
                        documents.json (each where present) for --project
          --history-limit  memory for past document versions (reads at an earlier read
                        time, one hour kept); past it the oldest go first and a read older
                        than what is left gets FAILED_PRECONDITION (default 128MiB;
                        bytes, or K/M/G)
          --console-port  port of the web console at /ui/ (default 4000, or a free port
                        when 4000 is taken; 0 picks a free one)
          --no-console  do not serve the console
          --fault       inject a fault from the start (repeatable; docs/faults.md), e.g.
                        'method=Commit,error=UNAVAILABLE,times=2' or
                        'method=Listen,dropAfter=3,probability=0.5,seed=7'; keys: project,
                        database, method, path, delay (ms), error, message, dropAfter,
                        reset, dropAnswer, once, times, always, probability, seed

          --demo-apps   load the documented apps (Seeds/<app>/ as project demo-<app>, with
                        Rules/<app>.rules) from the source checkout hearth was built from,
                        wherever hearth runs; nothing loads them unless asked
          --exit-on-stdin-eof  stop (after --export-on-exit) when standard input closes;
                        the Suite launcher uses it so Hearth never outlives its JVM
          --triggers-paused  start with Cloud Functions trigger delivery paused: events
                        queue until PUT /emulator/v1/triggers:config {"paused": false}

        The official emulator's flags, as firebase-tools passes them (each also as --flag=value):
          --project_id ID            = --project
          --seed_from_export PATH    = --import (into --project_id)
          --single_project_mode true|false  warn once per other project used
          --websocket_port N         the Emulator UI's Requests feed (ws://HOST:N/requests)
          --functions_emulator H:P   where Cloud Functions triggers are delivered
          --webchannel_port N        a second port, answering as --port does
          --database-edition standard|enterprise  both serve the same API here
          --database-mode, --export-name, --single_project_mode_error: accepted and
                        ignored with a note; --version and --licenses print and exit
        """

    /// Runs until SIGINT/SIGTERM, `POST /shutdown` or (with --exit-on-stdin-eof) the end of
    /// standard input; returns the exit status (0; 1 for a problem with the user's files or
    /// data; 2 for a flag that is wrong).
    static func run(_ args: [String]) -> Int32 {
        let parsed: Parsed
        do { parsed = try Parsed(args) } catch { return report(error) }
        switch parsed.action {
        case .help: print(usage); return 0
        case .version: print("hearth serve: a Firestore emulator speaking cloud-firestore-emulator's command line"); return 0
        case .licenses: print("hearth: no third-party code (Foundation, Dispatch, Synchronization and the C library only)"); return 0
        case .serve: break
        }
        let instance: EmulatorInstance
        do { instance = try EmulatorInstance(parsed.configuration) } catch { return report(error) }
        ignoreTerminationSignals()
        do { try instance.start() } catch {
            instance.close()
            return report(error)
        }
        let sources = stopOnSignals(instance)
        instance.waitUntilStopped()
        withExtendedLifetime(sources) {}
        let status = instance.finish()
        print("hearth serve: stopped")
        return status
    }

    /// A flag that is wrong: named, with the usage, exit 2. The user's files and data: named,
    /// no usage (the flags were fine), exit 1.
    static func report(_ problem: EmulatorConfiguration.Problem, command: String = "hearth serve", usage: String = usage) -> Int32 {
        switch problem {
        case .usage(let message):
            FileHandle.standardError.write(Data("\(command): \(message)\n\n\(usage)\n".utf8))
            return 2
        case .data(let message):
            FileHandle.standardError.write(Data("\(command): \(message)\n".utf8))
            return 1
        }
    }

    /// SIGINT and SIGTERM are handled on dispatch sources, so their default actions must be
    /// off; SIGPIPE too (a client that goes away must not end the process).
    static func ignoreTerminationSignals() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
    }

    /// SIGINT or SIGTERM stops the servers (the caller then exports and exits 0).
    static func stopOnSignals(_ instance: EmulatorInstance) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { sig in
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { instance.stop() }
            source.resume()
            return source
        }
    }

    /// The command line, parsed into an `EmulatorConfiguration` (`hearth exec` reads the same flags).
    struct Parsed {
        enum Action { case serve, help, version, licenses }
        var action = Action.serve
        var configuration = EmulatorConfiguration()

        /// Flags that take no value.
        private static let switches: Set<String> = [
            "-h", "--help", "--no-console", "--truncate-damaged-log", "--demo-apps", "--exit-on-stdin-eof", "--triggers-paused", "--version", "--licenses",
        ]
        /// Flags that take one (besides the budget flags).
        private static let valued: Set<String> = [
            "--host", "--port", "--host-port", "--project", "--data-dir", "--compact-after", "--import", "--import-data",
            "--export-on-exit", "--config", "--seed", "--indexes", "--index-mode", "--ready-file", "--rules", "--workspace",
            "--history-limit", "--console-port", "--fault",
            // The official emulator JAR's (cloud-firestore-emulator --help), as firebase-tools passes them.
            "--project_id", "--seed_from_export", "--websocket_port", "--webchannel_port", "--functions_emulator",
            "--database-edition", "--database-mode", "--export-name",
        ]
        /// The JAR's boolean flags: firebase-tools writes `--single_project_mode true` (two
        /// words); the value may also be left out, meaning true.
        private static let booleans: Set<String> = ["--single_project_mode", "--single_project_mode_error"]

        init(_ arguments: [String]) throws(EmulatorConfiguration.Problem) {
            // gcloud writes `--flag=value`; both spellings are accepted.
            let args = arguments.flatMap { arg -> [String] in
                guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") else { return [arg] }
                return [String(arg[..<eq]), String(arg[arg.index(after: eq)...])]
            }
            configuration.output.progress = { ProgressLine($0) }
            var i = 0
            while i < args.count {
                let flag = args[i]
                if Self.switches.contains(flag) {
                    try set(flag)
                    i += 1
                    continue
                }
                if Self.booleans.contains(flag) {
                    var value = true
                    if i + 1 < args.count, let v = ["true": true, "false": false][args[i + 1].lowercased()] {
                        value = v
                        i += 1
                    }
                    i += 1
                    if flag == "--single_project_mode" { configuration.singleProjectMode = value }
                    else { note("--single_project_mode_error is accepted and ignored: another project is only warned about") }
                    continue
                }
                guard Self.valued.contains(flag) || ServerLimitFlags.handles(flag) else {
                    throw .usage(flag.hasPrefix("-") ? "unknown flag '\(flag)'" : "unexpected argument '\(flag)' (serve takes only flags)")
                }
                guard i + 1 < args.count else { throw .usage("\(flag) needs a value") }
                try set(flag, args[i + 1])
                i += 2
            }
        }

        private func note(_ text: String) {
            FileHandle.standardError.write(Data("hearth serve: note: \(text)\n".utf8))
        }

        private mutating func set(_ flag: String) throws(EmulatorConfiguration.Problem) {
            switch flag {
            case "--no-console": configuration.console = false
            case "--truncate-damaged-log": configuration.truncateDamagedLog = true
            case "--demo-apps":
                guard let checkout = EmulatorInstance.sourceCheckout else {
                    throw .data("--demo-apps: the documented apps ship with Hearth's source checkout, which is not where this hearth was built")
                }
                configuration.documentedApps = checkout
            case "--exit-on-stdin-eof": configuration.exitOnStdinEOF = true
            case "--triggers-paused": configuration.triggersPaused = true
            case "--version": action = .version
            case "--licenses": action = .licenses
            default: action = .help
            }
        }

        private static func port(_ flag: String, _ v: String) throws(EmulatorConfiguration.Problem) -> Int {
            guard let p = Int(v), (0...65535).contains(p) else { throw .usage("\(flag) must be 0…65535, got '\(v)'") }
            return p
        }

        private mutating func set(_ flag: String, _ v: String) throws(EmulatorConfiguration.Problem) {
            switch flag {
            case "--host": configuration.host = v
            case "--port": configuration.port = try Self.port(flag, v)
            case "--host-port":
                guard let colon = v.lastIndex(of: ":"), let p = Int(v[v.index(after: colon)...]), (0...65535).contains(p) else {
                    throw .usage("--host-port must be HOST:PORT, got '\(v)'")
                }
                let h = String(v[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                configuration.host = h.isEmpty ? "127.0.0.1" : h == "localhost" ? "127.0.0.1" : h
                configuration.port = p
            case "--project", "--project_id":
                configuration.project = v
                configuration.projectIsExplicit = true
            case "--data-dir": configuration.dataDirectory = v
            case "--compact-after":
                guard let n = ByteSize.parse(v), n > 0 else { throw .usage("--compact-after must be a size (bytes, or with K, M or G), got '\(v)'") }
                configuration.compactAfter = n
            case "--import", "--import-data", "--seed_from_export": configuration.importPath = v
            case "--export-on-exit": configuration.exportOnExit = v
            case "--config": configuration.firebaseConfig = v
            case "--seed": configuration.seed = v
            case "--fault":
                do { configuration.faults.append(try FaultRule.parse(spec: v)) } catch { throw .usage("--fault: \(error.message)") }
            case "--indexes": configuration.indexes = v
            case "--index-mode":
                switch v {
                case "enforce": configuration.indexMode = .enforce
                case "warn": configuration.indexMode = .warn
                case "off": configuration.indexMode = .off
                case "learn": configuration.indexMode = .learn
                default: throw .usage("--index-mode must be enforce, warn, off or learn, got '\(v)'")
                }
            case "--ready-file": configuration.readyFile = v
            case "--rules": configuration.rules = v
            case "--workspace": configuration.workspace = v
            case "--history-limit":
                guard let n = ByteSize.parse(v) else { throw .usage("--history-limit must be a size (bytes, or with K, M or G), got '\(v)'") }
                configuration.historyLimit = n
            case "--console-port": configuration.consolePort = try Self.port(flag, v)
            case "--websocket_port": configuration.webSocketPort = try Self.port(flag, v)
            case "--webchannel_port": configuration.webChannelPort = try Self.port(flag, v)
            case "--functions_emulator":
                guard let colon = v.lastIndex(of: ":"), colon != v.startIndex, Int(v[v.index(after: colon)...]).map({ (1...65535).contains($0) }) == true else {
                    throw .usage("--functions_emulator must be HOST:PORT, got '\(v)'")
                }
                configuration.functionsEmulator = v
            case "--database-edition":
                guard let edition = EmulatorConfiguration.DatabaseEdition(rawValue: v) else {
                    throw .usage("--database-edition must be standard or enterprise, got '\(v)'")
                }
                configuration.databaseEdition = edition
            case "--database-mode", "--export-name":
                note("\(flag) \(v) is accepted and ignored (" + (flag == "--export-name"
                    ? "--export-on-exit writes a firebase-tools export folder)" : "Hearth serves Firestore in Native mode)"))
            default:
                if let problem = ServerLimitFlags.apply(flag, v, to: &configuration.limits) { throw .usage(problem) }
            }
        }
    }
}
