import Foundation
import Testing
@testable import HearthCore

@Suite("Export fixtures: each reads to what the official emulator read back, and survives our writer")
struct ExportFixtureTests {
    @Test("the main export reads to exactly the 2,033 documents the emulator returned")
    func mainExport() throws {
        let read = try ExportFixtures.read("official-export")
        let expected = try ExportFixtures.restDocuments("documents-readback.json")
        #expect(read.count == 2_033)
        #expect(Set(read.keys) == Set(expected.keys))
        for (name, fields) in expected where read[name] != fields {
            Issue.record("\(name): read \(read[name].map { "\($0)" } ?? "nothing"), expected \(fields)")
        }
    }

    @Test("small official exports read to the documents written into them",
          arguments: [("official-export-single", "official-export-single/documents-single.json"),
                      ("official-export-split", "official-export-split/documents-split.json"),
                      ("handwritten/export", "handwritten/readback.json")])
    func smallExports(_ fixture: String, _ documents: String) throws {
        #expect(try ExportFixtures.read(fixture) == (try ExportFixtures.restDocuments(documents)))
    }

    @Test("the framing edge cases read to their documents", arguments: ["trailer-3-bytes", "exactly-7-left", "exact-block-fill"])
    func framing(_ variant: String) throws {
        let read = try ExportFixtures.read("official-export-framing/\(variant)")
        let all = try ExportFixtures.restDocuments("official-export-framing/documents-framing.json")
        #expect(read.count == 2)
        for (name, fields) in read { #expect(all[name] == fields, "\(name)") }
    }

    @Test("an empty export holds no documents")
    func empty() throws {
        #expect(try ExportFixtures.read("official-export-empty").isEmpty)
    }

    @Test("named databases, integer IDs, vectors in maps in arrays, legacy meanings")
    func specialExports() throws {
        let other = DatabaseID(project: "probe3", database: "otherdb")
        #expect(try ExportFixtures.read("official-export-named-db") == [
            "projects/probe3/databases/otherdb/documents/n/one":
                MapValue([("r", .reference(DocumentName(database: other, path: testPath("n/two"))))]),
        ])
        #expect(try ExportFixtures.read("official-export-numeric-ids") == [
            "projects/probe3/databases/(default)/documents/ids/__id-5__": MapValue([("x", .integer(1))]),
            "projects/probe3/databases/(default)/documents/ids/__id9223372036854775807__": MapValue([("x", .integer(1))]),
        ])
        #expect(try ExportFixtures.read("official-export-vector-in-array-map") == [
            "projects/probe6/databases/(default)/documents/v/nested":
                MapValue([("a", .array([testMap(["vec": .vector([1.5, 2.0])])]))]),
        ])
        #expect(try ExportFixtures.read("official-export-legacy-meaning") == [
            "projects/var-text-meaning/databases/(default)/documents/c/d": MapValue([
                ("b", testMap(["__type__": .string("__legacy_meaning_value__"), "value": .bytes(Data([0, 1])), "meaning": .integer(16)])),
                ("t", testMap(["__type__": .string("__legacy_meaning_value__"), "value": .string("long text"), "meaning": .integer(15)])),
            ]),
        ])
    }

    /// The 29 altered exports: those the emulator imported read to the documents it returned
    /// (our reader keeps the key's project; the emulator's import rewrote it to the target
    /// project `var-<name>`), and those it refused are refused, naming the problem.
    @Test("the altered exports are read or refused as the emulator did")
    func importVariants() throws {
        let results = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: ExportFixtures.path("import-variants/results.json")))))
        let refusals: [String: String] = [
            "no-version": "Overall export metadata file version not supported",
            "version-2": "Overall export metadata file version not supported",
            "bad-crc-data": "Checksum doesn't validate",
            "bad-crc-overall": "Checksum doesn't validate",
            "no-entity-group": "no entity_group",
            "vector-int": "all values in a vector must be doubles",
            "split-array-stashed": "Property \"a\" has field stashed",
            "no-multiple": "has no multiple",
            "no-value": "has no value",
            "key-without-app": "has no app",
        ]
        var seen = 0
        for variant in results.arrayValue ?? [] {
            let name = try #require(variant["variant"]?.stringValue)
            let fixture = "import-variants/\(name)/x.overall_export_metadata"
            seen += 1
            if let expected = refusals[name] {
                do {
                    _ = try ExportFixtures.read(fixture)
                    Issue.record("\(name): read, but the emulator refused it")
                } catch let error as FirestoreError {
                    #expect(error.code == .invalidArgument)
                    #expect(error.message.contains(expected), "\(name): \(error.message)")
                }
                continue
            }
            let read = try ExportFixtures.read(fixture)
            let project = "var-\(name)"
            var rewritten: [String: MapValue] = [:]
            for (key, fields) in read {
                let parsed = try DocumentName.parse(key)
                rewritten[DocumentName(database: DatabaseID(project: project, database: parsed.database.database), path: parsed.path).description] = fields
            }
            #expect(rewritten == (try ExportFixtures.restDocuments(variant["documents"] ?? .array([]))), "\(name)")
        }
        #expect(seen == 29)
    }

    @Test("the namespace variant is skipped, as no Firestore API shows it")
    func namespaceSkipped() throws {
        let reader = try ExportReader(overallFile: ExportFixtures.path("import-variants/namespace/x.overall_export_metadata"))
        let counts = try reader.forEach { (_: ExportedDocument) throws(FirestoreError) in Issue.record("read a namespaced entity") }
        #expect(counts.documents == 0 && counts.skipped == 1)
    }
}
