// hearth: the command-line front end. `serve` (the emulator process) and `rules`
// (check/test) arrive with their own issues; for now the tool prints its usage.
import Foundation

let usage = """
    usage: hearth <command> [options]

    commands:
      serve          run the emulator (REST + gRPC on one port)         [not yet available]
      rules check    parse and lint a firestore.rules file              [not yet available]
      rules test     run rules test cases (see DESIGN.md)               [not yet available]
      help           print this message

    The embedded engine is available today as a library: `import FirebaseFirestore`
    (or `import Hearth`) and use `Firestore.inMemory()`.
    """

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case nil, "help", "-h", "--help":
    print(usage)
case let command?:
    FileHandle.standardError.write("hearth: '\(command)' is not available yet in this build\n\n\(usage)\n".data(using: .utf8)!)
    exit(2)
}
