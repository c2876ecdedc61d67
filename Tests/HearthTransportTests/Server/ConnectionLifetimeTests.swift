#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
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
