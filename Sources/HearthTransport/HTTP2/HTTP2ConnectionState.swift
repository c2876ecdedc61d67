/// The server side of one HTTP/2 connection as a pure state machine (RFC 9113): bytes in
/// → events out, response calls in → bytes out. No I/O and no locking: the socket driver
/// (`HTTP2Connection`) owns one and serialises access to it.
///
/// It checks the client preface, sends our SETTINGS first and ACKs the client's, decodes
/// header blocks (HEADERS + CONTINUATION) with HPACK, runs flow control on both levels in
/// both directions (replenishing the client's windows with WINDOW_UPDATE as request bytes
/// are handed over, queueing response DATA until windows allow), answers PINGs, handles
/// RST_STREAM and GOAWAY, and turns protocol errors into RST_STREAM (stream errors) or
/// GOAWAY (connection errors, after which `isClosed` is true).
public struct HTTP2ConnectionState: Sendable {
    /// What the server announces and enforces.
    public struct Configuration: Sendable {
        public var maxConcurrentStreams = 1000
        /// Stream-level receive window (SETTINGS_INITIAL_WINDOW_SIZE).
        public var initialWindowSize = 1 << 20
        /// Connection-level receive window, raised right after the preface.
        public var connectionWindowSize = 4 << 20
        public var maxFrameSize = HTTP2Settings.defaultMaxFrameSize
        public var headerTableSize = 4096
        public var maxHeaderListSize = 64 * 1024
        /// A header block (HEADERS + CONTINUATIONs) larger than this is a connection error
        /// (bounds CONTINUATION floods).
        public var maxHeaderBlockSize = 256 * 1024
        /// Frames the client may send per `rateWindow` before the connection is closed with
        /// GOAWAY(ENHANCE_YOUR_CALM): RST_STREAM on streams still open (the "rapid reset"
        /// attack opens and cancels streams to make the server start work it never
        /// finishes), SETTINGS and PING (each costs the server an acknowledgement).
        /// Resets count only on streams not answered yet (no response headers): a client
        /// detaching listeners cancels streams whose answer has begun and never ends on its
        /// own — a Java server SDK closing 300 listeners, say — which costs no unfinished
        /// work and must not close the connection under its other calls.
        /// PINGs count only while the server sends no response: each HEADERS or DATA frame
        /// it writes starts their count again, as gRPC servers do — grpc-java's client
        /// pings after each burst of DATA it reads to size its windows (hundreds of pings
        /// in a few seconds of streaming), and a flood with nothing answered still ends.
        public var maxResetsPerWindow = 200
        public var maxSettingsPerWindow = 100
        public var maxPingsPerWindow = 100
        /// The window the frame rates are counted over, in nanoseconds.
        public var rateWindow: Int64 = 10_000_000_000
        /// Bytes the outbox may hold before DATA waits in its stream's queue (the socket
        /// driver takes the outbox as the socket drains).
        public var maxOutboxBytes = Int.max
        /// When true, a stream's receive window is given back only as the application
        /// consumes the bytes (`consumed`), so a stream holds at most its window of request
        /// bytes nobody has taken; when false, as soon as the bytes are handed over.
        public var streamWindowFollowsConsumption = false

        public init() {}
    }

    enum Event: Sendable, Equatable {
        /// A request's headers are complete; `endStream` when it has no body.
        case streamOpened(UInt32, HTTP2RequestHeaders, endStream: Bool)
        /// Request body bytes (possibly empty when only END_STREAM arrives).
        case data(UInt32, [UInt8], endStream: Bool)
        /// The stream ended abnormally: reset by the peer, or by us after a stream error,
        /// or because the connection closed. No more response items are accepted.
        case streamReset(UInt32, HTTP2ErrorCode)
    }

