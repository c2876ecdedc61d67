import Foundation
import Testing

/// `hearth serve`: flags that are wrong, files that are missing, and a server started and
/// stopped as a user does (SIGTERM), with its data kept and exported.
@Suite struct ServeCommandTests {
    @Test("--help prints the flags, the budget flags among them, and exits 0")
    func help() throws {
        let run = try HearthCLI.run(["serve", "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("usage: hearth serve"))
        #expect(run.stdout.contains("--data-dir") && run.stdout.contains("--max-connections"))
    }

    @Test("a wrong flag or value is named, with the usage, exit 2",
          arguments: [(["--bogus"], "unknown flag '--bogus'"), (["--bogus", "1"], "unknown flag '--bogus'"),
                      (["--port"], "--port needs a value"), (["--port", "http"], "--port must be 0…65535, got 'http'"),
                      (["--port=70000"], "--port must be 0…65535, got '70000'"), (["stray"], "unexpected argument 'stray' (serve takes only flags)"),
                      (["--index-mode", "strict"], "--index-mode must be enforce, warn, off or learn, got 'strict'"),
                      (["--max-connections", "0"], "--max-connections must be a positive whole number, got '0'"),
                      (["--host-port", "nohost"], "--host-port must be HOST:PORT, got 'nohost'")])
    func badFlags(_ args: [String], _ message: String) throws {
        let run = try HearthCLI.run(["serve"] + args)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("hearth serve: \(message)\n\nusage: hearth serve"))
    }

    @Test("a file that is missing or wrong is named, without the usage, exit 1",
          arguments: [(["--seed", "gone.json"], "cannot read gone.json"), (["--rules", "gone.rules"], "cannot read gone.rules"),
                      (["--indexes", "gone.json"], "cannot read gone.json"), (["--workspace", "gone"], "--workspace gone is not a directory")])
    func missingFiles(_ args: [String], _ message: String) throws {
        let run = try HearthCLI.run(["serve", "--port", "0", "--no-console"] + args)
        #expect(run.status == (message.hasPrefix("--") ? 2 : 1))
        #expect(run.stderr.hasPrefix("hearth serve: \(message)\n"))
    }

    @Test("rules that do not compile stop start-up with their diagnostics")
    func rulesThatDoNotCompile() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "rules_version = '2';\nservice cloud.firestore {\n  match /x { allow read: if ; }\n}\n"
            .write(to: dir.appendingPathComponent("bad.rules"), atomically: true, encoding: .utf8)
        let run = try HearthCLI.run(["serve", "--port", "0", "--no-console", "--rules", "bad.rules"], in: dir)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("hearth serve: bad.rules does not compile:\n"))
        #expect(run.stderr.contains("bad.rules:3:"))
    }

    @Test("serve with a seed and a data directory: ready file, SIGTERM stops it with status 0, the export is written, a restart finds the data")
    func startAndStop() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"notes/a": {"text": "hi"}, "notes/b": {"n": 2}, "notes/c": {"n": 3}}"#
            .write(to: dir.appendingPathComponent("seed.json"), atomically: true, encoding: .utf8)
        let ready = dir.appendingPathComponent("ready")
        var address = ""
        let first = try HearthCLI.run(["serve", "--port", "0", "--no-console", "--project", "demo-cli", "--seed", "seed.json",
                                       "--data-dir", "data", "--ready-file", ready.path, "--export-on-exit", "out"], in: dir) { process in
            address = try HearthCLI.waitForReady(ready, process)
            process.terminate()
        }
        #expect(first.status == 0, "\(first.stderr)")
        #expect(address.hasPrefix("127.0.0.1:"))
        #expect(first.stdout.contains("loaded 3 documents from seed.json into projects/demo-cli/databases/(default)"))
        #expect(first.stdout.contains("export FIRESTORE_EMULATOR_HOST=\(address)"))
        #expect(first.stdout.hasSuffix("hearth serve: stopped\n"))
        #expect(first.stdout.contains("hearth: exported 3 documents to out"))

        try FileManager.default.removeItem(at: ready)
        let second = try HearthCLI.run(["serve", "--port", "0", "--no-console", "--data-dir", "data", "--ready-file", ready.path], in: dir) { process in
            _ = try HearthCLI.waitForReady(ready, process)
            process.terminate()
        }
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("hearth serve: data directory data: "))
        #expect(second.stdout.contains("3 documents"))
    }
}
