/// HTTP/2 error codes (RFC 9113 §7), used in RST_STREAM and GOAWAY. Unknown codes from
/// the peer are kept as `.unknown(code)`.
public enum HTTP2ErrorCode: Sendable, Equatable, CustomStringConvertible {
    case noError, protocolError, internalError, flowControlError, settingsTimeout, streamClosed,
         frameSizeError, refusedStream, cancel, compressionError, connectError, enhanceYourCalm,
         inadequateSecurity, http11Required
    case unknown(UInt32)

    public init(_ code: UInt32) {
        switch code {
        case 0x0: self = .noError
        case 0x1: self = .protocolError
        case 0x2: self = .internalError
        case 0x3: self = .flowControlError
        case 0x4: self = .settingsTimeout
        case 0x5: self = .streamClosed
        case 0x6: self = .frameSizeError
        case 0x7: self = .refusedStream
        case 0x8: self = .cancel
        case 0x9: self = .compressionError
        case 0xa: self = .connectError
        case 0xb: self = .enhanceYourCalm
        case 0xc: self = .inadequateSecurity
        case 0xd: self = .http11Required
        default: self = .unknown(code)
        }
    }

    public var code: UInt32 {
        switch self {
        case .noError: 0x0
        case .protocolError: 0x1
        case .internalError: 0x2
        case .flowControlError: 0x3
        case .settingsTimeout: 0x4
        case .streamClosed: 0x5
        case .frameSizeError: 0x6
        case .refusedStream: 0x7
        case .cancel: 0x8
        case .compressionError: 0x9
        case .connectError: 0xa
        case .enhanceYourCalm: 0xb
        case .inadequateSecurity: 0xc
        case .http11Required: 0xd
        case .unknown(let c): c
        }
    }

    public var description: String {
        switch self {
        case .noError: "NO_ERROR"
        case .protocolError: "PROTOCOL_ERROR"
        case .internalError: "INTERNAL_ERROR"
        case .flowControlError: "FLOW_CONTROL_ERROR"
        case .settingsTimeout: "SETTINGS_TIMEOUT"
        case .streamClosed: "STREAM_CLOSED"
        case .frameSizeError: "FRAME_SIZE_ERROR"
        case .refusedStream: "REFUSED_STREAM"
        case .cancel: "CANCEL"
        case .compressionError: "COMPRESSION_ERROR"
        case .connectError: "CONNECT_ERROR"
        case .enhanceYourCalm: "ENHANCE_YOUR_CALM"
        case .inadequateSecurity: "INADEQUATE_SECURITY"
        case .http11Required: "HTTP_1_1_REQUIRED"
        case .unknown(let c): "0x\(String(c, radix: 16))"
        }
    }
}

/// A violation found while reading frames: a connection error (GOAWAY and close) or a
/// stream error (RST_STREAM on that stream only), RFC 9113 §5.4.
struct HTTP2ProtocolViolation: Error, Sendable, Equatable {
    var code: HTTP2ErrorCode
    /// Set for a stream error; nil for a connection error.
    var streamID: UInt32?
    var message: String

    static func connection(_ code: HTTP2ErrorCode, _ message: String) -> HTTP2ProtocolViolation {
        HTTP2ProtocolViolation(code: code, streamID: nil, message: message)
    }

    static func stream(_ id: UInt32, _ code: HTTP2ErrorCode, _ message: String) -> HTTP2ProtocolViolation {
        HTTP2ProtocolViolation(code: code, streamID: id, message: message)
    }
}
