import Foundation
@_spi(Fuzzing) import HearthCore

let fuzzDatabase = DatabaseID(project: "p", database: "(default)")

/// JSON text parsed, written back and parsed again (the same value), then read as Hearth
/// JSON documents (the `--seed`/import format) and as one Hearth JSON value.
let hearthJSONTarget = FuzzTarget(name: "hearth-json", summary: "JSON parser and writer, Hearth JSON documents and values") { data in
    guard let json = try? JSON.parse(data, maxDepth: 64) else { return 0 }
    let again = try? JSON.parse(json.bytes, maxDepth: 64)
    precondition(again == json, "JSON did not survive writing and reading back")
    var produced = 1
    produced += (try? HearthJSON.documents(json, database: fuzzDatabase))?.count ?? 0
    produced += (try? HearthJSON.value(json, database: fuzzDatabase)) == nil ? 0 : 1
    return produced
}

/// A name as every kind of name is parsed (database, parent, document, reference value).
let resourceNameTarget = FuzzTarget(name: "resource-name", summary: "resource names of every kind, document paths") { data in
    let text = String(decoding: data, as: UTF8.self)
    var produced = 0
    for kind in [ResourceName.Kind.database, .documentParent, .document, .reference] {
        produced += (try? ResourceName.parse(text, as: kind))?.path.count ?? 0
    }
    produced += (try? ResourceName.database(text)) == nil ? 0 : 1
    produced += (try? ResourcePath.parse(text))?.count ?? 0
    produced += (try? FieldPath.parseServerFormat(text))?.segments.count ?? 0
    return produced
}

/// An exported entity (the Datastore entity protobuf an export's data files hold).
let entityTarget = FuzzTarget(name: "entity", summary: "export entity protobuf (documents, values, keys)") { data in
    (try? EntityCodec.decode(data, record: "fuzz")).map { $0.fields.count + 1 } ?? 0
}

/// A WAL commit record, as recovery decodes it once its checksum matched.
let durableRecordTarget = FuzzTarget(name: "durable-record", summary: "write-ahead-log commit records (RecordCodec)",
                                     run: CoreFuzzing.durableCommit)

/// A bundle (length-prefixed JSON elements) read in pieces and loaded as the SDKs do.
let bundleTarget = FuzzTarget(name: "bundle", summary: "bundles: length prefixes, element JSON, loading") { data in
    guard let first = data.first else { return 0 }
    var reader = BundleReader(database: fuzzDatabase)
    var loader: BundleLoader?
    var produced = 0
    let rest = Array(data.dropFirst())
    let size = Int(first % 31) + 1
    var offset = 0
    do throws(FirestoreError) {
        while true {
            let atEnd = offset >= rest.count
            if !atEnd {
                reader.append(rest[offset..<min(offset + size, rest.count)])
                offset += size
            }
            while let (element, count) = try reader.next(atEnd: atEnd) {
                produced += count
                if case .metadata(let m) = element, loader == nil {
                    loader = BundleLoader(metadata: m)
                } else if loader != nil {
                    _ = try loader!.add(element, byteCount: count)
                } else {
                    return produced
                }
            }
            if atEnd { break }
        }
        try loader?.finish()
        return produced + (loader?.documents.count ?? 0)
    } catch {
        return produced + 1
    }
}

