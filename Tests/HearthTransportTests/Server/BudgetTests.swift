#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import Testing
@testable import HearthTransport

/// Every budget of `HTTPLimits`, hit over real sockets by a client that misbehaves in the
/// one way the budget is for: the server holds its bound, says why where the protocol
/// can, and goes on serving everyone else.
@Suite struct BudgetTests {
    /// A server with the test HTTP/2 application; HTTP/1.1 `/big/N` answers N bytes,
    /// `/block` waits for `gate`, anything else answers "ok".
    private func withServer(_ limits: HTTPLimits, gate: DispatchSemaphore? = nil,
                            _ body: (HTTPServer) throws -> Void) throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, http2: TestStreamHandler()) { request in
            if request.path.hasPrefix("/big/"), let n = Int(request.path.dropFirst(5)) {
                return HTTPResponse(status: 200, body: [UInt8](repeating: 0x62, count: n))
            }
            if request.path == "/block" { gate?.wait() }
            return .text(200, "ok")
        }
        defer { server.stop() }
        try body(server)
    }

    private func get(_ port: Int, _ path: String = "/") throws -> String {
        let c = try TestSocket(port: port)
        c.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = c.read(until: { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") })
        return c.text
    }

    // MARK: Connections and streams

    @Test func connectionsPastTheLimitAreClosedAtOnce() throws {
        var limits = HTTPLimits()
        limits.maxConnections = 3
        try withServer(limits) { server in
            var open: [TestSocket] = []
            for _ in 0..<3 {
                let c = try TestSocket(port: server.port)
                c.send("GET / HTTP/1.1\r\n\r\n")
                #expect(c.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("ok") }))
                open.append(c)
            }
            let extra = try TestSocket(port: server.port)
            #expect(extra.waitForClose(timeout: 5))
            #expect(server.connectionCount == 3)
            open.removeFirst()
            #expect(eventually { server.connectionCount == 2 })
            #expect(try get(server.port).contains("200 OK"))
        }
    }

    @Test func streamsPastTheLimitAreRefused() throws {
        var limits = HTTPLimits()
        limits.maxConcurrentStreams = 4
        try withServer(limits) { server in
            let c = try TestHTTP2Client(port: server.port)
            #expect(c.frames.contains { $0.settingsValues?.contains { $0.0 == 0x3 && $0.1 == 4 } ?? false })
            c.send((0..<5).map { c.headers(UInt32(1 + 2 * $0), path: "/hold") })
            #expect(c.read { $0.contains { $0.streamID == 9 && $0.resetCode == .refusedStream } })
            #expect(!c.frames.contains { $0.streamID < 9 && $0.resetCode != nil })
        }
    }

    // MARK: Buffers

    @Test func aStreamMaySendNoMoreThanItsBuffer() throws {
        var limits = HTTPLimits()
        limits.maxStreamBuffer = 100_000
        try withServer(limits) { server in
            let c = try TestHTTP2Client(port: server.port)
            #expect(c.frames.contains { $0.settingsValues?.contains { $0.0 == 0x4 && $0.1 == 100_000 } ?? false })
            // Give the server time to see the ACK: the window applies from then on.
            _ = c.read(timeout: 0.3) { _ in false }
            var frames = [c.headers(1, path: "/hold")]
            var sent = 0
            while sent <= 100_000 {
                let n = min(16_384, 100_001 - sent)
                frames.append(HTTP2Frame(streamID: 1, flags: [], payload: .data([UInt8](repeating: 1, count: n))))
                sent += n
            }
            c.send(frames)
            #expect(c.read { $0.contains { $0.streamID == 1 && $0.resetCode == .flowControlError } })
        }
    }

    @Test func uploadsPastTheConnectionBudgetStopReading() throws {
        var limits = HTTPLimits()
        limits.maxConnectionBuffer = 1 << 20
        limits.maxStreamBuffer = 256 << 10
        try withServer(limits) { server in
            let c = try TestHTTP2Client(port: server.port)
            _ = c.read(timeout: 0.3) { _ in false }
            // Eight streams whose handler keeps every byte: 2 MiB offered, in windows.
            let sender = DispatchQueue(label: "upload")
            sender.async {
                for s in 0..<8 {
                    let id = UInt32(1 + 2 * s)
                    var frames = [c.headers(id, path: "/hold")]
                    for _ in 0..<16 { frames.append(HTTP2Frame(streamID: id, flags: [], payload: .data([UInt8](repeating: 2, count: 16_384)))) }
                    if !c.send(frames) { return }
                }
            }
            #expect(eventually { server.bufferedBytes >= 1 << 20 })
            usleep(300_000)
            // Reading stopped: what is held stays near the budget (one read batch over).
            #expect(server.bufferedBytes <= (1 << 20) + (256 << 10))
            #expect(server.connectionCount == 1)
        }
    }

    @Test func unreadAnswersStopTheConnectionFromBeingRead() throws {
        var limits = HTTPLimits()
        limits.maxConnectionBuffer = 1 << 20
        try withServer(limits) { server in
            // A client that pipelines requests for 256 KiB answers and reads none.
            let c = try TestSocket(port: server.port, receiveBuffer: 16 << 10)
            let batch = String(repeating: "GET /big/262144 HTTP/1.1\r\nHost: t\r\n\r\n", count: 400)
            DispatchQueue(label: "pipeline").async { c.send(batch) }
            #expect(eventually { server.bufferedBytes > 64 << 10 })
            usleep(500_000)
            // The socket's buffers full, the server holds about one answer (it stops
            // handling requests at the output's high-water mark) and the requests read
            // ahead: far from 400 answers' 100 MiB, and under the connection's budget.
            #expect(server.bufferedBytes <= 1 << 20)
            #expect(try get(server.port).contains("200 OK"))
        }
    }

    @Test func theTotalBudgetHoldsAcrossConnections() throws {
        var limits = HTTPLimits()
        limits.maxTotalBuffer = 1 << 20
        limits.maxStreamBuffer = 256 << 10
        try withServer(limits) { server in
            var clients: [TestHTTP2Client] = []
            for _ in 0..<4 {
                let c = try TestHTTP2Client(port: server.port)
                _ = c.read(timeout: 0.1) { _ in false }
                clients.append(c)
            }
            for c in clients {
                DispatchQueue(label: "upload").async {
                    for s in 0..<4 {
                        let id = UInt32(1 + 2 * s)
                        var frames = [c.headers(id, path: "/hold")]
                        for _ in 0..<16 { frames.append(HTTP2Frame(streamID: id, flags: [], payload: .data([UInt8](repeating: 3, count: 16_384)))) }
                        if !c.send(frames) { return }
                    }
                }
            }
            #expect(eventually { server.bufferedBytes >= 1 << 20 })
            usleep(300_000)
            // Each connection may finish the read batch it was in: 4 × 256 KiB over at most.
            #expect(server.bufferedBytes <= (1 << 20) + 4 * (256 << 10))
            // A request that holds nothing is still served.
            #expect(try get(server.port).contains("200 OK"))
        }
    }

    // MARK: Frame rates

    @Test func rapidResetIsAnsweredWithEnhanceYourCalm() throws {
        var limits = HTTPLimits()
        limits.maxResetsPer10s = 10
        try withServer(limits) { server in
            let c = try TestHTTP2Client(port: server.port)
            var frames: [HTTP2Frame] = []
            for s in 0..<12 {
                let id = UInt32(1 + 2 * s)
                frames.append(c.headers(id, path: "/hold"))
                frames.append(HTTP2Frame(streamID: id, flags: [], payload: .rstStream(.cancel)))
            }
            c.send(frames)
            #expect(c.read { _ in c.goAwayCode != nil })
            #expect(c.goAwayCode == .enhanceYourCalm)
            #expect(c.waitForClose())
            #expect(try get(server.port).contains("200 OK"))
        }
    }

    @Test func pingAndSettingsFloodsAreAnsweredWithEnhanceYourCalm() throws {
        var limits = HTTPLimits()
        limits.maxPingsPer10s = 20
        limits.maxSettingsPer10s = 20
        try withServer(limits) { server in
            let pings = try TestHTTP2Client(port: server.port)
            pings.send((0..<25).map { _ in HTTP2Frame(streamID: 0, flags: [], payload: .ping([1, 2, 3, 4, 5, 6, 7, 8])) })
            #expect(pings.read { _ in pings.goAwayCode != nil })
            #expect(pings.goAwayCode == .enhanceYourCalm)
            // The pings within the limit were answered.
            #expect(pings.frames.filter { if case .ping = $0.payload { $0.flags.contains(.ack) } else { false } }.count == 20)
            let settings = try TestHTTP2Client(port: server.port)
            settings.send((0..<25).map { _ in HTTP2Frame(streamID: 0, flags: [], payload: .settings([])) })
            #expect(settings.read { _ in settings.goAwayCode != nil })
            #expect(settings.goAwayCode == .enhanceYourCalm)
        }
    }

    // MARK: Deadlines

    @Test func slowHTTP1HeadsAndBodiesGet408() throws {
        var limits = HTTPLimits()
        limits.headerTimeout = 0.3
        limits.bodyTimeout = 0.3
        try withServer(limits) { server in
            let head = try TestSocket(port: server.port)
            head.send("GET / HTTP/1.1\r\nHost: t\r\n")
            #expect(head.read(until: { String(decoding: $0, as: UTF8.self).contains("408") }))
            #expect(head.waitForClose())
            let body = try TestSocket(port: server.port)
            body.send("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly part")
            // Trickled bytes do not extend the deadline.
            for _ in 0..<4 { usleep(100_000); body.send("x") }
            #expect(body.read(until: { String(decoding: $0, as: UTF8.self).contains("408") }))
            #expect(body.waitForClose())
        }
    }

    @Test func idleHTTP1ConnectionsAreClosed() throws {
        var limits = HTTPLimits()
        limits.idleTimeout = 0.3
        try withServer(limits) { server in
            let silent = try TestSocket(port: server.port)
            #expect(silent.waitForClose(timeout: 5))
            let keepAlive = try TestSocket(port: server.port)
            keepAlive.send("GET / HTTP/1.1\r\n\r\n")
            #expect(keepAlive.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("ok") }))
            #expect(keepAlive.waitForClose(timeout: 5))
        }
    }

    @Test func slowPrefacesHalfFramesAndIdleHTTP2ConnectionsAreClosed() throws {
        var limits = HTTPLimits()
        limits.headerTimeout = 0.3
        limits.idleTimeout = 0.6
        try withServer(limits) { server in
            let preface = try TestSocket(port: server.port)
            preface.send(Array(HTTP2ConnectionState.clientPreface.prefix(10)))
            #expect(preface.waitForClose(timeout: 5))

            let half = try TestHTTP2Client(port: server.port)
            // The first five of a frame's nine header bytes, and nothing more.
            half.socket.send([0, 0, 4, 0x8, 0])
            #expect(half.waitForClose(timeout: 5))
            #expect(half.goAwayCode == .protocolError)

            let block = try TestHTTP2Client(port: server.port)
            // HEADERS without END_HEADERS: a CONTINUATION is owed and never comes.
            var headers = block.headers(1, path: "/hold")
            headers.flags.remove(.endHeaders)
            block.send([headers])
            #expect(block.waitForClose(timeout: 5))
            #expect(block.goAwayCode == .protocolError)

            let idle = try TestHTTP2Client(port: server.port)
            #expect(idle.waitForClose(timeout: 5))
            #expect(idle.goAwayCode == .noError)
        }
    }

    @Test func aClientThatDoesNotReadIsDisconnectedAfterTheSendTimeout() throws {
        var limits = HTTPLimits()
        limits.sendTimeout = 0.5
        try withServer(limits) { server in
            let c = try TestSocket(port: server.port, receiveBuffer: 16 << 10)
            c.send("GET /big/8388608 HTTP/1.1\r\n\r\n")
            #expect(eventually { server.bufferedBytes > 0 })
            // Not read for the send timeout: closed, and what it held given back.
            #expect(eventually { server.connectionCount == 0 })
            #expect(server.bufferedBytes == 0)
            // The bytes that did arrive are a prefix of the answer, never a corrupt mix.
            _ = c.waitForClose(timeout: 2)
            #expect(c.text.hasPrefix("HTTP/1.1 200 OK"))
            let headEnd = try #require(c.text.utf8.firstRange(of: Array("\r\n\r\n".utf8)))
            let body = c.received[c.text.utf8.distance(from: c.text.utf8.startIndex, to: headEnd.upperBound)...]
            #expect(body.count < 8_388_608)
            #expect(body.allSatisfy { $0 == 0x62 })
        }
    }

    // MARK: Workers

    @Test func aFullWorkerQueueAnswersBusy() throws {
        var limits = HTTPLimits()
        limits.workerThreads = 1
        limits.maxQueuedJobs = 1
        let gate = DispatchSemaphore(value: 0)
        try withServer(limits, gate: gate) { server in
            let first = try TestSocket(port: server.port)
            first.send("GET /block HTTP/1.1\r\n\r\n")  // takes the only worker
            // The worker holds it (not merely an empty queue, which is also true before the
            // request arrives — a fixed sleep here failed under load).
            #expect(eventually { server.workers.busyCount == 1 && server.workers.queuedCount == 0 })
            let second = try TestSocket(port: server.port)
            second.send("GET /block HTTP/1.1\r\n\r\n")  // waits in the queue
            #expect(eventually { server.workers.queuedCount == 1 })
            let third = try TestSocket(port: server.port)
            third.send("GET / HTTP/1.1\r\n\r\n")
            #expect(third.read(until: { String(decoding: $0, as: UTF8.self).contains("503") }))
            gate.signal()
            gate.signal()
            #expect(first.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("ok") }))
            #expect(second.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("ok") }))
        }
    }

    @Test func aServerWithoutHTTP2SaysHTTP11Required() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in .text(200, "ok") }
        defer { server.stop() }
        let c = try TestHTTP2Client(port: server.port, ack: false)
        #expect(c.waitForClose(timeout: 5))
        #expect(c.goAwayCode == .http11Required)
    }
}
