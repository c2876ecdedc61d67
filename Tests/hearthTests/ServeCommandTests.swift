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

/// The official emulator JAR's flags, as firebase-tools passes them (downloadableEmulators.ts,
/// v15.28.1): accepted with the JAR's meaning, JAR-only ones noted, bad values named.
@Suite struct ServeJARFlagTests {
    @Test("firebase-tools' argv starts Hearth: the export imported into --project_id, --rules for every project, SIGTERM stops it with 0")
    func firebaseToolsArgv() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n    match /{d=**} { allow read; }\n  }\n}\n"
            .write(to: dir.appendingPathComponent("firestore.rules"), atomically: true, encoding: .utf8)
        try "{}".write(to: dir.appendingPathComponent("seed.json"), atomically: true, encoding: .utf8)
        let ready = dir.appendingPathComponent("ready")
        let run = try HearthCLI.run(["serve", "--host", "127.0.0.1", "--port", "0", "--websocket_port", "0", "--database-edition", "enterprise",
                                     "--project_id", "demo-jar", "--seed_from_export", "seed.json", "--rules", dir.appendingPathComponent("firestore.rules").path,
                                     "--single_project_mode", "true", "--functions_emulator", "127.0.0.1:5001",
                                     "--no-console", "--ready-file", ready.path], in: dir) { process in
            _ = try HearthCLI.waitForReady(ready, process)
            process.terminate()
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("for every project"))
        #expect(run.stdout.contains("imported 0 documents from seed.json"))
        #expect(run.stdout.contains("the Emulator UI's Requests feed at ws://127.0.0.1:") && run.stdout.contains("Cloud Functions triggers go to 127.0.0.1:5001"))
    }

    @Test("the JAR's flags that Hearth has no use for are accepted with a note, never a failure")
    func notedFlags() throws {
        let run = try HearthCLI.run(["serve", "--database-mode", "datastore-mode", "--export-name", "x", "--single_project_mode_error", "true",
                                     "--single_project_mode", "--help"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("hearth serve: note: --database-mode datastore-mode is accepted and ignored"))
        #expect(run.stderr.contains("hearth serve: note: --export-name x is accepted and ignored"))
        #expect(run.stderr.contains("hearth serve: note: --single_project_mode_error is accepted and ignored"))
        #expect(run.stdout.contains("--seed_from_export"))
    }

    @Test("--version and --licenses print and exit 0, as the JAR's do")
    func versionAndLicenses() throws {
        #expect(try HearthCLI.run(["serve", "--version"]).status == 0)
        let licenses = try HearthCLI.run(["serve", "--licenses"])
        #expect(licenses.status == 0 && licenses.stdout.contains("no third-party code"))
    }

    @Test("a JAR flag's bad value is named, exit 2", arguments: [
        (["--database-edition", "premium"], "--database-edition must be standard or enterprise, got 'premium'"),
        (["--websocket_port", "ws"], "--websocket_port must be 0…65535, got 'ws'"),
        (["--webchannel_port", "-1"], "--webchannel_port must be 0…65535, got '-1'"),
        (["--functions_emulator", "localhost"], "--functions_emulator must be HOST:PORT, got 'localhost'"),
        (["--project_id"], "--project_id needs a value"),
    ])
    func badValues(_ args: [String], _ message: String) throws {
        let run = try HearthCLI.run(["serve"] + args)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("hearth serve: \(message)\n\nusage: hearth serve"))
    }

    @Test("a port in use: exit 1 with the words firebase-tools looks for, and no --export-on-exit written")
    func portInUse() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ready = dir.appendingPathComponent("ready")
        var second: HearthCLI.Run?
        _ = try HearthCLI.run(["serve", "--port", "0", "--no-console", "--ready-file", ready.path], in: dir) { first in
            let address = try HearthCLI.waitForReady(ready, first)
            let port = String(address.split(separator: ":").last ?? "")
            second = try HearthCLI.run(["serve", "--port", port, "--no-console", "--export-on-exit", "out"], in: dir)
            first.terminate()
        }
        let run = try #require(second)
        #expect(run.status == 1)
        #expect(run.stderr.contains("address already in use"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }

    @Test("--demo-apps loads the documented apps from the checkout hearth was built from, wherever it runs")
    func demoApps() throws {
        let ready = try HearthCLI.scratch().appendingPathComponent("ready")
        let run = try HearthCLI.run(["serve", "--port", "0", "--no-console", "--demo-apps", "--ready-file", ready.path]) { process in
            _ = try HearthCLI.waitForReady(ready, process)
            process.terminate()
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("demo-chores") && run.stdout.contains("Rules/chores.rules"))
    }

    @Test("without --demo-apps nothing is loaded, even in a folder with Seeds/")
    func noDemoAppsUnlessAsked() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Seeds/x"), withIntermediateDirectories: true)
        try #"{"a/b": {}}"#.write(to: dir.appendingPathComponent("Seeds/x/documents.json"), atomically: true, encoding: .utf8)
        let ready = dir.appendingPathComponent("ready")
        let run = try HearthCLI.run(["serve", "--port", "0", "--no-console", "--ready-file", ready.path], in: dir) { process in
            _ = try HearthCLI.waitForReady(ready, process)
            process.terminate()
        }
        #expect(run.status == 0)
        #expect(!run.stdout.contains("demo-x"))
    }
}
