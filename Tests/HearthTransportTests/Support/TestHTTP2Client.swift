@testable import HearthTransport

/// An HTTP/2 client over a `TestSocket`: writes any frame (well-formed or not), parses
/// what the server sends. Enough protocol to open streams, send bodies and watch the
/// server's SETTINGS, RST_STREAM, WINDOW_UPDATE and GOAWAY.
final class TestHTTP2Client: @unchecked Sendable {
    let socket: TestSocket
    private var encoder = HPACKEncoder()
    private var parser = HTTP2FrameParser(maxFrameSize: 1 << 24 - 1)
    private var parsedUpTo = 0
    private(set) var frames: [HTTP2Frame] = []

    /// Connects, sends the preface and an empty SETTINGS (and, when `ack`, acknowledges
    /// the server's SETTINGS once they arrive).
    init(port: Int, receiveBuffer: Int? = nil, ack: Bool = true) throws {
        socket = try TestSocket(port: port, receiveBuffer: receiveBuffer)
        send([HTTP2Frame(streamID: 0, flags: [], payload: .settings([]))], preface: true)
        if ack {
            _ = read { $0.contains { $0.settingsValues != nil } }
            send([HTTP2Frame(streamID: 0, flags: .ack, payload: .settings([]))])
        }
    }

    @discardableResult
    func send(_ frames: [HTTP2Frame], preface: Bool = false) -> Bool {
        var bytes = preface ? HTTP2ConnectionState.clientPreface : []
        for f in frames { HTTP2FrameSerializer.serialize(f, into: &bytes) }
        return socket.send(bytes)
    }

    /// A request's HEADERS frame for `path` (a gRPC-shaped POST).
    func headers(_ stream: UInt32, path: String, endStream: Bool = false) -> HTTP2Frame {
        let block = encoder.encode([
            HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "http"), HTTP2Header(":path", path),
            HTTP2Header(":authority", "test"), HTTP2Header("content-type", "application/grpc"),
        ])
        return HTTP2Frame(streamID: stream, flags: endStream ? [.endHeaders, .endStream] : .endHeaders,
                          payload: .headers(block: block, priority: nil))
    }

    /// Reads and parses until `done(frames)` holds or `timeout` passes; true when it held.
    func read(timeout: Double = 10, until done: ([HTTP2Frame]) -> Bool) -> Bool {
        socket.read(until: { _ in parseNew(); return done(frames) }, timeout: timeout)
    }

    /// Reads until the server closes; true when it did within `timeout`.
    func waitForClose(timeout: Double = 10) -> Bool {
        let closed = socket.waitForClose(timeout: timeout)
        parseNew()
        return closed
    }

    private func parseNew() {
        let received = socket.received
        guard received.count > parsedUpTo else { return }
        parser.append(received[parsedUpTo...])
        parsedUpTo = received.count
        while let parsed = try? parser.next() { frames.append(parsed.frame) }
    }

    /// The error code of the server's GOAWAY, if one arrived.
    var goAwayCode: HTTP2ErrorCode? { frames.lazy.compactMap(\.goAwayCode).first }
}

extension HTTP2Frame {
    var goAwayCode: HTTP2ErrorCode? { if case .goAway(_, let e, _) = payload { e } else { nil } }
    var resetCode: HTTP2ErrorCode? { if case .rstStream(let e) = payload { e } else { nil } }
    var windowIncrement: UInt32? { if case .windowUpdate(let n) = payload { n } else { nil } }
    var dataBytes: [UInt8]? { if case .data(let d) = payload { d } else { nil } }
    var settingsValues: [(UInt16, UInt32)]? {
        if case .settings(let v) = payload, !flags.contains(.ack) { v } else { nil }
    }
}

/// The HTTP/2 application of the transport tests: `/hold` keeps a stream open and keeps
/// every body byte it is sent (never releasing it), `/drain` keeps a stream open and
/// releases its body bytes, `/bytes/N` answers N bytes at once.
struct TestStreamHandler: HTTP2StreamHandler {
    func open(_ stream: HTTP2ServerStream, request: HTTP2RequestHeaders, endStream: Bool) -> any HTTP2RequestBodyReceiver {
        if request.path.hasPrefix("/bytes/"), let n = Int(request.path.dropFirst(7)) {
            try? stream.send(headers: [HTTP2Header(":status", "200")], data: [UInt8](repeating: 0x61, count: n),
                             trailers: [HTTP2Header("x-done", "1")])
        }
        return TestReceiver(stream: stream, keeps: request.path == "/hold")
    }
}

final class TestReceiver: HTTP2RequestBodyReceiver {
    let stream: HTTP2ServerStream
    let keeps: Bool
    init(stream: HTTP2ServerStream, keeps: Bool) {
        self.stream = stream
        self.keeps = keeps
    }
    func received(_ data: [UInt8], endStream: Bool) { if !keeps { stream.releaseInput(data.count) } }
    func reset(_ code: HTTP2ErrorCode) {}
}
