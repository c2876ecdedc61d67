/// Reads the records of a LevelDB log file (LogFormat) in order, a megabyte at a time, so a
/// file of any size is read in bounded memory (one chunk plus the record being assembled).
///
/// Every fragment's checksum is verified. Malformations stop the reader with a
/// `LogFormatError` naming the file, the byte offset and the problem: a bad checksum, a
/// fragment running past its block or the file, an unknown type, a MIDDLE or LAST with no
/// FIRST before it, a FULL or FIRST while a record is open, or the end of the file inside a
/// record.
public final class LogReader {
    public let path: String
    private let file: PosixFile
    private let fileSize: Int
    /// Whether an all-zero header means "padding to the end of the block" (LevelDB's
    /// preallocated files). Export readers accept it; Hearth's own log does not, since a run
    /// of zeros there is damage that must not silently hide what follows.
    private let zeroHeaderIsPadding: Bool

    /// 32 blocks: a fragment never crosses a block, so never a chunk.
    private static let chunkSize = 32 * LogFormat.blockSize
    private var chunk: [UInt8]
    private var chunkStart = 0
    private var chunkLength = 0
    /// The file offset of the next fragment header.
    public private(set) var offset = 0
    /// Where the record last returned (or being read when an error was thrown) begins.
    public private(set) var recordOffset = 0
    /// Where the last complete record returned ends: everything before it is intact.
    public private(set) var intactLength = 0

    public init(path: String, zeroHeaderIsPadding: Bool = false) throws(LogFormatError) {
        self.path = path
        self.zeroHeaderIsPadding = zeroHeaderIsPadding
        do {
            file = try PosixFile.openForReading(path)
            fileSize = try file.size()
        } catch {
            throw LogFormatError(file: path, offset: 0, problem: .io(error.description))
        }
        chunk = [UInt8](repeating: 0, count: Self.chunkSize)
    }

    /// The file's size when it was opened.
    public var size: Int { fileSize }

