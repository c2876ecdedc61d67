import Foundation

/// Imports what an import path names (`ImportSource`) into databases, as the official
/// emulator does: each document is upserted — it replaces any stored document whole, other
/// documents stay — and gets new create and update times (exports carry none).
///
/// An export is read twice: first every fragment's checksum and framing is checked, so a
/// damaged export is refused before anything changes; then documents are decoded and
/// committed in batches, so memory holds one batch, never the file.
public enum DataImport {
    public struct Summary: Sendable {
        public var documents = 0
        /// Entities in a Datastore namespace, which no Firestore API shows.
        public var skipped = 0
        public var perDatabase: [DatabaseID: Int] = [:]
        public var seconds = 0.0
    }

    /// Documents per commit: large enough that commits cost little each, small enough that
    /// a batch is a small part of memory.
    public static let batchSize = 1_000

    /// Imports `path`. Documents go to `project` when given, else to the project the export
    /// names (an export's key app; Hearth JSON has none, so `project` is required for it);
    /// the database is the one the export names (its keys' `database_id`), or `database` for
    /// Hearth JSON. `progress` is called with the running count after each batch. `batchSize`
    /// documents go in each commit (tests use small batches to keep small imports multi-batch).
    public static func run(_ path: String, project: String?, database defaultDatabase: String = DatabaseID.defaultDatabase,
                           databases: (DatabaseID) -> Database, batchSize: Int = DataImport.batchSize,
                           progress: ((Int) -> Void)? = nil) throws(FirestoreError) -> Summary {
        let started = Date()
        var summary = Summary()
        typealias Batch = [(path: ResourcePath, fields: MapValue)]
        // The batch being filled, and those of other databases set aside: documents of one
        // database usually follow each other, so most cost no dictionary lookup.
        var current: (id: DatabaseID, batch: Batch)?
        var others: [DatabaseID: Batch] = [:]
        func commit(_ id: DatabaseID, _ batch: Batch) throws(FirestoreError) {
            guard !batch.isEmpty else { return }
            try databases(id).importDocuments(batch)
            summary.documents += batch.count
            summary.perDatabase[id, default: 0] += batch.count
            progress?(summary.documents)
        }
        func add(_ id: DatabaseID, _ path: ResourcePath, _ fields: MapValue) throws(FirestoreError) {
            if current?.id != id {
                if let c = current { others[c.id] = c.batch }
                var batch = others.removeValue(forKey: id) ?? []
                batch.reserveCapacity(batchSize)
                current = (id, batch)
            }
            current!.batch.append((path, fields))
            if current!.batch.count >= batchSize {
                let full = current!.batch
                current!.batch = []
                current!.batch.reserveCapacity(batchSize)
                try commit(id, full)
            }
        }
        do throws(FirestoreError) {
            switch try ImportSource.locate(path) {
            case .export(let overall):
                let reader = try ExportReader(overallFile: overall)
                try reader.verify()
                let counts = try reader.forEach { (doc: ExportedDocument) throws(FirestoreError) in
                    try add(DatabaseID(project: project ?? doc.database.project, database: doc.database.database), doc.path, doc.fields)
                }
                summary.skipped = counts.skipped
            case .hearthJSON(let file):
                guard let project else { throw .invalidArgument("Importing Hearth JSON \(file) needs a project to import into.") }
                let data: Data
                do { data = Data(try PosixFile.contents(file)) } catch { throw .invalidArgument("Cannot read \(file): \(error.description).") }
                let id = DatabaseID(project: project, database: defaultDatabase)
                let documents: Batch
                do { documents = try HearthJSON.documents(data, database: id) } catch {
                    throw .invalidArgument("\(file): \(error.message)")
                }
                for d in documents { try add(id, d.path, d.fields) }
            }
            if let c = current { others[c.id] = c.batch }
            for id in others.keys.sorted(by: { $0.name < $1.name }) { try commit(id, others[id]!) }
        } catch {
            // The export was checked whole before the first batch, so only the disk (a read or
            // a write failing) stops an import part way; say how far it got.
            guard summary.documents > 0 else { throw error }
            throw FirestoreError(error.code, "\(error.message) The import stopped after \(summary.documents) documents (committed in whole batches of \(batchSize)); importing again is safe, since each document replaces the stored one.")
        }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }
}

