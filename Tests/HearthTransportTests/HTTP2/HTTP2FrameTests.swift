import Testing
@testable import HearthTransport

/// RFC 9113 frame codec: every frame type round-trips through serializer and parser
/// (with padding and priority), and each per-frame rule is enforced.
@Suite struct HTTP2FrameTests {
    static let frames: [HTTP2Frame] = [
        HTTP2Frame(streamID: 1, flags: .endStream, payload: .data([1, 2, 3])),
        HTTP2Frame(streamID: 3, flags: [], payload: .data([9, 9]), padding: 4),
        HTTP2Frame(streamID: 5, flags: [.endHeaders, .endStream], payload: .headers(block: [0x82, 0x86], priority: nil)),
        HTTP2Frame(streamID: 7, flags: .endHeaders, payload: .headers(block: [0x82], priority: .init(exclusive: true, dependency: 3, weight: 200)), padding: 2),
        HTTP2Frame(streamID: 9, flags: [], payload: .priority(.init(exclusive: false, dependency: 1, weight: 15))),
        HTTP2Frame(streamID: 11, flags: [], payload: .rstStream(.cancel)),
        HTTP2Frame(streamID: 0, flags: [], payload: .settings([(0x4, 4_194_304), (0xfe03, 1)])),
        HTTP2Frame(streamID: 0, flags: .ack, payload: .settings([])),
        HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .pushPromise(promisedStreamID: 2, block: [0x82])),
        HTTP2Frame(streamID: 0, flags: [], payload: .ping([1, 2, 3, 4, 5, 6, 7, 8])),
        HTTP2Frame(streamID: 0, flags: [], payload: .goAway(lastStreamID: 13, error: .enhanceYourCalm, debugData: Array("calm".utf8))),
        HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(4_128_769)),
        HTTP2Frame(streamID: 15, flags: .endHeaders, payload: .continuation([0x84])),
        HTTP2Frame(streamID: 17, flags: [], payload: .unknown(type: 0xEE, payload: [42])),
    ]

    @Test(arguments: frames)
    func roundTrips(_ frame: HTTP2Frame) throws {
        let bytes = HTTP2FrameSerializer.serialize(frame)
        var parser = HTTP2FrameParser()
        // Byte by byte: nothing until the last byte arrives.
        for b in bytes.dropLast() {
            parser.append([b])
            #expect(try parser.next() == nil)
        }
        parser.append([bytes.last!])
        let parsed = try #require(try parser.next())
        #expect(parsed.length == bytes.count - 9)
        var expected = frame
        expected.padding = nil
        if case .headers(_, let p) = frame.payload, p != nil { expected.flags.insert(.priority) }
        if frame.padding != nil { expected.flags.insert(.padded) }
        #expect(parsed.frame == expected)
    }

    @Test func headerLayoutIsExact() {
        let bytes = HTTP2FrameSerializer.serialize(HTTP2Frame(streamID: 0x1234_5678, flags: .endStream, payload: .data([0xAA])))
        #expect(bytes == [0, 0, 1, 0, 1, 0x12, 0x34, 0x56, 0x78, 0xAA])
        // The reserved bit of the stream id is ignored on parsing.
        var parser = HTTP2FrameParser()
        parser.append([0, 0, 4, 0x8, 0, 0x80, 0, 0, 3, 0, 0, 0, 1])
        #expect((try? parser.next())?.frame.streamID == 3)
    }

    static let violations: [(String, [UInt8], HTTP2ErrorCode)] = [
        ("DATA on stream 0", [0, 0, 1, 0, 0, 0, 0, 0, 0, 7], .protocolError),
        ("HEADERS on stream 0", [0, 0, 1, 1, 4, 0, 0, 0, 0, 0x82], .protocolError),
        ("pad length ≥ payload", [0, 0, 2, 0, 0x8, 0, 0, 0, 1, 2, 0], .protocolError),
        ("SETTINGS on a stream", [0, 0, 0, 4, 0, 0, 0, 0, 1], .protocolError),
        ("SETTINGS length not ×6", [0, 0, 5, 4, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], .frameSizeError),
        ("SETTINGS ACK with payload", [0, 0, 6, 4, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], .frameSizeError),
        ("PING of 7 bytes", [0, 0, 7, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7], .frameSizeError),
        ("PING on a stream", [0, 0, 8, 6, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8], .protocolError),
        ("RST_STREAM of 3 bytes", [0, 0, 3, 3, 0, 0, 0, 0, 1, 0, 0, 8], .frameSizeError),
        ("WINDOW_UPDATE of 3 bytes", [0, 0, 3, 8, 0, 0, 0, 0, 0, 0, 0, 1], .frameSizeError),
        ("GOAWAY of 4 bytes", [0, 0, 4, 7, 0, 0, 0, 0, 0, 0, 0, 0, 1], .frameSizeError),
        ("frame over max size", [0, 0x40, 0x01, 0, 0, 0, 0, 0, 1], .frameSizeError),
    ]

    @Test(arguments: violations)
    func violationsAreReported(_ name: String, _ bytes: [UInt8], _ code: HTTP2ErrorCode) {
        var parser = HTTP2FrameParser()
        parser.append(bytes)
        do {
            _ = try parser.next()
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code == code, "\(name)")
        }
    }

    @Test func priorityOfWrongLengthIsAStreamError() {
        var parser = HTTP2FrameParser()
        parser.append([0, 0, 4, 2, 0, 0, 0, 0, 3, 0, 0, 0, 1])
        #expect(throws: HTTP2ProtocolViolation.stream(3, .frameSizeError, "PRIORITY frame of 4 bytes")) { try parser.next() }
    }

    @Test func settingsAreValidated() throws {
        var s = HTTP2Settings()
        try s.apply(identifier: 0xfe03, value: 1)  // unknown: ignored
        #expect(s == HTTP2Settings())
        #expect(throws: HTTP2ProtocolViolation.self) { try s.apply(identifier: 2, value: 2) }
        #expect(throws: HTTP2ProtocolViolation.self) { try s.apply(identifier: 4, value: 1 << 31) }
        #expect(throws: HTTP2ProtocolViolation.self) { try s.apply(identifier: 5, value: 100) }
        try s.apply(identifier: 5, value: 4_194_304)
        #expect(s.maxFrameSize == 4_194_304)
    }
}
