import HearthTransport

/// Reassembles gRPC length-prefixed messages (1-byte compressed flag, 4-byte big-endian
/// length, payload) from request body chunks, however the chunks split them.
///
/// A message with the compressed flag is gunzipped when the request's `grpc-encoding` is
/// `gzip` (the one algorithm the official emulator takes); the flag without an encoding is
/// INTERNAL and another algorithm UNIMPLEMENTED, with the emulator's (grpc-java's) texts.
/// A message longer than `maxMessageSize`, before or after decompression, is
/// RESOURCE_EXHAUSTED.
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

    /// Takes `bytes` as the buffer when nothing is held (the usual case: a whole message
    /// in one DATA frame), without copying them.
    mutating func append(_ bytes: [UInt8]) {
        if start == buffer.count {
            buffer = bytes
            start = 0
        } else {
            append(bytes[...])
        }
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

    /// Bytes still to come before the message in progress is complete: 0 when no message
    /// has begun or its prefix is not whole yet. Meaningful after `next()` returned nil
    /// (which checked the declared length against `maxMessageSize`).
    var bytesToCompleteMessage: Int {
        guard buffer.count - start >= 5 else { return 0 }
        let length = Int(buffer[start + 1]) << 24 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
        return max(0, 5 + length - (buffer.count - start))
    }

    /// The next complete message, or nil when more bytes are needed.
    mutating func next() throws(GRPCStatus) -> [UInt8]? {
        guard buffer.count - start >= 5 else { return nil }
        let flag = buffer[start]
        let length = Int(buffer[start + 1]) << 24 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
        switch flag {
        case 0: break
        case 1:
            guard let encoding, encoding != "identity" else {
                throw GRPCStatus(.internal, "Can't decode compressed gRPC message as compression not configured")
            }
            guard encoding == "gzip" else { throw Self.unsupported(encoding) }
        default:
            throw GRPCStatus(.internal, "Invalid gRPC message flag \(flag).")
        }
        guard length <= maxMessageSize else {
            throw GRPCStatus(.resourceExhausted, "Received message larger than max (\(length) vs. \(maxMessageSize))")
        }
        guard buffer.count - start - 5 >= length else { return nil }
        var message = Array(buffer[(start + 5)..<(start + 5 + length)])
        if flag == 1 {
            do {
                message = try Gzip.decompress(message, limit: maxMessageSize)
            } catch {
                if error.tooLarge {
                    throw GRPCStatus(.resourceExhausted, "Decompressed gRPC message exceeds maximum size \(maxMessageSize)")
                }
                throw GRPCStatus(.internal, "Could not decompress the gzip message: \(error.reason).")
            }
        }
        start += 5 + length
        if start == buffer.count {
            // Let go (the buffer is often the caller's array, taken by `append`: keeping its
            // capacity would copy it); the next `append` takes the next array as it is.
            buffer = []
            start = 0
        }
        return message
    }
}

extension GRPCMessageReader {
    /// The algorithms a request may use (`grpc-encoding`).
    public static let acceptedEncodings: Set<String> = ["identity", "gzip"]

    /// A request compressed with an algorithm the server does not take.
    public static func unsupported(_ encoding: String) -> GRPCStatus {
        GRPCStatus(.unimplemented, "Can't find decompressor for \(encoding)")
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
