import Foundation
import Testing
@testable import HearthCore

/// A snapshot stores each database's declared indexes (format 2), so a restart reads their
/// entries instead of building and sorting them: what it reads must be what building gives,
/// with the commits logged after the snapshot applied; old snapshots still load; a damaged
/// index section is refused with the file, the offset and the problem.
@Suite struct StoredIndexTests {
    let id = DatabaseID(project: "p")
    let clock = ManualClock(now: testEpoch)

    /// A composite (descending last: names descending), a collection-group CONTAINS one and a
    /// single-field override: every kind of entry a snapshot stores.
    static let configuration = try! IndexConfiguration(json: Data(#"""
        {"indexes": [
           {"collectionGroup": "c", "queryScope": "COLLECTION", "fields": [
              {"fieldPath": "category", "order": "ASCENDING"}, {"fieldPath": "score", "order": "DESCENDING"}]},
           {"collectionGroup": "c", "queryScope": "COLLECTION_GROUP", "fields": [
              {"fieldPath": "tags", "arrayConfig": "CONTAINS"}, {"fieldPath": "score", "order": "ASCENDING"}]}],
         "fieldOverrides": [{"collectionGroup": "c", "fieldPath": "score", "indexes": [
            {"order": "ASCENDING", "queryScope": "COLLECTION"}]}]}
        """#.utf8))
    static let onlyScore = try! IndexConfiguration(json: Data(#"""
        {"indexes": [], "fieldOverrides": [{"collectionGroup": "c", "fieldPath": "score", "indexes": [
            {"order": "ASCENDING", "queryScope": "COLLECTION"}]},
           {"collectionGroup": "c", "fieldPath": "category", "indexes": [{"order": "DESCENDING", "queryScope": "COLLECTION"}]}]}
        """#.utf8))

    static func fields(_ i: Int, note: String = "") -> MapValue {
        MapValue([("category", .string("k\(i % 3)")), ("score", .integer(Int64(i * 7 % 50))),
                  ("tags", .array([.string("t\(i % 4)"), .string("t\(i % 5)"), .string("t\(i % 4)")])),
                  ("note", .string(note + String(repeating: "p", count: i % 40)))])
    }

    /// Each materialised index's entries as (key bytes, document path, whether the entry's
    /// document is the current one's content), by definition.
    static func entries(_ state: DatabaseState) -> [IndexDefinition: [String]] {
        var out: [IndexDefinition: [String]] = [:]
        for d in state.indexes.definitions {
            out[d] = state.indexes.entries(d)!.map { key, doc in
                let current = state.document(doc.path)
                return "\(key.bytes) \(doc.path) \(current.map { $0.fields == doc.fields || doc.isReplaced } ?? false)"
            }
        }
        return out
    }

    /// What building `definitions` over the state's documents gives.
    static func rebuilt(_ state: DatabaseState, _ definitions: [IndexDefinition]) -> [IndexDefinition: [String]] {
        var fresh = state
        fresh.indexes = IndexStore()
        fresh.indexes.materialize(definitions, from: fresh.documents)
        return entries(fresh)
    }

    /// Fills `c` (and a `c` under another parent, for the group index), compacts, then logs
    /// commits after the snapshot that move, drop and add entries.
    private func populate(_ dir: DataDirectory) throws -> [String: String] {
        let store = try dir.open()
        defer { store.close() }
        let db = store.database(id, clock: clock, indexes: Self.configuration)
        for chunk in 0..<6 {
            clock.advance(by: 1)
            try db.commit((0..<50).map { j in .set(testPath("c/d\(chunk * 50 + j)"), Self.fields(chunk * 50 + j)) })
        }
        try db.commit((0..<20).map { .set(testPath("o/x\($0)/c/g\($0)"), Self.fields($0)) })
        // Fields no index covers: the entries keep the replaced versions.
        clock.advance(by: 1)
        try db.commit((0..<30).map { .update(testPath("c/d\($0)"), MapValue([("note", .string("later"))]), mask: [testFieldPath("note")]) })
        try store.compact()
        // After the snapshot: indexed fields changed, documents deleted and added.
        clock.advance(by: 1)
        try db.commit((30..<60).map { .set(testPath("c/d\($0)"), Self.fields($0 + 1, note: "moved")) })
        try db.commit((60..<80).map { .delete(testPath("c/d\($0)")) } + [.delete(testPath("o/x3/c/g3"))])
        try db.commit((0..<25).map { .set(testPath("c/new\($0)"), Self.fields($0 + 100)) })
        return durableContents(db)
    }

    @Test("a restart reads the stored declared indexes, replays the later commits into them, and equals building them")
    func storedIndexesEqualBuiltOnes() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        let contents = try populate(dir)
        // The snapshot holds all three, with the entries of its moment.
        let snapshot = try #require(dir.files.first { $0.hasPrefix("snapshot-") })
        for threads in [1, 2] {
            let read = try SnapshotFile.read(dir.file(snapshot), threads: threads)
            let recovered = try #require(read.databases[id])
            #expect(Set(recovered.indexes.definitions) == Set(Self.configuration.declaredDefinitions))
            let state = DatabaseState(database: id, readTime: recovered.lastCommit, documents: recovered.documents, documentCount: recovered.documentCount)
            var withStored = state
            withStored.indexes = recovered.indexes
            #expect(Self.entries(withStored) == Self.rebuilt(state, Self.configuration.declaredDefinitions))
        }
        let store = try dir.open()
        defer { store.close() }
        let db = store.database(id, clock: clock, indexes: Self.configuration)
        #expect(durableContents(db) == contents)
        let state = db.state()
        let got = Self.entries(state)
        #expect(Set(got.keys) == Set(Self.configuration.declaredDefinitions))
        #expect(got == Self.rebuilt(state, Self.configuration.declaredDefinitions))
        #expect(got.values.allSatisfy { !$0.isEmpty })
        // The replayed commits reached the stored entries: moved, dropped and added ones.
        let composite = try #require(Self.configuration.declaredDefinitions.first)
        #expect(got[composite]?.count == state.documentCount)
    }

    @Test("an index no longer declared is dropped at restart and a newly declared one built")
    func changedDeclarations() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        _ = try populate(dir)
        let store = try dir.open()
        defer { store.close() }
        let db = store.database(id, clock: clock, indexes: Self.onlyScore)
        let state = db.state()
        #expect(Set(state.indexes.definitions) == Set(Self.onlyScore.declaredDefinitions))
        #expect(Self.entries(state) == Self.rebuilt(state, Self.onlyScore.declaredDefinitions))
        // The next snapshot stores what is declared now.
        try store.compact()
        let snapshot = try #require(dir.files.first { $0.hasPrefix("snapshot-") })
        let read = try SnapshotFile.read(dir.file(snapshot))
        #expect(Set(try #require(read.databases[id]).indexes.definitions) == Set(Self.onlyScore.declaredDefinitions))
    }

    // MARK: Records written by hand

    private func file(_ records: [[UInt8]], in dir: DataDirectory) throws -> (path: String, offsets: [Int]) {
        var framer = LogFramer(), out: [UInt8] = [], offsets: [Int] = []
        for r in records {
            offsets.append(out.count)
            framer.frame(r, into: &out)
        }
        try dir.write("snapshot-00000002.hearth", out)
        return (dir.file("snapshot-00000002.hearth"), offsets)
    }

    private func header(version: Int = DurableRecord.snapshotFormatVersion) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.snapshotHeader); w.string(DurableRecord.snapshotMagic); w.varint(version); w.varint(2)
        return w.bytes
    }

    private func database(_ n: Int) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.database); w.databaseID(id); w.timestamp(testEpoch); w.varint(n)
        return w.bytes
    }

    private func documents(_ range: Range<Int>) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.batch); w.varint(range.count)
        for i in range { w.document(Document(path: testPath("c/d\(i)"), fields: Self.fields(i), createTime: testEpoch, updateTime: testEpoch)) }
        return w.bytes
    }

    static let score = IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("score"), .ascending)])

    private func index(entries: Int, keyFormat: Int = IndexKeyEncoding.formatVersion) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.index); w.varint(keyFormat); w.indexDefinition(Self.score); w.varint(entries)
        return w.bytes
    }

    /// Entries with the given keys (written whole) naming the given document positions.
    private func entries(_ items: [(key: [UInt8], position: Int)]) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.indexEntries); w.varint(items.count)
        for (key, position) in items { w.varint(0); w.varint(key.count); w.bytes.append(contentsOf: key); w.varint(position) }
        return w.bytes
    }

    private func end(_ documents: Int) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.snapshotEnd); w.varint(1); w.varint(documents)
        return w.bytes
    }

    @Test("a format-1 snapshot (documents only) still loads and the declared indexes are built")
    func formatOneLoads() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        _ = try file([header(version: 1), database(4), documents(0..<4), end(4)], in: dir)
        try FileManager.default.moveItem(atPath: dir.file("snapshot-00000002.hearth"), toPath: dir.file(DurableRecord.snapshotName(1)))
        let store = try dir.open()
        defer { store.close() }
        let state = store.database(id, clock: clock, indexes: Self.configuration).state()
        #expect(state.documentCount == 4)
        #expect(Self.entries(state) == Self.rebuilt(state, Self.configuration.declaredDefinitions))
    }

    @Test("stored entries of another key format are read, then left: the index is built")
    func otherKeyFormatIsRebuilt() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        let (path, _) = try file([header(), database(2), documents(0..<2), index(entries: 1, keyFormat: 99), entries([([1, 2, 3], 1)]), end(2)], in: dir)
        let read = try SnapshotFile.read(path)
        #expect(try #require(read.databases[id]).indexes.definitions.isEmpty)
        #expect(try #require(read.databases[id]).documentCount == 2)
    }

    @Test("a damaged index section is refused with the file, the record's offset and the problem")
    func damagedIndexSections() throws {
        let cases: [(records: [[UInt8]], bad: Int, problem: String)] = [
            ([header(), database(2), documents(0..<2), index(entries: 1), entries([([1, 2], 2)]), end(2)], 4, "naming document 2 of 2"),
            ([header(), database(2), documents(0..<2), index(entries: 2), entries([([1, 2], 0), ([1, 2], 1)]), end(2)], 4, "index entries out of order"),
            ([header(), database(2), documents(0..<2), index(entries: 2), entries([([1, 3], 0)]), entries([([1, 2], 1)]), end(2)], 5,
             "index entries out of order at the record's first entry"),
            ([header(), database(2), documents(0..<2), index(entries: 3), entries([([1, 2], 0)]), end(2)], 5, "declares 3 entries but holds 1"),
            ([header(), database(2), documents(0..<2), entries([([1, 2], 0)]), end(2)], 3, "index entries before their index"),
            ([header(), database(2), documents(0..<1), index(entries: 0), documents(1..<2), end(2)], 3, "declares 2 documents but holds 1"),
            ([header(), database(1), documents(0..<1), index(entries: 0), documents(1..<2), end(2)], 4, "documents after their database's indexes"),
            ([header(), index(entries: 0), end(0)], 1, "an index before its database"),
            ([header(version: 1), database(1), documents(0..<1), index(entries: 0), end(1)], 3, "unknown record kind 73"),
            ([header(version: 3), database(1), documents(0..<1), end(1)], 0, "snapshot format version 3 (this Hearth reads 1 and 2)"),
        ]
        for (n, c) in cases.enumerated() {
            let dir = try DataDirectory()
            defer { dir.remove() }
            let (path, offsets) = try file(c.records, in: dir)
            for threads in [1, 2] {
                do {
                    _ = try SnapshotFile.read(path, threads: threads)
                    Issue.record("case \(n): read a damaged snapshot")
                } catch {
                    #expect(error.message.contains(path), "case \(n): \(error.message)")
                    #expect(error.message.contains(c.problem), "case \(n): \(error.message)")
                    #expect(error.message.contains("byte \(offsets[c.bad])"), "case \(n): expected byte \(offsets[c.bad]): \(error.message)")
                }
            }
        }
    }
}
