import HearthProtobuf
import HearthTransport

/// A gRPC status: one of the canonical codes and a message. It is the error every gRPC
/// call ends with (OK included) and what handlers throw; a service maps its own errors to
/// it. It also writes the response metadata: the response headers, the trailers carrying
/// `grpc-status` and the percent-encoded `grpc-message`, and trailers-only responses.
public struct GRPCStatus: Error, Sendable, Equatable, CustomStringConvertible {
    /// The canonical gRPC status codes, with their numeric values.
    public enum Code: Int, Sendable, CaseIterable {
        case ok = 0, cancelled = 1, unknown = 2, invalidArgument = 3, deadlineExceeded = 4,
             notFound = 5, alreadyExists = 6, permissionDenied = 7, resourceExhausted = 8,
             failedPrecondition = 9, aborted = 10, outOfRange = 11, unimplemented = 12,
             `internal` = 13, unavailable = 14, dataLoss = 15, unauthenticated = 16
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String = "") {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code) (\(code.rawValue)): \(message)" }

    /// Response headers of a normal (non-trailers-only) response, as the official emulator
    /// (grpc-java) writes them: responses are not compressed, requests may be gzipped.
    public static let responseHeaders: [HTTP2Header] = [
        HTTP2Header(":status", "200"),
        HTTP2Header("content-type", "application/grpc"),
        HTTP2Header("grpc-encoding", "identity"),
        HTTP2Header("grpc-accept-encoding", "gzip"),
    ]

    /// Trailers ending a response (no `grpc-message` when there is nothing to say).
    public static func trailers(_ code: Code, message: String = "") -> [HTTP2Header] {
        if code == .ok && message.isEmpty { return okTrailers }
        let status = HTTP2Header("grpc-status", String(code.rawValue))
        return message.isEmpty ? [status] : [status, HTTP2Header("grpc-message", encodedMessage(message))]
    }

    /// Every successful call's trailers, made once.
    private static let okTrailers = [HTTP2Header("grpc-status", "0")]

    /// The longest `grpc-message` sent, in encoded bytes. Messages echo the request (a
    /// document name of 20 KB is named in its INVALID_ARGUMENT), but clients refuse header
    /// blocks past the list size they advertise: grpc-java's is 8 KiB, and past 10 KiB it
    /// tears the whole connection down, failing every call and listener on the channel.
    /// 4 KiB keeps any trailers well inside that, and is far more than a useful message.
    public static let maxEncodedMessage = 4096

    /// `message` percent-encoded; one longer than `maxEncodedMessage` is cut at a
    /// character boundary and ends with "…", so the client still sees what was wrong.
    static func encodedMessage(_ message: String) -> String {
        let full = percentEncode(message)
        guard full.utf8.count > maxEncodedMessage else { return full }
        let ellipsis = percentEncode("…")
        var out = ""
        var used = 0
        for scalar in message.unicodeScalars {
            let piece = percentEncode(String(scalar))
            if used + piece.utf8.count + ellipsis.utf8.count > maxEncodedMessage { break }
            out += piece
            used += piece.utf8.count
        }
        return out + ellipsis
    }

    /// A trailers-only response (one HEADERS frame with END_STREAM), used for errors.
    public static func trailersOnly(_ code: Code, message: String) -> [HTTP2Header] {
        [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")]
            + trailers(code, message: message)
    }

    /// `grpc-message` encoding: bytes outside 0x20…0x7E, and `%`, become `%XX` (upper case).
    public static func percentEncode(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for b in s.utf8 {
            if b >= 0x20 && b <= 0x7E && b != 0x25 {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out.unicodeScalars.append(Unicode.Scalar(0x25))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 0xF)]))
            }
        }
        return out
    }

    /// Decodes a `grpc-message`; malformed escapes are kept as they are (as gRPC does).
    public static func percentDecode(_ s: String) -> String {
        var bytes: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        while i < u.count {
            if u[i] == 0x25, i + 2 < u.count, let h = hexValue(u[i + 1]), let l = hexValue(u[i + 2]) {
                bytes.append(h << 4 | l)
                i += 3
            } else {
                bytes.append(u[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Malformed protobuf in a gRPC request is INVALID_ARGUMENT.
extension GRPCStatus: ProtoDecodingFailure {
    public static func malformedProtobuf(_ description: String) -> GRPCStatus { GRPCStatus(.invalidArgument, description) }
}
