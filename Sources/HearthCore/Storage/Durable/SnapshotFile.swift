import Dispatch
import Foundation
import Synchronization

/// A database's documents as recovery rebuilds them: the tree, its size and the time of the
/// last commit folded in.
struct RecoveredDatabase {
    var documents: PersistentSortedMap<DocumentKey, DocumentVersion>
    var documentCount: Int
    var lastCommit: Timestamp
    /// The indexes the snapshot stored (its declared ones then), kept in step with the
    /// commits replayed after it; `Database` keeps those still declared.
    var indexes = IndexStore()
}

/// `snapshot-N.hearth`: every database's documents as of a moment, and N, the first log
/// segment whose commits it may not hold. Written to a temporary name, synced, then renamed,
/// so a snapshot file that exists is complete (the end record proves it).
enum SnapshotFile {
    /// Documents per `B` record: large enough that framing costs nothing, small enough that
    /// reading holds little at a time.
    static let batchBytes = 64 * 1024

    /// One database to write: its state, and the indexes to store with it (those declared;
    /// each one the state has materialised is written, the rest are left to be built).
    struct Contents {
        var state: DatabaseState
        var indexes: [IndexDefinition]
    }

    /// Writes `databases` as snapshot `number` in `directory`; returns its size in bytes.
    static func write(_ databases: [Contents], number: Int, directory: String) throws(FirestoreError) -> Int {
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
            header.varint(DurableRecord.snapshotFormatVersion)
            header.varint(number)
            framer.frame(header.bytes, into: &out)
            var documents = 0
            for database in databases {
                let state = database.state
                var d = RecordWriter()
                d.byte(DurableRecord.database)
                d.databaseID(state.database)
                d.timestamp(state.readTime)
                d.varint(state.documentCount)
                framer.frame(d.bytes, into: &out)
                let stored = database.indexes.compactMap { definition in state.indexes.entries(definition).map { (definition, $0) } }
                // Each document's position among the database's, for the stored entries to
                // name (a pointer's hash: no path hashed or compared).
                var positions: [ObjectIdentifier: Int] = [:]
                if !stored.isEmpty { positions.reserveCapacity(state.documentCount) }
                var batch = RecordWriter()
                var inBatch = 0
                func emit(_ kind: UInt8) {
                    var record = RecordWriter()
                    record.byte(kind)
                    record.varint(inBatch)
                    record.bytes.append(contentsOf: batch.bytes)
                    framer.frame(record.bytes, into: &out)
                    batch.bytes.removeAll(keepingCapacity: true)
                    inBatch = 0
                }
                var position = 0
                for (_, version) in state.documents {
                    guard let doc = version.document else { continue }
                    if !stored.isEmpty { positions[doc.storageIdentity] = position }
                    position += 1
                    batch.document(doc)
                    inBatch += 1
                    documents += 1
                    if batch.bytes.count >= batchBytes {
                        emit(DurableRecord.batch)
                        try flushIfLarge()
                    }
                }
                if inBatch > 0 { emit(DurableRecord.batch) }
                for (definition, entries) in stored {
                    guard let named = entryPositions(entries, in: state, positions: positions) else { continue }
                    var i = RecordWriter()
                    i.byte(DurableRecord.index)
                    i.varint(IndexKeyEncoding.formatVersion)
                    i.indexDefinition(definition)
                    i.varint(entries.count)
                    framer.frame(i.bytes, into: &out)
                    var previous: [UInt8] = [], key: [UInt8] = []
                    var k = 0
                    for (entry, _) in entries {
                        key.removeAll(keepingCapacity: true)
                        entry.appendBytes(0..<entry.count, to: &key)
                        // Keys in order share long prefixes (collection path, field values):
                        // each is written as what it shares with the one before and the rest.
                        var shared = 0
                        let limit = min(previous.count, key.count)
                        while shared < limit, previous[shared] == key[shared] { shared += 1 }
                        batch.varint(shared)
                        batch.varint(key.count - shared)
                        batch.bytes.append(contentsOf: key[shared...])
                        batch.varint(named[k])
                        k += 1
                        inBatch += 1
                        swap(&previous, &key)
                        if batch.bytes.count >= batchBytes {
                            emit(DurableRecord.indexEntries)
                            previous.removeAll(keepingCapacity: true)  // each record decodes alone
                            try flushIfLarge()
                        }
                    }
                    if inBatch > 0 { emit(DurableRecord.indexEntries) }
                    try flushIfLarge()
                }
            }
            var end = RecordWriter()
            end.byte(DurableRecord.snapshotEnd)
            end.varint(databases.count)
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

    /// The position of each entry's document among the state's documents, in entry order; nil
    /// if one is not there (the index is then not stored, and a restart builds it). An entry
    /// may hold a version its document has since replaced in fields the index does not
    /// cover: its key is that of the current version, which it names.
    private static func entryPositions(_ entries: IndexStore.Entries, in state: DatabaseState, positions: [ObjectIdentifier: Int]) -> [Int]? {
        var named: [Int] = []
        named.reserveCapacity(entries.count)
        for (_, doc) in entries {
            if let p = positions[doc.storageIdentity] {
                named.append(p)
            } else if let current = state.documents[DocumentKey(doc.path)]?.document, let p = positions[current.storageIdentity] {
                named.append(p)
            } else {
                return nil
            }
        }
        return named
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

    /// An index-entries record's entries, decoded against the database's documents in
    /// order: in key order, or what is wrong (the offset is within the record).
    typealias DecodedEntries = Result<[IndexStore.Element], RecordReader.Malformed>

    /// Decodes one `K` record: entries in strictly increasing key order, each naming one of
    /// `documents` by position.
    static func decodeEntries(_ record: [UInt8], documents: [Document]) -> DecodedEntries {
        Result { () throws(RecordReader.Malformed) in
            var r = RecordReader(record)
            _ = try r.byte()
            let n = try r.count(unit: 3)
            var elements: [IndexStore.Element] = []
            elements.reserveCapacity(n)
            var key: [UInt8] = []
            key.reserveCapacity(128)
            for _ in 0..<n {
                let shared = try r.varint()
                guard shared <= key.count else {
                    throw RecordReader.Malformed(offset: r.offset, what: "an index entry sharing \(shared) bytes with a key of \(key.count)")
                }
                key.removeSubrange(shared...)
                try r.appendBytes(try r.count(), to: &key)
                let position = try r.varint()
                guard position < documents.count else {
                    throw RecordReader.Malformed(offset: r.offset, what: "an index entry naming document \(position) of \(documents.count)")
                }
                let entry = IndexKey(key)
                if let previous = elements.last, !(previous.key < entry) {
                    throw RecordReader.Malformed(offset: r.offset, what: "index entries out of order")
                }
                elements.append((entry, documents[position]))
            }
            return elements
        }
    }

    /// `decode` of each of `records` on up to `threads` threads at once (each takes the next
    /// record not yet taken); the results are in the records' order.
    static func decodeInParallel<T: Sendable>(_ records: [[UInt8]], threads: Int, placeholder: T,
                                              _ decode: @Sendable ([UInt8]) -> T) -> [T] {
        guard records.count > 1, threads > 1 else { return records.map(decode) }
        var results = [T](repeating: placeholder, count: records.count)
        let next = Atomic<Int>(0)
        results.withUnsafeMutableBufferPointer { buffer in
            // Each index is written by the one thread that took it, and read after all finish.
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: min(threads, records.count)) { _ in
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < records.count else { break }
                    out[i] = decode(records[i])
                }
            }
        }
        return results
    }

