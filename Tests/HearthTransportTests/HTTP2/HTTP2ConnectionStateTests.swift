import Testing
@testable import HearthTransport

/// Drives an `HTTP2ConnectionState` as a client would, frame by frame, and reads back
/// what the server wrote.
struct HTTP2TestPeer {
    var server: HTTP2ConnectionState
    var encoder = HPACKEncoder()
    var decoder = HPACKDecoder()
    var parser = HTTP2FrameParser(maxFrameSize: 1 << 24 - 1)

    init(config: HTTP2ConnectionState.Configuration = .init()) {
        server = HTTP2ConnectionState(config: config)
    }

    /// Sends the preface and the given SETTINGS; returns the events.
    mutating func connect(settings: [(UInt16, UInt32)] = []) -> [HTTP2ConnectionState.Event] {
        server.receive(HTTP2ConnectionState.clientPreface + HTTP2FrameSerializer.serialize(HTTP2Frame(streamID: 0, flags: [], payload: .settings(settings))))
    }

    mutating func send(_ frames: HTTP2Frame...) -> [HTTP2ConnectionState.Event] {
        var bytes: [UInt8] = []
        for f in frames { HTTP2FrameSerializer.serialize(f, into: &bytes) }
        return server.receive(bytes)
    }

    func requestHeaders(path: String = "/google.firestore.v1.Firestore/GetDocument") -> [HTTP2Header] {
        headers([(":path", path), (":authority", "127.0.0.1"), (":method", "POST"), (":scheme", "http"),
                 ("content-type", "application/grpc"), ("te", "trailers")])
    }

    mutating func openStream(_ id: UInt32, endStream: Bool = false) -> [HTTP2ConnectionState.Event] {
        let block = encoder.encode(requestHeaders())
        return send(HTTP2Frame(streamID: id, flags: endStream ? [.endHeaders, .endStream] : .endHeaders, payload: .headers(block: block, priority: nil)))
    }

    /// Frames the server has written since the last call.
    mutating func received() throws -> [HTTP2Frame] {
        parser.append(server.takeOutbox())
        var frames: [HTTP2Frame] = []
        while let p = try parser.next() { frames.append(p.frame) }
        return frames
    }

    /// Decodes a HEADERS block the server sent.
    mutating func decode(_ frame: HTTP2Frame) throws -> [HTTP2Header] {
        guard case .headers(let block, _) = frame.payload else { return [] }
        return try decoder.decode(block)
    }
}

