import HearthCore

/// gRPC response metadata: the response headers, the trailers carrying `grpc-status` and
/// the percent-encoded `grpc-message`, and trailers-only error responses.
enum GRPCStatus {
    /// Response headers of a normal (non-trailers-only) response.
    static let responseHeaders: [HTTP2Header] = [
        HTTP2Header(":status", "200"),
        HTTP2Header("content-type", "application/grpc"),
        HTTP2Header("grpc-accept-encoding", "identity"),
    ]

    /// Trailers ending a response.
    static func trailers(_ code: FirestoreError.Code, message: String = "") -> [HTTP2Header] {
        [HTTP2Header("grpc-status", String(code.rawValue)), HTTP2Header("grpc-message", percentEncode(message))]
    }

    /// A trailers-only response (one HEADERS frame with END_STREAM), used for errors.
    static func trailersOnly(_ code: FirestoreError.Code, message: String) -> [HTTP2Header] {
        [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")]
            + trailers(code, message: message)
    }

    /// `grpc-message` encoding: bytes outside 0x20…0x7E, and `%`, become `%XX` (upper case).
    static func percentEncode(_ s: String) -> String {
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
    static func percentDecode(_ s: String) -> String {
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
