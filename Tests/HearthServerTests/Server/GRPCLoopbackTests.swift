#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport
import HearthProtobuf
import HearthTestSupport

/// A raw HTTP/2 client over a loopback socket, for end-to-end checks of the server.
final class RawHTTP2Client {
    let http: RawHTTPClient
    var encoder = HPACKEncoder()
    var decoder = HPACKDecoder()
    var parser = HTTP2FrameParser(maxFrameSize: 1 << 24 - 1)

    init(port: Int) throws { http = try RawHTTPClient(port: port) }

    func send(_ frames: [HTTP2Frame], preface: Bool = false) {
        var bytes = preface ? HTTP2ConnectionState.clientPreface : []
        for f in frames { HTTP2FrameSerializer.serialize(f, into: &bytes) }
        http.send(bytes)
    }

    /// Reads frames until `stop` says so; nil on timeout or EOF.
    func read(until stop: (HTTP2Frame) -> Bool) throws -> [HTTP2Frame]? {
        var frames: [HTTP2Frame] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            while let p = try parser.next() {
                frames.append(p.frame)
                if stop(p.frame) { return frames }
            }
            let n = buffer.withUnsafeMutableBytes { recv(http.fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            parser.append(buffer[0..<n])
        }
    }
}

/// End to end over loopback: `EmulatorServer` with the HTTP/2 front end installed
/// answers a call to a method it does not serve with a trailers-only UNIMPLEMENTED naming it.
@Suite struct GRPCLoopbackTests {
    @Test func unknownMethodIsAnsweredUnimplemented() throws {
        let server = try EmulatorServer(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        let client = try RawHTTP2Client(port: server.port)
        let block = client.encoder.encode(headers([
            (":path", "/google.firestore.v1.Firestore/Nope"), (":authority", "127.0.0.1:\(server.port)"),
            (":method", "POST"), (":scheme", "http"), ("content-type", "application/grpc"), ("te", "trailers"),
            ("grpc-timeout", "60100m"), ("authorization", "Bearer owner"),
        ]))
        var request = ProtoWriter()
        request.writeString(1, "projects/p/databases/(default)/documents/c/d")
        client.send([
            HTTP2Frame(streamID: 0, flags: [], payload: .settings([(0x4, 4_194_304), (0xfe03, 1)])),
            HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(4_128_769)),
            HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .headers(block: block, priority: nil)),
            HTTP2Frame(streamID: 1, flags: .endStream, payload: .data(GRPCMessageWriter.frame(request.bytes))),
        ], preface: true)
        let frames = try #require(try client.read { $0.streamID == 1 && $0.flags.contains(.endStream) })
        // The server's SETTINGS came first, and our SETTINGS was acknowledged.
        guard case .settings = frames.first?.payload, frames.first?.flags.contains(.ack) == false else {
            Issue.record("first frame: \(String(describing: frames.first))"); return
        }
        #expect(frames.contains { if case .settings = $0.payload { $0.flags.contains(.ack) } else { false } })
        let response = try #require(frames.last)
        guard case .headers(let responseBlock, _) = response.payload else { Issue.record("not HEADERS: \(response)"); return }
        #expect(response.flags.contains(.endHeaders))
        let fields = try client.decoder.decode(responseBlock)
        #expect(fields.contains(HTTP2Header(":status", "200")))
        #expect(fields.contains(HTTP2Header("content-type", "application/grpc")))
        #expect(fields.contains(HTTP2Header("grpc-status", "12")))
        let message = fields.first { $0.name == "grpc-message" }.map { GRPCStatus.percentDecode($0.value) }
        #expect(message == "Method not found: google.firestore.v1.Firestore/Nope")

        // PING on the same connection is answered.
        client.send([HTTP2Frame(streamID: 0, flags: [], payload: .ping([1, 2, 3, 4, 5, 6, 7, 8]))])
        let pong = try #require(try client.read { if case .ping = $0.payload { true } else { false } })
        #expect(pong.last == HTTP2Frame(streamID: 0, flags: .ack, payload: .ping([1, 2, 3, 4, 5, 6, 7, 8])))
    }

