import Foundation
import Testing
@testable import HearthCore

@Suite("Imports: every layout users have, upserts, all or nothing on damage; crash-safe export folders")
struct DataImportTests {
    /// Databases created on demand, as a registry does.
    final class Databases: @unchecked Sendable {
        var all: [DatabaseID: Database] = [:]
        func callAsFunction(_ id: DatabaseID) -> Database {
            if let db = all[id] { return db }
            let db = Database(id: id, clock: ManualClock(now: testEpoch))
            all[id] = db
            return db
        }
        func contents(_ id: DatabaseID) -> [String: MapValue] {
            var out: [String: MapValue] = [:]
            for d in all[id]?.state().allDocuments() ?? [] { out[id.resourceName(d.path)] = d.fields }
            return out
        }
    }

    @Test("an official export imports to exactly what the emulator read back, in its own project")
    func importOfficial() throws {
        let dbs = Databases()
        let summary = try DataImport.run(ExportFixtures.path("official-export"), project: nil, databases: dbs.callAsFunction)
        #expect(summary.documents == 2_033)
        let id = DatabaseID(project: "demo-fixtures")
        #expect(Array(dbs.all.keys) == [id])
        #expect(dbs.contents(id) == (try ExportFixtures.restDocuments("documents-readback.json")))
        // Documents get new times, all of the same commit batch.
        let doc = try #require(dbs.all[id]?.state().allDocuments().first)
        #expect(doc.createTime >= testEpoch && doc.createTime == doc.updateTime)
    }

    @Test("an import replaces documents whole and leaves the others; --project redirects it")
    func upsert() throws {
        let dbs = Databases()
        let id = DatabaseID(project: "target")
        try dbs(id).commit([.set(testPath("only/doc"), testFields(["extra": .boolean(true)])), .set(testPath("other/x"), MapValue())])
        _ = try DataImport.run(ExportFixtures.path("official-export-single"), project: "target", databases: dbs.callAsFunction)
        #expect(dbs.contents(id) == [
            "projects/target/databases/(default)/documents/only/doc": testFields(["hello": .string("world"), "n": .integer(1)]),
            "projects/target/databases/(default)/documents/other/x": MapValue(),
        ])
    }

    @Test("named databases import into the database their keys name")
    func namedDatabase() throws {
        let dbs = Databases()
        _ = try DataImport.run(ExportFixtures.path("official-export-named-db"), project: "mine", databases: dbs.callAsFunction)
        #expect(Array(dbs.all.keys) == [DatabaseID(project: "mine", database: "otherdb")])
    }

    @Test("a damaged file anywhere in an export is refused before anything is imported")
    func damagedExportImportsNothing() throws {
        let dir = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: ExportFixtures.path("official-export-split/firestore_export"), toPath: dir + "/e")
        let last = dir + "/e/all_namespaces/all_kinds/output-1"
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: last)))
        bytes[10] ^= 1
        try FileManager.default.removeItem(atPath: last)
        try Data(bytes).write(to: URL(fileURLWithPath: last))
        let dbs = Databases()
        do {
            _ = try DataImport.run(dir + "/e", project: nil, databases: dbs.callAsFunction)
            Issue.record("imported a damaged export")
        } catch {
            #expect(error.message == "Checksum doesn't validate: \(last), byte 0.")
        }
        #expect(dbs.all.values.allSatisfy { $0.state().documentCount == 0 })
    }

    @Test("import paths: the overall file, its folder, the emulator's export_directory, firebase-tools folders, Hearth JSON")
    func locate() throws {
        let overall = ExportFixtures.path("official-export/firestore_export/firestore_export.overall_export_metadata")
        #expect(try ImportSource.locate(overall) == .export(overallFile: overall))
        #expect(try ImportSource.locate(ExportFixtures.path("official-export/firestore_export")) == .export(overallFile: overall))
        #expect(try ImportSource.locate(ExportFixtures.path("official-export")) == .export(overallFile: overall))
        let json = ExportFixtures.path("handwritten/documents.json")
        #expect(try ImportSource.locate(json) == .hearthJSON(file: json))
        #expect(throws: FirestoreError.self) { try ImportSource.locate("/nonexistent/hearth") }
        let empty = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        do { _ = try ImportSource.locate(empty); Issue.record("an empty folder located") } catch {
            #expect(error.message.hasPrefix("No export found in \(empty)"))
        }
        try Data("{\"version\": \"13.0.0\", \"auth\": {\"path\": \"auth_export\"}}".utf8).write(to: URL(fileURLWithPath: empty + "/firebase-export-metadata.json"))
        do { _ = try ImportSource.locate(empty); Issue.record("an export without Firestore located") } catch {
            #expect(error.message.contains("lists no Firestore export"))
        }
    }

    @Test("Hearth JSON imports into the project given")
    func hearthJSON() throws {
        let dir = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(#"{"users/alice": {"age": 30, "at": {"$timestamp": "2026-01-01T00:00:00Z"}}}"#.utf8).write(to: URL(fileURLWithPath: dir + "/seed.json"))
        let dbs = Databases()
        #expect(throws: FirestoreError.self) { _ = try DataImport.run(dir + "/seed.json", project: nil, databases: dbs.callAsFunction) }
        _ = try DataImport.run(dir + "/seed.json", project: "p", databases: dbs.callAsFunction)
        #expect(dbs.contents(DatabaseID(project: "p")) == ["projects/p/databases/(default)/documents/users/alice":
            testFields(["age": .integer(30), "at": .timestamp(Timestamp(rfc3339: "2026-01-01T00:00:00Z")!)])])
    }

    @Test("an export folder is replaced whole, and reads back through firebase-export-metadata.json")
    func exportFolder() throws {
        let dir = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = Database(id: DatabaseID(project: "p"), clock: ManualClock(now: testEpoch))
        try db.commit([.set(testPath("c/a"), testFields(["v": .integer(1)])), .set(testPath("c/b"), MapValue())])
        let target = dir + "/seed"
        try ExportFolder.replace(target, with: [db.state()])
        try db.commit([.delete(testPath("c/b")), .set(testPath("c/new"), testFields(["x": .string("y")]))])
        try ExportFolder.replace(target, with: [db.state()])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["seed"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).sorted() == ["firebase-export-metadata.json", "firestore_export"])
        #expect(try ImportSource.locate(target) == .export(overallFile: target + "/firestore_export/firestore_export.overall_export_metadata"))
        #expect(try ExportFixtures.read(target) == [
            "projects/p/databases/(default)/documents/c/a": testFields(["v": .integer(1)]),
            "projects/p/databases/(default)/documents/c/new": testFields(["x": .string("y")]),
        ])
        let metadata = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: target + "/firebase-export-metadata.json"))))
        #expect(metadata["firestore"]?["path"]?.stringValue == "firestore_export")
    }
}
