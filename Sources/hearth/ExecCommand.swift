// `hearth exec [serve flags] -- CMD ARGS…`: firebase-tools' `emulators:exec` without
// firebase-tools. Starts the emulator in this process, runs CMD with the variables
// emulators:exec gives its script (firebase-tools src/emulator/commandUtils.ts runScript and
// src/emulator/env.ts setEnvVarsForEmulators, v15.28.1), stops the emulator when CMD ends
// (running --export-on-exit) and exits with CMD's status.
import Foundation
import HearthServer
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum ExecCommand {
    static let usage = """
        usage: hearth exec [serve flags] -- CMD [ARGS…]

        Starts the emulator (any `hearth serve` flag; `hearth serve --help`), runs CMD with
          FIRESTORE_EMULATOR_HOST and FIREBASE_FIRESTORE_EMULATOR_ADDRESS  host:port ([v6]:port)
          GCLOUD_PROJECT   --project (default demo-hearth)
          FIREBASE_CONFIG  {"projectId",…} as firebase emulators:exec sets it, unless already set
        then stops the emulator (after --export-on-exit) and exits with CMD's status (128 + the
        signal when CMD was killed by one; 1 when CMD succeeded but the export failed).
        CMD runs directly, not through a shell (write `-- sh -c '…'` for one). Hearth's own
        lines go to stderr, so CMD's stdout is its own. SIGINT and SIGTERM are passed to CMD.
        """

    static func run(_ args: [String]) -> Int32 {
        guard let dashes = args.firstIndex(of: "--") else {
            if args.contains(where: { ["-h", "--help"].contains($0) }) { print(usage); return 0 }
            return usageError("put the command after --")
        }
        let command = Array(args[(dashes + 1)...])
        guard !command.isEmpty else { return usageError("which command? nothing follows --") }
        let parsed: ServeCommand.Parsed
        do { parsed = try ServeCommand.Parsed(Array(args[..<dashes])) } catch {
            return ServeCommand.report(error, command: "hearth exec", usage: usage)
        }
        if parsed.action == .help { print(usage); return 0 }
        var configuration = parsed.configuration
        // CMD's stdout stays CMD's: start-up lines go to stderr.
        let warning = configuration.output.warning
        configuration.output.line = { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) }
        configuration.output.warning = { warning($0) }
        configuration.output.progress = { _ in SummaryOnStandardError() }
        let instance: EmulatorInstance
        do { instance = try EmulatorInstance(configuration) } catch { return ServeCommand.report(error, command: "hearth exec", usage: usage) }
        ServeCommand.ignoreTerminationSignals()
        let server: EmulatorServer
        do { server = try instance.start() } catch {
            instance.close()
            return ServeCommand.report(error, command: "hearth exec", usage: usage)
        }
        let commandStatus = runCommand(command, environment: environment(for: instance.configuration, port: server.port), stopping: instance)
        instance.stop()
        instance.waitUntilStopped()
        let exportStatus = instance.finish()
        return commandStatus != 0 ? commandStatus : exportStatus
    }

    /// An import's or export's summary line, on stderr with Hearth's other lines.
    private struct SummaryOnStandardError: EmulatorProgress {
        func update(_ count: Int) {}
        func finish(_ summary: String) { FileHandle.standardError.write(Data("hearth: \(summary)\n".utf8)) }
        func abandon() {}
    }

    private static func usageError(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("hearth exec: \(message)\n\n\(usage)\n".utf8))
        return 2
    }

    /// The variables emulators:exec sets: the emulator's address in both spellings (a
    /// wildcard bind address becomes loopback, as firebase-tools' connectableHostname does;
    /// IPv6 in brackets), the project, and FIREBASE_CONFIG when the caller has none.
    static func environment(for configuration: EmulatorConfiguration, port: Int) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        var host = configuration.host ?? "127.0.0.1"
        if host == "0.0.0.0" { host = "127.0.0.1" } else if host == "::" { host = "::1" }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        env["FIRESTORE_EMULATOR_HOST"] = address
        env["FIREBASE_FIRESTORE_EMULATOR_ADDRESS"] = address
        let project = configuration.project
        env["GCLOUD_PROJECT"] = project
        if env["FIREBASE_CONFIG"] == nil {
            env["FIREBASE_CONFIG"] = #"{"projectId":"\#(project)","storageBucket":"\#(project).appspot.com","databaseURL":"https://\#(project).firebaseio.com"}"#
        }
        return env
    }

    /// Runs CMD (looked up on PATH), passing SIGINT and SIGTERM on, and returns its exit
    /// status (128 + the signal when one killed it); if the emulator stops first (POST
    /// /shutdown), CMD gets SIGTERM. 127 when CMD cannot be run, as a shell says. posix_spawn
    /// rather than Foundation's Process: CMD must start with SIGINT, SIGTERM and SIGPIPE at
    /// their defaults, which this process ignores (its dispatch sources handle them).
    private static func runCommand(_ command: [String], environment: [String: String], stopping instance: EmulatorInstance) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigemptyset(&empty)
        for sig in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var spawnedPID: pid_t = 0
        let spawned = posix_spawnp(&spawnedPID, command[0], nil, &attributes, argv, envp)
        let pid = spawnedPID
        guard spawned == 0 else {
            FileHandle.standardError.write(Data("hearth exec: cannot run \(command[0]): \(String(cString: strerror(spawned)))\n".utf8))
            return 127
        }
        let reaped = Atomic<Bool>(false)
        let sources = [SIGINT, SIGTERM].map { sig in
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { if !reaped.load(ordering: .acquiring) { kill(pid, sig) } }
            source.resume()
            return source
        }
        instance.server?.onStop { if !reaped.load(ordering: .acquiring) { kill(pid, SIGTERM) } }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped.store(true, ordering: .releasing)
        withExtendedLifetime(sources) {}
        // The wait status: low 7 bits the signal that ended it (0 when it exited), then the exit code.
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
