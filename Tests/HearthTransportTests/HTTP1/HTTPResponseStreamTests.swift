#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HearthLock
import Testing
@testable import HearthTransport
import HearthTestSupport

/// The streamed-response contract (`HTTPResponse.stream`) over real sockets: chunks from
/// other threads in order, keep-alive after `finish`, and every way a stream closes — the
/// client leaving, the write budget, the server stopping — reaching the producer.
@Suite struct HTTPResponseStreamTests {
    /// A server whose `/stream` answers with a stream handed to `onStream`; other paths 200.
    private func withStreamServer(limits: HTTPLimits = HTTPLimits(), onStream: @escaping @Sendable (HTTPResponseStream) -> Void,
                                  _ body: (HTTPServer) throws -> Void) throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
            guard request.path == "/stream" else { return .text(200, "plain\n") }
            var r = HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")])
            r.stream = onStream
            return r
        }
        defer { server.stop() }
        try body(server)
    }

    @Test func chunksFromAnotherThreadArriveInOrderAndKeepAliveGoesOn() throws {
        try withStreamServer(onStream: { stream in
            Thread.detachNewThread {
                for i in 0..<50 { #expect(stream.write(Array("part \(i);".utf8))) }
                stream.finish()
                #expect(!stream.write([1]))
            }
        }) { server in
            let c = try RawHTTPClient(port: server.port)
            c.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try #require(c.readHead())
            #expect(head.status == 200)
            #expect(head.headers["transfer-encoding"] == "chunked")
            #expect(head.headers["content-length"] == nil)
            var text = ""
            while let chunk = c.readChunk(), !chunk.isEmpty { text += String(decoding: chunk, as: UTF8.self) }
            #expect(text == (0..<50).map { "part \($0);" }.joined())
            // The same connection serves the next request.
            #expect(c.request("GET", "/after")?.text == "plain\n")
        }
    }

    @Test func theClientLeavingClosesTheStream() throws {
        let closed = HearthMutex<HTTPResponseStream?>(nil)
        let signal = DispatchSemaphore(value: 0)
        try withStreamServer(onStream: { stream in
            stream.onClose { closed.withLock { $0 = stream }; signal.signal() }
            #expect(stream.write(Array("hello".utf8)))
        }) { server in
            do {
                let c = try RawHTTPClient(port: server.port)
                c.send("GET /stream HTTP/1.1\r\n\r\n")
                #expect(c.readHead()?.status == 200)
                #expect(c.readChunk() == Array("hello".utf8))
            }  // the client closes its socket here
            #expect(signal.wait(timeout: .now() + 10) == .success)
            let stream = try #require(closed.withLock { $0 })
            #expect(stream.isClosed)
            #expect(!stream.write(Array("more".utf8)))
            // onClose registered after the end runs at once.
            let late = HearthMutex(false)
            stream.onClose { late.withLock { $0 = true } }
            #expect(late.withLock { $0 })
        }
    }

    @Test func aClientThatDoesNotReadMeetsTheWriteBudget() throws {
        var limits = HTTPLimits()
        limits.streamWriteBudget = 256 * 1024
        let refused = HearthMutex(false)
        let closedByBudget = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        try withStreamServer(limits: limits, onStream: { stream in
            stream.onClose { closedByBudget.signal() }
            Thread.detachNewThread {
                defer { writerDone.signal() }
                let block = [UInt8](repeating: 65, count: 64 * 1024)
                // Far more than the socket buffers and the budget hold together.
                for _ in 0..<2_000 where !stream.write(block) {
                    refused.withLock { $0 = true }
                    return
                }
            }
        }) { server in
            let c = try RawHTTPClient(port: server.port)
            c.send("GET /stream HTTP/1.1\r\n\r\n")  // and never reads
            #expect(closedByBudget.wait(timeout: .now() + 20) == .success)
            // The write that passed the budget runs the close handlers before it returns
            // false: wait for the writer to see it.
            #expect(writerDone.wait(timeout: .now() + 20) == .success)
            #expect(refused.withLock { $0 })
        }
    }

    @Test func stoppingTheServerClosesOpenStreams() throws {
        let closed = DispatchSemaphore(value: 0)
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in
            var r = HTTPResponse(status: 200)
            r.stream = { stream in stream.onClose { closed.signal() } }
            return r
        }
        let c = try RawHTTPClient(port: server.port)
        c.send("GET /stream HTTP/1.1\r\n\r\n")
        #expect(c.readHead()?.status == 200)
        server.stop()
        #expect(closed.wait(timeout: .now() + 10) == .success)
        #expect(c.readChunk() == nil)  // the body never ended: the connection just closed
    }

    @Test func anHTTP10ClientGetsTheRawBodyEndedByClose() throws {
        try withStreamServer(onStream: { stream in
            _ = stream.write(Array("one,".utf8))
            _ = stream.write(Array("two".utf8))
            stream.finish()
        }) { server in
            let c = try RawHTTPClient(port: server.port)
            c.send("GET /stream HTTP/1.0\r\n\r\n")
            let head = try #require(c.readHead())
            #expect(head.headers["transfer-encoding"] == nil)
            #expect(c.readUntilClosed())
            #expect(c.remainingText == "one,two")
        }
    }
}