    static let clientPreface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    let config: Configuration
    private var prefaceBytesSeen = 0
    private var parser: HTTP2FrameParser
    private var decoder: HPACKDecoder
    private var encoder: HPACKEncoder
    private(set) var peerSettings = HTTP2Settings()
    /// Our SETTINGS take effect once the peer ACKs them; until then the defaults apply.
    private var localSettingsAcknowledged = false
    private var streams: [UInt32: HTTP2StreamState] = [:]
    /// Streams with output queued, in the order they get a turn at sending (each once; a
    /// stream that has closed since is skipped). Only these are looked at by `flush`, so
    /// one stream's answer costs the same with a thousand idle streams open beside it.
    private var sendQueue: [UInt32] = []
    /// Streams with output queued that wait for their own send window: they rejoin
    /// `sendQueue` when the peer's WINDOW_UPDATE or SETTINGS opens it.
    private var windowBlocked: Set<UInt32> = []
    /// How many times `flush` has looked at a stream (what a send costs, for tests).
    private(set) var streamTurns = 0
    private(set) var lastPeerStreamID: UInt32 = 0
    private var connectionSendWindow = 65_535
    private var connectionReceiveWindow = 65_535
    /// A header block being assembled across CONTINUATION frames.
    private var pendingBlock: (streamID: UInt32, bytes: [UInt8], endStream: Bool)?
    /// Response DATA bytes queued on streams and not yet in the outbox.
    private(set) var queuedDataBytes = 0
    private var resets = HTTP2RateCounter()
    private var settingsFrames = HTTP2RateCounter()
    private var pings = HTTP2RateCounter()
    /// The time of the frames being handled (for the rate counters).
    private var now: Int64 = 0
    /// Bytes to write to the socket, in order.
    private(set) var outbox: [UInt8] = []
    private(set) var isClosed = false
    /// We sent GOAWAY: no new streams; close once the open ones finish.
    private(set) var goingAway = false
    /// The peer sent GOAWAY.
    private(set) var peerWentAway = false

