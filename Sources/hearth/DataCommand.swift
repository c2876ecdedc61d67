// `hearth export` / `hearth import`: move data between exports and a running emulator (its
// endpoints, so the official emulator works too) or a data directory.
import Foundation
import HearthCore
import HearthServer

enum DataCommand {
    static let usage = """
        usage: hearth export DIR    [--address HOST:PORT | --data-dir DATA] [--project P] [--database D]
               hearth import PATH   [--address HOST:PORT | --data-dir DATA] [--project P]
          export   writes a firebase-tools export folder at DIR (firebase-export-metadata.json and
                   firestore_export/), replacing what is there only once the new export is whole
          import   loads an export (the official emulator's or gcloud's folder or
                   .overall_export_metadata file, a firebase-tools folder) or a Hearth JSON file;
                   each document replaces the stored one
          --address   a running emulator (default: $FIRESTORE_EMULATOR_HOST); it reads and writes
                   the paths itself, so it must run on this machine
          --data-dir  a data directory no server has open
          --project   export: the project (default $GCLOUD_PROJECT; with --data-dir, all);
                   import: the project to import into (default: the export's own)
          --database  export over --address: the database (default (default))
        """

    private struct Options {
        var path: String
        var address: String?
        var dataDir: String?
        var project: String?
        var database: String?
    }

    /// What is wrong with the command line (exit 2, with the usage); `nil` message: --help.
    private struct UsageProblem: Error { let message: String? }

    private static func parse(_ args: [String]) throws(UsageProblem) -> Options {
        let args = args.flatMap { arg -> [String] in
            guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") else { return [arg] }
            return [String(arg[..<eq]), String(arg[arg.index(after: eq)...])]
        }
        if args.contains(where: { $0 == "-h" || $0 == "--help" }) { throw UsageProblem(message: nil) }
        var options = Options(path: "")
        var i = 0
        while i < args.count {
            let a = args[i]
            if !a.hasPrefix("-") {
                guard options.path.isEmpty else { throw UsageProblem(message: "one path only; '\(options.path)' and '\(a)' given") }
                options.path = a
                i += 1
                continue
            }
            guard ["--address", "--host-port", "--data-dir", "--project", "--database"].contains(a) else {
                throw UsageProblem(message: "unknown flag '\(a)'")
            }
            guard i + 1 < args.count else { throw UsageProblem(message: "\(a) needs a value") }
            let v = args[i + 1]
            switch a {
            case "--address", "--host-port": options.address = v
            case "--data-dir": options.dataDir = v
            case "--project": options.project = v
            default: options.database = v
            }
            i += 2
        }
        guard !options.path.isEmpty else { throw UsageProblem(message: "no path given") }
        guard options.address == nil || options.dataDir == nil else { throw UsageProblem(message: "give --address or --data-dir, not both") }
        if options.address == nil && options.dataDir == nil {
            options.address = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"]
        }
        return options
    }

    /// The parsed options, or the exit status once help or a usage problem was printed.
    private static func options(_ args: [String]) -> Result<Options, ExitStatus> {
        do { return .success(try parse(args)) } catch {
            guard let message = error.message else { print(usage); return .failure(ExitStatus(code: 0)) }
            FileHandle.standardError.write(Data("hearth: \(message)\n\n\(usage)\n".utf8))
            return .failure(ExitStatus(code: 2))
        }
    }

    private struct ExitStatus: Error { let code: Int32 }