/// The server connection state machine: preface, SETTINGS, header blocks, flow control in
/// both directions, PING, RST_STREAM, GOAWAY and the protocol errors.
@Suite struct HTTP2ConnectionStateTests {
    @Test func prefaceSettingsAndAck() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect(settings: [(0x2, 0), (0x3, 0), (0x4, 4_194_304), (0x5, 4_194_304), (0x6, 16384), (0xfe03, 1)])
        let frames = try peer.received()
        // Server SETTINGS first, then the connection WINDOW_UPDATE, then the ACK.
        guard case .settings(let ours) = frames[0].payload else { Issue.record("first frame is not SETTINGS"); return }
        #expect(!frames[0].flags.contains(.ack))
        #expect(ours.contains { $0.0 == 0x3 && $0.1 == 1000 })
        #expect(frames[1].streamID == 0 && frames[1].windowIncrement == UInt32((4 << 20) - 65_535))
        #expect(frames[2].flags.contains(.ack))
        #expect(peer.server.peerSettings.maxFrameSize == 4_194_304)
        #expect(peer.server.peerSettings.initialWindowSize == 4_194_304)
    }

    @Test func badPrefaceIsAConnectionError() throws {
        var peer = HTTP2TestPeer()
        _ = peer.server.receive(Array("PRI * HTTP/1.1\r\n".utf8))
        let frames = try peer.received()
        #expect(frames.last?.goAwayCode == .protocolError)
        #expect(peer.server.isClosed)
    }

    @Test func pingIsAnsweredWithTheSameBytes() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = try peer.received()
        _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .ping([8, 7, 6, 5, 4, 3, 2, 1])))
        let frames = try peer.received()
        #expect(frames == [HTTP2Frame(streamID: 0, flags: .ack, payload: .ping([8, 7, 6, 5, 4, 3, 2, 1]))])
        // A PING ACK is not answered.
        _ = peer.send(HTTP2Frame(streamID: 0, flags: .ack, payload: .ping([0, 0, 0, 0, 0, 0, 0, 0])))
        #expect(try peer.received().isEmpty)
    }

    @Test func headersAndContinuationOpenAStream() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        let block = peer.encoder.encode(peer.requestHeaders())
        let a = Array(block.prefix(5)), b = Array(block.dropFirst(5).prefix(5)), c = Array(block.dropFirst(10))
        #expect(peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .headers(block: a, priority: .init(exclusive: false, dependency: 0, weight: 16)))).isEmpty)
        #expect(peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .continuation(b))).isEmpty)
        let events = peer.send(HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .continuation(c)))
        guard case .streamOpened(1, let request, endStream: false)? = events.first else { Issue.record("no stream: \(events)"); return }
        #expect(request.path == "/google.firestore.v1.Firestore/GetDocument")
        #expect(request.method == "POST")
        #expect(request.value("te") == "trailers")
    }

    @Test func interleavedFrameInHeaderBlockIsAConnectionError() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = try peer.received()
        let block = peer.encoder.encode(peer.requestHeaders())
        _ = peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .headers(block: Array(block.prefix(3)), priority: nil)),
                      HTTP2Frame(streamID: 0, flags: [], payload: .ping([0, 0, 0, 0, 0, 0, 0, 0])))
        #expect(try peer.received().last?.goAwayCode == .protocolError)
    }

    @Test func responseHeadersDataAndTrailers() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = peer.openStream(1)
        let events = peer.send(HTTP2Frame(streamID: 1, flags: .endStream, payload: .data([0, 0, 0, 0, 0])))
        #expect(events == [.data(1, [0, 0, 0, 0, 0], endStream: true)])
        _ = try peer.received()
        try peer.server.sendHeaders(1, Sample.responseHeaders, endStream: false)
        try peer.server.sendData(1, [0, 0, 0, 0, 1, 42], endStream: false)
        try peer.server.sendHeaders(1, Sample.trailers, endStream: true)
        let frames = try peer.received()
        #expect(frames.count == 3)
        #expect(try peer.decode(frames[0]) == Sample.responseHeaders)
        #expect(frames[1].dataBytes == [0, 0, 0, 0, 1, 42])
        #expect(frames[2].flags.contains(.endStream))
        #expect(try peer.decode(frames[2]) == headers([("grpc-status", "0"), ("grpc-message", "")]))
        #expect(peer.server.openStreamCount == 0)
        #expect(throws: HTTP2ConnectionState.SendError.streamClosed) { try peer.server.sendData(1, [1], endStream: true) }
    }

    @Test func largeRequestBodyIsReplenishedAndNeverStalls() throws {
        // A 200 KB body in 16 KB frames, with the client's windows at their defaults
        // (65,535 for the stream until our SETTINGS is ACKed): every byte must be matched
        // by WINDOW_UPDATEs before the client would run dry.
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = peer.openStream(1)
        var connectionWindow = 65_535, streamWindow = 65_535
        // The server's opening WINDOW_UPDATE on the connection counts too.
        for f in try peer.received() where f.streamID == 0 { connectionWindow += Int(f.windowIncrement ?? 0) }
        #expect(connectionWindow == 4 << 20)
        var received = 0
        let total = 200 * 1024
        while received < total {
            let n = min(16_384, total - received, connectionWindow, streamWindow)
            #expect(n > 0, "client stalled after \(received) bytes")
            if n <= 0 { return }
            let events = peer.send(HTTP2Frame(streamID: 1, flags: received + n == total ? .endStream : [], payload: .data([UInt8](repeating: 7, count: n))))
            #expect(events == [.data(1, [UInt8](repeating: 7, count: n), endStream: received + n == total)])
            received += n
            connectionWindow -= n
            streamWindow -= n
            for f in try peer.received() {
                if let inc = f.windowIncrement { if f.streamID == 0 { connectionWindow += Int(inc) } else { streamWindow += Int(inc) } }
            }
        }
        #expect(received == total)
    }

    @Test func dataBeyondTheStreamWindowIsAStreamError() throws {
        var config = HTTP2ConnectionState.Configuration()
        config.maxFrameSize = 100_000
        var peer = HTTP2TestPeer(config: config)
        _ = peer.connect()
        _ = peer.openStream(1)
        _ = peer.openStream(3)
        _ = try peer.received()
        // 65,535 is the stream window until our SETTINGS is acknowledged.
        let events = peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .data([UInt8](repeating: 0, count: 70_000))))
        #expect(events == [.streamReset(1, .flowControlError)])
        #expect(try peer.received().contains { $0.streamID == 1 && $0.resetCode == .flowControlError })
        #expect(!peer.server.isClosed)
        #expect(peer.send(HTTP2Frame(streamID: 3, flags: .endStream, payload: .data([5]))) == [.data(3, [5], endStream: true)])
    }

    @Test func dataAfterEndStreamIsAStreamError() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = peer.openStream(1)
        _ = try peer.received()
        let events = peer.send(HTTP2Frame(streamID: 1, flags: .endStream, payload: .data([1])),
                               HTTP2Frame(streamID: 1, flags: [], payload: .data([2])))
        #expect(events == [.data(1, [1], endStream: true), .streamReset(1, .streamClosed)])
        #expect(try peer.received().contains { $0.streamID == 1 && $0.resetCode == .streamClosed })
        #expect(!peer.server.isClosed)
    }

    @Test func connectionWindowOverrunIsAConnectionError() throws {
        var config = HTTP2ConnectionState.Configuration()
        config.connectionWindowSize = 65_535  // no initial raise
        var peer = HTTP2TestPeer(config: config)
        _ = peer.connect()
        _ = peer.send(HTTP2Frame(streamID: 0, flags: .ack, payload: .settings([])))
        for id in stride(from: UInt32(1), through: 9, by: 2) { _ = peer.openStream(id) }
        _ = try peer.received()
        // The server replenishes at half, so overrun needs a client that ignores that:
        // send 16,384 × 5 = 81,920 bytes in one write, before the server replies.
        var bytes: [UInt8] = []
        for id in stride(from: UInt32(1), through: 9, by: 2) {
            HTTP2FrameSerializer.serialize(HTTP2Frame(streamID: id, flags: [], payload: .data([UInt8](repeating: 0, count: 16_384))), into: &bytes)
        }
        _ = peer.server.receive(bytes)
        // Replenishment after every frame keeps it legal: the server must not error.
        #expect(!peer.server.isClosed)
        // A frame larger than the whole window (with a large max frame size) is an error.
        var config2 = HTTP2ConnectionState.Configuration()
        config2.connectionWindowSize = 65_535
        config2.maxFrameSize = 100_000
        var peer2 = HTTP2TestPeer(config: config2)
        _ = peer2.connect()
        _ = peer2.openStream(1)
        _ = try peer2.received()
        _ = peer2.send(HTTP2Frame(streamID: 1, flags: [], payload: .data([UInt8](repeating: 0, count: 70_000))))
        #expect(try peer2.received().last?.goAwayCode == .flowControlError)
    }

    @Test func responseDataWaitsForTheClientsWindow() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect(settings: [(0x4, 10)])  // stream window 10 bytes
        _ = peer.openStream(1, endStream: true)
        _ = try peer.received()
        try peer.server.sendHeaders(1, Sample.responseHeaders, endStream: false)
        try peer.server.sendData(1, Array(0..<25), endStream: false)
        try peer.server.sendHeaders(1, Sample.trailers, endStream: true)
        var frames = try peer.received()
        #expect(frames.count == 2)
        #expect(frames[1].dataBytes == Array(0..<10))
        #expect(peer.server.queuedBytes(1) == 15)
        _ = peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .windowUpdate(10)))
        frames = try peer.received()
        #expect(frames.map(\.dataBytes) == [Array(10..<20)])
        // Trailers wait behind the data.
        _ = peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .windowUpdate(100)))
        frames = try peer.received()
        #expect(frames.count == 2)
        #expect(frames[0].dataBytes == Array(20..<25))
        #expect(frames[1].flags.contains(.endStream))
        #expect(peer.server.openStreamCount == 0)
    }

    @Test func settingsChangeAdjustsOpenStreamWindows() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect(settings: [(0x4, 5)])
        _ = peer.openStream(1, endStream: true)
        try peer.server.sendHeaders(1, Sample.responseHeaders, endStream: false)
        try peer.server.sendData(1, Array(0..<20), endStream: true)
        _ = try peer.received()
        #expect(peer.server.queuedBytes(1) == 15)
        // Raising INITIAL_WINDOW_SIZE to 20 adds 15 to the open stream's window.
        _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .settings([(0x4, 20)])))
        let frames = try peer.received()
        #expect(frames.contains { $0.dataBytes == Array(5..<20) && $0.flags.contains(.endStream) })
    }

    @Test func responseFramesRespectThePeersMaxFrameSize() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect(settings: [(0x4, 1 << 20)])
        _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(1 << 20)))
        _ = peer.openStream(1, endStream: true)
        _ = try peer.received()
        try peer.server.sendHeaders(1, Sample.responseHeaders + [HTTP2Header("x-big", String(repeating: "z", count: 40_000))], endStream: false)
        try peer.server.sendData(1, [UInt8](repeating: 1, count: 40_000), endStream: true)
        let frames = try peer.received()
        #expect(frames.allSatisfy { HTTP2FrameSerializer.serialize($0).count - 9 <= 16_384 })
        #expect(frames.filter { if case .continuation = $0.payload { true } else { false } }.count >= 1)
        #expect(frames.compactMap(\.dataBytes).reduce(0) { $0 + $1.count } == 40_000)
    }

    @Test func resetByClientEndsTheStreamAndLateFramesAreIgnored() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = peer.openStream(1)
        _ = try peer.received()
        #expect(peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .rstStream(.cancel))) == [.streamReset(1, .cancel)])
        // RST_STREAM and WINDOW_UPDATE for the closed stream are accepted silently.
        #expect(peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .rstStream(.cancel)),
                          HTTP2Frame(streamID: 1, flags: [], payload: .windowUpdate(5))).isEmpty)
        #expect(try peer.received().isEmpty)
        #expect(throws: HTTP2ConnectionState.SendError.streamClosed) { try peer.server.sendHeaders(1, [], endStream: true) }
    }

    @Test func trailersOnlyWhileClientStillSendingResetsWithNoError() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = peer.openStream(1)
        _ = try peer.received()
        try peer.server.sendHeaders(1, Sample.trailersOnly(status: 12), endStream: true)
        let frames = try peer.received()
        #expect(frames.count == 2)
        #expect(frames[1].resetCode == .noError)
        // Late DATA for it is ignored, but still counted on the connection.
        #expect(peer.send(HTTP2Frame(streamID: 1, flags: .endStream, payload: .data([1, 2]))).isEmpty)
        #expect(!peer.server.isClosed)
    }

    @Test func concurrentStreamsAreServedIndependently() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        var opened: [UInt32] = []
        for id in stride(from: UInt32(1), through: 199, by: 2) {
            for e in peer.openStream(id) { if case .streamOpened(let i, _, _) = e { opened.append(i) } }
        }
        #expect(opened.count == 100)
        #expect(peer.server.openStreamCount == 100)
        try peer.server.sendHeaders(101, Sample.trailersOnly(status: 0), endStream: true)
        #expect(peer.server.openStreamCount == 99)
        #expect(peer.send(HTTP2Frame(streamID: 3, flags: .endStream, payload: .data([9]))) == [.data(3, [9], endStream: true)])
    }

    @Test func anAnswerCostsTheSameWithAThousandIdleStreamsOpen() throws {
        // Every send used to walk every open stream (1,000 Listen streams on a connection
        // made a commit's fan-out quadratic): only streams with output get a turn now.
        var config = HTTP2ConnectionState.Configuration()
        config.maxConcurrentStreams = 1_000
        var peer = HTTP2TestPeer(config: config)
        _ = peer.connect()
        for id in stride(from: UInt32(1), through: 1_999, by: 2) { _ = peer.openStream(id) }
        #expect(peer.server.openStreamCount == 1_000)
        _ = try peer.received()
        let before = peer.server.streamTurns
        try peer.server.sendHeaders(501, Sample.responseHeaders, endStream: false)
        try peer.server.sendData(501, [1, 2, 3], endStream: false)
        #expect(peer.server.streamTurns - before <= 4)
        let frames = try peer.received()
        #expect(frames.map(\.streamID) == [501, 501])
        #expect(frames[1].dataBytes == [1, 2, 3])
    }

    @Test func streamsTakeTurnsAndResumeWhenTheWindowsOpen() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect(settings: [(0x4, 0), (0x5, 16_384)])  // stream windows 0
        _ = peer.openStream(1, endStream: true)
        _ = peer.openStream(3, endStream: true)
        _ = try peer.received()
        try peer.server.sendData(1, Array(repeating: 1, count: 40_000), endStream: false)
        try peer.server.sendData(3, Array(repeating: 3, count: 40_000), endStream: false)
        #expect(try peer.received().isEmpty)
        // Open stream windows: the two take turns, a frame each, until the connection's
        // window (65,535 bytes) is spent.
        _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .settings([(0x4, 1 << 20)])))
        var frames = try peer.received().filter { $0.dataBytes != nil }
        #expect(frames.map(\.streamID) == [1, 3, 1, 3])
        #expect(frames.reduce(0) { $0 + $1.dataBytes!.count } == 65_535)
        // The connection's window opens: both finish.
        _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(1 << 20)))
        frames = try peer.received().filter { $0.dataBytes != nil }
        #expect(frames.map(\.streamID) == [1, 3])
        #expect(frames.reduce(0) { $0 + $1.dataBytes!.count } == 80_000 - 65_535)
        #expect(peer.server.queuedBytes(1) == 0)
        #expect(peer.server.queuedBytes(3) == 0)
    }

    @Test func tooManyStreamsAreRefused() throws {
        var config = HTTP2ConnectionState.Configuration()
        config.maxConcurrentStreams = 2
        var peer = HTTP2TestPeer(config: config)
        _ = peer.connect()
        _ = peer.openStream(1)
        _ = peer.openStream(3)
        #expect(peer.openStream(5).isEmpty)
        #expect(try peer.received().contains { $0.streamID == 5 && $0.resetCode == .refusedStream })
        // The HPACK state stayed in step: stream 7 (after 1 closes) decodes fine.
        _ = peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .rstStream(.cancel)))
        guard case .streamOpened(7, _, _)? = peer.openStream(7).first else { Issue.record("stream 7 not opened"); return }
    }

    static let connectionErrors: [(String, [HTTP2Frame], HTTP2ErrorCode)] = [
        ("even stream id", [HTTP2Frame(streamID: 2, flags: .endHeaders, payload: .headers(block: [0x82, 0x86, 0x84], priority: nil))], .protocolError),
        ("DATA on idle stream", [HTTP2Frame(streamID: 5, flags: [], payload: .data([1]))], .protocolError),
        ("RST_STREAM on idle stream", [HTTP2Frame(streamID: 5, flags: [], payload: .rstStream(.cancel))], .protocolError),
        ("WINDOW_UPDATE 0 on connection", [HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(0))], .protocolError),
        ("connection window overflow", [HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(0x7FFF_FFFF))], .flowControlError),
        ("PUSH_PROMISE from client", [HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .pushPromise(promisedStreamID: 2, block: []))], .protocolError),
        ("CONTINUATION without HEADERS", [HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .continuation([0x82]))], .protocolError),
        ("HPACK garbage", [HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .headers(block: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], priority: nil))], .compressionError),
        ("bad SETTINGS value", [HTTP2Frame(streamID: 0, flags: [], payload: .settings([(0x2, 7)]))], .protocolError),
        ("stream id going backwards", [
            HTTP2Frame(streamID: 5, flags: [.endHeaders, .endStream], payload: .headers(block: [0x83, 0x86, 0x84], priority: nil)),
            HTTP2Frame(streamID: 3, flags: [.endHeaders, .endStream], payload: .headers(block: [0x83, 0x86, 0x84], priority: nil)),
        ], .protocolError),
    ]

    @Test(arguments: connectionErrors)
    func protocolErrorsSendGoAway(_ name: String, _ frames: [HTTP2Frame], _ code: HTTP2ErrorCode) throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = try peer.received()
        var bytes: [UInt8] = []
        for f in frames { HTTP2FrameSerializer.serialize(f, into: &bytes) }
        _ = peer.server.receive(bytes)
        let out = try peer.received()
        #expect(out.last?.goAwayCode != nil, "\(name)")
        #expect(out.last?.goAwayCode == code || (name == "stream id going backwards" && out.last?.goAwayCode == .streamClosed), "\(name)")
        #expect(peer.server.isClosed)
        // Nothing further is processed.
        #expect(peer.server.receive(HTTP2FrameSerializer.serialize(HTTP2Frame(streamID: 0, flags: [], payload: .ping([0, 0, 0, 0, 0, 0, 0, 0])))).isEmpty)
        #expect(try peer.received().isEmpty)
    }

    @Test func malformedRequestsAreStreamErrors() throws {
        let cases: [[(String, String)]] = [
            [(":method", "POST"), (":scheme", "http")],  // no :path
            [(":path", "/x"), (":method", "POST"), (":scheme", "http"), ("Upper", "1")],
            [(":path", "/x"), ("a", "b"), (":method", "POST"), (":scheme", "http")],
            [(":path", "/x"), (":method", "POST"), (":scheme", "http"), ("connection", "close")],
            [(":path", "/x"), (":method", "POST"), (":scheme", "http"), (":bogus", "1")],
            [(":path", "/x"), (":method", "POST"), (":scheme", "http"), ("te", "gzip")],
        ]
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = try peer.received()
        var id: UInt32 = 1
        for fields in cases {
            let block = peer.encoder.encode(headers(fields))
            let events = peer.send(HTTP2Frame(streamID: id, flags: .endHeaders, payload: .headers(block: block, priority: nil)))
            #expect(events.isEmpty, "\(fields)")
            #expect(try peer.received().contains { $0.streamID == id && $0.resetCode == .protocolError }, "\(fields)")
            id += 2
        }
        #expect(!peer.server.isClosed)
    }

    @Test func goAwayFinishesOpenStreamsAndRefusesNewOnes() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = peer.openStream(1)
        _ = try peer.received()
        peer.server.goAway()
        let frames = try peer.received()
        guard case .goAway(let last, .noError, _)? = frames.last?.payload else { Issue.record("no GOAWAY"); return }
        #expect(last == 1)
        #expect(peer.openStream(3).isEmpty)
        #expect(!peer.server.isFinished)
        try peer.server.sendHeaders(1, Sample.trailersOnly(status: 0), endStream: true)
        #expect(peer.server.isFinished)
    }

    @Test func peerGoAwayEndsTheConnectionOnceStreamsFinish() throws {
        var peer = HTTP2TestPeer()
        _ = peer.connect()
        _ = peer.openStream(1, endStream: true)
        _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .goAway(lastStreamID: 0, error: .noError, debugData: [])))
        #expect(!peer.server.isFinished)
        try peer.server.sendHeaders(1, Sample.trailersOnly(status: 0), endStream: true)
        #expect(peer.server.isFinished)
    }

    /// grpc-java pings after each burst of DATA it reads (to size its windows), so a busy
    /// connection sees hundreds of PINGs: they are counted only while the server answers
    /// nothing, as gRPC servers count them, and a flood with nothing answered still ends.
    @Test func pingsBetweenResponseFramesAreNotAFlood() throws {
        var config = HTTP2ConnectionState.Configuration()
        config.maxPingsPerWindow = 10
        var peer = HTTP2TestPeer(config: config)
        _ = peer.connect()
        _ = peer.openStream(1, endStream: true)
        try peer.server.sendHeaders(1, Sample.responseHeaders, endStream: false)
        for _ in 0..<50 {
            _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .ping([1, 2, 3, 4, 5, 6, 7, 8])))
            try peer.server.sendData(1, [0, 0, 0, 0, 1, 0x2a], endStream: false)
        }
        #expect(!peer.server.isClosed)
        #expect(try peer.received().filter { if case .ping = $0.payload { $0.flags.contains(.ack) } else { false } }.count == 50)
        for _ in 0..<11 { _ = peer.send(HTTP2Frame(streamID: 0, flags: [], payload: .ping([1, 2, 3, 4, 5, 6, 7, 8]))) }
        #expect(try peer.received().last?.goAwayCode == .enhanceYourCalm)
    }

    /// Detaching listeners cancels streams being answered; only streams reset before any
    /// answer (the rapid-reset pattern) count toward the limit.
    @Test func resetsOfAnsweredStreamsAreNotRapidReset() throws {
        var config = HTTP2ConnectionState.Configuration()
        config.maxResetsPerWindow = 10
        var peer = HTTP2TestPeer(config: config)
        _ = peer.connect()
        for i in 0..<50 {
            let id = UInt32(1 + 2 * i)
            _ = peer.openStream(id)
            try peer.server.sendHeaders(id, Sample.responseHeaders, endStream: false)
            _ = peer.send(HTTP2Frame(streamID: id, flags: [], payload: .rstStream(.cancel)))
        }
        #expect(!peer.server.isClosed)
        for i in 50..<61 {
            let id = UInt32(1 + 2 * i)
            _ = peer.openStream(id)
            _ = peer.send(HTTP2Frame(streamID: id, flags: [], payload: .rstStream(.cancel)))
        }
        #expect(try peer.received().last?.goAwayCode == .enhanceYourCalm)
    }

    @Test func continuationFloodIsBounded() throws {
        var config = HTTP2ConnectionState.Configuration()
        config.maxHeaderBlockSize = 50_000
        var peer = HTTP2TestPeer(config: config)
        _ = peer.connect()
        _ = try peer.received()
        _ = peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .headers(block: [0x82], priority: nil)))
        for _ in 0..<4 { _ = peer.send(HTTP2Frame(streamID: 1, flags: [], payload: .continuation([UInt8](repeating: 0x82, count: 16_000)))) }
        #expect(try peer.received().last?.goAwayCode == .enhanceYourCalm)
    }
}

/// Response header lists shaped like a gRPC server's, so the state machine is exercised
/// with what it carries in practice.
private enum Sample {
    static let responseHeaders = [HTTP2Header(":status", "200"), HTTP2Header("content-type", "application/grpc")]
    static let trailers = [HTTP2Header("grpc-status", "0"), HTTP2Header("grpc-message", "")]
    static func trailersOnly(status: Int) -> [HTTP2Header] {
        responseHeaders + [HTTP2Header("grpc-status", String(status)), HTTP2Header("grpc-message", "")]
    }
}
