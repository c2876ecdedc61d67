import Foundation
import HearthTestSupport
import HearthCore
import HearthLock
import Testing
@testable import HearthServer

/// `EmulatorConfiguration` → `EmulatorInstance`, as the CLI, `hearth exec` and an embedder
/// use them: loading, the JAR's meaning of --rules and --single_project_mode, a second port,
/// stopping, export on exit, and problems named.
@Suite struct EmulatorInstanceTests {
    private static let denyAll = "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /{d=**} { allow read, write: if false; } } }"
    private static let allowAll = denyAll.replacingOccurrences(of: "if false", with: "if true")

    /// A scratch folder with `files`, removed at the end.
    private func withFolder(_ files: [String: String], _ body: (URL) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-instance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        try body(dir)
    }

    /// Output collected instead of printed.
    private final class Lines: Sendable {
        let all = HearthMutex<[String]>([])
        var output: EmulatorConfiguration.Output {
            EmulatorConfiguration.Output(line: { l in self.all.withLock { $0.append(l) } },
                                         warning: { l in self.all.withLock { $0.append("warning: " + l) } },
                                         progress: { _ in SummaryProgress() })
        }
        var text: String { all.withLock { $0.joined(separator: "\n") } }
    }

    @Test("--rules holds for every project; a PUT :securityRules replaces it for that project only (the JAR's behaviour)")
    func rulesForEveryProject() throws {
        try withFolder(["deny.rules": Self.denyAll, "seed.json": #"{"c/a": {"n": 1}}"#]) { dir in
            var c = EmulatorConfiguration()
            c.port = 0
            c.console = false
            c.project = "p1"
            c.rules = dir.appendingPathComponent("deny.rules").path
            c.seed = dir.appendingPathComponent("seed.json").path
            let lines = Lines()
            c.output = lines.output
            let emulator = try EmulatorInstance(c)
            let server = try emulator.start()
            defer { emulator.stop() }
            #expect(emulator.state.database(DatabaseID(project: "p1")).document(ResourcePath(segments: ["c", "a"])) != nil)
            let http = try RawHTTPClient(port: server.port)
            func write(_ project: String) -> Int? { http.request("PATCH", "/v1/projects/\(project)/databases/(default)/documents/c/d", body: "{}")?.status }
            #expect(write("p1") == 403 && write("p2") == 403)
            let body = #"{"ignore_errors":true,"rules":{"files":[{"name":"security.rules","content":"\#(Self.allowAll.replacingOccurrences(of: "\n", with: "\\n"))"}]}}"#
            #expect(http.request("PUT", "/emulator/v1/projects/p1:securityRules", body: body)?.status == 200)
            #expect(write("p1") == 200 && write("p2") == 403)
            #expect(lines.text.contains("for every project"))
            #expect(lines.text.contains("listening on \(server.address)"))
        }
    }

    @Test("--single_project_mode warns once per other project, with the JAR's words")
    func singleProjectMode() throws {
        let warnings = HearthMutex<[String]>([])
        HearthLog.setHandler { _, m in warnings.withLock { $0.append(m) } }
        defer { HearthLog.setHandler(HearthLog.standardStreams) }
        var c = EmulatorConfiguration()
        c.project = "mine"
        c.singleProjectMode = true
        let emulator = try EmulatorInstance(c)
        _ = emulator.state.database(DatabaseID(project: "mine"))
        _ = emulator.state.database(DatabaseID(project: "other"))
        _ = emulator.state.database(DatabaseID(project: "other", database: "db2"))
        let seen = warnings.withLock { $0 }.filter { $0.contains("single project mode") }
        #expect(seen == ["Multiple projectIds are not recommended in single project mode. Requested project ID other, but the emulator is configured for mine. To opt-out of single project mode add/set the '\"singleProjectMode\": false' property in the firebase.json emulators config."])
    }

    @Test("--webchannel_port opens a second port on the same state; stopping stops both; --export-on-exit is written by finish()")
    func secondPortStopAndExport() throws {
        try withFolder(["seed.json": #"{"c/a": {"n": 1}}"#]) { dir in
            var c = EmulatorConfiguration()
            c.port = 0
            c.webChannelPort = 0
            c.console = false
            c.seed = dir.appendingPathComponent("seed.json").path
            c.exportOnExit = dir.appendingPathComponent("out").path
            c.output = Lines().output
            let emulator = try EmulatorInstance(c)
            try emulator.start()
            let servers = emulator.allServers
            try #require(servers.count == 2)
            let second = try RawHTTPClient(port: servers[1].port)
            #expect(second.request("GET", "/v1/projects/demo-hearth/databases/(default)/documents/c/a")?.status == 200)
            servers[1].stop()  // either one stops all
            emulator.waitUntilStopped()
            #expect(emulator.finish() == 0)
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/firestore_export/firestore_export.overall_export_metadata").path))
        }
    }

    @Test("problems are named: a missing file (data), a workspace that is not a folder (usage), documented apps not there")
    func problems() {
        func problem(_ change: (inout EmulatorConfiguration) -> Void) -> EmulatorConfiguration.Problem? {
            var c = EmulatorConfiguration()
            change(&c)
            do { _ = try EmulatorInstance(c); return nil } catch { return error }
        }
        #expect(problem { $0.rules = "/nonexistent/x.rules" } == .data("cannot read /nonexistent/x.rules"))
        #expect(problem { $0.workspace = "/nonexistent" } == .usage("--workspace /nonexistent is not a directory"))
        #expect(problem { $0.documentedApps = "/nonexistent" } == .data("no documented apps at /nonexistent/Seeds (they ship with Hearth's source checkout)"))
    }

    @Test("the documented apps load from the checkout when asked, each as demo-<app> with its rules")
    func documentedApps() throws {
        let checkout = try #require(EmulatorInstance.sourceCheckout)
        var c = EmulatorConfiguration()
        c.documentedApps = checkout
        let lines = Lines()
        c.output = lines.output
        let emulator = try EmulatorInstance(c)
        #expect(emulator.state.rules.rules(forProject: "demo-chores") != nil)
        #expect(lines.text.contains("demo-bucketlist"))
    }
}
