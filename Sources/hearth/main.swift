// hearth: the command-line front end. `serve` runs the emulator process; `rules check|test`
// run the rules engine offline.
import Foundation

let usage = """
    usage: hearth <command> [options]

    commands:
      serve [--port N] [--seed FILE] …         run the emulator (REST, gRPC, WebChannel on one port; `hearth serve --help`)
      exec [serve flags] -- CMD ARGS…         run CMD against a fresh emulator, then stop it (`hearth exec --help`)
      suite-launcher OUT.jar                  write the JAR that runs Hearth under `firebase emulators:start`
      export DIR [--address H:P | --data-dir D]  write a firebase-tools export folder (`hearth export --help`)
      import PATH [--address H:P | --data-dir D] load an export or Hearth JSON (`hearth import --help`)
      rules check FILE…                       compile rules; print FILE:LINE:COL diagnostics
      rules test CASES.json… [--coverage FILE.json|FILE.html]
                                              run rules test cases (`hearth rules --help`)
      help           print this message

    The embedded engine is available today as a library: `import FirebaseFirestore`
    (or `import Hearth`) and use `Firestore.inMemory()`.
    """

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case nil, "help", "-h", "--help":
    print(usage)
case "serve":
    exit(ServeCommand.run(Array(args.dropFirst())))
case "exec":
    exit(ExecCommand.run(Array(args.dropFirst())))
case "suite-launcher":
    exit(SuiteLauncherCommand.run(Array(args.dropFirst())))
case "export":
    exit(DataCommand.export(Array(args.dropFirst())))
case "import":
    exit(DataCommand.importData(Array(args.dropFirst())))
case "rules":
    switch args.dropFirst().first {
    case "check": exit(RulesCommand.check(Array(args.dropFirst(2))))
    case "test": exit(RulesCommand.test(Array(args.dropFirst(2))))
    case "-h", "--help", "help": print(RulesCommand.usage)
    case nil:
        RulesCommand.printError("hearth rules: which one, check or test?\n\n\(RulesCommand.usage)")
        exit(2)
    case let sub?:
        RulesCommand.printError("hearth rules: unknown command '\(sub)'\n\n\(RulesCommand.usage)")
        exit(2)
    }
case let command?:
    FileHandle.standardError.write(Data("hearth: unknown command '\(command)'\n\n\(usage)\n".utf8))
    exit(2)
}
