/// RFC 6455 frames (section 5.2): what the server sends (never masked) and an incremental
/// parser for what clients send (always masked). The parser holds at most one frame's
/// header and the payload of the frame being read; a frame whose announced length passes
/// the limit is refused from its header, before any of its payload is held.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Close codes the server sends (section 7.4.1).
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let invalidData: UInt16 = 1007
    public static let policyViolation: UInt16 = 1008
    public static let tooBig: UInt16 = 1009
    public static let internalError: UInt16 = 1011

    /// Whether a peer may send `code` in a close frame (1004-1006, 1015 and unassigned
    /// values below 3000 may not).
    static func isValidReceived(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }
}

struct WebSocketFrame: Equatable {
    var fin: Bool
    var opcode: WebSocketOpcode
    var payload: [UInt8]

    /// The frame as the server sends it: unmasked, the shortest length encoding.
    static func serialize(fin: Bool = true, _ opcode: WebSocketOpcode, _ payload: [UInt8], into out: inout [UInt8]) {
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let n = payload.count
        if n < 126 {
            out.append(UInt8(n))
        } else if n <= 0xFFFF {
            out.append(126)
            out.append(UInt8(n >> 8)); out.append(UInt8(n & 0xFF))
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(shift))) }
        }
        out.append(contentsOf: payload)
    }

    static func closePayload(_ code: UInt16, _ reason: String) -> [UInt8] {
        var p: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        // A control frame's payload is at most 125 bytes: the reason is cut on a character boundary.
        var r = Array(reason.utf8)
        if r.count > 123 {
            var cut = 123
            while cut > 0 && r[cut] & 0xC0 == 0x80 { cut -= 1 }
            r = Array(r[..<cut])
        }
        p.append(contentsOf: r)
        return p
    }
}

/// Reads client frames from a byte stream.
struct WebSocketFrameParser {
    enum Outcome: Equatable {
        case needMore
        case frame(WebSocketFrame)
        /// The connection must be closed with this code (the reason is for the close frame).
        case failure(code: UInt16, reason: String)
    }

    let maxFrameSize: Int
    private var buffer: [UInt8] = []
    private var start = 0

    init(maxFrameSize: Int) { self.maxFrameSize = maxFrameSize }

    /// Bytes received and not yet returned in a frame.
    var heldByteCount: Int { buffer.count - start }
    /// True between frames.
    var isIdle: Bool { start == buffer.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
        } else if start > 16 * 1024 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    mutating func next() -> Outcome {
        let available = buffer.count - start
        guard available >= 2 else { return .needMore }
        let b0 = buffer[start], b1 = buffer[start + 1]
        guard b0 & 0x70 == 0 else { return .failure(code: WebSocketCloseCode.protocolError, reason: "reserved bits set: no extension was negotiated") }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            return .failure(code: WebSocketCloseCode.protocolError, reason: "unknown opcode \(b0 & 0x0F)")
        }
        let fin = b0 & 0x80 != 0
        guard b1 & 0x80 != 0 else { return .failure(code: WebSocketCloseCode.protocolError, reason: "client frames must be masked") }
        var length = UInt64(b1 & 0x7F)
        var header = 2
        if length == 126 {
            guard available >= 4 else { return .needMore }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            header = 4
            guard length >= 126 else { return .failure(code: WebSocketCloseCode.protocolError, reason: "length not in its shortest form") }
        } else if length == 127 {
            guard available >= 10 else { return .needMore }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + i]) }
            header = 10
            guard length >> 63 == 0 else { return .failure(code: WebSocketCloseCode.protocolError, reason: "frame length's top bit set") }
            guard length > 0xFFFF else { return .failure(code: WebSocketCloseCode.protocolError, reason: "length not in its shortest form") }
        }
        if opcode.isControl {
            guard fin else { return .failure(code: WebSocketCloseCode.protocolError, reason: "fragmented control frame") }
            guard length <= 125 else { return .failure(code: WebSocketCloseCode.protocolError, reason: "control frame longer than 125 bytes") }
        }
        guard length <= UInt64(maxFrameSize) else {
            return .failure(code: WebSocketCloseCode.tooBig, reason: "frame of \(length) bytes passes the limit of \(maxFrameSize)")
        }
        let n = Int(length)
        guard available >= header + 4 + n else { return .needMore }
        let mask = (buffer[start + header], buffer[start + header + 1], buffer[start + header + 2], buffer[start + header + 3])
        let from = start + header + 4
        var payload = Array(buffer[from..<(from + n)])
        payload.withUnsafeMutableBufferPointer { p in
            for i in 0..<p.count {
                switch i & 3 {
                case 0: p[i] ^= mask.0
                case 1: p[i] ^= mask.1
                case 2: p[i] ^= mask.2
                default: p[i] ^= mask.3
                }
            }
        }
        start = from + n
        return .frame(WebSocketFrame(fin: fin, opcode: opcode, payload: payload))
    }
}

/// Whether `bytes` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF),
/// as RFC 6455 requires of text messages and close reasons (else close 1007).
func isValidUTF8(_ bytes: [UInt8]) -> Bool {
    var i = 0
    let n = bytes.count
    while i < n {
        let b = bytes[i]
        if b < 0x80 { i += 1; continue }
        let count: Int
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch b {
        case 0xC2...0xDF: count = 1
        case 0xE0: count = 2; lower = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: count = 2
        case 0xED: count = 2; upper = 0x9F
        case 0xF0: count = 3; lower = 0x90
        case 0xF1...0xF3: count = 3
        case 0xF4: count = 3; upper = 0x8F
        default: return false
        }
        guard i + count < n else { return false }
        let second = bytes[i + 1]
        guard second >= lower && second <= upper else { return false }
        var j = 2
        while j <= count {
            guard bytes[i + j] & 0xC0 == 0x80 else { return false }
            j += 1
        }
        i += count + 1
    }
    return true
}