/// Records (each a two-byte big-endian length and its bytes) framed into a LevelDB log file
/// — with damage: the first byte's bits flip bytes of the framed file at positions the
/// next input bytes choose, without (bit 0 clear) or with (bit 0 set) fixing the checksums
/// after, so both the checksum check and what lies past it are reached — then read back
/// with LogReader, each record decoded as an export entity and as export metadata.
let exportLogTarget = FuzzTarget(name: "export-log", summary: "LevelDB log framing (LogReader) and export records") { data in
    guard data.count >= 2 else { return 0 }
    let mode = data[0], damage = Int(data[1] % 8)
    var records: [[UInt8]] = []
    var offset = 2 + 2 * damage
    while offset + 2 <= data.count {
        let length = Int(data[offset]) << 8 | Int(data[offset + 1])
        let end = min(data.count, offset + 2 + length)
        records.append(Array(data[(offset + 2)..<end]))
        offset = end
    }
    var file: [UInt8] = []
    var framer = LogFramer()
    for r in records { framer.frame(r, into: &file) }
    if !file.isEmpty, data.count >= 2 + 2 * damage {
        for i in 0..<damage {
            let position = (Int(data[2 + 2 * i]) << 4 | Int(data[3 + 2 * i]) & 0x0F) % file.count
            file[position] ^= data[3 + 2 * i] | 1
        }
        if mode & 1 == 1 { fixLogChecksums(&file) }
    }
    let path = FuzzFiles.path("export.log")
    FuzzFiles.write(file, to: path)
    var produced = 0
    do throws(LogFormatError) {
        let reader = try LogReader(path: path, zeroHeaderIsPadding: mode & 2 == 2)
        while let record = try reader.next() {
            produced += record.count
            produced += (try? EntityCodec.decode(record, record: "fuzz")).map { _ in 1 } ?? 0
            produced += CoreFuzzing.exportMetadata(record)
        }
    } catch {
        produced += error.offset
    }
    return produced
}

