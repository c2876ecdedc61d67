#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HearthLock
import Testing
@testable import HearthTransport

/// RFC 6455 on the HTTP/1.1 server: the handshake, frames both ways, and every limit a
/// hostile client meets.
@Suite struct WebSocketTests {
    // MARK: Pieces

    @Test func sha1AndBase64MatchTheRFCExamples() {
        // FIPS 180 "abc"; RFC 6455 section 1.3's key and accept.
        let hex: [String] = SHA1.hash(Array("abc".utf8)).map { b in
            let h = String(b, radix: 16)
            return h.count == 1 ? "0" + h : h
        }
        #expect(hex.joined() == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hash(Array(String(repeating: "a", count: 1000).utf8)).count == 20)
        #expect(WebSocketHandshake.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(Base64.encode([]) == "" && Base64.encode([0x66]) == "Zg==" && Base64.encode([0x66, 0x6F]) == "Zm8=")
        #expect(Base64.decode("Zm9vYg==") == Array("foob".utf8))
        #expect(Base64.decode("Zm9vY") == nil && Base64.decode("Zm=v") == nil)
    }

    @Test func utf8ValidationRefusesOverlongsSurrogatesAndTruncations() {
        #expect(isValidUTF8(Array("héllo ✓ 𝄞".utf8)))
        #expect(!isValidUTF8([0xC0, 0xAF]))           // overlong '/'
        #expect(!isValidUTF8([0xED, 0xA0, 0x80]))     // surrogate
        #expect(!isValidUTF8([0xF4, 0x90, 0x80, 0x80]))  // past U+10FFFF
        #expect(!isValidUTF8([0xE2, 0x9C]))           // truncated
        #expect(!isValidUTF8([0x80]))
    }

