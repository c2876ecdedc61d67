/// Entry points for the libFuzzer targets in `Fuzz/` (docs/reliability.md#fuzzing) into
/// this module's internal decoders; the readers that are already public (`JSON.parse`,
/// `EntityCodec.decode`, `BundleReader`, `LogReader`, `DurableStore.open`, `ResourceName`)
/// are fuzzed through their public API. `@_spi(Fuzzing)`: not part of the module's API.
@_spi(Fuzzing) public enum CoreFuzzing {
    /// A write-ahead-log commit record (`C`: database, commit time, changed documents), as
    /// recovery decodes it after the log framing checked its checksum.
    public static func durableCommit(_ bytes: [UInt8]) -> Int {
        do {
            let commit = try DurableRecord.decodeCommit([DurableRecord.commit] + bytes)
            return commit.changes.count + commit.database.description.count
        } catch {
            return error.offset
        }
    }

    /// The export metadata files' protobufs: the overall file's pointers and a collection's
    /// list of data files.
    public static func exportMetadata(_ bytes: [UInt8]) -> Int {
        var produced = 0
        if let pointers = try? ExportMetadata.decodeOverall(bytes) { produced += pointers.count }
        if let files = try? ExportMetadata.decodeBackupFiles(bytes) { produced += files.count }
        return produced
    }

    /// The names of a data directory's files, as recovery reads them.
    public static func durableFileName(_ name: String) -> Int {
        (DurableRecord.number(in: name, prefix: "wal-", suffix: ".log") ?? 0)
            &+ (DurableRecord.number(in: name, prefix: "snapshot-", suffix: ".hearth") ?? 0)
    }
}
