import Foundation
import HearthTestSupport
import Testing
@_spi(Fuzzing) import HearthTransport

/// The transport's fuzz targets (Fuzz/, docs/reliability.md#fuzzing) on their committed
/// inputs: the seeds and every finding kept as a regression vector (`Fuzz/regressions/`).
/// A parser that traps fails the whole test run, so each input passing is the check; the
/// findings also have their own tests with the answer production gives.
@Suite struct FuzzCorpusTests {
    @Test(arguments: ["http1", "http2-frames", "http2-connection", "hpack", "websocket"])
    func committedInputs(_ target: String) {
        let inputs = FuzzInputs.of(target)
        #expect(inputs.count >= 3, "the seeds of \(target) are missing")
        for input in inputs {
            switch target {
            case "http1": _ = TransportFuzzing.http1(input)
            case "http2-frames": _ = TransportFuzzing.http2Frames(input)
            case "http2-connection": _ = TransportFuzzing.http2Connection(input)
            case "hpack": _ = TransportFuzzing.hpack(input)
            default: _ = TransportFuzzing.webSocketFrames(input)
            }
        }
    }

    /// The entry points do what they say on a known input: a pipelined pair of requests is
    /// two requests, RFC 7541's examples decode to their headers.
    @Test func entryPointsParse() {
        let pipelined = Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        // Each request adds its body size + header count + 1 (here 0 + 1 + 1).
        #expect(TransportFuzzing.http1([0] + pipelined) == 4)
        #expect(TransportFuzzing.http1([5] + pipelined) == 4, "cut into 6-byte reads, the same two requests")
        let c3: [UInt8] = [0, 20] + [0x82, 0x86, 0x84, 0x41, 0x0f] + Array("www.example.com".utf8)
        #expect(TransportFuzzing.hpack(c3) == 4)
    }
}
