import Dispatch
import Foundation
import Synchronization

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

    /// Batch records read before their documents are decoded, on every core at once: large
    /// enough that handing them out costs nothing (~64 records), small enough that the raw
    /// bytes held beside the decoded documents stay a few megabytes.
    static let decodeAheadBytes = 4 << 20

    /// A batch record's documents, decoded, with the tree keys they go under: in order, or
    /// what is wrong (the offset is within the record).
    typealias DecodedBatch = Result<[(key: DocumentKey, value: DocumentVersion)], RecordReader.Malformed>

    /// Decodes one `B` record: its documents in strictly increasing key order.
    static func decodeBatch(_ record: [UInt8]) -> DecodedBatch {
        Result { () throws(RecordReader.Malformed) in
            var r = RecordReader(record)
            _ = try r.byte()
            let n = try r.count(unit: 16)
            var elements: [(key: DocumentKey, value: DocumentVersion)] = []
            elements.reserveCapacity(n)
            for _ in 0..<n {
                let doc = try r.document()
                let key = DocumentKey(doc.path)
                if let previous = elements.last, !(previous.key < key) {
                    throw RecordReader.Malformed(offset: r.offset, what: "documents out of order at \(doc.path)")
                }
                elements.append((key, DocumentVersion(document: doc, since: doc.updateTime, older: nil)))
            }
            return elements
        }
    }

    /// Decodes `records` on up to `threads` threads at once (each takes the next record not
    /// yet taken); the results are in the records' order.
    static func decodeBatches(_ records: [[UInt8]], threads: Int) -> [DecodedBatch] {
        guard records.count > 1, threads > 1 else { return records.map(decodeBatch) }
        let placeholder = DecodedBatch.success([])
        var results = [DecodedBatch](repeating: placeholder, count: records.count)
        let next = Atomic<Int>(0)
        results.withUnsafeMutableBufferPointer { buffer in
            // Each index is written by the one thread that took it, and read after all finish.
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: min(threads, records.count)) { _ in
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < records.count else { break }
                    out[i] = decodeBatch(records[i])
                }
            }
        }
        return results
    }

    /// Reads a snapshot: the first log segment to replay after it, and every database.
    ///
    /// The file is read and checked (each fragment's checksum) in order on this thread; the
    /// batch records' documents — most of a restart's work — are decoded `decodeAheadBytes`
    /// at a time on every core, then appended in file order. An error is reported as reading
    /// in order would: a malformed batch before whatever went wrong after it.
    static func read(_ path: String, threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(DurableStoreError) -> (nextSegment: Int, databases: [DatabaseID: RecoveredDatabase]) {
        let log: LogReader
        do { log = try LogReader(path: path) } catch { throw .damaged(error, advice: snapshotAdvice) }
        var nextSegment: Int?
        var databases: [DatabaseID: RecoveredDatabase] = [:]
        // The database being read, and its documents as decoded: one array per batch record,
        // built into the tree without copying them into one.
        var current: (id: DatabaseID, lastCommit: Timestamp, declared: Int)?
        var chunks: [[(key: DocumentKey, value: DocumentVersion)]] = [], held = 0
        var ended = false
        // Batch records read but not yet decoded, with where each begins in the file.
        var pending: [[UInt8]] = [], pendingOffsets: [Int] = [], pendingBytes = 0
        func decodePending() throws(DurableStoreError) {
            guard !pending.isEmpty else { return }
            let decoded = decodeBatches(pending, threads: threads)
            defer { pending = []; pendingOffsets = []; pendingBytes = 0 }
            for (i, result) in decoded.enumerated() {
                let elements: [(key: DocumentKey, value: DocumentVersion)]
                switch result {
                case .success(let e): elements = e
                case .failure(let error):
                    throw .corrupt(file: path, offset: pendingOffsets[i], problem: error.description, advice: snapshotAdvice)
                }
                if let first = elements.first, let previous = chunks.last?.last, !(previous.key < first.key) {
                    throw .corrupt(file: path, offset: pendingOffsets[i], problem: "documents out of order at \(first.key.path) at the record's first document",
                                   advice: snapshotAdvice)
                }
                held += elements.count
                if !elements.isEmpty { chunks.append(elements) }
            }
        }
        func finishDatabase() throws(DurableStoreError) {
            try decodePending()
            guard let c = current else { return }
            guard held == c.declared else {
                throw .corrupt(file: path, offset: log.recordOffset, problem: "database \(c.id.name) declares \(c.declared) documents but holds \(held)", advice: snapshotAdvice)
            }
            var taken: [[(key: DocumentKey, value: DocumentVersion)]] = []
            swap(&taken, &chunks)
            held = 0
            databases[c.id] = RecoveredDatabase(documents: PersistentSortedMap(sortedChunks: consume taken), documentCount: c.declared, lastCommit: c.lastCommit)
            current = nil
        }
        while true {
            let record: [UInt8]?
            do { record = try log.next() } catch {
                try decodePending()
                throw .damaged(error, advice: snapshotAdvice)
            }
            guard let record else { break }
            if record.first == DurableRecord.batch, !ended, nextSegment != nil, current != nil {
                pending.append(record)
                pendingOffsets.append(log.recordOffset)
                pendingBytes += record.count
                if pendingBytes >= decodeAheadBytes { try decodePending() }
                continue
            }
            // Any other record: the batches before it first, so errors come in file order.
            try decodePending()
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
                    current = (id, last, try r.varint())
                case DurableRecord.batch:
                    // Batches are queued above; only one outside a database reaches here.
                    throw RecordReader.Malformed(offset: 0, what: "documents before their database")
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
        try decodePending()
        guard ended, let nextSegment else {
            throw .corrupt(file: path, offset: log.size, problem: "the snapshot ends before its end record", advice: snapshotAdvice)
        }
        return (nextSegment, databases)
    }

    static let snapshotAdvice = "The snapshot is damaged and the log segments it replaced are gone, so Hearth cannot rebuild the data without it. Restore the data directory from a backup (or start with an empty one)."
}
