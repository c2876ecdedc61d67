/// Writes HTTP/2 frames (RFC 9113 §4.1): the 9-byte header and the type's payload, with
/// optional padding on DATA and HEADERS. Splitting to the peer's maximum frame size is
/// the connection's job; the serializer writes what it is given.
enum HTTP2FrameSerializer {
    static func serialize(_ frame: HTTP2Frame, into out: inout [UInt8]) {
        var flags = frame.flags
        var payload: [UInt8] = []
        switch frame.payload {
        case .data(let bytes):
            payload = bytes
        case .headers(let block, let priority):
            if let priority {
                flags.insert(.priority)
                appendPriority(priority, into: &payload)
            } else {
                flags.remove(.priority)
            }
            payload.append(contentsOf: block)
        case .priority(let p):
            appendPriority(p, into: &payload)
        case .rstStream(let code):
            appendUInt32(code.code, into: &payload)
        case .settings(let settings):
            for (id, value) in settings {
                payload.append(UInt8(id >> 8))
                payload.append(UInt8(id & 0xFF))
                appendUInt32(value, into: &payload)
            }
        case .pushPromise(let promised, let block):
            appendUInt32(promised & 0x7FFF_FFFF, into: &payload)
            payload.append(contentsOf: block)
        case .ping(let opaque):
            payload = opaque
        case .goAway(let last, let error, let debug):
            appendUInt32(last & 0x7FFF_FFFF, into: &payload)
            appendUInt32(error.code, into: &payload)
            payload.append(contentsOf: debug)
        case .windowUpdate(let increment):
            appendUInt32(increment & 0x7FFF_FFFF, into: &payload)
        case .continuation(let block):
            payload = block
        case .unknown(_, let bytes):
            payload = bytes
        }
        var paddingLength = 0
        if let padding = frame.padding, frame.type == HTTP2Frame.FrameType.data.rawValue || frame.type == HTTP2Frame.FrameType.headers.rawValue {
            flags.insert(.padded)
            paddingLength = Int(padding)
        } else {
            flags.remove(.padded)
        }
        let length = payload.count + (flags.contains(.padded) ? 1 + paddingLength : 0)
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(frame.type)
        out.append(flags.rawValue)
        appendUInt32(frame.streamID & 0x7FFF_FFFF, into: &out)
        if flags.contains(.padded) { out.append(UInt8(paddingLength)) }
        out.append(contentsOf: payload)
        if paddingLength > 0 { out.append(contentsOf: repeatElement(0, count: paddingLength)) }
    }

    static func serialize(_ frame: HTTP2Frame) -> [UInt8] {
        var out: [UInt8] = []
        serialize(frame, into: &out)
        return out
    }

    private static func appendPriority(_ p: HTTP2Frame.PriorityInfo, into out: inout [UInt8]) {
        appendUInt32((p.exclusive ? 0x8000_0000 : 0) | (p.dependency & 0x7FFF_FFFF), into: &out)
        out.append(p.weight)
    }

    static func appendUInt32(_ v: UInt32, into out: inout [UInt8]) {
        out.append(UInt8(v >> 24))
        out.append(UInt8((v >> 16) & 0xFF))
        out.append(UInt8((v >> 8) & 0xFF))
        out.append(UInt8(v & 0xFF))
    }
}
