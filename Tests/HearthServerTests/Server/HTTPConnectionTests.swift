import Foundation
import HearthTestSupport
import HearthCore
import SeededRandom
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// The connection layer over real sockets: pipelining, chunked bodies, 100-continue,
/// limits, timeouts, hostile bytes.
@Suite struct HTTPConnectionTests {
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            var batch = ""
            for i in 0..<20 {
                let body = #"{"fields": {"i": {"integerValue": "\#(i)"}}}"#
                batch += "PATCH \(docs)/p/\(i) HTTP/1.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                batch += "GET \(docs)/p/\(i) HTTP/1.1\r\n\r\n"
            }
            c.send(batch)
            for i in 0..<20 {
                _ = c.readResponse()
                #expect(c.readResponse()?.json?["fields"]?["i"] == .object([("integerValue", .string("\(i)"))]))
            }
        }
    }

    @Test func chunkedAndContinueBodiesOverTheWire() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let body = #"{"fields": {"x": {"stringValue": "chunked"}}}"#
            let half = body.utf8.count / 2
            let a = String(body.prefix(half)), b = String(body.dropFirst(half))
            c.send("PATCH \(docs)/c/1 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(String(a.utf8.count, radix: 16))\r\n\(a)\r\n\(String(b.utf8.count, radix: 16))\r\n\(b)\r\n0\r\n\r\n")
            #expect(c.readResponse()?.json?["fields"]?["x"] == .object([("stringValue", .string("chunked"))]))
            c.send("PATCH \(docs)/c/2 HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
            var interim = [UInt8](repeating: 0, count: 25)
            #expect(recv(c.fd, &interim, 25, 0) == 25)
            #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
            c.send("{}")
            #expect(c.readResponse()?.status == 200)
        }
    }

    @Test func oversizedHeadersAndBodiesAreRefused() throws {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 1000
        try withServer(limits: limits) { server in
            let big = try RawHTTPClient(port: server.port)
            let r = big.request("GET", "/", headers: ["X-Big": String(repeating: "a", count: 70 * 1024)])
            #expect(r?.status == 431)
            let body = try RawHTTPClient(port: server.port)
            #expect(body.request("POST", "\(docs):commit", body: String(repeating: " ", count: 2000))?.status == 413)
            #expect(body.readUntilClosed())
        }
    }

    @Test func slowHeadersTimeOutWith408() throws {
        // Two servers, so a loaded machine cannot turn one timeout into the other.
        var headerLimits = HTTPLimits()
        headerLimits.headerTimeout = 0.3
        try withServer(limits: headerLimits) { server in
            let slow = try RawHTTPClient(port: server.port)
            slow.send("GET / HTTP/1.1\r\nHost: x\r\n")
            #expect(slow.readResponse()?.status == 408)
        }
        var idleLimits = HTTPLimits()
        idleLimits.idleTimeout = 0.5
        try withServer(limits: idleLimits) { server in
            let idle = try RawHTTPClient(port: server.port)
            #expect(idle.request("GET", "/")?.status == 200)
            #expect(idle.readUntilClosed())
        }
    }

    @Test func hostileConnectionsNeverStopTheServer() throws {
        var limits = HTTPLimits()
        limits.headerTimeout = 0.2
        limits.bodyTimeout = 0.2
        try withServer(limits: limits) { server in
            var rng = SplitMix64(seed: 7)
            for round in 0..<120 {
                let c = try RawHTTPClient(port: server.port)
                var bytes = Array("POST \(docs):commit HTTP/1.1\r\nContent-Length: 20\r\n\r\n{\"writes\": [{}]}xxxx".utf8)
                for _ in 0..<(round % 8) {
                    bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
                if round % 5 == 0 { bytes = (0..<64).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
                c.send(bytes)
                // Every response is complete or the connection closes (after at most a timeout);
                // the other rounds disconnect abruptly.
                if round % 4 == 0 { _ = c.readResponse() }
            }
            let ok = try RawHTTPClient(port: server.port)
            #expect(ok.request("GET", "/")?.status == 200)
        }
    }

    @Test func aThousandIdleConnectionsDoNotBlockOthers() throws {
        // Each connection costs two descriptors in this process (client and server side).
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        getrlimit(resource, &limit)
        if limit.rlim_cur < 2_400 {
            limit.rlim_cur = min(2_400, limit.rlim_max)
            setrlimit(resource, &limit)
        }
        try #require(limit.rlim_cur >= 2_200, "the descriptor limit (\(limit.rlim_max)) is too low for this test")
        try withServer { server in
            let idle = try (0..<1_000).map { _ in try RawHTTPClient(port: server.port) }
            let active = try RawHTTPClient(port: server.port)
            for i in 0..<50 { #expect(active.request("GET", "\(docs)/x/\(i)")?.status == 404) }
            #expect(idle.count == 1_000)
            // The idle ones are still served too.
            #expect(idle[0].request("GET", "/")?.status == 200)
            #expect(idle[999].request("GET", "/")?.status == 200)
        }
    }
}
