import Foundation
import HearthCore

/// Exports and imports over the emulator's databases: what the `:export` / `:import`
/// endpoints, `--import`, `--export-on-exit` and the console call.
extension EmulatorState {
    /// Writes database `id` as export `name` in `directory` (which must exist), the official
    /// emulator's layout; reads one immutable state, so commits continue meanwhile.
    @discardableResult
    public func exportDatabase(_ id: DatabaseID, to directory: String, name: String) throws(FirestoreError) -> ExportWriter.Summary {
        let writer = try ExportWriter(directory: directory, name: name)
        try writer.add(database(id).state())
        return try writer.finish()
    }

    /// Every database that holds documents, in name order.
    public func databasesWithDocuments() -> [DatabaseState] {
        registry.all.map { $0.state() }.filter { $0.documentCount > 0 }.sorted { $0.database.name < $1.database.name }
    }

    /// Writes every database with documents as a firebase-tools export folder at
    /// `directory`, replacing what is there atomically (`--export-on-exit`).
    @discardableResult
    public func exportAll(to directory: String, progress: ((Int) -> Void)? = nil) throws(FirestoreError) -> ExportWriter.Summary {
        try ExportFolder.replace(directory, with: databasesWithDocuments(), progress: progress)
    }

    /// Imports what `path` names (an export in any layout, or Hearth JSON) as the emulator
    /// does: upserts, into `project` (or the export's own), each document into the database
    /// its key names.
    @discardableResult
    public func importData(_ path: String, project: String?, database: String = DatabaseID.defaultDatabase,
                           progress: ((Int) -> Void)? = nil) throws(FirestoreError) -> DataImport.Summary {
        try DataImport.run(path, project: project, database: database, databases: { self.database($0) }, progress: progress)
    }
}
