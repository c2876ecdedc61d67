import Testing

/// `hearth` itself: help, and commands it does not know.
@Suite struct MainTests {
    @Test("hearth, hearth help and hearth --help print the commands and exit 0", arguments: [[], ["help"], ["--help"], ["-h"]])
    func help(_ args: [String]) throws {
        let run = try HearthCLI.run(args)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("usage: hearth <command>"))
        for command in ["serve", "export", "import", "rules check", "rules test"] { #expect(run.stdout.contains(command)) }
        #expect(run.stderr.isEmpty)
    }

    @Test("an unknown command is named as unknown, with the usage, exit 2")
    func unknownCommand() throws {
        let run = try HearthCLI.run(["frobnicate"])
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("hearth: unknown command 'frobnicate'\n"))
        #expect(run.stderr.contains("usage: hearth <command>"))
        #expect(!run.stderr.contains("not available"))
    }
}
