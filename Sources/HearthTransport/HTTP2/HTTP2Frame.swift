/// One HTTP/2 frame (RFC 9113 §4, §6), with its payload parsed by type. Padding is
/// removed on parsing; the serializer can add it back (`padding`).
struct HTTP2Frame: Sendable, Equatable {
    enum FrameType: UInt8, Sendable {
        case data = 0x0, headers = 0x1, priority = 0x2, rstStream = 0x3, settings = 0x4,
             pushPromise = 0x5, ping = 0x6, goAway = 0x7, windowUpdate = 0x8, continuation = 0x9

        /// The RFC 9113 name, for error messages.
        var name: String {
            switch self {
            case .data: "DATA"
            case .headers: "HEADERS"
            case .priority: "PRIORITY"
            case .rstStream: "RST_STREAM"
            case .settings: "SETTINGS"
            case .pushPromise: "PUSH_PROMISE"
            case .ping: "PING"
            case .goAway: "GOAWAY"
            case .windowUpdate: "WINDOW_UPDATE"
            case .continuation: "CONTINUATION"
            }
        }
    }

    /// Frame flags; which are meaningful depends on the type.
    struct Flags: OptionSet, Sendable, Hashable {
        let rawValue: UInt8
        init(rawValue: UInt8) { self.rawValue = rawValue }
        static let endStream = Flags(rawValue: 0x1)
        static let ack = Flags(rawValue: 0x1)
        static let endHeaders = Flags(rawValue: 0x4)
        static let padded = Flags(rawValue: 0x8)
        static let priority = Flags(rawValue: 0x20)
    }

    /// Stream dependency and weight from a PRIORITY frame or a HEADERS PRIORITY flag
    /// (deprecated by RFC 9113 and ignored by this server, but parsed and checked).
    struct PriorityInfo: Sendable, Equatable {
        var exclusive: Bool
        var dependency: UInt32
        var weight: UInt8
    }

    enum Payload: Sendable, Equatable {
        case data([UInt8])
        case headers(block: [UInt8], priority: PriorityInfo?)
        case priority(PriorityInfo)
        case rstStream(HTTP2ErrorCode)
        case settings([(UInt16, UInt32)])
        case pushPromise(promisedStreamID: UInt32, block: [UInt8])
        case ping([UInt8])
        case goAway(lastStreamID: UInt32, error: HTTP2ErrorCode, debugData: [UInt8])
        case windowUpdate(UInt32)
        case continuation([UInt8])
        /// A frame of a type this implementation does not know (ignored, §5.5).
        case unknown(type: UInt8, payload: [UInt8])

        static func == (a: Payload, b: Payload) -> Bool {
            switch (a, b) {
            case (.data(let x), .data(let y)): x == y
            case (.headers(let x, let p), .headers(let y, let q)): x == y && p == q
            case (.priority(let x), .priority(let y)): x == y
            case (.rstStream(let x), .rstStream(let y)): x == y
            case (.settings(let x), .settings(let y)): x.elementsEqual(y) { $0.0 == $1.0 && $0.1 == $1.1 }
            case (.pushPromise(let i, let x), .pushPromise(let j, let y)): i == j && x == y
            case (.ping(let x), .ping(let y)): x == y
            case (.goAway(let i, let e, let d), .goAway(let j, let f, let g)): i == j && e == f && d == g
            case (.windowUpdate(let x), .windowUpdate(let y)): x == y
            case (.continuation(let x), .continuation(let y)): x == y
            case (.unknown(let t, let x), .unknown(let u, let y)): t == u && x == y
            default: false
            }
        }
    }

    var streamID: UInt32
    var flags: Flags
    var payload: Payload
    /// Padding length to add when serializing DATA or HEADERS (nil: not padded).
    var padding: UInt8? = nil

    /// The 9-byte frame header's size.
    static let headerSize = 9

    var type: UInt8 {
        switch payload {
        case .data: FrameType.data.rawValue
        case .headers: FrameType.headers.rawValue
        case .priority: FrameType.priority.rawValue
        case .rstStream: FrameType.rstStream.rawValue
        case .settings: FrameType.settings.rawValue
        case .pushPromise: FrameType.pushPromise.rawValue
        case .ping: FrameType.ping.rawValue
        case .goAway: FrameType.goAway.rawValue
        case .windowUpdate: FrameType.windowUpdate.rawValue
        case .continuation: FrameType.continuation.rawValue
        case .unknown(let t, _): t
        }
    }
}
