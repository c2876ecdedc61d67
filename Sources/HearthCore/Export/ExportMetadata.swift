import HearthProtobuf

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
        var w = ProtoWriter()
        try! w.writeMessage(1) { (p: inout ProtoWriter) throws(FirestoreError) in
            try p.writeMessage(1) { (spec: inout ProtoWriter) throws(FirestoreError) in
                spec.writeInt64(1, 2)  // ALL_KINDS
                spec.writeInt64(3, 3)  // ALL_NAMESPACES
            }
            p.writeString(2, metadataFile)
            p.writeInt64(3, Int64(entityCount))
            p.writeInt64(4, Int64(byteCount))
        }
        return w.bytes
    }

    static func decodeOverall(_ bytes: [UInt8]) throws(FirestoreError) -> [Pointer] {
        var r = EntityReader(bytes, acceptsGroups: true)
        return try decodeOverall(&r)
    }

    private static func decodeOverall(_ r: inout EntityReader) throws(FirestoreError) -> [Pointer] {
        var pointers: [Pointer] = []
        while let k = try r.next() {
            guard k.number == 1 else { try r.skip(k); continue }
            var p = try r.readMessage(k)
            var pointer = Pointer(metadataFile: "")
            while let f = try p.next() {
                switch f.number {
                case 2: pointer.metadataFile = try p.readString(f)
                case 3: pointer.entityCount = try p.readInt64(f)
                case 4: pointer.byteCount = try p.readInt64(f)
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
        var w = ProtoWriter()
        try! w.writeMessage(1) { (info: inout ProtoWriter) throws(FirestoreError) in
            info.writeString(1, name)
            info.writeInt64(2, startMicros)
            info.writeInt64(3, endMicros)
        }
        try! w.writeMessage(2) { (kind: inout ProtoWriter) throws(FirestoreError) in
            kind.writeString(1, "")
            for f in files { kind.writeString(2, f) }
        }
        return w.bytes
    }

    /// The data files a `Backup` lists, in order.
    static func decodeBackupFiles(_ bytes: [UInt8]) throws(FirestoreError) -> [String] {
        var r = EntityReader(bytes, acceptsGroups: true)
        return try decodeBackupFiles(&r)
    }

    private static func decodeBackupFiles(_ r: inout EntityReader) throws(FirestoreError) -> [String] {
        var files: [String] = []
        while let k = try r.next() {
            guard k.number == 2 else { try r.skip(k); continue }
            var kind = try r.readMessage(k)
            while let f = try kind.next() {
                if f.number == 2 { files.append(try kind.readString(f)) } else { try kind.skip(f) }
            }
        }
        return files
    }
}
