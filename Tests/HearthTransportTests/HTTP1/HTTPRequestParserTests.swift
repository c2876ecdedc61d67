import SeededRandom
import Testing
@testable import HearthTransport

@Suite struct HTTPRequestParserTests {
    private func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> [HTTPRequestParser.Outcome] {
        var p = HTTPRequestParser(limits: limits)
        p.append(Array(text.utf8))
        var out: [HTTPRequestParser.Outcome] = []
        while true {
            let o = p.next()
            if case .needMore = o { break }
            out.append(o)
            if case .failure = o { break }
        }
        return out
    }

    @Test func pipelinedRequestsComeOutInOrder() {
        let out = parse("GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyzGET /c HTTP/1.0\r\n\r\n")
        let targets = out.compactMap { if case .request(let r) = $0 { r.target } else { nil } }
        #expect(targets == ["/a", "/b", "/c"])
        if case .request(let b) = out[1] { #expect(b.body == Array("xyz".utf8)) }
        if case .request(let c) = out[2] { #expect(!c.keepAlive) }
    }

    @Test func chunkedBodyIsDecodedAcrossArbitrarySplits() {
        let text = "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nTrailer: t\r\n\r\n"
        let bytes = Array(text.utf8)
        for split in 1..<bytes.count {
            var p = HTTPRequestParser(limits: HTTPLimits())
            p.append(Array(bytes[0..<split]))
            var got: HTTPRequest?
            if case .request(let r) = p.next() { got = r }
            p.append(Array(bytes[split...]))
            if got == nil, case .request(let r) = p.next() { got = r }
            #expect(got.map { String(decoding: $0.body, as: UTF8.self) } == "Wikipedia", "split at \(split)")
        }
    }

    @Test func expectContinueIsAnnouncedOnce() {
        var p = HTTPRequestParser(limits: HTTPLimits())
        p.append(Array("PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        guard case .sendContinue = p.next() else { Issue.record("expected 100-continue"); return }
        guard case .needMore = p.next() else { Issue.record("expected needMore"); return }
        p.append(Array("ok".utf8))
        guard case .request(let r) = p.next() else { Issue.record("expected request"); return }
        #expect(r.body == Array("ok".utf8))
    }

    @Test(arguments: [
        ("GET /x\r\n\r\n", 400),
        ("GET /x HTTP/2.0\r\n\r\n", 505),
        ("G@T /x HTTP/1.1\r\n\r\n", 400),
        ("GET /x HTTP/1.1\r\nNo colon\r\n\r\n", 400),
        ("GET /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("GET /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("POST /x HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", 413),
        ("GET /x HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400),
    ])
    func malformedInputGetsAClearStatus(_ text: String, _ status: Int) {
        let out = parse(text)
        guard case .failure(let s, let message)? = out.last else { Issue.record("no failure for \(text.debugDescription)"); return }
        #expect(s == status)
        #expect(!message.isEmpty)
    }

    @Test func oversizedHeadersAre431() {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 1024
        let out = parse("GET /x HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 2000), limits: limits)
        guard case .failure(431, _)? = out.last else { Issue.record("expected 431"); return }
    }

    @Test func oversizedChunkedBodyIs413() {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 10
        let out = parse("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n", limits: limits)
        guard case .failure(413, _)? = out.last else { Issue.record("expected 413"); return }
    }

    /// Bounded fuzz: random bytes and mutations of valid requests never trap, and every
    /// outcome is a request, a failure with a 4xx/5xx status, or a wait for more bytes.
    @Test func fuzzedInputNeverCrashes() {
        var rng = SplitMix64(seed: 0x4845_4152_5448)
        let seeds = [
            "GET /v1/projects/p/databases/%28default%29/documents/c/d HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n0\r\n\r\n",
            "PATCH /x HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
        ].map { Array($0.utf8) }
        var requests = 0, failures = 0
        for round in 0..<3000 {
            var input: [UInt8]
            if round % 3 == 0 {
                input = (0..<Int(rng.next() % 300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                input = seeds[Int(rng.next() % UInt64(seeds.count))]
                for _ in 0..<(1 + Int(rng.next() % 6)) where !input.isEmpty {
                    let i = Int(rng.next() % UInt64(input.count))
                    switch rng.next() % 4 {
                    case 0: input[i] = UInt8(truncatingIfNeeded: rng.next())
                    case 1: input.remove(at: i)
                    case 2: input.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
                    default: input.insert(contentsOf: input[i...].prefix(20), at: i)
                    }
                }
            }
            var limits = HTTPLimits()
            limits.maxHeaderBytes = 256
            limits.maxBodyBytes = 64
            var p = HTTPRequestParser(limits: limits)
            var at = 0
            while at < input.count {
                let n = 1 + Int(rng.next() % 40)
                p.append(Array(input[at..<min(input.count, at + n)]))
                at += n
                loop: for _ in 0..<100 {
                    switch p.next() {
                    case .needMore: break loop
                    case .request: requests += 1
                    case .sendContinue: continue
                    case .failure(let status, let message):
                        #expect((400...505).contains(status))
                        #expect(!message.isEmpty)
                        failures += 1
                        break loop
                    }
                }
            }
        }
        #expect(requests > 100)
        #expect(failures > 100)
    }
}

