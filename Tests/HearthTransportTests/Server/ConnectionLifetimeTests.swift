#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import Testing
@testable import HearthTransport

/// Work that finishes after its client has gone: the answer is dropped, the server lives
/// on (a handler on the worker pool, an HTTP/2 answer from another thread).
@Suite struct ConnectionLifetimeTests {
    @Test func anHTTP1AnswerAfterTheClientLeftIsDropped() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
            if request.path == "/slow" { usleep(200_000) }
            return .text(200, "ok")
        }
        defer { server.stop() }
        for _ in 0..<5 {
            let c = try TestSocket(port: server.port)
            c.send("GET /slow HTTP/1.1\r\n\r\nGET /slow HTTP/1.1\r\n\r\n")
        }  // each client closes at once
        #expect(eventually { server.connectionCount == 0 })
        usleep(600_000)  // the handlers finish with nobody to answer
        let c = try TestSocket(port: server.port)
        c.send("GET / HTTP/1.1\r\n\r\n")
        #expect(c.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("ok") }))
    }

    /// Answers each stream 200 ms later, from another thread.
    struct LateAnswers: HTTP2StreamHandler {
        func open(_ stream: HTTP2ServerStream, request: HTTP2RequestHeaders, endStream: Bool) -> any HTTP2RequestBodyReceiver {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
                try? stream.send(headers: [HTTP2Header(":status", "200")], data: [1, 2, 3], trailers: [HTTP2Header("x", "y")])
                stream.whenWritable(threshold: 0) {}
                stream.releaseInput(1)
            }
            return TestReceiver(stream: stream, keeps: false)
        }
    }

    @Test func anHTTP2AnswerAfterTheClientLeftIsDropped() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0, http2: LateAnswers()) { _ in .text(200, "ok") }
        defer { server.stop() }
        for _ in 0..<5 {
            let c = try TestHTTP2Client(port: server.port)
            c.send([c.headers(1, path: "/x", endStream: true), c.headers(3, path: "/y", endStream: true)])
        }
        #expect(eventually { server.connectionCount == 0 })
        usleep(500_000)
        let c = try TestHTTP2Client(port: server.port)
        c.send([c.headers(1, path: "/z", endStream: true)])
        #expect(c.read { $0.contains { $0.streamID == 1 && $0.flags.contains(.endStream) } })
    }

    /// Stopping closes idle connections as it flushes them; it must not then shut down the
    /// descriptor number, which another thread may already hold for its own socket (under
    /// parallel tests that cut unrelated clients off mid-request). A second thread keeps
    /// taking the lowest free descriptors as socket pairs and checks each is still whole
    /// when it lets it go, while servers with idle keep-alive clients stop, 60 times over.
    @Test func stoppingTouchesNoDescriptorItHasAlreadyClosed() throws {
        let done = Atomic<Bool>(false)
        let damaged = Atomic<Int>(0)
        let churnEnded = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var byte: UInt8 = 0
            while !done.load(ordering: .acquiring) {
                var pair: [Int32] = [-1, -1]
                guard socketpair(AF_UNIX, Int32(Socket.streamType), 0, &pair) == 0 else { continue }
                // A socket shut down by someone else reads end-of-input; a whole one would block.
                for fd in pair where recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 { damaged.wrappingAdd(1, ordering: .relaxed) }
                close(pair[0])
                close(pair[1])
            }
            churnEnded.signal()
        }
        defer {
            done.store(true, ordering: .releasing)
            churnEnded.wait()
        }
        for _ in 0..<60 {
            let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in .text(200, "ok") }
            var clients: [TestSocket] = []
            for _ in 0..<8 {
                let c = try TestSocket(port: server.port)
                c.send("GET / HTTP/1.1\r\n\r\n")
                #expect(c.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("ok") }))
                clients.append(c)
            }
            server.stop()
            for c in clients { #expect(c.waitForClose()) }
        }
        #expect(damaged.load(ordering: .relaxed) == 0)
    }
}

/// HTTP/1.1 pipelining with answers given on the event loop: many requests in one write are
/// answered in order, a turn's worth at a time, and the connection reads on afterwards.
@Suite struct InlinePipeliningTests {
    @Test func morePipelinedRequestsThanATurnAreAllAnsweredAndReadingGoesOn() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0, placement: { _ in .inline }) { request in
            .text(200, String(request.path.dropFirst()) + ";")
        }
        defer { server.stop() }
        let c = try TestSocket(port: server.port)
        c.send((0..<100).map { "GET /\($0) HTTP/1.1\r\n\r\n" }.joined())
        #expect(c.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("99;") }))
        let bodies = c.text.components(separatedBy: "\r\n\r\n").dropFirst().compactMap { $0.split(separator: ";").first }
        #expect(bodies.map(String.init) == (0..<100).map(String.init))
        // The connection still reads: one more request, later.
        c.send("GET /after HTTP/1.1\r\n\r\n")
        #expect(c.read(until: { String(decoding: $0, as: UTF8.self).hasSuffix("after;") }))
    }
}
