/// The two metadata messages of an export (docs/export-format.md):
///
/// - the overall file (`NAME.overall_export_metadata`, log-framed): record 1 is the format
///   version `"3"`, record 2 an `OverallExportMetadata{repeated 1 pointer}` where each
///   pointer is `{1 entity_set_spec{1 kind_type, 2 kind, 3 namespace_type, 4 namespace},
///   2 export_metadata_file, 3 num_entities, 4 num_bytes}`;
/// - one `.export_metadata` file per entity set (raw protobuf, not framed): `Backup{1
///   backup_info{1 name, 2 start µs, 3 end µs}, repeated 2 kind_info{1 kind, 2 repeated file}}`.
enum ExportMetadata {
    static let formatVersion: [UInt8] = Array("3".utf8)

    struct Pointer {
        var metadataFile: String
        var entityCount: Int64?
        var byteCount: Int64?
    }

    static func encodeOverall(metadataFile: String, entityCount: Int, byteCount: Int) -> [UInt8] {
        var w = WireWriter()
        try! w.message(1) { (p: inout WireWriter) throws(FirestoreError) in
            try p.message(1) { (spec: inout WireWriter) throws(FirestoreError) in
                spec.int64(1, 2)  // ALL_KINDS
                spec.int64(3, 3)  // ALL_NAMESPACES
            }
            p.string(2, metadataFile)
            p.int64(3, Int64(entityCount))
            p.int64(4, Int64(byteCount))
        }
        return w.bytes
    }

    static func decodeOverall(_ bytes: [UInt8]) throws(FirestoreError) -> [Pointer] {
        try WireReader.read(bytes) { (r: inout WireReader) throws(FirestoreError) -> [Pointer] in try decodeOverall(&r) }
    }

    private static func decodeOverall(_ r: inout WireReader) throws(FirestoreError) -> [Pointer] {
        var pointers: [Pointer] = []
        while let k = try r.next() {
            guard k.field == 1 else { try r.skip(k); continue }
            var p = try r.message(k)
            var pointer = Pointer(metadataFile: "")
            while let f = try p.next() {
                switch f.field {
                case 2: pointer.metadataFile = try p.string(f)
                case 3: pointer.entityCount = try p.int64(f)
                case 4: pointer.byteCount = try p.int64(f)
                default: try p.skip(f)
                }
            }
            guard !pointer.metadataFile.isEmpty else {
                throw .invalidArgument("an export pointer names no export_metadata_file")
            }
            pointers.append(pointer)
        }
        return pointers
    }

    static func encodeBackup(name: String, startMicros: Int64, endMicros: Int64, files: [String]) -> [UInt8] {
        var w = WireWriter()
        try! w.message(1) { (info: inout WireWriter) throws(FirestoreError) in
            info.string(1, name)
            info.int64(2, startMicros)
            info.int64(3, endMicros)
        }
        try! w.message(2) { (kind: inout WireWriter) throws(FirestoreError) in
            kind.string(1, "")
            for f in files { kind.string(2, f) }
        }
        return w.bytes
    }

    /// The data files a `Backup` lists, in order.
    static func decodeBackupFiles(_ bytes: [UInt8]) throws(FirestoreError) -> [String] {
        try WireReader.read(bytes) { (r: inout WireReader) throws(FirestoreError) -> [String] in try decodeBackupFiles(&r) }
    }

    private static func decodeBackupFiles(_ r: inout WireReader) throws(FirestoreError) -> [String] {
        var files: [String] = []
        while let k = try r.next() {
            guard k.field == 2 else { try r.skip(k); continue }
            var kind = try r.message(k)
            while let f = try kind.next() {
                if f.field == 2 { files.append(try kind.string(f)) } else { try kind.skip(f) }
            }
        }
        return files
    }
}
