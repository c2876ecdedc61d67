import HearthTransport

/// Reassembles gRPC length-prefixed messages (1-byte compressed flag, 4-byte big-endian
/// length, payload) from request body chunks, however the chunks split them.
///
/// Only identity encoding is supported: a message with the compressed flag set is
/// rejected with UNIMPLEMENTED naming the request's `grpc-encoding` (or INTERNAL when
/// the flag is set without one, as gRPC specifies). A message longer than
/// `maxMessageSize` is RESOURCE_EXHAUSTED.
public struct GRPCMessageReader: Sendable {
    /// Default limit: the 17 MiB the mobile SDKs allow (16 MiB documents + overhead), with room.
    public static let defaultMaxMessageSize = 32 << 20

    let maxMessageSize: Int
    /// The request's `grpc-encoding` header, for the error message.
    let encoding: String?
    private var buffer: [UInt8] = []
    private var start = 0

    init(maxMessageSize: Int = GRPCMessageReader.defaultMaxMessageSize, encoding: String? = nil) {
        self.maxMessageSize = maxMessageSize
        self.encoding = encoding
    }

    mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// True when bytes of an incomplete message are buffered (an error at end of stream).
    var hasPartialMessage: Bool { buffer.count > start }

    /// Bytes buffered and not yet returned as messages.
    var bufferedCount: Int { buffer.count - start }

    /// The next complete message, or nil when more bytes are needed.
    mutating func next() throws(GRPCStatus) -> [UInt8]? {
        guard buffer.count - start >= 5 else { return nil }
        let flag = buffer[start]
        let length = Int(buffer[start + 1]) << 24 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
        switch flag {
        case 0: break
        case 1:
            if let encoding, encoding != "identity" {
                throw GRPCStatus(.unimplemented, "Compression algorithm '\(encoding)' not supported; send uncompressed (identity) messages.")
            }
            throw GRPCStatus(.internal, "Compressed message flag set without a grpc-encoding header.")
        default:
            throw GRPCStatus(.internal, "Invalid gRPC message flag \(flag).")
        }
        guard length <= maxMessageSize else {
            throw GRPCStatus(.resourceExhausted, "Received message larger than max (\(length) vs. \(maxMessageSize))")
        }
        guard buffer.count - start - 5 >= length else { return nil }
        let message = Array(buffer[(start + 5)..<(start + 5 + length)])
        start += 5 + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return message
    }
}

/// Writes gRPC length-prefixed messages (always uncompressed).
enum GRPCMessageWriter {
    static func frame(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 5)
        frame(message, into: &out)
        return out
    }

    /// Appends the length-prefixed `message` to `out`.
    static func frame(_ message: [UInt8], into out: inout [UInt8]) {
        out.append(0)
        let n = UInt32(message.count)
        out.append(UInt8(n >> 24))
        out.append(UInt8((n >> 16) & 0xFF))
        out.append(UInt8((n >> 8) & 0xFF))
        out.append(UInt8(n & 0xFF))
        out.append(contentsOf: message)
    }
}
