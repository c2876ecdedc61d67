import Foundation
import Testing
@testable import HearthCore

/// Reading a snapshot decodes its batches on several threads at once: what it rebuilds, and
/// the errors it reports, must be those of reading one record after another.
@Suite struct SnapshotDecodeTests {
    let id = DatabaseID(project: "p")
    let time = Timestamp(seconds: 1_700_000_000, nanos: 123_456_000)

    private func document(_ path: String, _ n: Int) -> Document {
        // ~1 KiB each, so a few thousand fill more than one decode round (`decodeAheadBytes`).
        Document(path: testPath(path), fields: testFields(["n": .integer(Int64(n)), "pad": .string(String(repeating: "x", count: 1_000)),
                                                            "é": .string("ünïcode \(n)")]),
                 createTime: time, updateTime: Timestamp(seconds: time.seconds + Int64(n), nanos: 0))
    }

    /// A snapshot file of framed records.
    private func file(_ records: [[UInt8]], in dir: DataDirectory) throws -> String {
        var framer = LogFramer(), out: [UInt8] = []
        for r in records { framer.frame(r, into: &out) }
        try dir.write("snapshot-00000002.hearth", out)
        return dir.file("snapshot-00000002.hearth")
    }

    private func header() -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.snapshotHeader); w.string(DurableRecord.snapshotMagic); w.varint(DurableRecord.formatVersion); w.varint(2)
        return w.bytes
    }

    private func database(declaring n: Int) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.database); w.databaseID(id); w.timestamp(time); w.varint(n)
        return w.bytes
    }

    private func batch(_ documents: [Document]) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.batch); w.varint(documents.count)
        for d in documents { w.document(d) }
        return w.bytes
    }

    private func end(documents: Int) -> [UInt8] {
        var w = RecordWriter()
        w.byte(DurableRecord.snapshotEnd); w.varint(1); w.varint(documents)
        return w.bytes
    }

    @Test("several decode rounds on two threads rebuild what one thread does, in order")
    func parallelEqualsSerial() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        var map = PersistentSortedMap<DocumentKey, DocumentVersion>()
        for i in 0..<9_000 {
            let d = document("c/d\(i)", i)
            map.updateValue(DocumentVersion(document: d, since: d.updateTime, older: nil), forKey: DocumentKey(d.path))
        }
        let size = try SnapshotFile.write([DatabaseState(database: id, readTime: time, documents: map, documentCount: 9_000)], number: 2, directory: dir.path)
        #expect(size > 2 * SnapshotFile.decodeAheadBytes)
        let serial = try SnapshotFile.read(dir.file(DurableRecord.snapshotName(2)), threads: 1)
        let parallel = try SnapshotFile.read(dir.file(DurableRecord.snapshotName(2)), threads: 2)
        #expect(parallel.nextSegment == 2)
        let a = try #require(serial.databases[id]), b = try #require(parallel.databases[id])
        #expect(b.documentCount == 9_000 && b.lastCommit == time)
        let expected = map.map { "\($0.key.path) \($0.value.document!.fields) \($0.value.document!.updateTime.rfc3339)" }
        #expect(a.documents.map { "\($0.key.path) \($0.value.document!.fields) \($0.value.since.rfc3339)" } == expected)
        #expect(b.documents.map { "\($0.key.path) \($0.value.document!.fields) \($0.value.since.rfc3339)" } == expected)
        #expect(b.documents.invariantViolation() == nil)
    }

    @Test("documents out of order across two batch records are refused")
    func outOfOrderAcrossRecords() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        let path = try file([header(), database(declaring: 2), batch([document("c/b", 1)]), batch([document("c/a", 2)]), end(documents: 2)], in: dir)
        for threads in [1, 2] {
            #expect(throws: DurableStoreError.self) { try SnapshotFile.read(path, threads: threads) }
            do { _ = try SnapshotFile.read(path, threads: threads) } catch {
                #expect(error.message.contains("documents out of order at c/a"))
            }
        }
    }

    @Test("a malformed batch is reported before a damaged record after it, at its own offset")
    func firstErrorInFileOrder() throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        var bad = batch([document("c/b", 1)])
        bad[bad.count - 3] = 0x7F   // inside the last value: an unknown value tag or a short string
        bad.removeLast(2)
        let records = [header(), database(declaring: 3), batch([document("c/a", 0)]), bad, batch([document("c/c", 2)])]
        var framer = LogFramer(), out: [UInt8] = []
        var badOffset = 0
        for (i, r) in records.enumerated() {
            if i == 3 { badOffset = out.count }
            framer.frame(r, into: &out)
        }
        let damagedAt = out.count
        framer.frame(end(documents: 3), into: &out)
        out[damagedAt + 8] ^= 1   // the end record's checksum no longer matches
        try dir.write("snapshot-00000002.hearth", out)
        for threads in [1, 2] {
            do {
                _ = try SnapshotFile.read(dir.file("snapshot-00000002.hearth"), threads: threads)
                Issue.record("read a damaged snapshot")
            } catch {
                #expect(error.message.contains("byte \(badOffset)"), "\(error.message)")
                #expect(!error.message.contains("checksum"), "\(error.message)")
            }
        }
    }
}
