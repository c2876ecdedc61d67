import Foundation

/// Writes an export in the official emulator's layout, document by document (memory holds
/// one output buffer, whatever the export's size):
///
/// ```
/// DIR/NAME/NAME.overall_export_metadata
/// DIR/NAME/all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata
/// DIR/NAME/all_namespaces/all_kinds/output-0, output-1, …   (5,000 documents each)
/// ```
///
/// An empty export is the overall file alone. Every file is synced before `finish()`
/// returns, so a caller that then renames the folder into place publishes a complete export.
public final class ExportWriter {
    public static let documentsPerFile = 5_000
    static let entitySetFolder = "all_namespaces/all_kinds"
    static let entitySetMetadata = "all_namespaces_all_kinds.export_metadata"

    public struct Summary: Sendable {
        /// DIR/NAME
        public let folder: String
        public let overallFile: String
        public let documents: Int
        public let dataFiles: Int
        public let dataBytes: Int

        public init(folder: String, overallFile: String, documents: Int, dataFiles: Int, dataBytes: Int) {
            self.folder = folder
            self.overallFile = overallFile
            self.documents = documents
            self.dataFiles = dataFiles
            self.dataBytes = dataBytes
        }
    }

    public let folder: String
    public let name: String
    private let startMicros: Int64
    private var file: PosixFile?
    private var framer = LogFramer()
    private var buffer: [UInt8] = []
    private var inFile = 0
    private var fileNames: [String] = []
    private var dataBytes = 0
    public private(set) var documentCount = 0

    /// Starts export `name` in `directory`, which must exist (as the emulator requires).
    public init(directory: String, name: String) throws(FirestoreError) {
        guard (try? PosixFile.kind(directory)) == .directory else {
            // The official emulator's answer, word for word (Tests/Differential, "export
            // firebase-tools body directory missing"): the path is the caller's own.
            throw FirestoreError(.failedPrecondition, "export_directory must be a directory")
        }
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw .invalidArgument("export_name must be a single folder name, got \"\(name)\".")
        }
        self.name = name
        folder = (directory as NSString).appendingPathComponent(name)
        startMicros = SystemClock().now().microseconds
        do {
            try PosixFile.makeDirectory(folder, intermediate: true)
        } catch {
            throw .invalidArgument("Cannot create \(folder): \(error)")
        }
        buffer.reserveCapacity(Self.flushSize + LogFormat.blockSize)
    }

    private static let flushSize = 1 << 20

    /// Adds one document of `database`.
    public func add(path: ResourcePath, fields: MapValue, database: DatabaseID) throws(FirestoreError) {
        let record = try EntityCodec.encode(path: path, fields: fields, database: database)
        if file == nil || inFile == Self.documentsPerFile { try startFile() }
        framer.frame(record, into: &buffer)
        inFile += 1
        documentCount += 1
        if buffer.count >= Self.flushSize { try flush() }
    }

    /// Adds every existing document of a database state (a consistent snapshot).
    public func add(_ state: DatabaseState) throws(FirestoreError) {
        for (_, version) in state.documents {
            guard let document = version.document else { continue }
            try add(path: document.path, fields: document.fields, database: state.database)
        }
    }

    private func startFile() throws(FirestoreError) {
        try closeFile()
        let dir = (folder as NSString).appendingPathComponent(Self.entitySetFolder)
        if fileNames.isEmpty {
            do { try PosixFile.makeDirectory(dir, intermediate: true) } catch {
                throw .invalidArgument("Cannot create \(dir): \(error)")
            }
        }
        let fileName = "output-\(fileNames.count)"
        fileNames.append(fileName)
        file = try io { () throws(PosixFile.Failure) in try PosixFile.create((dir as NSString).appendingPathComponent(fileName)) }
        framer = LogFramer()
        inFile = 0
    }

    private func flush() throws(FirestoreError) {
        guard let file, !buffer.isEmpty else { return }
        try io { () throws(PosixFile.Failure) in try file.write(buffer) }
        dataBytes += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    private func closeFile() throws(FirestoreError) {
        guard let open = file else { return }
        try flush()
        try io { () throws(PosixFile.Failure) in try open.sync() }
        open.close()
        file = nil
    }

    /// Writes the metadata files and syncs everything.
    @discardableResult
    public func finish() throws(FirestoreError) -> Summary {
        try closeFile()
        let overallPath = (folder as NSString).appendingPathComponent(name + ImportSource.overallSuffix)
        var overall: [UInt8] = []
        var framer = LogFramer()
        framer.frame(ExportMetadata.formatVersion, into: &overall)
        if fileNames.isEmpty {
            framer.frame([], into: &overall)
        } else {
            let dir = (folder as NSString).appendingPathComponent(Self.entitySetFolder)
            let backup = ExportMetadata.encodeBackup(name: name, startMicros: startMicros, endMicros: SystemClock().now().microseconds, files: fileNames)
            try writeSynced(backup, to: (dir as NSString).appendingPathComponent(Self.entitySetMetadata))
            // Each new folder's entry lives in its parent: all_kinds in all_namespaces,
            // all_namespaces in the export folder (synced below). Unsynced, a power loss after
            // the export is published can drop the entity set and leave the overall file
            // pointing at nothing.
            try io { () throws(PosixFile.Failure) in
                try PosixFile.syncDirectory(dir)
                try PosixFile.syncDirectory((dir as NSString).deletingLastPathComponent)
            }
            framer.frame(ExportMetadata.encodeOverall(metadataFile: Self.entitySetFolder + "/" + Self.entitySetMetadata,
                                                      entityCount: documentCount, byteCount: dataBytes), into: &overall)
        }
        try writeSynced(overall, to: overallPath)
        try io { () throws(PosixFile.Failure) in try PosixFile.syncDirectory(folder) }
        return Summary(folder: folder, overallFile: overallPath, documents: documentCount, dataFiles: fileNames.count, dataBytes: dataBytes)
    }

    private func writeSynced(_ bytes: [UInt8], to path: String) throws(FirestoreError) {
        try io { () throws(PosixFile.Failure) in
            let f = try PosixFile.create(path)
            try f.write(bytes)
            try f.sync()
            f.close()
        }
    }

    private func io<T>(_ body: () throws(PosixFile.Failure) -> T) throws(FirestoreError) -> T {
        do { return try body() } catch { throw FirestoreError(.internal, "Export failed: \(error.description).") }
    }
}
