import Foundation
import Testing

/// `hearth suite-launcher OUT.jar`: the file written, its arguments checked, and — when a Java
/// runtime is on PATH (skipped otherwise) — the real hearth run through it and stopped as
/// firebase-tools stops it.
@Suite struct SuiteLauncherCommandTests {
    static let java: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/java" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("writes a JAR (a zip) naming this hearth binary, and says how to use it")
    func writes() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try HearthCLI.run(["suite-launcher", "sub/launcher.jar"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let jar = try Data(contentsOf: dir.appendingPathComponent("sub/launcher.jar"))
        #expect(jar.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04]))
        let binary = try #require(HearthCLI.binary).resolvingSymlinksInPath().path
        #expect(jar.range(of: Data(binary.utf8)) != nil)
        #expect(run.stdout.contains("FIRESTORE_EMULATOR_BINARY_PATH="))
    }

    @Test("no file, or more than one, is a usage error", arguments: [[], ["a.jar", "b.jar"], ["--port"]])
    func usage(_ args: [String]) throws {
        let run = try HearthCLI.run(["suite-launcher"] + args)
        #expect(run.status == 2)
        #expect(run.stderr.contains("usage: hearth suite-launcher OUT.jar"))
    }

    @Test("java -jar launcher.jar runs hearth serve; SIGINT to the JVM stops both with status 0 after --export-on-exit",
          .enabled(if: java != nil, "no java on PATH"))
    func underJava() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try HearthCLI.run(["suite-launcher", "launcher.jar"], in: dir).status == 0)
        try #"{"a/b": {"n": 1}}"#.write(to: dir.appendingPathComponent("seed.json"), atomically: true, encoding: .utf8)
        let ready = dir.appendingPathComponent("ready"), log = dir.appendingPathComponent("firestore-debug.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let jvm = Process()
        jvm.executableURL = URL(fileURLWithPath: try #require(Self.java))
        jvm.arguments = ["-Dgoogle.cloud_firestore.debug_log_level=FINE", "-Duser.language=en", "-jar", "launcher.jar",
                         "--host", "127.0.0.1", "--port", "0", "--project_id", "demo-jar", "--single_project_mode", "true",
                         "--seed", "seed.json", "--ready-file", ready.path, "--export-on-exit", "out"]
        jvm.currentDirectoryURL = dir
        jvm.standardOutput = try FileHandle(forWritingTo: log)
        jvm.standardError = jvm.standardOutput
        try jvm.run()
        defer { if jvm.isRunning { kill(jvm.processIdentifier, SIGKILL) } }
        _ = try HearthCLI.waitForReady(ready, jvm)
        kill(jvm.processIdentifier, SIGINT)
        jvm.waitUntilExit()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(jvm.terminationReason == .exit && jvm.terminationStatus == 0, "\(text)")
        #expect(text.contains("hearth serve: stopped"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/firestore_export/firestore_export.overall_export_metadata").path))
    }
}
