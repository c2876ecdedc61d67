/// The records of Hearth's data directory. Log segments (`wal-N.log`) and snapshots
/// (`snapshot-N.hearth`) are LevelDB-framed files (LogFormat), like export data files; each
/// record starts with a kind byte:
///
/// - `H` segment header: magic, format version, segment number;
/// - `C` commit: database, commit time, then each changed document — `0` + path (deleted)
///   or `1` + the document with its create and update times (RecordCodec);
/// - `G` group end: written after each group of commits that one write and one sync made
///   durable, holding the offset where the group began. Recovery uses it to tell a torn tail
///   (damage inside the last group written) from damage before later, complete groups;
/// - `S` snapshot header: magic, version, the first log segment not folded into it;
/// - `D` database: id, last commit time, document count; then `B` batches of its documents;
/// - `E` snapshot end: database and document totals (a snapshot without it is incomplete).
enum DurableRecord {
    static let segmentHeader: UInt8 = 0x48   // H
    static let commit: UInt8 = 0x43          // C
    static let groupEnd: UInt8 = 0x47        // G
    static let snapshotHeader: UInt8 = 0x53  // S
    static let database: UInt8 = 0x44        // D
    static let batch: UInt8 = 0x42           // B
    static let snapshotEnd: UInt8 = 0x45     // E

    static let logMagic = "hearth-log"
    static let snapshotMagic = "hearth-snapshot"
    static let formatVersion = 1

    static func segmentName(_ n: Int) -> String { "wal-" + padded(n) + ".log" }
    static func snapshotName(_ n: Int) -> String { "snapshot-" + padded(n) + ".hearth" }

    private static func padded(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 8 - s.count)) + s
    }

    /// The number in `wal-N.log` / `snapshot-N.hearth`, or nil for other names.
    static func number(in name: String, prefix: String, suffix: String) -> Int? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }

    /// One commit's changes, as the log holds them.
    struct Commit {
        var database: DatabaseID
        var commitTime: Timestamp
        /// Each changed document's final state (nil: deleted).
        var changes: [(path: ResourcePath, document: Document?)]
    }

    static func encode(_ commit: Commit) -> [UInt8] {
        var w = RecordWriter()
        w.bytes.reserveCapacity(32 + commit.changes.count * 96)
        w.byte(Self.commit)
        w.databaseID(commit.database)
        w.timestamp(commit.commitTime)
        w.varint(commit.changes.count)
        for (path, document) in commit.changes {
            if let document {
                w.byte(1)
                w.document(document)
            } else {
                w.byte(0)
                w.path(path)
            }
        }
        return w.bytes
    }

    /// Decodes a commit record (its kind byte already checked).
    static func decodeCommit(_ bytes: [UInt8]) throws(RecordReader.Malformed) -> Commit {
        var r = RecordReader(bytes)
        _ = try r.byte()
        let database = try r.databaseID()
        let time = try r.timestamp()
        let n = try r.count(unit: 2)
        var changes: [(path: ResourcePath, document: Document?)] = []
        changes.reserveCapacity(n)
        for _ in 0..<n {
            switch try r.byte() {
            case 0:
                let p = try r.path()
                guard p.isDocument else { throw RecordReader.Malformed(offset: r.offset, what: "a deleted path with \(p.count) segments") }
                changes.append((p, nil))
            case 1:
                let d = try r.document()
                changes.append((d.path, d))
            case let b:
                throw RecordReader.Malformed(offset: r.offset - 1, what: "unknown change kind \(b)")
            }
        }
        return Commit(database: database, commitTime: time, changes: changes)
    }

    static func groupEnd(start: Int) -> [UInt8] {
        var w = RecordWriter()
        w.byte(groupEnd)
        w.fixed64(UInt64(start))
        return w.bytes
    }

    /// The start offset a group-end record holds, if `payload` is one.
    static func groupStart(_ payload: UnsafeRawBufferPointer) -> Int? {
        guard payload.count == 9, payload[0] == groupEnd else { return nil }
        return Int(truncatingIfNeeded: UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 1, as: UInt64.self)))
    }

    static func segmentHeader(_ number: Int) -> [UInt8] {
        var w = RecordWriter()
        w.byte(segmentHeader)
        w.string(logMagic)
        w.varint(formatVersion)
        w.varint(number)
        return w.bytes
    }
}
