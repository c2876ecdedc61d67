/// A header block that cannot be decoded (RFC 7541 §6, §8.2): the connection answers it
/// with GOAWAY(COMPRESSION_ERROR), except for list-size overruns (a stream error).
enum HPACKError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated
    case integerOverflow
    case invalidIndex(Int)
    case invalidHuffman(String)
    case stringTooLong(Int)
    case tableSizeUpdateTooLarge(requested: Int, allowed: Int)
    case tableSizeUpdateNotAtStart
    case headerListTooLarge(Int)
    case invalidRepresentation(UInt8)

    var description: String {
        switch self {
        case .truncated: "truncated header block"
        case .integerOverflow: "HPACK integer too large"
        case .invalidIndex(let i): "header table index \(i) out of range"
        case .invalidHuffman(let why): why
        case .stringTooLong(let max): "header string longer than \(max) bytes"
        case .tableSizeUpdateTooLarge(let r, let a): "dynamic table size update to \(r) exceeds the limit \(a)"
        case .tableSizeUpdateNotAtStart: "dynamic table size update after the first header field"
        case .headerListTooLarge(let max): "header list larger than \(max) bytes"
        case .invalidRepresentation(let b): "invalid header representation byte \(b)"
        }
    }
}
