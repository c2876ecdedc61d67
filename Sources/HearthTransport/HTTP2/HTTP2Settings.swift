/// SETTINGS parameters (RFC 9113 §6.5.2) as one side announces them, with the defaults
/// in force before any SETTINGS frame.
public struct HTTP2Settings: Sendable, Equatable {
    enum Identifier: UInt16, Sendable {
        case headerTableSize = 0x1
        case enablePush = 0x2
        case maxConcurrentStreams = 0x3
        case initialWindowSize = 0x4
        case maxFrameSize = 0x5
        case maxHeaderListSize = 0x6
    }

    public static let defaultMaxFrameSize = 16_384
    static let maxWindowSize = Int(Int32.max)

    var headerTableSize = 4096
    var enablePush = true
    var maxConcurrentStreams: Int? = nil
    var initialWindowSize = 65_535
    var maxFrameSize = HTTP2Settings.defaultMaxFrameSize
    var maxHeaderListSize: Int? = nil

    /// Applies one received parameter, validating it (§6.5.2); unknown identifiers are
    /// ignored as the RFC requires.
    mutating func apply(identifier: UInt16, value: UInt32) throws(HTTP2ProtocolViolation) {
        guard let id = Identifier(rawValue: identifier) else { return }
        switch id {
        case .headerTableSize: headerTableSize = Int(value)
        case .enablePush:
            guard value <= 1 else { throw .connection(.protocolError, "SETTINGS_ENABLE_PUSH must be 0 or 1, got \(value)") }
            enablePush = value == 1
        case .maxConcurrentStreams: maxConcurrentStreams = Int(value)
        case .initialWindowSize:
            guard value <= UInt32(Self.maxWindowSize) else {
                throw .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE \(value) exceeds 2^31-1")
            }
            initialWindowSize = Int(value)
        case .maxFrameSize:
            guard value >= 16_384, value <= 16_777_215 else {
                throw .connection(.protocolError, "SETTINGS_MAX_FRAME_SIZE \(value) outside 16384…16777215")
            }
            maxFrameSize = Int(value)
        case .maxHeaderListSize: maxHeaderListSize = Int(value)
        }
    }
}