    static func export(_ args: [String]) -> Int32 {
        let o: Options
        switch options(args) { case .success(let parsed): o = parsed; case .failure(let exit): return exit.code }
        let target = absolute(o.path)
        do throws(FirestoreError) {
            if let dataDir = o.dataDir {
                let store = try openStore(dataDir)
                defer { store.close() }
                let registry = DatabaseRegistry(store: store)
                let states = registry.all.map { $0.state() }
                    .filter { $0.documentCount > 0 && (o.project == nil || $0.database.project == o.project) && (o.database == nil || $0.database.database == o.database) }
                    .sorted { $0.database.name < $1.database.name }
                let progress = ProgressLine("exporting to \(target)")
                let summary = try ExportFolder.replace(target, with: states, progress: { progress.update($0) })
                progress.finish("exported \(summary.documents) documents of \(states.count) database\(states.count == 1 ? "" : "s") to \(target)")
                return 0
            }
            guard let address = o.address else { return failure("give --address HOST:PORT (or set FIRESTORE_EMULATOR_HOST) or --data-dir") }
            guard let project = o.project ?? ProcessInfo.processInfo.environment["GCLOUD_PROJECT"] else {
                return failure("exporting from a running emulator needs --project (or GCLOUD_PROJECT)")
            }
            let id = DatabaseID(project: project, database: o.database ?? DatabaseID.defaultDatabase)
            let summary = try ExportFolder.replace(target) { (staging: String) throws(FirestoreError) -> ExportWriter.Summary in
                let body = JSON.object([("database", .string(id.name)), ("export_directory", .string(staging)),
                                        ("export_name", .string(ExportFolder.firestoreFolder))])
                try call(address, "/emulator/v1/projects/\(project):export", body)
                let overall = staging + "/" + ExportFolder.firestoreFolder + "/" + ExportFolder.firestoreFolder + ImportSource.overallSuffix
                let reader = try ExportReader(overallFile: overall)
                return ExportWriter.Summary(folder: staging, overallFile: overall, documents: reader.declaredCount, dataFiles: reader.dataFiles.count, dataBytes: 0)
            }
            print("hearth: exported \(summary.documents) documents of \(id.name) from \(address) to \(target)")
            return 0
        } catch {
            return failure(error.message)
        }
    }

    static func importData(_ args: [String]) -> Int32 {
        let o: Options
        switch options(args) { case .success(let parsed): o = parsed; case .failure(let exit): return exit.code }
        let source = absolute(o.path)
        do throws(FirestoreError) {
            if let dataDir = o.dataDir {
                let store = try openStore(dataDir)
                defer { store.close() }
                let registry = DatabaseRegistry(store: store)
                let progress = ProgressLine("importing \(source)")
                let summary = try DataImport.run(source, project: o.project, databases: registry.database, progress: { progress.update($0) })
                progress.finish("imported \(summary.documents) documents into \(dataDir) in \(String(format: "%.1f", summary.seconds)) s")
                return 0
            }
            guard let address = o.address else { return failure("give --address HOST:PORT (or set FIRESTORE_EMULATOR_HOST) or --data-dir") }
            // The endpoint takes the overall metadata file, as the official emulator requires.
            let located = try ImportSource.locate(source)
            let file: String, project: String
            switch located {
            case .export(let overall):
                file = overall
                var found = o.project
                if found == nil { found = try exportProject(overall) }
                guard let p = found else { return failure("\(source) holds no documents to import") }
                project = p
            case .hearthJSON(let json):
                file = json
                guard let p = o.project else { return failure("importing Hearth JSON needs --project") }
                project = p
            }
            let id = DatabaseID(project: project, database: o.database ?? DatabaseID.defaultDatabase)
            try call(address, "/emulator/v1/projects/\(project):import",
                     JSON.object([("database", .string(id.name)), ("export_directory", .string(file))]))
            print("hearth: imported \(source) into projects/\(project) on \(address)")
            return 0
        } catch {
            return failure(error.message)
        }
    }

    /// The project of an export's first document.
    private static func exportProject(_ overall: String) throws(FirestoreError) -> String? {
        struct Found: Error {}
        var project: String?
        let reader = try ExportReader(overallFile: overall)
        do {
            try reader.forEach { (d: ExportedDocument) throws(FirestoreError) in
                project = d.database.project
                throw FirestoreError(.cancelled, "found")
            }
        } catch where error.code == .cancelled {}
        return project
    }

    private static func call(_ address: String, _ path: String, _ body: JSON) throws(FirestoreError) {
        let answer: (status: Int, body: JSON?)
        do { answer = try EmulatorClient(address: address).post(path, json: body) } catch {
            throw FirestoreError(.unavailable, error.description)
        }
        guard answer.status == 200 else {
            let message = answer.body?["error"]?["message"]?.stringValue ?? "HTTP \(answer.status)"
            throw FirestoreError(.invalidArgument, "the emulator at \(address) answered: \(message)")
        }
    }

    private static func openStore(_ dataDir: String) throws(FirestoreError) -> DurableStore {
        do { return try DurableStore.open(directory: dataDir) } catch {
            throw FirestoreError(.unavailable, "cannot open the data directory: \(error.message)" +
                (error.message.contains("in use") ? " (a server has it open: use --address to go through the server)" : ""))
        }
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    }

    private static func failure(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("hearth: \(message)\n".utf8))
        return 1
    }
}
