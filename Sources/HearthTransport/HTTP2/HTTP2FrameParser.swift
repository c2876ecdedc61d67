/// Cuts HTTP/2 frames out of a byte stream (RFC 9113 §4.1) and parses their payloads,
/// checking every per-frame rule of §6 (stream-id zero or non-zero, fixed lengths,
/// padding, SETTINGS ACK length, maximum frame size). Bytes are appended as they arrive;
/// `next()` returns complete frames.
struct HTTP2FrameParser: Sendable {
    /// The largest payload accepted (our SETTINGS_MAX_FRAME_SIZE).
    var maxFrameSize: Int
    private var buffer: [UInt8] = []
    private var start = 0

    init(maxFrameSize: Int = HTTP2Settings.defaultMaxFrameSize) {
        self.maxFrameSize = maxFrameSize
    }

    /// Bytes received but not yet returned as frames.
    var bufferedCount: Int { buffer.count - start }

    mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// A parsed frame and its payload length on the wire (what flow control counts for
    /// DATA, padding included).
    struct Parsed: Sendable, Equatable {
        var frame: HTTP2Frame
        var length: Int
    }

    /// The next complete frame, or nil when more bytes are needed.
    mutating func next() throws(HTTP2ProtocolViolation) -> Parsed? {
        guard buffer.count - start >= HTTP2Frame.headerSize else { return nil }
        let h = start
        let length = Int(buffer[h]) << 16 | Int(buffer[h + 1]) << 8 | Int(buffer[h + 2])
        let type = buffer[h + 3]
        let flags = HTTP2Frame.Flags(rawValue: buffer[h + 4])
        let streamID = (UInt32(buffer[h + 5]) << 24 | UInt32(buffer[h + 6]) << 16 | UInt32(buffer[h + 7]) << 8 | UInt32(buffer[h + 8])) & 0x7FFF_FFFF
        guard length <= maxFrameSize else {
            throw .connection(.frameSizeError, "frame of \(length) bytes exceeds SETTINGS_MAX_FRAME_SIZE \(maxFrameSize)")
        }
        guard buffer.count - start >= HTTP2Frame.headerSize + length else { return nil }
        let payload = Array(buffer[(h + 9)..<(h + 9 + length)])
        start += HTTP2Frame.headerSize + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        let frame = try Self.parsePayload(type: type, flags: flags, streamID: streamID, payload: payload)
        return Parsed(frame: frame, length: length)
    }

    static func parsePayload(type: UInt8, flags: HTTP2Frame.Flags, streamID: UInt32, payload: [UInt8]) throws(HTTP2ProtocolViolation) -> HTTP2Frame {
        guard let known = HTTP2Frame.FrameType(rawValue: type) else {
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .unknown(type: type, payload: payload))
        }
        let name = known.name
        func requireStream() throws(HTTP2ProtocolViolation) {
            if streamID == 0 { throw .connection(.protocolError, "\(name) frame on stream 0") }
        }
        func requireConnection() throws(HTTP2ProtocolViolation) {
            if streamID != 0 { throw .connection(.protocolError, "\(name) frame on stream \(streamID)") }
        }
        switch known {
        case .data:
            try requireStream()
            let body = try unpad(payload, flags: flags, name: name)
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .data(Array(body)))
        case .headers:
            try requireStream()
            var body = try unpad(payload, flags: flags, name: name)
            var priority: HTTP2Frame.PriorityInfo?
            if flags.contains(.priority) {
                guard body.count >= 5 else { throw .connection(.frameSizeError, "HEADERS with PRIORITY flag shorter than 5 bytes") }
                priority = parsePriority(body.prefix(5))
                body = body.dropFirst(5)
            }
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .headers(block: Array(body), priority: priority))
        case .priority:
            try requireStream()
            guard payload.count == 5 else { throw .stream(streamID, .frameSizeError, "PRIORITY frame of \(payload.count) bytes") }
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .priority(parsePriority(payload[...])))
        case .rstStream:
            try requireStream()
            guard payload.count == 4 else { throw .connection(.frameSizeError, "RST_STREAM frame of \(payload.count) bytes") }
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .rstStream(HTTP2ErrorCode(readUInt32(payload, 0))))
        case .settings:
            try requireConnection()
            if flags.contains(.ack) {
                guard payload.isEmpty else { throw .connection(.frameSizeError, "SETTINGS ACK with a payload") }
                return HTTP2Frame(streamID: 0, flags: flags, payload: .settings([]))
            }
            guard payload.count % 6 == 0 else { throw .connection(.frameSizeError, "SETTINGS frame of \(payload.count) bytes") }
            var settings: [(UInt16, UInt32)] = []
            for i in stride(from: 0, to: payload.count, by: 6) {
                settings.append((UInt16(payload[i]) << 8 | UInt16(payload[i + 1]), readUInt32(payload, i + 2)))
            }
            return HTTP2Frame(streamID: 0, flags: flags, payload: .settings(settings))
        case .pushPromise:
            try requireStream()
            let body = try unpad(payload, flags: flags, name: name)
            guard body.count >= 4 else { throw .connection(.frameSizeError, "PUSH_PROMISE shorter than 4 bytes") }
            let promised = readUInt32(Array(body.prefix(4)), 0) & 0x7FFF_FFFF
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .pushPromise(promisedStreamID: promised, block: Array(body.dropFirst(4))))
        case .ping:
            try requireConnection()
            guard payload.count == 8 else { throw .connection(.frameSizeError, "PING frame of \(payload.count) bytes") }
            return HTTP2Frame(streamID: 0, flags: flags, payload: .ping(payload))
        case .goAway:
            try requireConnection()
            guard payload.count >= 8 else { throw .connection(.frameSizeError, "GOAWAY frame of \(payload.count) bytes") }
            return HTTP2Frame(streamID: 0, flags: flags, payload: .goAway(
                lastStreamID: readUInt32(payload, 0) & 0x7FFF_FFFF, error: HTTP2ErrorCode(readUInt32(payload, 4)),
                debugData: Array(payload[8...])))
        case .windowUpdate:
            guard payload.count == 4 else { throw .connection(.frameSizeError, "WINDOW_UPDATE frame of \(payload.count) bytes") }
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .windowUpdate(readUInt32(payload, 0) & 0x7FFF_FFFF))
        case .continuation:
            try requireStream()
            return HTTP2Frame(streamID: streamID, flags: flags, payload: .continuation(payload))
        }
    }

    private static func unpad(_ payload: [UInt8], flags: HTTP2Frame.Flags, name: String) throws(HTTP2ProtocolViolation) -> ArraySlice<UInt8> {
        guard flags.contains(.padded) else { return payload[...] }
        guard let padLength = payload.first else { throw .connection(.frameSizeError, "padded \(name) frame without a pad length") }
        guard Int(padLength) < payload.count else {
            throw .connection(.protocolError, "\(name) padding of \(padLength) bytes is not shorter than the payload (\(payload.count) bytes)")
        }
        return payload[1..<(payload.count - Int(padLength))]
    }

    private static func parsePriority(_ b: ArraySlice<UInt8>) -> HTTP2Frame.PriorityInfo {
        let bytes = Array(b)
        let raw = readUInt32(bytes, 0)
        return HTTP2Frame.PriorityInfo(exclusive: raw & 0x8000_0000 != 0, dependency: raw & 0x7FFF_FFFF, weight: bytes[4])
    }

    static func readUInt32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
