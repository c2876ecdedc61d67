/// Entry points for the libFuzzer targets in `Fuzz/` (docs/reliability.md#fuzzing): each
/// runs one of this module's parsers over bytes from outside, as a connection would, and
/// returns a number derived from what it produced (so the work cannot be optimised away).
/// `@_spi(Fuzzing)`: visible only to an importer that names the SPI, so these are not part
/// of the module's API. A parser that traps, hangs or grows without bound on some input
/// is a bug; every outcome the parser reports (an error, a need for more bytes) is fine.
@_spi(Fuzzing) public enum TransportFuzzing {
    /// Splits `data` into the pieces a socket might deliver: the first byte chooses the
    /// piece size (0: all at once), so a fuzzer explores how the parser resumes.
    public static func pieces(_ data: [UInt8]) -> [ArraySlice<UInt8>] {
        guard let first = data.first else { return [] }
        let rest = data.dropFirst()
        guard first != 0 else { return [rest] }
        let size = Int(first % 61) + 1
        return stride(from: rest.startIndex, to: rest.endIndex, by: size).map { rest[$0..<min($0 + size, rest.endIndex)] }
    }

    /// HTTP/1.1 requests (heads, content-length and chunked bodies, pipelining), with limits
    /// small enough that the over-limit paths are reachable from a short input.
    public static func http1(_ data: [UInt8]) -> Int {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 2048
        limits.maxBodyBytes = 4096
        var parser = HTTPRequestParser(limits: limits)
        var produced = 0
        for piece in pieces(data) {
            parser.append(Array(piece))
            loop: while true {
                switch parser.next() {
                case .needMore: break loop
                case .sendContinue: produced += 1
                case .request(let r): produced += r.body.count + r.headers.count + 1
                case .failure(let status, _): produced += status; break loop
                }
            }
        }
        return produced + parser.heldByteCount
    }

    /// HTTP/2 frames, cut from the stream and parsed one by one (every per-frame rule).
    public static func http2Frames(_ data: [UInt8]) -> Int {
        var parser = HTTP2FrameParser(maxFrameSize: 1 << 14)
        var produced = 0
        for piece in pieces(data) {
            parser.append(piece)
            while true {
                do {
                    guard let parsed = try parser.next() else { break }
                    produced += parsed.length + 1
                } catch {
                    return produced + Int(error.code.code)
                }
            }
        }
        return produced
    }

    /// A whole server-side HTTP/2 connection: the client preface, then the fuzzed bytes
    /// (frames, HPACK blocks, flow control, resets, GOAWAY). The application answers every
    /// stream it is given (headers and a body, as a gRPC handler would) and consumes the
    /// request bytes, so the send side and the windows are exercised too.
    public static func http2Connection(_ data: [UInt8]) -> Int {
        var config = HTTP2ConnectionState.Configuration()
        config.maxConcurrentStreams = 16
        config.initialWindowSize = 1 << 16
        config.maxHeaderListSize = 8 * 1024
        config.maxHeaderBlockSize = 16 * 1024
        var connection = HTTP2ConnectionState(config: config)
        var produced = connection.takeOutbox().count
        var events = connection.receive(HTTP2ConnectionState.clientPreface, now: 0)
        var clock: Int64 = 0
        for piece in pieces(data) {
            clock += 1_000_000
            events += connection.receive(piece, now: clock)
            for event in events {
                switch event {
                case .streamOpened(let id, let headers, let endStream):
                    produced += headers.fields.count
                    try? connection.sendHeaders(id, [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")], endStream: false)
                    if endStream { try? connection.sendData(id, Array(headers.path.utf8), endStream: true) }
                case .data(let id, let bytes, let endStream):
                    connection.consumed(id, bytes.count)
                    produced += bytes.count
                    if endStream { try? connection.sendData(id, bytes, endStream: true) }
                case .streamReset(_, let code):
                    produced += Int(code.code)
                }
            }
            events = []
            connection.flush()
            produced += connection.takeOutbox().count
            if connection.isClosed { break }
        }
        produced += connection.peerDisconnected().count
        return produced
    }

    /// HPACK header blocks, each a two-byte big-endian length and its bytes, decoded in
    /// turn with one dynamic table, as a connection's HEADERS frames are. Whatever
    /// decodes must survive a round trip through the encoder: decode(encode(h)) == h.
    public static func hpack(_ data: [UInt8]) -> Int {
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 16 * 1024)
        var encoder = HPACKEncoder(maxTableSize: 4096, useHuffman: data.count % 2 == 0, useIndexing: true)
        var check = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 30)
        var produced = 0
        var offset = 0
        while offset + 2 <= data.count {
            let length = Int(data[offset]) << 8 | Int(data[offset + 1])
            let end = min(data.count, offset + 2 + length)
            let block = Array(data[(offset + 2)..<end])
            offset = end
            do {
                let headers = try decoder.decode(block)
                produced += headers.count
                let again = try? check.decode(encoder.encode(headers))
                precondition(again == headers, "HPACK round trip changed \(headers) into \(again.map { "\($0)" } ?? "an error")")
            } catch {
                // A decoding error is a connection error: the table is unusable after it.
                return produced + 1
            }
        }
        return produced
    }

    /// WebSocket client frames (masking, lengths, control frames, reserved bits).
    public static func webSocketFrames(_ data: [UInt8]) -> Int {
        var parser = WebSocketFrameParser(maxFrameSize: 4096)
        var produced = 0
        for piece in pieces(data) {
            parser.append(Array(piece))
            loop: while true {
                switch parser.next() {
                case .needMore: break loop
                case .frame(let f): produced += f.payload.count + 1 + (isValidUTF8(f.payload) ? 1 : 0)
                case .failure(let code, _): return produced + Int(code)
                }
            }
        }
        return produced + parser.heldByteCount
    }
}