    init(config: Configuration = Configuration()) {
        self.config = config
        parser = HTTP2FrameParser(maxFrameSize: config.maxFrameSize)
        decoder = HPACKDecoder(maxTableSize: config.headerTableSize, maxHeaderListSize: config.maxHeaderListSize)
        encoder = HPACKEncoder(maxTableSize: 4096, useHuffman: true, useIndexing: true)
        // The server preface: our SETTINGS first (§3.4), then the connection window.
        write(HTTP2Frame(streamID: 0, flags: [], payload: .settings([
            (HTTP2Settings.Identifier.maxConcurrentStreams.rawValue, UInt32(config.maxConcurrentStreams)),
            (HTTP2Settings.Identifier.initialWindowSize.rawValue, UInt32(config.initialWindowSize)),
            (HTTP2Settings.Identifier.maxFrameSize.rawValue, UInt32(config.maxFrameSize)),
            (HTTP2Settings.Identifier.headerTableSize.rawValue, UInt32(config.headerTableSize)),
            (HTTP2Settings.Identifier.maxHeaderListSize.rawValue, UInt32(config.maxHeaderListSize)),
        ])))
        if config.connectionWindowSize > 65_535 {
            write(HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(UInt32(config.connectionWindowSize - 65_535))))
            connectionReceiveWindow = config.connectionWindowSize
        }
    }

    /// Open streams.
    var openStreamCount: Int { streams.count }

    /// True once nothing more will happen: closed, or going away with no streams left.
    var isFinished: Bool { isClosed || ((goingAway || peerWentAway) && streams.isEmpty && pendingBlock == nil) }

    /// Takes the bytes to write.
    mutating func takeOutbox() -> [UInt8] {
        let out = outbox
        outbox.removeAll(keepingCapacity: true)
        return out
    }

    /// Response bytes queued on a stream and not yet written (for back-pressure).
    func queuedBytes(_ id: UInt32) -> Int { streams[id]?.queuedBytes ?? 0 }

    /// True while part of the client's input is incomplete: the preface, a frame, or a
    /// header block awaiting its CONTINUATION (what the driver's deadline watches).
    var hasPartialInput: Bool {
        prefaceBytesSeen < Self.clientPreface.count || parser.bufferedCount > 0 || pendingBlock != nil
    }

    /// Bytes of input held: a partial frame, a partial header block.
    var heldInputBytes: Int { parser.bufferedCount + (pendingBlock?.bytes.count ?? 0) }

    /// Forgets a stream, with the DATA it still had queued.
    private mutating func removeStream(_ id: UInt32) -> HTTP2StreamState? {
        guard let index = streams.index(forKey: id) else { return nil }
        return removeStream(at: index)
    }

    private mutating func removeStream(at index: Dictionary<UInt32, HTTP2StreamState>.Index) -> HTTP2StreamState {
        let (id, s) = streams.remove(at: index)
        queuedDataBytes -= s.queuedBytes
        if !windowBlocked.isEmpty { windowBlocked.remove(id) }
        return s
    }

    private mutating func removeAllStreams() {
        streams = [:]
        sendQueue = []
        windowBlocked = []
        queuedDataBytes = 0
    }

    /// Whether the stream is still open for responses.
    func isOpen(_ id: UInt32) -> Bool { streams[id].map { !$0.localEndQueued } ?? false }

    private mutating func write(_ frame: HTTP2Frame) {
        switch frame.payload {
        case .headers, .data: pings = HTTP2RateCounter()  // see `maxPingsPerWindow`
        default: break
        }
        HTTP2FrameSerializer.serialize(frame, into: &outbox)
    }

    // MARK: Input

    /// Feeds received bytes; returns the events they complete.
    mutating func receive<C: Collection>(_ bytes: C, now: Int64 = Monotonic.now()) -> [Event] where C.Element == UInt8 {
        guard !isClosed else { return [] }
        self.now = now
        var events: [Event] = []
        var input = bytes[...]
        if prefaceBytesSeen < Self.clientPreface.count {
            while prefaceBytesSeen < Self.clientPreface.count, let b = input.first {
                guard b == Self.clientPreface[prefaceBytesSeen] else {
                    connectionError(.connection(.protocolError, "invalid connection preface"), events: &events)
                    return events
                }
                prefaceBytesSeen += 1
                input = input.dropFirst()
            }
            if prefaceBytesSeen < Self.clientPreface.count { return events }
        }
        parser.append(input)
        while !isClosed {
            do {
                guard let parsed = try parser.next() else { break }
                try handle(parsed, events: &events)
            } catch {
                if let stream = error.streamID {
                    resetStream(stream, error.code, events: &events)
                } else {
                    connectionError(error, events: &events)
                }
            }
        }
        flush()
        return events
    }

    /// The peer closed the socket: every open stream is cancelled.
    mutating func peerDisconnected() -> [Event] {
        var events: [Event] = []
        for id in streams.keys.sorted() { events.append(.streamReset(id, .cancel)) }
        removeAllStreams()
        isClosed = true
        return events
    }

    private mutating func handle(_ parsed: HTTP2FrameParser.Parsed, events: inout [Event]) throws(HTTP2ProtocolViolation) {
        let frame = parsed.frame
        if let block = pendingBlock {
            guard case .continuation(let more) = frame.payload, frame.streamID == block.streamID else {
                throw .connection(.protocolError, "expected CONTINUATION on stream \(block.streamID)")
            }
            let total = block.bytes.count + more.count
            guard total <= config.maxHeaderBlockSize else {
                throw .connection(.enhanceYourCalm, "header block larger than \(config.maxHeaderBlockSize) bytes")
            }
            pendingBlock!.bytes.append(contentsOf: more)
            if frame.flags.contains(.endHeaders) {
                let complete = pendingBlock!
                pendingBlock = nil
                try headerBlockComplete(streamID: complete.streamID, block: complete.bytes, endStream: complete.endStream, events: &events)
            }
            return
        }
        switch frame.payload {
        case .data(let body):
            try receiveData(frame.streamID, body, flowLength: parsed.length, endStream: frame.flags.contains(.endStream), events: &events)
        case .headers(let block, let priority):
            if let priority, priority.dependency == frame.streamID {
                throw .stream(frame.streamID, .protocolError, "stream \(frame.streamID) depends on itself")
            }
            guard block.count <= config.maxHeaderBlockSize else {
                throw .connection(.enhanceYourCalm, "header block larger than \(config.maxHeaderBlockSize) bytes")
            }
            if frame.flags.contains(.endHeaders) {
                try headerBlockComplete(streamID: frame.streamID, block: block, endStream: frame.flags.contains(.endStream), events: &events)
            } else {
                pendingBlock = (frame.streamID, block, frame.flags.contains(.endStream))
            }
        case .priority(let p):
            if p.dependency == frame.streamID {
                throw .stream(frame.streamID, .protocolError, "stream \(frame.streamID) depends on itself")
            }
        case .rstStream(let code):
            if frame.streamID > lastPeerStreamID && streams[frame.streamID] == nil {
                throw .connection(.protocolError, "RST_STREAM on idle stream \(frame.streamID)")
            }
            if let stream = removeStream(frame.streamID) {
                events.append(.streamReset(frame.streamID, code))
                // A stream the client cancels before it is answered at all counts; one whose
                // answer has begun (a listener being detached) does not — see `maxResetsPerWindow`.
                guard stream.responseHeadersQueued
                    || resets.count(at: now, window: config.rateWindow) <= config.maxResetsPerWindow else {
                    throw .connection(.enhanceYourCalm, "more than \(config.maxResetsPerWindow) streams reset by the client in \(config.rateWindow / 1_000_000_000) s")
                }
            }
        case .settings(let values):
            if frame.flags.contains(.ack) {
                if !localSettingsAcknowledged {
                    localSettingsAcknowledged = true
                    // Our initial window now applies to streams opened under the default.
                    let delta = config.initialWindowSize - 65_535
                    for id in streams.keys { streams[id]!.receiveWindow += delta }
                }
            } else {
                guard settingsFrames.count(at: now, window: config.rateWindow) <= config.maxSettingsPerWindow else {
                    throw .connection(.enhanceYourCalm, "more than \(config.maxSettingsPerWindow) SETTINGS frames in \(config.rateWindow / 1_000_000_000) s")
                }
                try applyPeerSettings(values)
                write(HTTP2Frame(streamID: 0, flags: .ack, payload: .settings([])))
            }
        case .pushPromise:
            throw .connection(.protocolError, "PUSH_PROMISE sent by a client")
        case .ping(let opaque):
            if !frame.flags.contains(.ack) {
                guard pings.count(at: now, window: config.rateWindow) <= config.maxPingsPerWindow else {
                    throw .connection(.enhanceYourCalm, "more than \(config.maxPingsPerWindow) PING frames in \(config.rateWindow / 1_000_000_000) s")
                }
                write(HTTP2Frame(streamID: 0, flags: .ack, payload: .ping(opaque)))
            }
        case .goAway:
            peerWentAway = true
        case .windowUpdate(let increment):
            try receiveWindowUpdate(frame.streamID, Int(increment))
        case .continuation:
            throw .connection(.protocolError, "CONTINUATION without a preceding HEADERS on stream \(frame.streamID)")
        case .unknown:
            break
        }
    }

    private mutating func applyPeerSettings(_ values: [(UInt16, UInt32)]) throws(HTTP2ProtocolViolation) {
        let oldWindow = peerSettings.initialWindowSize
        for (id, value) in values { try peerSettings.apply(identifier: id, value: value) }
        let delta = peerSettings.initialWindowSize - oldWindow
        if delta != 0 {
            for id in streams.keys {
                streams[id]!.sendWindow += delta
                if streams[id]!.sendWindow > HTTP2Settings.maxWindowSize {
                    throw .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE overflows the window of stream \(id)")
                }
            }
            if delta > 0 {
                let waiting = windowBlocked.sorted()  // in the order they opened
                windowBlocked = []
                for id in waiting { queueForSending(id) }
            }
        }
        encoder.setMaxTableSize(min(peerSettings.headerTableSize, 4096))
    }

    private mutating func receiveWindowUpdate(_ streamID: UInt32, _ increment: Int) throws(HTTP2ProtocolViolation) {
        if streamID == 0 {
            guard increment > 0 else { throw .connection(.protocolError, "WINDOW_UPDATE with increment 0 on the connection") }
            connectionSendWindow += increment
            guard connectionSendWindow <= HTTP2Settings.maxWindowSize else {
                throw .connection(.flowControlError, "connection send window exceeds 2^31-1")
            }
            return
        }
        guard streams[streamID] != nil else {
            if streamID > lastPeerStreamID { throw .connection(.protocolError, "WINDOW_UPDATE on idle stream \(streamID)") }
            return  // a stream closed recently: ignored (§5.1)
        }
        guard increment > 0 else { throw .stream(streamID, .protocolError, "WINDOW_UPDATE with increment 0 on stream \(streamID)") }
        streams[streamID]!.sendWindow += increment
        guard streams[streamID]!.sendWindow <= HTTP2Settings.maxWindowSize else {
            throw .stream(streamID, .flowControlError, "send window of stream \(streamID) exceeds 2^31-1")
        }
        if windowBlocked.remove(streamID) != nil { queueForSending(streamID) }
    }

    private mutating func receiveData(_ id: UInt32, _ body: [UInt8], flowLength: Int, endStream: Bool, events: inout [Event]) throws(HTTP2ProtocolViolation) {
        // Connection-level flow control counts every DATA frame, whatever its stream.
        guard flowLength <= connectionReceiveWindow else {
            throw .connection(.flowControlError, "DATA of \(flowLength) bytes exceeds the connection window (\(connectionReceiveWindow))")
        }
        connectionReceiveWindow -= flowLength
        replenishConnectionWindow()
        // One lookup, then the stream changed in place (each `streams[id]!` hashed again).
        guard let index = streams.index(forKey: id) else {
            if id > lastPeerStreamID { throw .connection(.protocolError, "DATA on idle stream \(id)") }
            return  // a stream we already closed or reset: ignored (§5.1)
        }
        guard !streams.values[index].remoteClosed else { throw .stream(id, .streamClosed, "DATA after END_STREAM on stream \(id)") }
        guard flowLength <= streams.values[index].receiveWindow else {
            throw .stream(id, .flowControlError, "DATA of \(flowLength) bytes exceeds the window of stream \(id)")
        }
        streams.values[index].receiveWindow -= flowLength
        if endStream {
            streams.values[index].remoteClosed = true
        } else if !config.streamWindowFollowsConsumption {
            // The bytes are handed over now, so the window is replenished now.
            let target = localSettingsAcknowledged ? config.initialWindowSize : 65_535
            if streams.values[index].receiveWindow <= target / 2 {
                write(HTTP2Frame(streamID: id, flags: [], payload: .windowUpdate(UInt32(target - streams.values[index].receiveWindow))))
                streams.values[index].receiveWindow = target
            }
        }
        events.append(.data(id, body, endStream: endStream))
        closeIfDone(at: index)
    }

    /// The application has consumed `count` bytes of stream `id`'s request body: their
    /// window goes back to the client once half the window is outstanding.
    mutating func consumed(_ id: UInt32, _ count: Int) {
        guard config.streamWindowFollowsConsumption, count > 0, var s = streams[id], !s.remoteClosed else { return }
        s.consumedUnreturned += count
        let target = localSettingsAcknowledged ? config.initialWindowSize : 65_535
        if s.receiveWindow <= target / 2 {
            let increment = min(s.consumedUnreturned, target - s.receiveWindow)
            if increment > 0 {
                write(HTTP2Frame(streamID: id, flags: [], payload: .windowUpdate(UInt32(increment))))
                s.receiveWindow += increment
                s.consumedUnreturned -= increment
            }
        }
        streams[id] = s
    }

    /// The application holds an incomplete unit of stream `id`'s request (a gRPC message)
    /// and needs `count` more bytes before it can consume any: the stream's window is
    /// widened to `count` when smaller. Without this a message larger than the window
    /// (4 MiB by default) never completes — the window comes back only as bytes are
    /// consumed — and the call hangs to its deadline. The bytes still count against the
    /// connection's and the server's budgets, which stop reading when they are full, and the
    /// application bounds `count` (the gRPC reader refuses messages past its maximum size).
    /// Returns true when a WINDOW_UPDATE was written.
    mutating func expectInput(_ id: UInt32, _ count: Int) -> Bool {
        guard config.streamWindowFollowsConsumption, var s = streams[id], !s.remoteClosed else { return false }
        let wanted = min(count, HTTP2Settings.maxWindowSize)
        guard s.receiveWindow < wanted else { return false }
        write(HTTP2Frame(streamID: id, flags: [], payload: .windowUpdate(UInt32(wanted - s.receiveWindow))))
        s.receiveWindow = wanted
        streams[id] = s
        return true
    }

    private mutating func replenishConnectionWindow() {
        let target = max(config.connectionWindowSize, 65_535)
        if connectionReceiveWindow <= target / 2 {
            write(HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(UInt32(target - connectionReceiveWindow))))
            connectionReceiveWindow = target
        }
    }

    private mutating func headerBlockComplete(streamID id: UInt32, block: [UInt8], endStream: Bool, events: inout [Event]) throws(HTTP2ProtocolViolation) {
        // Decode first, always: the dynamic table must follow the peer's encoder even for
        // streams we then refuse.
        let headers: [HTTP2Header]
        var listTooLarge = false
        do {
            headers = try decoder.decode(block)
        } catch .headerListTooLarge {
            headers = []
            listTooLarge = true
        } catch {
            throw .connection(.compressionError, "header block on stream \(id): \(error)")
        }
        if streams[id] != nil {
            // Trailers: must end the stream.
            guard !streams[id]!.remoteClosed else { throw .stream(id, .streamClosed, "HEADERS after END_STREAM on stream \(id)") }
            guard endStream else { throw .stream(id, .protocolError, "trailers without END_STREAM on stream \(id)") }
            streams[id]!.remoteClosed = true
            events.append(.data(id, [], endStream: true))
            closeIfDone(id)
            return
        }
        guard id % 2 == 1 else { throw .connection(.protocolError, "client opened even-numbered stream \(id)") }
        guard id > lastPeerStreamID else { throw .connection(.streamClosed, "HEADERS on closed stream \(id)") }
        lastPeerStreamID = id
        if goingAway { return }  // §6.8: streams after our GOAWAY are ignored
        if listTooLarge { throw .stream(id, .protocolError, "request header list larger than \(config.maxHeaderListSize) bytes") }
        guard streams.count < config.maxConcurrentStreams else {
            throw .stream(id, .refusedStream, "more than \(config.maxConcurrentStreams) concurrent streams")
        }
        let request: HTTP2RequestHeaders
        switch HTTP2RequestHeaders.validate(headers) {
        case .success(let r): request = r
        case .failure(let v): throw .stream(id, v.code, v.message)
        }
        var stream = HTTP2StreamState(id: id, sendWindow: peerSettings.initialWindowSize,
                                      receiveWindow: localSettingsAcknowledged ? config.initialWindowSize : 65_535)
        stream.remoteClosed = endStream
        streams[id] = stream
        events.append(.streamOpened(id, request, endStream: endStream))
    }

    // MARK: Errors and closing

    private mutating func resetStream(_ id: UInt32, _ code: HTTP2ErrorCode, events: inout [Event]) {
        write(HTTP2Frame(streamID: id, flags: [], payload: .rstStream(code)))
        if removeStream(id) != nil {
            events.append(.streamReset(id, code))
        }
    }

    private mutating func connectionError(_ v: HTTP2ProtocolViolation, events: inout [Event]) {
        write(HTTP2Frame(streamID: 0, flags: [], payload: .goAway(lastStreamID: lastPeerStreamID, error: v.code, debugData: Array(v.message.utf8))))
        for id in streams.keys.sorted() { events.append(.streamReset(id, v.code)) }
        removeAllStreams()
        isClosed = true
    }

    /// Graceful shutdown: GOAWAY naming the last stream we will serve (NO_ERROR, or why
    /// the server ends the connection).
    mutating func goAway(_ code: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) {
        guard !goingAway, !isClosed else { return }
        goingAway = true
        write(HTTP2Frame(streamID: 0, flags: [], payload: .goAway(lastStreamID: lastPeerStreamID, error: code, debugData: debugData)))
    }

    /// Removes a stream whose two halves are closed. When our half closed first while the
    /// client is still sending, tells it to stop with RST_STREAM(NO_ERROR) (§8.1).
    private mutating func closeIfDone(_ id: UInt32) {
        guard let index = streams.index(forKey: id) else { return }
        closeIfDone(at: index)
    }

    /// The same for the stream at `index` (read in place: a copy of the stream's state
    /// retains and releases its queue).
    private mutating func closeIfDone(at index: Dictionary<UInt32, HTTP2StreamState>.Index) {
        guard streams.values[index].localClosed else { return }
        if !streams.values[index].remoteClosed {
            write(HTTP2Frame(streamID: streams.keys[index], flags: [], payload: .rstStream(.noError)))
        }
        _ = removeStream(at: index)
    }

    // MARK: Output

    public enum SendError: Error, Equatable {
        /// The stream is closed, reset or already ended.
        case streamClosed
    }

    /// Queues response headers (or trailers, if headers were already sent).
    /// `flush: false` leaves the writing to the caller's `flush()` (one pass for a call's
    /// headers, message and trailers, not one each).
    mutating func sendHeaders(_ id: UInt32, _ headers: [HTTP2Header], endStream: Bool, flush: Bool = true) throws(SendError) {
        guard !isClosed, let index = streams.index(forKey: id), !streams.values[index].localEndQueued else { throw .streamClosed }
        streams.values[index].responseHeadersQueued = true
        streams.values[index].pending.append(.headers(headers, endStream: endStream))
        if endStream { streams.values[index].localEndQueued = true }
        queueForSending(at: index)
        if flush { self.flush() }
    }

    /// Queues response body bytes; they are written as the windows allow.
    mutating func sendData(_ id: UInt32, _ bytes: [UInt8], endStream: Bool, flush: Bool = true) throws(SendError) {
        guard !isClosed, let index = streams.index(forKey: id), !streams.values[index].localEndQueued else { throw .streamClosed }
        streams.values[index].pending.append(.data(bytes, endStream: endStream))
        queuedDataBytes += bytes.count
        if endStream { streams.values[index].localEndQueued = true }
        queueForSending(at: index)
        if flush { self.flush() }
    }

    /// Resets a stream from the server side.
    mutating func reset(_ id: UInt32, _ code: HTTP2ErrorCode) {
        guard !isClosed, streams[id] != nil else { return }
        write(HTTP2Frame(streamID: id, flags: [], payload: .rstStream(code)))
        _ = removeStream(id)
    }

    /// Gives a stream with output a turn at sending (once, however often it is asked).
    private mutating func queueForSending(_ id: UInt32) {
        guard let index = streams.index(forKey: id) else { return }
        queueForSending(at: index)
    }

    private mutating func queueForSending(at index: Dictionary<UInt32, HTTP2StreamState>.Index) {
        let id = streams.keys[index]
        guard !streams.values[index].inSendQueue, windowBlocked.isEmpty || !windowBlocked.contains(id) else { return }
        streams.values[index].inSendQueue = true
        sendQueue.append(id)
    }

    /// Writes every queued item that flow control allows, streams taking turns: each
    /// stream in `sendQueue` writes one frame a round, so they share the windows.
    mutating func flush() {
        guard !isClosed else { return }
        while !sendQueue.isEmpty {
            var wrote = false
            var kept = 0
            let count = sendQueue.count
            for i in 0..<count {
                let id = sendQueue[i]
                streamTurns &+= 1
                let outcome = writeNext(id)
                switch outcome {
                case .wrote, .blocked:
                    if outcome == .wrote { wrote = true }
                    sendQueue[kept] = id
                    kept += 1
                case .done:
                    streams[id]?.inSendQueue = false
                case .blockedOnStreamWindow:
                    streams[id]?.inSendQueue = false
                    windowBlocked.insert(id)
                case .gone:
                    break
                }
            }
            sendQueue.removeLast(count - kept)
            if !wrote { break }
        }
    }

    private enum WriteOutcome {
        /// A frame was written and more is queued.
        case wrote
        /// Nothing more is queued (a frame may have been written).
        case done
        /// Waiting for the connection: its send window, or room in the outbox.
        case blocked
        /// Waiting for the stream's own send window.
        case blockedOnStreamWindow
        /// The stream has closed.
        case gone
    }

    /// Writes one frame's worth from the stream's queue, changing its state in place (a
    /// copy of it would copy its queue).
    private mutating func writeNext(_ id: UInt32) -> WriteOutcome {
        guard let index = streams.index(forKey: id) else { return .gone }
        guard let item = streams.values[index].pending.first else { return .done }
        var closed = false
        switch item {
        case .headers(let headers, let endStream):
            writeHeaderBlock(id, encoder.encode(headers), endStream: endStream)
            streams.values[index].pending.removeFirst()
            if endStream { streams.values[index].localClosed = true; closed = true }
        case .data(let bytes, let endStream):
            let offset = streams.values[index].pendingOffset
            let remaining = bytes.count - offset
            // DATA waits in its stream while the outbox is full (the socket is behind).
            if outbox.count >= config.maxOutboxBytes && remaining > 0 { return .blocked }
            let streamWindow = streams.values[index].sendWindow
            let allowed = min(remaining, peerSettings.maxFrameSize, max(0, connectionSendWindow), max(0, streamWindow))
            if allowed == 0 && remaining > 0 { return streamWindow <= 0 ? .blockedOnStreamWindow : .blocked }
            let chunk = offset == 0 && allowed == bytes.count ? bytes : Array(bytes[offset..<(offset + allowed)])
            let last = allowed == remaining
            write(HTTP2Frame(streamID: id, flags: last && endStream ? .endStream : [], payload: .data(chunk)))
            connectionSendWindow -= allowed
            queuedDataBytes -= allowed
            streams.values[index].sendWindow -= allowed
            if last {
                streams.values[index].pending.removeFirst()
                streams.values[index].pendingOffset = 0
                if endStream { streams.values[index].localClosed = true; closed = true }
            } else {
                streams.values[index].pendingOffset += allowed
            }
        }
        let more = !streams.values[index].pending.isEmpty
        if closed { closeIfDone(id) }
        return more && streams[id] != nil ? .wrote : .done
    }
    private mutating func writeHeaderBlock(_ id: UInt32, _ block: [UInt8], endStream: Bool) {
        let maxSize = peerSettings.maxFrameSize
        var offset = min(block.count, maxSize)
        // A block that fits one frame (every block but a giant's) goes as it is, uncopied.
        let first = offset == block.count ? block : Array(block[0..<offset])
        var flags: HTTP2Frame.Flags = endStream ? .endStream : []
        if offset == block.count { flags.insert(.endHeaders) }
        write(HTTP2Frame(streamID: id, flags: flags, payload: .headers(block: first, priority: nil)))
        while offset < block.count {
            let end = min(block.count, offset + maxSize)
            write(HTTP2Frame(streamID: id, flags: end == block.count ? .endHeaders : [], payload: .continuation(Array(block[offset..<end]))))
            offset = end
        }
    }
}