/// Recomputes every fragment's checksum where a reader walking the file finds a header, so
/// damage to lengths and types is not stopped by the checksum.
func fixLogChecksums(_ file: inout [UInt8]) {
    var offset = 0
    while offset + LogFormat.headerSize <= file.count {
        let blockLeft = LogFormat.blockSize - offset % LogFormat.blockSize
        if blockLeft < LogFormat.headerSize { offset += blockLeft; continue }
        let length = Int(file[offset + 4]) | Int(file[offset + 5]) << 8
        let end = offset + LogFormat.headerSize + length
        guard end <= file.count, length <= blockLeft - LogFormat.headerSize else { return }
        let crc = CRC32C.mask(CRC32C.checksum(file[(offset + 6)..<end]))
        for i in 0..<4 { file[offset + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        offset = end
    }
}

/// A data directory: records framed into a log segment and a snapshot (each record a
/// two-byte length and its bytes; a record of length 0xFFFF switches from the segment to
/// the snapshot), then `DurableStore.open` recovers from it as `hearth serve --data-dir`
/// does (snapshot, then the log: torn tails, damage before later groups, the commits),
/// and the recovered databases are read.
let durableStoreTarget = FuzzTarget(name: "durable-store", summary: "data directory recovery: WAL segments and snapshots") { data in
    guard let mode = data.first else { return 0 }
    var segment: [UInt8] = [], snapshot: [UInt8] = []
    var segmentFramer = LogFramer(), snapshotFramer = LogFramer()
    var intoSnapshot = false
    var offset = 1
    while offset + 2 <= data.count {
        let length = Int(data[offset]) << 8 | Int(data[offset + 1])
        if length == 0xFFFF { intoSnapshot = true; offset += 2; continue }
        let end = min(data.count, offset + 2 + length)
        let record = Array(data[(offset + 2)..<end])
        if intoSnapshot { snapshotFramer.frame(record, into: &snapshot) } else { segmentFramer.frame(record, into: &segment) }
        offset = end
    }
    let directory = FuzzFiles.path("data")
    FuzzFiles.resetDirectory(directory)
    FuzzFiles.write(segment, to: directory + "/wal-00000002.log")
    if intoSnapshot { FuzzFiles.write(snapshot, to: directory + "/snapshot-00000001.hearth") }
    var produced = 0
    do throws(DurableStoreError) {
        let store = try DurableStore.open(directory: directory, options: .init(truncateDamagedLog: mode & 1 == 1, notice: { _ in }))
        for id in store.databaseIDs {
            let snapshot = store.database(id, clock: SystemClock()).snapshot()
            produced += snapshot.state.documentCount + 1
        }
        store.close()
    } catch {
        produced += error.description.count
    }
    return produced
}

/// Files the file-based targets write, under one directory of this process (in /dev/shm
/// when there is one: a tmpfs costs no disk writes).
enum FuzzFiles {
    nonisolated(unsafe) static var root: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let root = "\(base)/hearth-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: FuzzFiles.root) }
        return root
    }()

    static func path(_ name: String) -> String { root + "/" + name }

    static func write(_ bytes: [UInt8], to path: String) {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
    }

    static func resetDirectory(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}

/// Seeds for the durable targets, written with Hearth's own encoders: a data directory with
/// a few commits (every value type, a delete, two databases) and a compaction, its files
/// read back record by record into the targets' input formats
/// (`HEARTH_FUZZ_TARGET=write-seeds HEARTH_FUZZ_SEEDS=Fuzz/corpus hearth-fuzz`).
func writeDurableSeeds(to corpus: String) throws {
    let directory = FuzzFiles.path("seed-data")
    FuzzFiles.resetDirectory(directory)
    let store = try DurableStore.open(directory: directory, options: .init(compactionThreshold: 1 << 40, notice: { _ in }))
    let clock = ManualClock(now: Timestamp(seconds: 1_700_000_000, nanos: 0))
    let fields = MapValue([
        ("i", .integer(7)), ("d", .double(1.5)), ("s", .string("x")), ("b", .boolean(true)), ("n", .null),
        ("t", .timestamp(Timestamp(seconds: 1, nanos: 2))), ("g", .geoPoint(GeoPoint(latitude: 1, longitude: 2))),
        ("y", .bytes(Data([0, 1]))), ("a", .array([.integer(1), .string("z")])), ("m", .map(MapValue([("k", .integer(1))]))),
        ("r", .reference(DocumentName(database: fuzzDatabase, path: try ResourcePath.parse("c/b")))), ("v", .vector([1, 2])),
    ])
    var records: [String: [[UInt8]]] = [:]
    func capture(_ name: String) throws {
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        where file.hasSuffix(".log") || file.hasSuffix(".hearth") {
            let reader = try LogReader(path: directory + "/" + file)
            var list: [[UInt8]] = []
            while let r = try reader.next() { list.append(r) }
            records[name + "-" + file] = list
        }
    }
    for (n, id) in [fuzzDatabase, DatabaseID(project: "p", database: "other")].enumerated() {
        let db = store.database(id, clock: clock)
        try db.commit([.set(try ResourcePath.parse("c/a"), fields), .set(try ResourcePath.parse("c/b/sub/\(n)"), MapValue([("x", .integer(1))]))])
        try db.commit([.delete(try ResourcePath.parse("c/b/sub/\(n)"))])
    }
    try capture("log")
    try store.compact()
    try store.database(fuzzDatabase, clock: clock).commit([.set(try ResourcePath.parse("c/after"), MapValue([("k", .string("v"))]))])
    try capture("compacted")
    store.close()
    func framed(_ list: [[UInt8]]) -> [UInt8] {
        list.flatMap { r -> [UInt8] in [UInt8(truncatingIfNeeded: r.count >> 8), UInt8(truncatingIfNeeded: r.count)] + r }
    }
    func save(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(atPath: corpus + "/" + target, withIntermediateDirectories: true)
        FuzzFiles.write(bytes, to: corpus + "/" + target + "/" + name)
    }
    for (name, list) in records.sorted(by: { $0.key < $1.key }) {
        for (i, r) in list.enumerated() where r.first == 0x43 {
            try save("durable-record", "\(name)-\(i)", Array(r.dropFirst()))
        }
        if name.hasSuffix(".log") {
            let snapshot = records.first { $0.key.hasPrefix(name.split(separator: "-")[0]) && $0.key.hasSuffix(".hearth") }?.value
            var input: [UInt8] = [0] + framed(list)
            if let snapshot { input += [0xFF, 0xFF] + framed(snapshot) }
            try save("durable-store", name, input)
        }
    }
}