    @Test func largeRequestBodyFlowsAndServerStopSendsGoAway() throws {
        // No initial connection-window raise (the window is half the connection's buffer
        // budget, floored at the default): the 65,535-byte default must be replenished.
        var limits = HTTPLimits()
        limits.maxConnectionBuffer = 2 * 65_535
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, http2: GRPCRouter(services: [])) { _ in .text(404, "Not Found\n") }
        defer { server.stop() }
        let client = try RawHTTP2Client(port: server.port)
        let block = client.encoder.encode(headers([
            (":path", "/google.firestore.v1.Firestore/Commit"), (":method", "POST"), (":scheme", "http"), ("content-type", "application/grpc"),
        ]))
        // Default windows (65,535): 200 KB only gets through if the server replenishes.
        client.send([HTTP2Frame(streamID: 0, flags: [], payload: .settings([])),
                     HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .headers(block: block, priority: nil))], preface: true)
        // Answered at once. Then a second call whose 200 KB body follows its headers: the
        // server answers it at once too, but every body byte still counts against the
        // connection window, which the server must keep replenishing.
        let first = try #require(try client.read { $0.streamID == 1 && $0.flags.contains(.endStream) })
        #expect(!first.contains { $0.streamID == 0 && $0.windowIncrement != nil })
        let block3 = client.encoder.encode(headers([
            (":path", "/google.firestore.v1.Firestore/Commit"), (":method", "POST"), (":scheme", "http"), ("content-type", "application/grpc"),
        ]))
        client.send([HTTP2Frame(streamID: 3, flags: .endHeaders, payload: .headers(block: block3, priority: nil))])
        var connectionWindow = 65_535
        var sent = 0
        var updates = 0
        let total = 200 * 1024
        while sent < total {
            let n = min(16_384, total - sent, connectionWindow)
            if n > 0 {
                client.send([HTTP2Frame(streamID: 3, flags: sent + n == total ? .endStream : [], payload: .data([UInt8](repeating: 1, count: n)))])
                sent += n
                connectionWindow -= n
            } else {
                let frames = try #require(try client.read { $0.streamID == 0 && $0.windowIncrement != nil })
                for f in frames where f.streamID == 0 { connectionWindow += Int(f.windowIncrement ?? 0) }
                updates += 1
            }
        }
        #expect(sent == total)
        #expect(updates >= 3)
        server.stop()
        let tail = try #require(try client.read { $0.goAwayCode != nil })
        #expect(tail.last?.goAwayCode == .noError)
    }

    /// A unary call's request message must arrive within the body timeout. A body that came
    /// in the same read as its headers arms no timer (`HTTP2ServerStream.bodyFollowsHeaders`);
    /// one that has not come, or not whole, still ends the call DEADLINE_EXCEEDED.
    @Test func aBodyThatCameWithItsHeadersIsAnsweredAndOneThatDidNotTimesOut() throws {
        struct Echo: GRPCService {
            let name = "test.Echo"
            func handler(for method: String) -> GRPCHandler? {
                guard method == "Echo" else { return nil }
                return { bytes, call throws(GRPCStatus) in try call.send(bytes) }
            }
        }
        var limits = HTTPLimits()
        limits.bodyTimeout = 0.3
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, http2: GRPCRouter(services: [Echo()])) { _ in .text(404, "Not Found\n") }
        defer { server.stop() }
        let client = try RawHTTP2Client(port: server.port)
        func open(_ id: UInt32) -> HTTP2Frame {
            let block = client.encoder.encode(headers([
                (":path", "/test.Echo/Echo"), (":method", "POST"), (":scheme", "http"), ("content-type", "application/grpc"),
            ]))
            return HTTP2Frame(streamID: id, flags: .endHeaders, payload: .headers(block: block, priority: nil))
        }
        func fields(_ frames: [HTTP2Frame], _ id: UInt32) throws -> [HTTP2Header] {
            var all: [HTTP2Header] = []
            for f in frames where f.streamID == id { if case .headers(let block, _) = f.payload { all += try client.decoder.decode(block) } }
            return all
        }
        let message = GRPCMessageWriter.frame([1, 2, 3])
        // Headers and the whole body together: answered.
        client.send([HTTP2Frame(streamID: 0, flags: [], payload: .settings([])), open(1),
                     HTTP2Frame(streamID: 1, flags: .endStream, payload: .data(message))], preface: true)
        let answered = try #require(try client.read { $0.streamID == 1 && $0.flags.contains(.endStream) })
        #expect(answered.contains { $0.streamID == 1 && $0.payload == .data(message) })
        #expect(try fields(answered, 1).contains(HTTP2Header("grpc-status", "0")))
        // Headers alone, the body never sent: DEADLINE_EXCEEDED once the body timeout passes.
        client.send([open(3)])
        let silent = try #require(try client.read { $0.streamID == 3 && $0.flags.contains(.endStream) })
        #expect(try fields(silent, 3).contains(HTTP2Header("grpc-status", "4")))
        // Headers and half the message together, the rest never sent: the same.
        client.send([open(5), HTTP2Frame(streamID: 5, flags: [], payload: .data(Array(message.prefix(4))))])
        let half = try #require(try client.read { $0.streamID == 5 && $0.flags.contains(.endStream) })
        #expect(try fields(half, 5).contains(HTTP2Header("grpc-status", "4")))
        // And the connection still answers.
        client.send([open(7), HTTP2Frame(streamID: 7, flags: .endStream, payload: .data(message))])
        let after = try #require(try client.read { $0.streamID == 7 && $0.flags.contains(.endStream) })
        #expect(try fields(after, 7).contains(HTTP2Header("grpc-status", "0")))
    }

    @Test func http1StillWorksBesideHTTP2() throws {
        let server = try EmulatorServer(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        c.send("GET /v1/projects/p/databases/(default)/documents/c/missing HTTP/1.1\r\n\r\n")
        #expect(c.readResponse()?.status == 404)
    }
}

/// A header list from name/value pairs.
private func headers(_ pairs: [(String, String)]) -> [HTTP2Header] { pairs.map { HTTP2Header($0.0, $0.1) } }