/// The firebase-tools export layout that `firebase emulators:export` and `--export-on-exit`
/// write and `firebase emulators:start --import` reads:
///
/// ```
/// DIR/firebase-export-metadata.json
/// DIR/firestore_export/firestore_export.overall_export_metadata  (and the entity set)
/// ```
///
/// `replace` writes the whole new export beside `DIR`, syncs it, and then swaps it in with
/// one atomic exchange: a crash at any moment leaves `DIR` holding the old export or the new
/// one, whole (firebase-tools deletes the old export first).
public enum ExportFolder {
    public static let firestoreFolder = "firestore_export"

    /// Writes `states` as a firebase-tools export folder at `directory`, replacing what is
    /// there atomically.
    @discardableResult
    public static func replace(_ directory: String, with states: [DatabaseState],
                               progress: ((Int) -> Void)? = nil) throws(FirestoreError) -> ExportWriter.Summary {
        try replace(directory) { (staging: String) throws(FirestoreError) -> ExportWriter.Summary in
            let writer = try ExportWriter(directory: staging, name: firestoreFolder)
            var written = 0
            for state in states {
                for (_, version) in state.documents {
                    guard let document = version.document else { continue }
                    try writer.add(path: document.path, fields: document.fields, database: state.database)
                    written += 1
                    if written % 100_000 == 0 { progress?(written) }
                }
            }
            return try writer.finish()
        }
    }

    /// Has `write` put an export named `firestore_export` in a staging folder beside
    /// `directory`, adds `firebase-export-metadata.json`, syncs, and swaps the folder in.
    @discardableResult
    public static func replace(_ directory: String, emulatorVersion: String = "hearth",
                               write: (_ staging: String) throws(FirestoreError) -> ExportWriter.Summary) throws(FirestoreError) -> ExportWriter.Summary {
        let fm = FileManager.default
        // A relative path is the working directory's (its parent would otherwise be "").
        let absolute = directory.hasPrefix("/") ? directory : (fm.currentDirectoryPath as NSString).appendingPathComponent(directory)
        let standardized = (absolute as NSString).standardizingPath
        let parent = (standardized as NSString).deletingLastPathComponent
        let name = (standardized as NSString).lastPathComponent
        do { try PosixFile.makeDirectory(parent, intermediate: true) } catch {
            throw FirestoreError(.invalidArgument, "Cannot create \(parent): \(error)")
        }
        let staging = (parent as NSString).appendingPathComponent(".\(name).incoming-\(getpid())")
        try? PosixFile.remove(staging)
        // The staging folders of exports a crash interrupted (their process is gone): nothing
        // else would ever remove them, and each may hold a whole export. A live process's
        // export in progress is left alone.
        let stagingPrefix = ".\(name).incoming-"
        for entry in (try? PosixFile.list(parent)) ?? [] where entry.hasPrefix(stagingPrefix) {
            guard let pid = Int32(entry.dropFirst(stagingPrefix.count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? PosixFile.remove((parent as NSString).appendingPathComponent(entry))
        }
        do { try PosixFile.makeDirectory(staging) } catch {
            throw FirestoreError(.invalidArgument, "Cannot create \(staging): \(error)")
        }
        do {
            let summary = try write(staging)
            let metadata = JSON.object([
                ("version", .string(emulatorVersion)),
                ("firestore", .object([
                    ("version", .string(emulatorVersion)),
                    ("path", .string(firestoreFolder)),
                    ("metadata_file", .string(firestoreFolder + "/" + firestoreFolder + ImportSource.overallSuffix)),
                ])),
            ])
            try io { () throws(PosixFile.Failure) in
                let f = try PosixFile.create((staging as NSString).appendingPathComponent(ImportSource.firebaseMetadataFile))
                try f.write(metadata.prettyBytes)
                try f.sync()
                f.close()
                try PosixFile.syncDirectory(staging)
                if try PosixFile.kind(standardized) != .missing {
                    try PosixFile.exchange(staging, standardized)
                } else {
                    try PosixFile.rename(staging, to: standardized)
                }
                try PosixFile.syncDirectory(parent)
            }
            // After an exchange the staging name holds the old export.
            try? PosixFile.remove(staging)
            return ExportWriter.Summary(folder: standardized, overallFile: (standardized as NSString).appendingPathComponent(
                firestoreFolder + "/" + firestoreFolder + ImportSource.overallSuffix), documents: summary.documents,
                dataFiles: summary.dataFiles, dataBytes: summary.dataBytes)
        } catch {
            try? PosixFile.remove(staging)
            throw error
        }
    }

    private static func io(_ body: () throws(PosixFile.Failure) -> Void) throws(FirestoreError) {
        do { try body() } catch { throw FirestoreError(.internal, "Export failed: \(error.description).") }
    }
}
