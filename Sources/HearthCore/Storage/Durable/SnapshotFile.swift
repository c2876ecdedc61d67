import Foundation

/// A database's documents as recovery rebuilds them: the tree, its size and the time of the
/// last commit folded in.
struct RecoveredDatabase {
    var documents: PersistentSortedMap<DocumentKey, DocumentVersion>
    var documentCount: Int
    var lastCommit: Timestamp
}

/// `snapshot-N.hearth`: every database's documents as of a moment, and N, the first log
/// segment whose commits it may not hold. Written to a temporary name, synced, then renamed,
/// so a snapshot file that exists is complete (the end record proves it).
enum SnapshotFile {
    /// Documents per `B` record: large enough that framing costs nothing, small enough that
    /// reading holds little at a time.
    static let batchBytes = 64 * 1024

    /// Writes `states` as snapshot `number` in `directory`; returns its size in bytes.
    static func write(_ states: [DatabaseState], number: Int, directory: String) throws(FirestoreError) -> Int {
        let finalPath = (directory as NSString).appendingPathComponent(DurableRecord.snapshotName(number))
        let temporary = finalPath + ".tmp"
        do {
            let file = try PosixFile.create(temporary)
            var framer = LogFramer()
            var out: [UInt8] = []
            out.reserveCapacity(2 << 20)
            var total = 0
            func flushIfLarge() throws(PosixFile.Failure) {
                if out.count >= 1 << 20 {
                    try file.write(out)
                    total += out.count
                    out.removeAll(keepingCapacity: true)
                }
            }
            var header = RecordWriter()
            header.byte(DurableRecord.snapshotHeader)
            header.string(DurableRecord.snapshotMagic)
            header.varint(DurableRecord.formatVersion)
            header.varint(number)
            framer.frame(header.bytes, into: &out)
            var documents = 0
            for state in states {
                var d = RecordWriter()
                d.byte(DurableRecord.database)
                d.databaseID(state.database)
                d.timestamp(state.readTime)
                d.varint(state.documentCount)
                framer.frame(d.bytes, into: &out)
                var batch = RecordWriter()
                var inBatch = 0
                func emit() {
                    var record = RecordWriter()
                    record.byte(DurableRecord.batch)
                    record.varint(inBatch)
                    record.bytes.append(contentsOf: batch.bytes)
                    framer.frame(record.bytes, into: &out)
                    batch.bytes.removeAll(keepingCapacity: true)
                    inBatch = 0
                }
                for (_, version) in state.documents {
                    guard let doc = version.document else { continue }
                    batch.document(doc)
                    inBatch += 1
                    documents += 1
                    if batch.bytes.count >= batchBytes {
                        emit()
                        try flushIfLarge()
                    }
                }
                if inBatch > 0 { emit() }
            }
            var end = RecordWriter()
            end.byte(DurableRecord.snapshotEnd)
            end.varint(states.count)
            end.varint(documents)
            framer.frame(end.bytes, into: &out)
            try file.write(out)
            total += out.count
            try file.sync()
            file.close()
            try PosixFile.rename(temporary, to: finalPath)
            try PosixFile.syncDirectory(directory)
            return total
        } catch {
            try? PosixFile.remove(temporary)
            throw FirestoreError(.unavailable, "Compaction could not write a snapshot: \(error).")
        }
    }

    /// Reads a snapshot: the first log segment to replay after it, and every database.
    static func read(_ path: String) throws(DurableStoreError) -> (nextSegment: Int, databases: [DatabaseID: RecoveredDatabase]) {
        let log: LogReader
        do { log = try LogReader(path: path) } catch { throw .damaged(error, advice: snapshotAdvice) }
        var nextSegment: Int?
        var databases: [DatabaseID: RecoveredDatabase] = [:]
        var current: (id: DatabaseID, lastCommit: Timestamp, declared: Int, elements: [(key: DocumentKey, value: DocumentVersion)])?
        var ended = false
        func finishDatabase() throws(DurableStoreError) {
            guard let c = current else { return }
            guard c.elements.count == c.declared else {
                throw .corrupt(file: path, offset: log.recordOffset, problem: "database \(c.id.name) declares \(c.declared) documents but holds \(c.elements.count)", advice: snapshotAdvice)
            }
            databases[c.id] = RecoveredDatabase(documents: PersistentSortedMap(sortedElements: c.elements), documentCount: c.declared, lastCommit: c.lastCommit)
            current = nil
        }
        while true {
            let record: [UInt8]?
            do { record = try log.next() } catch { throw .damaged(error, advice: snapshotAdvice) }
            guard let record else { break }
            var r = RecordReader(record)
            do {
                let kind = try r.byte()
                if ended { throw RecordReader.Malformed(offset: 0, what: "a record after the end record") }
                if nextSegment == nil && kind != DurableRecord.snapshotHeader {
                    throw RecordReader.Malformed(offset: 0, what: "no snapshot header")
                }
                switch kind {
                case DurableRecord.snapshotHeader:
                    guard nextSegment == nil, try r.string() == DurableRecord.snapshotMagic else {
                        throw RecordReader.Malformed(offset: 1, what: "not a Hearth snapshot header")
                    }
                    let version = try r.varint()
                    guard version == DurableRecord.formatVersion else {
                        throw RecordReader.Malformed(offset: 1, what: "snapshot format version \(version) (this Hearth reads \(DurableRecord.formatVersion))")
                    }
                    nextSegment = try r.varint()
                case DurableRecord.database:
                    try finishDatabase()
                    let id = try r.databaseID()
                    let last = try r.timestamp()
                    let declared = try r.varint()
                    var elements: [(key: DocumentKey, value: DocumentVersion)] = []
                    elements.reserveCapacity(min(declared, 1 << 24))
                    current = (id, last, declared, elements)
                case DurableRecord.batch:
                    guard current != nil else { throw RecordReader.Malformed(offset: 0, what: "documents before their database") }
                    let n = try r.count(unit: 16)
                    for _ in 0..<n {
                        let doc = try r.document()
                        let key = DocumentKey(doc.path)
                        if let previous = current!.elements.last, !(previous.key < key) {
                            throw RecordReader.Malformed(offset: r.offset, what: "documents out of order at \(doc.path)")
                        }
                        current!.elements.append((key, DocumentVersion(document: doc, since: doc.updateTime, older: nil)))
                    }
                case DurableRecord.snapshotEnd:
                    try finishDatabase()
                    let count = try r.varint()
                    let docs = try r.varint()
                    guard count == databases.count, docs == databases.values.reduce(0, { $0 + $1.documentCount }) else {
                        throw RecordReader.Malformed(offset: 1, what: "the end record's totals do not match the contents")
                    }
                    ended = true
                default:
                    throw RecordReader.Malformed(offset: 0, what: "unknown record kind \(kind)")
                }
            } catch let error as RecordReader.Malformed {
                throw .corrupt(file: path, offset: log.recordOffset, problem: error.description, advice: snapshotAdvice)
            } catch let error as DurableStoreError {
                throw error
            } catch {
                throw .corrupt(file: path, offset: log.recordOffset, problem: "\(error)", advice: snapshotAdvice)
            }
        }
        guard ended, let nextSegment else {
            throw .corrupt(file: path, offset: log.size, problem: "the snapshot ends before its end record", advice: snapshotAdvice)
        }
        return (nextSegment, databases)
    }

    static let snapshotAdvice = "The snapshot is damaged and the log segments it replaced are gone, so Hearth cannot rebuild the data without it. Restore the data directory from a backup (or start with an empty one)."
}