    @Test func theParserRefusesUnmaskedReservedAndOversizedFrames() {
        var p = WebSocketFrameParser(maxFrameSize: 100)
        p.append([0x81, 0x01, 0x41])  // unmasked text
        #expect(p.next() == .failure(code: 1002, reason: "client frames must be masked"))
        p = WebSocketFrameParser(maxFrameSize: 100)
        p.append([0xC1, 0x80, 0, 0, 0, 0])  // RSV1
        if case .failure(let code, _) = p.next() { #expect(code == 1002) } else { Issue.record("accepted RSV1") }
        p = WebSocketFrameParser(maxFrameSize: 100)
        p.append([0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0])  // 64-bit length of 65536: refused from the header
        if case .failure(let code, _) = p.next() { #expect(code == 1009) } else { Issue.record("accepted an oversized frame") }
        p = WebSocketFrameParser(maxFrameSize: 100)
        p.append([0x09, 0x80, 0, 0, 0, 0])  // fragmented ping
        if case .failure(let code, _) = p.next() { #expect(code == 1002) } else { Issue.record("accepted a fragmented ping") }
        p = WebSocketFrameParser(maxFrameSize: 1000)
        p.append(masked(.text, Array("hi".utf8)))
        #expect(p.next() == .frame(WebSocketFrame(fin: true, opcode: .text, payload: Array("hi".utf8))))
    }

    // MARK: End to end

    /// A server whose `/ws` echoes each message back, and can push `count` messages.
    static func echoServer(limits: WebSocketLimits = WebSocketLimits(), http: HTTPLimits = HTTPLimits(),
                           opened: Opened? = nil) throws -> HTTPServer {
        try HTTPServer(host: "127.0.0.1", port: 0, limits: http, placement: { _ in .inline }) { request in
            guard request.path == "/ws" else { return .text(404, "no") }
            return .webSocket(request, WebSocketUpgrade(limits: limits) { socket in
                opened?.list.withLock { $0.append(socket) }
                socket.onMessage { message in
                    switch message {
                    case .text(let t): socket.send(text: "echo:" + t)
                    case .binary(let b): socket.send(binary: b)
                    }
                }
            })
        }
    }

    static let handshake = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

    func open(_ server: HTTPServer) throws -> TestSocket {
        let c = try TestSocket(port: server.port)
        c.send(Self.handshake)
        #expect(c.read(until: { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }))
        #expect(c.text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(c.text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        return c
    }

    /// Server frames after the handshake's head (all unmasked).
    func frames(_ c: TestSocket) -> [WebSocketFrame] {
        let r = c.received
        guard let end = (0..<max(0, r.count - 3)).first(where: { r[$0] == 13 && r[$0 + 1] == 10 && r[$0 + 2] == 13 && r[$0 + 3] == 10 })
        else { return [] }
        let bytes = Array(r[(end + 4)...])
        var out: [WebSocketFrame] = []
        var i = 0
        while i + 2 <= bytes.count {
            #expect(bytes[i + 1] & 0x80 == 0, "server frames are never masked")
            var n = Int(bytes[i + 1] & 0x7F), at = i + 2
            if n == 126 { guard at + 2 <= bytes.count else { break }; n = Int(bytes[at]) << 8 | Int(bytes[at + 1]); at += 2 }
            else if n == 127 { guard at + 8 <= bytes.count else { break }; n = 0; for k in 0..<8 { n = n << 8 | Int(bytes[at + k]) }; at += 8 }
            guard at + n <= bytes.count else { break }
            guard let opcode = WebSocketOpcode(rawValue: bytes[i] & 0x0F) else { Issue.record("opcode \(bytes[i] & 0x0F)"); break }
            out.append(WebSocketFrame(fin: bytes[i] & 0x80 != 0, opcode: opcode, payload: Array(bytes[at..<(at + n)])))
            i = at + n
        }
        return out
    }

    func closeCode(_ frames: [WebSocketFrame]) -> UInt16? {
        guard let f = frames.last(where: { $0.opcode == .close }), f.payload.count >= 2 else { return nil }
        return UInt16(f.payload[0]) << 8 | UInt16(f.payload[1])
    }

    @Test func messagesFragmentsPingAndCloseHandshake() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let c = try open(server)
        c.send(masked(.text, Array("hello".utf8)))
        // A fragmented message with a ping between its fragments.
        c.send(masked(.text, Array("frag".utf8), fin: false))
        c.send(masked(.ping, [1, 2, 3]))
        c.send(masked(.continuation, Array("ment".utf8), fin: false))
        c.send(masked(.continuation, Array("ed ✓".utf8)))
        c.send(masked(.binary, [UInt8](repeating: 7, count: 300)))
        #expect(c.read(until: { _ in frames(c).count >= 4 }))
        let f = frames(c)
        #expect(f[0] == WebSocketFrame(fin: true, opcode: .text, payload: Array("echo:hello".utf8)))
        #expect(f[1] == WebSocketFrame(fin: true, opcode: .pong, payload: [1, 2, 3]))
        #expect(f[2] == WebSocketFrame(fin: true, opcode: .text, payload: Array("echo:fragmented ✓".utf8)))
        #expect(f[3].opcode == WebSocketOpcode.binary)
        #expect(f[3].payload.count == 300)
        c.send(masked(.close, [0x03, 0xE8] + Array("bye".utf8)))
        #expect(c.waitForClose())
        #expect(closeCode(frames(c)) == 1000)
        #expect(eventually { server.connectionCount == 0 })
    }

    @Test func protocolErrorsCloseWithTheirCodes() throws {
        let server = try Self.echoServer(limits: { var l = WebSocketLimits(); l.maxFrameSize = 1000; l.maxMessageSize = 1500; return l }())
        defer { server.stop() }
        let cases: [([UInt8], UInt16)] = [
            (unmasked(.text, Array("x".utf8)), 1002),                       // client frames must be masked
            (masked(.continuation, [1]), 1002),                              // nothing to continue
            (masked(.text, [0xC0, 0xAF]), 1007),                             // not UTF-8
            (masked(.binary, [UInt8](repeating: 0, count: 1001)), 1009),     // frame too big
            (masked(.binary, [UInt8](repeating: 0, count: 900), fin: false)
                + masked(.continuation, [UInt8](repeating: 0, count: 900)), 1009),  // message too big
            (masked(.close, [0x03, 0xED]), 1002),                            // 1005 may not be sent
            ([0x83, 0x80, 0, 0, 0, 0], 1002),                                // reserved opcode
        ]
        for (bytes, code) in cases {
            let c = try open(server)
            c.send(bytes)
            #expect(c.waitForClose(), "closes after \(bytes.prefix(4))")
            #expect(closeCode(frames(c)) == code, "\(bytes.prefix(4)) closes with \(code)")
        }
        #expect(eventually { server.connectionCount == 0 })
    }

    @Test func aFrameLeftHalfWayAndASilentClientAreClosed() throws {
        var limits = WebSocketLimits()
        limits.frameTimeout = 0.3
        limits.pingInterval = 0.3
        limits.pongTimeout = 0.3
        let server = try Self.echoServer(limits: limits)
        defer { server.stop() }
        let slow = try open(server)
        slow.send(Array(masked(.text, Array("hello".utf8)).prefix(4)))  // then nothing
        #expect(slow.waitForClose(timeout: 5))
        #expect(closeCode(frames(slow)) == 1008)
        let silent = try open(server)
        #expect(silent.waitForClose(timeout: 5))
        let f = frames(silent)
        #expect(f.first?.opcode == .ping)
        #expect(closeCode(f) == 1008)
        // One that answers the ping stays.
        let alive = try open(server)
        #expect(alive.read(until: { _ in frames(alive).contains { $0.opcode == .ping } }, timeout: 3))
        alive.send(masked(.pong, []))
        alive.send(masked(.text, Array("still here".utf8)))
        #expect(alive.read(until: { _ in frames(alive).contains { $0.opcode == .text } }, timeout: 3))
    }

    @Test func aClientThatStopsReadingIsClosedWithinTheSendBudget() throws {
        var limits = WebSocketLimits()
        limits.sendBudget = 256 * 1024
        let opened = Opened()
        let server = try Self.echoServer(limits: limits, opened: opened)
        defer { server.stop() }
        let c = try TestSocket(port: server.port, receiveBuffer: 4096)
        c.send(Self.handshake)
        #expect(eventually { opened.list.withLock { $0.count } == 1 })
        let socket = opened.list.withLock { $0[0] }
        let chunk = String(repeating: "x", count: 16 * 1024)
        var sent = 0
        while socket.send(text: chunk) && sent < 10_000 { sent += 1; if sent % 16 == 0 { usleep(2_000) } }
        // Refused long before 160 MB: socket buffers + high-water mark + budget.
        #expect(sent < 2_000)
        #expect(socket.isClosed)
        #expect(server.bufferedBytes < 4 * 1024 * 1024)
    }

    @Test func slowClientsTogetherStayWithinTheSharedBudget() throws {
        var limits = WebSocketLimits()
        // Each client is sent 8 MiB, more than the kernel may buffer for it on loopback
        // (tcp_wmem's 4 MiB at most) plus the shared budget, so the budget is reached however
        // much the kernel takes; each alone stays under its own 64 MiB budget.
        limits.sendBudget = 64 * 1024 * 1024
        let shared = WebSocketSharedBudget(limit: 512 * 1024)
        limits.sharedBudget = shared
        let opened = Opened()
        let server = try Self.echoServer(limits: limits, opened: opened)
        defer { server.stop() }
        var clients: [TestSocket] = []
        for _ in 0..<8 {
            let c = try TestSocket(port: server.port, receiveBuffer: 4096)
            c.send(Self.handshake)
            clients.append(c)
        }
        #expect(eventually { opened.list.withLock { $0.count } == 8 })
        let sockets = opened.list.withLock { $0 }
        let chunk = String(repeating: "y", count: 8 * 1024)
        for _ in 0..<1_024 {
            for s in sockets where !s.isClosed { s.send(text: chunk) }
            #expect(shared.queued <= shared.limit + 8 * (chunk.count + 10))
        }
        // Each alone stays under its own budget, yet together they were cut off at the shared
        // 512 KiB.
        #expect(sockets.allSatisfy { $0.isClosed })
        #expect(eventually { shared.queued == 0 })
        _ = clients
    }

    @Test func badHandshakesAreRefusedWithHTTPErrors() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let noKey = try TestSocket(port: server.port)
        noKey.send("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(noKey.waitForClose())
        #expect(noKey.text.hasPrefix("HTTP/1.1 400 "))
        let oldVersion = try TestSocket(port: server.port)
        oldVersion.send("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        #expect(oldVersion.waitForClose())
        #expect(oldVersion.text.hasPrefix("HTTP/1.1 426 ") && oldVersion.text.contains("Sec-WebSocket-Version: 13"))
    }

    @Test func framesSentWithTheHandshakeAreRead() throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let c = try TestSocket(port: server.port)
        c.send(Array(Self.handshake.utf8) + masked(.text, Array("early".utf8)))
        #expect(c.read(until: { _ in frames(c).count >= 1 }))
        #expect(frames(c).first?.payload == Array("echo:early".utf8))
    }

    @Test func stoppingTheServerSaysGoingAway() throws {
        let server = try Self.echoServer()
        let c = try open(server)
        server.stop()
        #expect(c.waitForClose())
        #expect(closeCode(frames(c)) == 1001)
    }
}

/// The WebSockets a test server opened.
final class Opened: Sendable {
    let list = HearthMutex<[WebSocket]>([])
}

/// A client frame: masked with a fixed key.
func masked(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
    let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
    var out: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
    let n = payload.count
    if n < 126 { out.append(0x80 | UInt8(n)) }
    else if n <= 0xFFFF { out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)] }
    else { out.append(0x80 | 127); for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> s)) } }
    out += mask
    for (i, b) in payload.enumerated() { out.append(b ^ mask[i % 4]) }
    return out
}

func unmasked(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    WebSocketFrame.serialize(opcode, payload, into: &out)
    return out
}
