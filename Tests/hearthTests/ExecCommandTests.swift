import Foundation
import Testing

/// `hearth exec [serve flags] -- CMD ARGS…`: CMD's exit status, the variables it gets (as
/// firebase-tools' emulators:exec sets them), the server reachable while it runs and stopped
/// after, and --export-on-exit still written.
@Suite struct ExecCommandTests {
    /// The environment of this test without FIREBASE_CONFIG (exec sets it only when unset).
    private static var cleanEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["FIREBASE_CONFIG"] = nil
        return env
    }

    @Test("CMD's exit status is exec's", arguments: [0, 3, 42])
    func exitStatus(_ status: Int) throws {
        let run = try HearthCLI.run(["exec", "--port", "0", "--no-console", "--", "sh", "-c", "exit \(status)"])
        #expect(run.status == Int32(status), "\(run.stderr)")
    }

    @Test("a CMD killed by a signal gives 128 + the signal; a CMD that does not exist gives 127")
    func signalAndMissing() throws {
        let killed = try HearthCLI.run(["exec", "--port", "0", "--no-console", "--", "sh", "-c", "kill -9 $$"])
        #expect(killed.status == 137)
        let missing = try HearthCLI.run(["exec", "--port", "0", "--no-console", "--", "no-such-command-hearth"])
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("hearth exec: cannot run no-such-command-hearth: No such file or directory"))
    }

    @Test("CMD gets the emulator's address in both variables, GCLOUD_PROJECT and FIREBASE_CONFIG; its stdout is its own")
    func environment() throws {
        let script = #"printf '%s\n%s\n%s\n%s\n' "$FIRESTORE_EMULATOR_HOST" "$FIREBASE_FIRESTORE_EMULATOR_ADDRESS" "$GCLOUD_PROJECT" "$FIREBASE_CONFIG""#
        let run = try HearthCLI.run(["exec", "--port", "0", "--no-console", "--project", "demo-exec", "--", "sh", "-c", script],
                                    environment: Self.cleanEnvironment)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 4, "stdout: \(run.stdout)")
        #expect(lines[0].hasPrefix("127.0.0.1:") && lines[0] != "127.0.0.1:0")
        #expect(lines[1] == lines[0])
        #expect(lines[2] == "demo-exec")
        #expect(lines[3] == #"{"projectId":"demo-exec","storageBucket":"demo-exec.appspot.com","databaseURL":"https://demo-exec.firebaseio.com"}"#)
        // Hearth's own lines went to stderr.
        #expect(run.stderr.contains("listening on \(lines[0])"))
    }

    @Test("a FIREBASE_CONFIG the caller set is kept; an IPv6 wildcard is given to CMD as [::1]")
    func keptConfigAndIPv6() throws {
        var env = Self.cleanEnvironment
        env["FIREBASE_CONFIG"] = "mine"
        let run = try HearthCLI.run(["exec", "--host", "::", "--port", "0", "--no-console", "--", "sh", "-c", #"echo "$FIREBASE_CONFIG $FIRESTORE_EMULATOR_HOST""#],
                                    environment: env)
        guard run.status == 0 else {
            // A machine without IPv6 cannot bind ::; that is the only acceptable failure.
            #expect(run.stderr.contains("cannot listen on ::"), "\(run.stderr)")
            return
        }
        #expect(run.stdout.hasPrefix("mine [::1]:"))
    }

    @Test("the server answers while CMD runs, and --export-on-exit is written after CMD ends, even when CMD fails")
    func serverAndExportOnExit() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"notes/a": {"n": 1}, "notes/b": {"n": 2}}"#.write(to: dir.appendingPathComponent("seed.json"), atomically: true, encoding: .utf8)
        let hearth = try #require(HearthCLI.binary).path
        // CMD reads the running server with `hearth export --address`, then fails.
        let run = try HearthCLI.run(["exec", "--port", "0", "--no-console", "--project", "demo-exec", "--seed", "seed.json",
                                     "--export-on-exit", "on-exit", "--",
                                     "sh", "-c", "'\(hearth)' export during --address \"$FIRESTORE_EMULATOR_HOST\" --project demo-exec && exit 5"], in: dir)
        #expect(run.status == 5, "\(run.stderr)")
        #expect(run.stdout.contains("hearth: exported 2 documents of projects/demo-exec/databases/(default) from 127.0.0.1:"))
        let metadata = "firestore_export/firestore_export.overall_export_metadata"
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("during/\(metadata)").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("on-exit/\(metadata)").path))
        #expect(run.stderr.contains("hearth: exported 2 documents to on-exit"))
        #expect(!run.stdout.contains("on-exit"))
    }

    @Test("usage errors exit 2 and name the problem", arguments: [
        (["--port", "0"], "hearth exec: put the command after --"),
        (["--port", "0", "--"], "hearth exec: which command? nothing follows --"),
        (["--bogus", "--", "true"], "hearth exec: unknown flag '--bogus'"),
    ])
    func usage(_ args: [String], _ message: String) throws {
        let run = try HearthCLI.run(["exec"] + args)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix(message + "\n\nusage: hearth exec"))
    }
}
