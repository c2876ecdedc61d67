/// The LevelDB "log" container: the file is cut into 32 KiB blocks, each holding fragments
/// (7-byte header: masked CRC-32C of type + payload, 16-bit length, type) that never cross
/// a block boundary; a record is one FULL fragment or FIRST, MIDDLE…, LAST. Export data files
/// and the overall metadata file use it, and so do Hearth's own write-ahead log and snapshot
/// files, so one reader and one writer serve both (the format is described in
/// docs/export-format.md).
public enum LogFormat {
    public static let blockSize = 32_768
    public static let headerSize = 7

    public enum FragmentType: UInt8, Sendable {
        case full = 1, first = 2, middle = 3, last = 4
    }
}

/// Frames records for a log file written from offset 0, reproducing the official writer
/// byte for byte: a block with fewer than 7 bytes left after a fragment is zero-filled at
/// once (also after the last record), and a record meeting exactly 7 bytes starts with an
/// empty FIRST fragment.
public struct LogFramer: Sendable {
    /// Bytes used in the current block.
    public private(set) var blockOffset = 0

    /// Continues a file that is `fileOffset` bytes long (written by this framer).
    public init(fileOffset: Int = 0) { blockOffset = fileOffset % LogFormat.blockSize }

    /// Appends `record`, framed, to `out`.
    public mutating func frame(_ record: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var done = 0
        var begin = true
        while true {
            let available = LogFormat.blockSize - blockOffset - LogFormat.headerSize
            let n = min(available, record.count - done)
            let end = done + n == record.count
            let type: LogFormat.FragmentType = begin && end ? .full : begin ? .first : end ? .last : .middle
            let payload = UnsafeRawBufferPointer(rebasing: record[done..<(done + n)])
            var typeByte = type.rawValue
            var crc = withUnsafeBytes(of: &typeByte) { CRC32C.update(0xFFFF_FFFF, $0) }
            crc = CRC32C.update(crc, payload) ^ 0xFFFF_FFFF
            let masked = CRC32C.mask(crc)
            out.append(UInt8(truncatingIfNeeded: masked))
            out.append(UInt8(truncatingIfNeeded: masked >> 8))
            out.append(UInt8(truncatingIfNeeded: masked >> 16))
            out.append(UInt8(truncatingIfNeeded: masked >> 24))
            out.append(UInt8(truncatingIfNeeded: n))
            out.append(UInt8(truncatingIfNeeded: n >> 8))
            out.append(type.rawValue)
            out.append(contentsOf: payload)
            blockOffset += LogFormat.headerSize + n
            let left = LogFormat.blockSize - blockOffset
            if left < LogFormat.headerSize {
                out.append(contentsOf: repeatElement(0, count: left))
                blockOffset = 0
            }
            done += n
            begin = false
            if end { return }
        }
    }

    public mutating func frame(_ record: [UInt8], into out: inout [UInt8]) {
        record.withUnsafeBytes { frame($0, into: &out) }
    }
}
