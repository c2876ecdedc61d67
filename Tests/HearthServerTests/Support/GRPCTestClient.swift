import HearthCore
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport
import HearthProtobuf

/// A minimal gRPC client over one HTTP/2 connection (the raw client's frames and the
/// HPACK encoder), for calling the Firestore RPCs of a loopback server one at a time.
final class GRPCTestClient {
    /// What a call came back with.
    struct Response {
        var status: Int
        var message: String
        var messages: [[UInt8]]
        /// True when the answer was a single trailers-only HEADERS frame.
        var trailersOnly: Bool
        var headers: [HTTP2Header]
    }

    let raw: RawHTTP2Client
    let port: Int
    private var nextStream: UInt32 = 1

    /// `initialWindow` is the flow-control window the server may fill before the client
    /// sends WINDOW_UPDATE (which it does only when told to): on the connection and on
    /// each stream.
    init(port: Int, initialWindow: UInt32 = 4_194_304) throws {
        self.port = port
        raw = try RawHTTP2Client(port: port)
        var preface = [HTTP2Frame(streamID: 0, flags: [], payload: .settings([(UInt16(0x4), initialWindow), (UInt16(0x5), UInt32(4_194_304))]))]
        if initialWindow > 65_535 { preface.append(HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(initialWindow - 65_535))) }
        raw.send(preface, preface: true)
    }

    /// The request headers of a call to `/google.firestore.v1.Firestore/<method>`.
    func requestHeaders(_ method: String, authorization: String? = "Bearer owner", timeout: String? = nil,
                        contentType: String = "application/grpc") -> [HTTP2Header] {
        var h = [(":path", "/google.firestore.v1.Firestore/\(method)"), (":authority", "127.0.0.1:\(port)"), (":method", "POST"),
                 (":scheme", "http"), ("content-type", contentType), ("te", "trailers")]
        if let timeout { h.append(("grpc-timeout", timeout)) }
        if let authorization { h.append(("authorization", authorization)) }
        return h.map { HTTP2Header($0.0, $0.1) }
    }

    /// Opens a stream with `headers`; returns its id.
    func open(_ headers: [HTTP2Header], endStream: Bool = false) -> UInt32 {
        let id = nextStream
        nextStream += 2
        let block = raw.encoder.encode(headers)
        raw.send([HTTP2Frame(streamID: id, flags: endStream ? [.endHeaders, .endStream] : .endHeaders, payload: .headers(block: block, priority: nil))])
        return id
    }

    /// One call: the request message (a raw body when `body` is given), then the answer.
    func call(_ method: String, _ request: [UInt8], authorization: String? = "Bearer owner", timeout: String? = nil,
              body: [UInt8]? = nil) throws -> Response {
        let id = open(requestHeaders(method, authorization: authorization, timeout: timeout))
        raw.send([HTTP2Frame(streamID: id, flags: .endStream, payload: .data(body ?? GRPCMessageWriter.frame(request)))])
        return try response(id)
    }

    /// Sends `body` on stream `id` as its flow-control window allows, as a real client does:
    /// 16 KiB frames, waiting for the server's WINDOW_UPDATEs; false when the server gives
    /// no window for the rest. Only the stream's window is tracked (it starts at 65,535: the
    /// client never ACKs the server's SETTINGS); the server grants a 4 MiB connection window
    /// at once and replenishes it as bytes arrive, so bodies up to that need no more. Frames
    /// read while waiting are dropped: use it when the server sends nothing else meanwhile.
    func sendHonouringWindow(_ id: UInt32, _ body: [UInt8], endStream: Bool) throws -> Bool {
        var window = 65_535, sent = 0
        while sent < body.count {
            let size = min(16_384, window, body.count - sent)
            if size > 0 {
                let end = endStream && sent + size == body.count
                raw.send([HTTP2Frame(streamID: id, flags: end ? .endStream : [], payload: .data(Array(body[sent..<(sent + size)])))])
                sent += size
                window -= size
                continue
            }
            guard let frames = try raw.read(until: { $0.streamID == id && $0.windowIncrement != nil }) else { return false }
            window += Int(frames.last?.windowIncrement ?? 0)
        }
        return true
    }

    /// Reads the answer of stream `id` up to its END_STREAM.
    func response(_ id: UInt32) throws -> Response {
        guard let frames = try raw.read(until: { $0.streamID == id && $0.flags.contains(.endStream) }) else {
            throw FirestoreError(.unavailable, "connection closed")
        }
        var headerBlocks: [[HTTP2Header]] = []
        var data: [UInt8] = []
        for f in frames {
            switch f.payload {
            case .headers(let block, _):
                let decoded = try raw.decoder.decode(block)
                if f.streamID == id { headerBlocks.append(decoded) }
            case .data(let d) where f.streamID == id: data += d
            default: break
            }
        }
        let trailers = headerBlocks.last ?? []
        var reader = GRPCMessageReader()
        var messages: [[UInt8]] = []
        if headerBlocks.first?.contains(HTTP2Header("content-type", "application/grpc")) == true {
            reader.append(data)
            while let m = try reader.next() { messages.append(m) }
        }
        let status = trailers.first { $0.name == "grpc-status" }.flatMap { Int($0.value) } ?? -1
        let message = trailers.first { $0.name == "grpc-message" }.map { GRPCStatus.percentDecode($0.value) } ?? ""
        return Response(status: status, message: message, messages: messages, trailersOnly: headerBlocks.count == 1 && messages.isEmpty,
                        headers: headerBlocks.first ?? [])
    }
}

/// Builds request messages for the tests.
enum TestProto {
    static func message(_ body: (inout ProtoWriter) -> Void) -> [UInt8] {
        var w = ProtoWriter()
        body(&w)
        return w.bytes
    }

    static func document(_ name: String, _ fields: [(String, Value)]) -> (inout ProtoWriter) -> Void {
        { w in
            if !name.isEmpty { w.writeString(1, name) }
            for (k, v) in fields { ValueMessage.writeMapEntry(2, k, v, into: &w) }
        }
    }

    static func write(_ write: Write, _ database: DatabaseID) -> (inout ProtoWriter) -> Void {
        { WriteMessage.encode(write, database: database, into: &$0) }
    }

    static func decodeDocument(_ bytes: [UInt8]) throws -> DocumentMessage.Decoded {
        var r = ProtoReader(bytes)
        return try DocumentMessage.decode(&r)
    }

    /// Every field of a message as (number, raw payload for length-delimited / value).
    static func fields(_ bytes: [UInt8]) throws -> [(Int, [UInt8], UInt64)] {
        var r = ProtoReader(bytes)
        var out: [(Int, [UInt8], UInt64)] = []
        while let key = try r.next() {
            switch key.wireType {
            case .lengthDelimited: out.append((key.number, try r.readBytes(key), 0))
            case .varint: out.append((key.number, [], try r.readUInt64(key)))
            default: try r.skip(key)
            }
        }
        return out
    }
}

/// What a frame carries, for the tests that read the server's frames.
extension HTTP2Frame {
    var goAwayCode: HTTP2ErrorCode? { if case .goAway(_, let e, _) = payload { e } else { nil } }
    var windowIncrement: UInt32? { if case .windowUpdate(let n) = payload { n } else { nil } }
}