    /// The next record's payload, or nil at the end of the file.
    public func next() throws(LogFormatError) -> [UInt8]? {
        var assembling: [UInt8]? = nil
        while true {
            let blockLeft = LogFormat.blockSize - offset % LogFormat.blockSize
            if blockLeft < LogFormat.headerSize {
                // The writer zero-fills these trailer bytes.
                offset += min(blockLeft, fileSize - offset)
                continue
            }
            if offset >= fileSize {
                if assembling != nil { throw fail(.endInsideRecord, at: recordOffset) }
                return nil
            }
            try load(offset)
            let at = offset - chunkStart
            guard fileSize - offset >= LogFormat.headerSize else { throw fail(.truncatedHeader, at: offset) }
            let (masked, length, typeByte) = chunk.withUnsafeBytes { b in
                (UInt32(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt32.self)),
                 Int(b[at + 4]) | Int(b[at + 5]) << 8, b[at + 6])
            }
            if zeroHeaderIsPadding, masked == 0, length == 0, typeByte == 0 {
                offset += blockLeft
                continue
            }
            guard length <= blockLeft - LogFormat.headerSize else {
                if offset + LogFormat.headerSize + length > fileSize { throw fail(.truncatedPayload, at: offset) }
                throw fail(.lengthPastBlock(length), at: offset)
            }
            guard offset + LogFormat.headerSize + length <= fileSize else { throw fail(.truncatedPayload, at: offset) }
            guard let type = LogFormat.FragmentType(rawValue: typeByte) else { throw fail(.badType(typeByte), at: offset) }
            let valid = chunk.withUnsafeBytes { b in
                let crc = CRC32C.update(0xFFFF_FFFF, UnsafeRawBufferPointer(rebasing: b[(at + 6)..<(at + 7 + length)])) ^ 0xFFFF_FFFF
                return CRC32C.mask(crc) == masked
            }
            guard valid else { throw fail(.checksum, at: offset) }
            let payload = (at + LogFormat.headerSize)..<(at + LogFormat.headerSize + length)
            let fragmentOffset = offset
            offset += LogFormat.headerSize + length
            switch type {
            case .full:
                if assembling != nil { throw fail(.interruptedRecord, at: fragmentOffset) }
                recordOffset = fragmentOffset
                intactLength = offset
                return Array(chunk[payload])
            case .first:
                if assembling != nil { throw fail(.interruptedRecord, at: fragmentOffset) }
                recordOffset = fragmentOffset
                assembling = Array(chunk[payload])
            case .middle, .last:
                guard assembling != nil else { throw fail(.orphanFragment, at: fragmentOffset) }
                assembling!.append(contentsOf: chunk[payload])
                if type == .last {
                    intactLength = offset
                    return assembling
                }
            }
        }
    }

    /// Makes sure the block holding `position` is in `chunk`.
    private func load(_ position: Int) throws(LogFormatError) {
        if position >= chunkStart && position < chunkStart + chunkLength { return }
        chunkStart = position - position % LogFormat.blockSize
        let start = chunkStart
        let read = chunk.withUnsafeMutableBytes { b in Result { () throws(PosixFile.Failure) in try file.read(into: b, at: start) } }
        switch read {
        case .success(let n): chunkLength = n
        case .failure(let error): throw LogFormatError(file: path, offset: position, problem: .io(error.description))
        }
    }

    private func fail(_ problem: LogFormatError.Problem, at offset: Int) -> LogFormatError {
        LogFormatError(file: path, offset: offset, problem: problem)
    }

    /// Whether a complete, valid FULL fragment whose payload satisfies `matches` starts at
    /// some byte offset in `range` (used to tell a torn tail from damage in the middle).
    public func containsFragment(in range: Range<Int>, matching matches: (UnsafeRawBufferPointer) -> Bool) throws(LogFormatError) -> Bool {
        var position = range.lowerBound
        while position < min(range.upperBound, fileSize - LogFormat.headerSize + 1) {
            let blockLeft = LogFormat.blockSize - position % LogFormat.blockSize
            if blockLeft < LogFormat.headerSize { position += blockLeft; continue }
            try load(position)
            let at = position - chunkStart
            let found = chunk.withUnsafeBytes { b -> Bool in
                guard b[at + 6] == LogFormat.FragmentType.full.rawValue else { return false }
                let length = Int(b[at + 4]) | Int(b[at + 5]) << 8
                guard length <= blockLeft - LogFormat.headerSize, position + LogFormat.headerSize + length <= fileSize,
                      at + LogFormat.headerSize + length <= chunkLength else { return false }
                let payload = UnsafeRawBufferPointer(rebasing: b[(at + 7)..<(at + 7 + length)])
                guard matches(payload) else { return false }
                let masked = UInt32(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                let crc = CRC32C.update(0xFFFF_FFFF, UnsafeRawBufferPointer(rebasing: b[(at + 6)..<(at + 7 + length)])) ^ 0xFFFF_FFFF
                return CRC32C.mask(crc) == masked
            }
            if found { return true }
            position += 1
        }
        return false
    }
}

/// A malformed log file: where, and what is wrong.
public struct LogFormatError: Error, CustomStringConvertible, Sendable {
    public let file: String
    /// The byte offset of the offending fragment (or record).
    public let offset: Int
    public let problem: Problem

    public enum Problem: Sendable, Equatable {
        case checksum
        case truncatedHeader
        case truncatedPayload
        case lengthPastBlock(Int)
        case badType(UInt8)
        case orphanFragment
        case interruptedRecord
        case endInsideRecord
        case io(String)
    }

    /// Whether the problem is the file ending too early (what an interrupted append leaves).
    public var isTruncation: Bool {
        switch problem {
        case .truncatedHeader, .truncatedPayload, .endInsideRecord: true
        default: false
        }
    }

    public var reason: String {
        switch problem {
        case .checksum: "checksum mismatch"
        case .truncatedHeader: "the file ends inside a fragment header"
        case .truncatedPayload: "the file ends inside a fragment"
        case .lengthPastBlock(let n): "a fragment of \(n) bytes runs past its 32 KiB block"
        case .badType(let t): "unknown fragment type \(t)"
        case .orphanFragment: "a continuation fragment with no record begun before it"
        case .interruptedRecord: "a new record begins before the previous one ended"
        case .endInsideRecord: "the file ends inside a record"
        case .io(let message): message
        }
    }

    public var description: String { "\(file), byte \(offset): \(reason)" }
}