    /// Reads a snapshot: the first log segment to replay after it, and every database.
    ///
    /// The file is read and checked (each fragment's checksum) in order on this thread; the
    /// batch records' documents and the stored indexes' entries — most of a restart's work —
    /// are decoded `decodeAheadBytes` at a time on every core, then appended in file order.
    /// An error is reported as reading in order would: a malformed batch before whatever
    /// went wrong after it.
    static func read(_ path: String, threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(DurableStoreError) -> (nextSegment: Int, databases: [DatabaseID: RecoveredDatabase]) {
        let log: LogReader
        do { log = try LogReader(path: path) } catch { throw .damaged(error, advice: snapshotAdvice) }
        var nextSegment: Int?
        var version = 0
        var databases: [DatabaseID: RecoveredDatabase] = [:]
        // The database being read, and its documents as decoded: one array per batch record,
        // built into the tree without copying them into one.
        var current: (id: DatabaseID, lastCommit: Timestamp, declared: Int)?
        var chunks: [[(key: DocumentKey, value: DocumentVersion)]] = [], held = 0
        // Once its first stored index begins: the database's documents built, and the same
        // documents in order, which the entries name by position.
        var finished: RecoveredDatabase?
        var ordered: [Document] = []
        // The stored index being read, and its entries as decoded.
        var index: (definition: IndexDefinition, usable: Bool, declared: Int)?
        var entryChunks: [[IndexStore.Element]] = [], entriesHeld = 0
        var ended = false
        // Batch or entry records read but not yet decoded, with where each begins in the file.
        var pending: [[UInt8]] = [], pendingOffsets: [Int] = [], pendingBytes = 0
        func decodePending() throws(DurableStoreError) {
            guard !pending.isEmpty else { return }
            defer { pending = []; pendingOffsets = []; pendingBytes = 0 }
            if index != nil {
                let documents = ordered
                let decoded = decodeInParallel(pending, threads: threads, placeholder: DecodedEntries.success([])) {
                    decodeEntries($0, documents: documents)
                }
                for (i, result) in decoded.enumerated() {
                    let elements: [IndexStore.Element]
                    switch result {
                    case .success(let e): elements = e
                    case .failure(let error):
                        throw .corrupt(file: path, offset: pendingOffsets[i], problem: error.description, advice: snapshotAdvice)
                    }
                    if let first = elements.first, let previous = entryChunks.last?.last, !(previous.key < first.key) {
                        throw .corrupt(file: path, offset: pendingOffsets[i], problem: "index entries out of order at the record's first entry",
                                       advice: snapshotAdvice)
                    }
                    entriesHeld += elements.count
                    if !elements.isEmpty { entryChunks.append(elements) }
                }
                return
            }
            let decoded = decodeInParallel(pending, threads: threads, placeholder: DecodedBatch.success([]), decodeBatch)
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
        // The current database's documents as a tree; with `positions`, also in `ordered`.
        func finishDocuments(positions: Bool) throws(DurableStoreError) {
            guard finished == nil, let c = current else { return }
            guard held == c.declared else {
                throw .corrupt(file: path, offset: log.recordOffset, problem: "database \(c.id.name) declares \(c.declared) documents but holds \(held)", advice: snapshotAdvice)
            }
            var taken: [[(key: DocumentKey, value: DocumentVersion)]] = []
            swap(&taken, &chunks)
            held = 0
            if positions {
                ordered.reserveCapacity(c.declared)
                for chunk in taken { for element in chunk { ordered.append(element.value.document!) } }
            }
            finished = RecoveredDatabase(documents: PersistentSortedMap(sortedChunks: taken), documentCount: c.declared, lastCommit: c.lastCommit)
        }
        func finishIndex() throws(DurableStoreError) {
            guard let i = index else { return }
            guard entriesHeld == i.declared else {
                throw .corrupt(file: path, offset: log.recordOffset, problem: "index \(i.definition) declares \(i.declared) entries but holds \(entriesHeld)", advice: snapshotAdvice)
            }
            var taken: [[IndexStore.Element]] = []
            swap(&taken, &entryChunks)
            entriesHeld = 0
            index = nil
            // Keys of another entry format are checked as any, then left: the index is built.
            if i.usable { finished!.indexes.adopt(i.definition, entries: IndexStore.Entries(sortedChunks: taken)) }
        }
        func finishDatabase() throws(DurableStoreError) {
            try decodePending()
            try finishIndex()
            try finishDocuments(positions: false)
            guard let c = current else { return }
            databases[c.id] = finished
            current = nil
            finished = nil
            ordered = []
        }
        while true {
            let record: [UInt8]?
            do { record = try log.next() } catch {
                try decodePending()
                throw .damaged(error, advice: snapshotAdvice)
            }
            guard let record else { break }
            if !ended, current != nil,
               (record.first == DurableRecord.batch && finished == nil) || (record.first == DurableRecord.indexEntries && index != nil) {
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
                    version = try r.varint()
                    guard DurableRecord.snapshotFormatVersions.contains(version) else {
                        let known = DurableRecord.snapshotFormatVersions.map(String.init).joined(separator: " and ")
                        throw RecordReader.Malformed(offset: 1, what: "snapshot format version \(version) (this Hearth reads \(known))")
                    }
                    nextSegment = try r.varint()
                case DurableRecord.database:
                    try finishDatabase()
                    let id = try r.databaseID()
                    let last = try r.timestamp()
                    current = (id, last, try r.varint())
                case DurableRecord.batch:
                    // Batches are queued above; only one outside a database's documents reaches here.
                    throw RecordReader.Malformed(offset: 0, what: current == nil ? "documents before their database" : "documents after their database's indexes")
                case DurableRecord.index where version >= 2:
                    guard current != nil else { throw RecordReader.Malformed(offset: 0, what: "an index before its database") }
                    try finishIndex()
                    try finishDocuments(positions: true)
                    let keyFormat = try r.varint()
                    let definition = try r.indexDefinition()
                    index = (definition, keyFormat == IndexKeyEncoding.formatVersion, try r.varint())
                case DurableRecord.indexEntries where version >= 2:
                    throw RecordReader.Malformed(offset: 0, what: "index entries before their index")
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
