// `hearth suite-launcher OUT.jar`: writes the JAR firebase-tools runs in place of the official
// emulator (FIRESTORE_EMULATOR_BINARY_PATH=OUT.jar firebase emulators:start). The JAR runs
// this very binary's `serve`, found by the absolute path written into it.
import Foundation
import HearthServer

enum SuiteLauncherCommand {
    static let usage = """
        usage: hearth suite-launcher OUT.jar

        Writes a small JAR (no third-party code; a Java runtime is all it needs) that runs
        `\(currentBinary() ?? "<this hearth>") serve <its arguments>`, so that
              FIRESTORE_EMULATOR_BINARY_PATH=OUT.jar firebase emulators:start
        runs Hearth under the Firebase Emulator Suite. Set HEARTH_BINARY to run another
        hearth binary than the one written in. The JAR forwards SIGINT/SIGTERM, exits with
        Hearth's status, and Hearth stops when the JVM dies (docs/emulator-suite.md).
        """

    static func run(_ args: [String]) -> Int32 {
        if args.contains(where: { ["-h", "--help"].contains($0) }) { print(usage); return 0 }
        guard args.count == 1, !args[0].hasPrefix("-") else {
            FileHandle.standardError.write(Data("hearth suite-launcher: \(args.isEmpty ? "which file? give OUT.jar" : "takes one argument, OUT.jar")\n\n\(usage)\n".utf8))
            return 2
        }
        guard let binary = currentBinary() else {
            FileHandle.standardError.write(Data("hearth suite-launcher: cannot find this hearth binary's absolute path\n".utf8))
            return 1
        }
        let out = URL(fileURLWithPath: args[0])
        do {
            try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(SuiteLauncherJAR.bytes(hearthBinary: binary)).write(to: out, options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("hearth suite-launcher: cannot write \(out.path): \(error.localizedDescription)\n".utf8))
            return 1
        }
        print("wrote \(out.path): it runs \(binary) serve")
        print("use it with: FIRESTORE_EMULATOR_BINARY_PATH=\(out.path) firebase emulators:start")
        return 0
    }

    /// This process's executable, absolute and with symlinks resolved (/proc/self/exe on
    /// Linux; elsewhere argv[0] resolved against the working directory or PATH).
    static func currentBinary() -> String? {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), target.hasPrefix("/") {
            return target
        }
        let arg0 = CommandLine.arguments[0]
        var candidates: [String] = []
        if arg0.contains("/") {
            candidates = [arg0.hasPrefix("/") ? arg0 : FileManager.default.currentDirectoryPath + "/" + arg0]
        } else {
            candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(arg0)" }
        }
        for c in candidates where FileManager.default.isExecutableFile(atPath: c) {
            return URL(fileURLWithPath: c).resolvingSymlinksInPath().standardizedFileURL.path
        }
        return nil
    }
}
