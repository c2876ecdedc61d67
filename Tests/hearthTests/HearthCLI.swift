import Foundation
import Testing

/// Runs the built `hearth` binary as a user would: arguments in, exit status and output out.
/// The binary is the one `swift build` put beside this test bundle.
enum HearthCLI {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let binary: URL? = {
        // Linux runs the test executable in the build folder; macOS loads a bundle from it
        // (.build/debug/HearthPackageTests.xctest) into a runner that lives elsewhere.
        var folders: [URL] = []
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            folders.append(dir)
            dir = dir.deletingLastPathComponent()
        }
        folders += Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map { $0.bundleURL.deletingLastPathComponent() }
        return folders.map { $0.appendingPathComponent("hearth") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// A scratch folder, removed by the caller.
    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs `hearth args` in `directory` (a scratch folder, so the checkout's Seeds/ are not
    /// loaded); `whileRunning` gets the process once started (to stop a server).
    static func run(_ args: [String], in directory: URL? = nil, timeout: TimeInterval = 120, environment: [String: String]? = nil,
                    whileRunning: ((Process) throws -> Void)? = nil) throws -> Run {
        let binary = try #require(binary, "no hearth binary beside \(CommandLine.arguments[0])")
        let dir = try directory ?? scratch()
        defer { if directory == nil { try? FileManager.default.removeItem(at: dir) } }
        // Output goes to files: a pipe nobody drains would block a chatty process.
        let out = dir.appendingPathComponent(".stdout-\(UUID().uuidString)"), err = dir.appendingPathComponent(".stderr-\(UUID().uuidString)")
        try Data().write(to: out)
        try Data().write(to: err)
        defer { try? FileManager.default.removeItem(at: out); try? FileManager.default.removeItem(at: err) }
        let process = Process()
        process.executableURL = binary
        process.arguments = args
        process.currentDirectoryURL = dir
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        // A hung command fails the test instead of hanging the run.
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        do { try whileRunning?(process) } catch {
            process.terminate()
            process.waitUntilExit()
            throw error
        }
        process.waitUntilExit()
        return Run(status: process.terminationStatus,
                   stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                   stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// Waits for `hearth serve --ready-file` to write its address.
    static func waitForReady(_ file: URL, _ process: Process, seconds: Double = 60) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8), text.hasSuffix("\n") {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard process.isRunning else { throw CLIError("hearth serve exited before it was ready") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw CLIError("hearth serve was not ready in \(seconds) s")
    }

    struct CLIError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
