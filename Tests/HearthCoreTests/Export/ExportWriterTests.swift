import Foundation
import Testing
@testable import HearthCore

@Suite("Export writer: the official layout, read back identically")
struct ExportWriterTests {
    /// Writes `documents` (resource name → fields) as an export; returns the export folder.
    private func write(_ documents: [String: MapValue], into dir: String, name: String = "firestore_export") throws -> ExportWriter.Summary {
        let writer = try ExportWriter(directory: dir, name: name)
        for (key, fields) in documents.sorted(by: { $0.key < $1.key }) {
            let parsed = try DocumentName.parse(key)
            try writer.add(path: parsed.path, fields: fields, database: parsed.database)
        }
        return try writer.finish()
    }

    @Test("every fixture, written again by our writer, reads back identically",
          arguments: ["official-export", "official-export-single", "official-export-split", "official-export-empty",
                      "official-export-named-db", "official-export-numeric-ids", "official-export-vector-in-array-map",
                      "official-export-legacy-meaning", "handwritten/export", "official-export-framing/exactly-7-left"])
    func rewrite(_ fixture: String) throws {
        let original = try ExportFixtures.read(fixture)
        let dir = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = try write(original, into: dir)
        #expect(summary.documents == original.count)
        #expect(try ExportFixtures.read(dir) == original)
    }

    @Test("a document whose fields are in written order is encoded byte for byte as the emulator did")
    func byteIdentity() throws {
        let dir = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let summary = try write(try ExportFixtures.read("official-export-single"), into: dir)
        let ours = ExportFixtures.files(under: summary.folder)
        #expect(ours == ["all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata",
                         "all_namespaces/all_kinds/output-0", "firestore_export.overall_export_metadata"])
        let fixture = ExportFixtures.path("official-export-single/firestore_export")
        for file in ["all_namespaces/all_kinds/output-0", "firestore_export.overall_export_metadata"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: (summary.folder as NSString).appendingPathComponent(file)))
            let b = try Data(contentsOf: URL(fileURLWithPath: (fixture as NSString).appendingPathComponent(file)))
            #expect(a == b, "\(file)")
        }
    }

    @Test("5,000 documents a file; an empty export is the overall file alone")
    func layout() throws {
        let dir = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var docs: [String: MapValue] = [:]
        for i in 0...5_000 { docs["projects/p/databases/(default)/documents/many/d\(i)"] = MapValue([("i", .integer(Int64(i)))]) }
        let summary = try write(docs, into: dir, name: "split")
        #expect(summary.dataFiles == 2)
        #expect(try ExportFixtures.records((summary.folder as NSString).appendingPathComponent("all_namespaces/all_kinds/output-0")).count == 5_000)
        #expect(try ExportFixtures.records((summary.folder as NSString).appendingPathComponent("all_namespaces/all_kinds/output-1")).count == 1)
        let reader = try ExportReader(overallFile: summary.overallFile)
        #expect(reader.declaredCount == 5_001)

        let empty = try write([:], into: dir, name: "empty")
        #expect(ExportFixtures.files(under: empty.folder) == ["empty.overall_export_metadata"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty.overallFile)).count == 15)
    }

    @Test("export_directory must exist; every value type survives, including -0.0, NaN and extremes")
    func values() throws {
        #expect(throws: FirestoreError.self) { _ = try ExportWriter(directory: "/nonexistent-hearth-dir", name: "x") }
        let dir = try ExportFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fields = MapValue([
            ("null", .null), ("t", .boolean(true)), ("i", .integer(.min)), ("j", .integer(.max)), ("z", .double(-0.0)),
            ("nan", .double(.nan)), ("inf", .double(-.infinity)), ("ts", .timestamp(Timestamp(seconds: Timestamp.minSeconds, nanos: 0))),
            ("ts2", .timestamp(Timestamp(seconds: -1, nanos: 999_999_000))), ("s", .string("Zoë\u{0}x")), ("b", .bytes(Data())),
            ("g", .geoPoint(GeoPoint(latitude: -90, longitude: 180))), ("r", testReference("c/__id42__/d/e", project: "other", database: "db2")),
            ("a", .array([.integer(1), testMap(["inner": .array([]), "v": .vector([1, -0.0])]), .null])), ("e", .array([])),
            ("m", .map(MapValue())), ("v", .vector([0.5])), ("dotted.name with space`", .integer(3)),
        ])
        let docs = ["projects/p/databases/(default)/documents/c/__id-7__/sub/d": fields,
                    "projects/p/databases/named/documents/c/d": MapValue()]
        let summary = try write(docs, into: dir)
        #expect(try ExportFixtures.read(summary.folder) == docs)
    }
}
