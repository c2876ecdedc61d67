import Foundation
import Testing

/// `hearth export` and `hearth import`: help, flags that are wrong, and a round trip through
/// a data directory.
@Suite struct DataCommandTests {
    @Test("export --help and import --help print the usage and exit 0", arguments: ["export", "import"])
    func help(_ command: String) throws {
        let run = try HearthCLI.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("usage: hearth export DIR"))
    }

    @Test("wrong command lines say what is wrong, with the usage, exit 2",
          arguments: [(["export"], "hearth: no path given"), (["export", "out", "--bogus", "x"], "hearth: unknown flag '--bogus'"),
                      (["import", "a", "b"], "hearth: one path only; 'a' and 'b' given"), (["export", "out", "--project"], "hearth: --project needs a value"),
                      (["export", "out", "--address", "h:1", "--data-dir", "d"], "hearth: give --address or --data-dir, not both")])
    func usageErrors(_ args: [String], _ message: String) throws {
        let run = try HearthCLI.run(args)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix(message + "\n\nusage: hearth export DIR"))
    }

    @Test("import into a data directory, export from it: the documents come back")
    func roundTrip() throws {
        let dir = try HearthCLI.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"notes/a": {"text": "hi"}, "notes/b": {"n": 2}}"#.write(to: dir.appendingPathComponent("docs.json"), atomically: true, encoding: .utf8)
        let imported = try HearthCLI.run(["import", "docs.json", "--data-dir", "data", "--project", "demo-cli"], in: dir)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("hearth: imported 2 documents into data"))
        let exported = try HearthCLI.run(["export", "out", "--data-dir", "data"], in: dir)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("hearth: exported 2 documents of 1 database"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/firebase-export-metadata.json").path))
        let missing = try HearthCLI.run(["import", "nothing-here", "--data-dir", "data"], in: dir)
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("hearth: "))
        #expect(missing.stderr.contains("nothing-here"))
    }
}
