import Foundation

/// What an import path names, worked out from the files there:
///
/// - an `*.overall_export_metadata` file (what the official emulator's import endpoint and
///   `--import-data` take);
/// - a directory holding one (an export written by the emulator or `gcloud firestore export`)
///   or whose single subdirectory holds one (the emulator's `export_directory`);
/// - a firebase-tools export folder: `firebase-export-metadata.json` naming
///   `firestore.metadata_file`, usually `firestore_export/firestore_export.overall_export_metadata`;
/// - a `.json` file: Hearth JSON documents.
public enum ImportSource: Sendable, Equatable {
    case export(overallFile: String)
    case hearthJSON(file: String)

    public static let overallSuffix = ".overall_export_metadata"
    public static let firebaseMetadataFile = "firebase-export-metadata.json"

    public static func locate(_ path: String) throws(FirestoreError) -> ImportSource {
        let kind = (try? PosixFile.kind(path)) ?? .missing
        guard kind != .missing else {
            throw .invalidArgument("Import path \(path) does not exist.")
        }
        if kind != .directory {
            if path.hasSuffix(overallSuffix) { return .export(overallFile: path) }
            if (path as NSString).lastPathComponent == firebaseMetadataFile {
                return try firebaseTools((path as NSString).deletingLastPathComponent)
            }
            if path.hasSuffix(".json") { return .hearthJSON(file: path) }
            throw .invalidArgument("Import path \(path) is neither an export (a \(overallSuffix) file or its folder, or a firebase-tools export folder) nor a Hearth JSON .json file.")
        }
        if (try? PosixFile.kind(join(path, firebaseMetadataFile))) != .missing { return try firebaseTools(path) }
        let entries = ((try? PosixFile.list(path)) ?? []).sorted()
        let overall = entries.filter { $0.hasSuffix(overallSuffix) }
        if overall.count == 1 { return .export(overallFile: join(path, overall[0])) }
        if overall.count > 1 {
            throw .invalidArgument("Import folder \(path) holds several exports (\(overall.joined(separator: ", "))); name the \(overallSuffix) file to import.")
        }
        // The emulator's export_directory: the export is the NAME folder inside it.
        var found: [String] = []
        for entry in entries {
            let sub = join(path, entry)
            guard (try? PosixFile.kind(sub)) == .directory else { continue }
            for file in (try? PosixFile.list(sub)) ?? [] where file.hasSuffix(overallSuffix) {
                found.append(join(sub, file))
            }
        }
        if found.count == 1 { return .export(overallFile: found[0]) }
        if found.count > 1 {
            throw .invalidArgument("Import folder \(path) holds several exports (\(found.sorted().joined(separator: ", "))); name the one to import.")
        }
        throw .invalidArgument("No export found in \(path): expected a \(overallSuffix) file, a folder holding one, or a firebase-tools export folder with \(firebaseMetadataFile).")
    }

    /// A firebase-tools export folder: its JSON names the Firestore export's overall file.
    private static func firebaseTools(_ folder: String) throws(FirestoreError) -> ImportSource {
        let file = join(folder, firebaseMetadataFile)
        let data: [UInt8]
        do { data = try PosixFile.contents(file) } catch { throw .invalidArgument("Cannot read \(file): \(error.description).") }
        let json: JSON
        do { json = try JSON.parse(Array(data)) } catch {
            throw .invalidArgument("\(file) is not valid JSON: \(error.message) at byte \(error.offset).")
        }
        guard case .object(let top) = json else { throw .invalidArgument("\(file) must hold a JSON object.") }
        guard let firestore = top.first(where: { $0.0 == "firestore" })?.1 else {
            throw .invalidArgument("\(file) lists no Firestore export (no \"firestore\" entry): the export was made without the Firestore emulator.")
        }
        guard case .object(let entry) = firestore else { throw .invalidArgument("\(file): \"firestore\" must be an object.") }
        if case .string(let metadata)? = entry.first(where: { $0.0 == "metadata_file" })?.1 {
            return .export(overallFile: join(folder, metadata))
        }
        if case .string(let sub)? = entry.first(where: { $0.0 == "path" })?.1 {
            let dir = join(folder, sub)
            let name = (sub as NSString).lastPathComponent
            return .export(overallFile: join(dir, name + overallSuffix))
        }
        throw .invalidArgument("\(file): \"firestore\" names neither metadata_file nor path.")
    }

    static func join(_ directory: String, _ relative: String) -> String {
        if relative.hasPrefix("/") { return relative }
        return (directory as NSString).appendingPathComponent(relative)
    }
}

/// Reads an export written by the official emulator, `gcloud firestore export` or
/// `ExportWriter`, one document at a time: memory holds the metadata, one 1 MiB chunk of a
/// data file and the record being decoded, whatever the export's size.
public final class ExportReader {
    public let overallFile: String
    /// The data files, in the order the metadata lists them.
    public let dataFiles: [String]
    /// The document count the metadata declares (the official importer does not check it).
    public let declaredCount: Int

    public init(overallFile: String) throws(FirestoreError) {
        self.overallFile = overallFile
        let log: LogReader
        do { log = try LogReader(path: overallFile, zeroHeaderIsPadding: true) } catch {
            throw Self.error(error)
        }
        let version: [UInt8]?, body: [UInt8]?
        do {
            version = try log.next()
            body = try log.next()
        } catch { throw Self.error(error) }
        guard let version, version == ExportMetadata.formatVersion else {
            throw .invalidArgument("Overall export metadata file version not supported: \(overallFile) must begin with the version record \"3\".")
        }
        guard let body else {
            throw .invalidArgument("Failed to parse overall export metadata file \(overallFile): it has no export pointers record.")
        }
        let pointers: [ExportMetadata.Pointer]
        do { pointers = try ExportMetadata.decodeOverall(body) } catch {
            throw .invalidArgument("Failed to parse overall export metadata file \(overallFile): \(error.message)")
        }
        let base = (overallFile as NSString).deletingLastPathComponent
        var files: [String] = []
        var count = 0
        for pointer in pointers {
            let metadataPath = (ImportSource.join(base, pointer.metadataFile) as NSString).standardizingPath
            let data: [UInt8]
            do { data = try PosixFile.contents(metadataPath) } catch {
                throw .invalidArgument("Cannot read \(metadataPath), which \(overallFile) lists: \(error.description).")
            }
            do {
                let dir = (metadataPath as NSString).deletingLastPathComponent
                files += try ExportMetadata.decodeBackupFiles(Array(data)).map { (ImportSource.join(dir, $0) as NSString).standardizingPath }
            } catch {
                throw .invalidArgument("Failed to parse export metadata file \(metadataPath): \(error.message)")
            }
            count += Int(pointer.entityCount ?? 0)
        }
        dataFiles = files
        declaredCount = count
    }

    /// Locates and opens the export `path` names (see `ImportSource`); nil for Hearth JSON.
    public static func open(_ path: String) throws(FirestoreError) -> ExportReader? {
        switch try ImportSource.locate(path) {
        case .export(let overall): return try ExportReader(overallFile: overall)
        case .hearthJSON: return nil
        }
    }

    /// Checks every fragment's checksum and framing in every data file without decoding
    /// documents — run before an import changes anything, so a damaged export is refused
    /// whole rather than half imported.
    public func verify() throws(FirestoreError) {
        // Every record decoded (and dropped) too: a record whose checksum is valid but whose
        // entity is not would otherwise stop the import half way. Costs a second decode.
        try forEach { _ in }
    }

    /// Calls `body` with each document, file by file. Entities in a Datastore namespace are
    /// skipped (the emulator imports them where no Firestore API shows them); returns how
    /// many documents were read and how many were skipped.
    @discardableResult
    public func forEach(_ body: (ExportedDocument) throws(FirestoreError) -> Void) throws(FirestoreError) -> (documents: Int, skipped: Int) {
        var documents = 0, skipped = 0
        for file in dataFiles {
            let log: LogReader
            do { log = try LogReader(path: file, zeroHeaderIsPadding: true) } catch { throw Self.error(error) }
            while true {
                let record: [UInt8]?
                do { record = try log.next() } catch { throw Self.error(error) }
                guard let record else { break }
                guard let document = try EntityCodec.decode(record, record: "\(file), record at byte \(log.recordOffset)") else {
                    skipped += 1
                    continue
                }
                try body(document)
                documents += 1
            }
        }
        return (documents, skipped)
    }

    static func error(_ e: LogFormatError) -> FirestoreError {
        switch e.problem {
        case .checksum: .invalidArgument("Checksum doesn't validate: \(e.file), byte \(e.offset).")
        case .io(let message): .invalidArgument("Cannot read the export: \(message).")
        default: .invalidArgument("The export file \(e.file) is damaged at byte \(e.offset): \(e.reason).")
        }
    }
}
