import Synchronization

/// RFC 6455 on one event-loop connection, after the HTTP/1.1 handshake's 101: client frames
/// are parsed as they arrive (masked, or close 1002), control frames answered (a ping's pong,
/// a close's close), fragments assembled into messages (text checked to be UTF-8, or 1007),
/// messages handed to the application; what the application sends (`WebSocket.send` from
/// any thread) is framed there and moved to the socket here, only while the socket takes
/// it.
///
/// Bounded: a frame's header is enough to refuse one over `maxFrameSize` (1009), a message
/// over `maxMessageSize` is refused as its fragments arrive (1009), reading stops while the
/// output is over the high-water mark, the application's unsent bytes are capped by
/// `sendBudget`. Deadlines: a frame begun must be complete within `frameTimeout`; a client
/// that sends nothing for `pingInterval` is pinged and closed if nothing comes back within
/// `pongTimeout`; after the server's close frame the client has `closeTimeout` to answer.
final class WebSocketConnection: ConnectionHandler, @unchecked Sendable {
    let connection: Connection
    let socket: WebSocket
    private let limits: WebSocketLimits
    private var parser: WebSocketFrameParser
    private var heldReported = 0

    /// The message being assembled from fragments.
    private var fragments: [UInt8] = []
    private var fragmentOpcode: WebSocketOpcode?
    /// The server sent its close frame (nothing more is sent).
    private var closeSent = false
    /// When the frame being read began.
    private var frameStarted: Int64?
    private var lastReceived: Int64
    private var pingSentAt: Int64?
    private var closeSentAt: Int64?

    init(connection: Connection, limits: WebSocketLimits) {
        self.connection = connection
        self.limits = limits
        parser = WebSocketFrameParser(maxFrameSize: limits.maxFrameSize)
        lastReceived = Monotonic.now()
        let loop = connection.loop
        let pumpScheduled = Atomic<Bool>(false)
        // Set below: the wake-up needs `self`, created after the socket.
        let box = WeakBox()
        socket = WebSocket(budget: limits.sendBudget, shared: limits.sharedBudget) {
            guard !pumpScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            loop.execute {
                pumpScheduled.store(false, ordering: .releasing)
                box.connection?.pump()
            }
        }
        box.connection = self
    }

    private final class WeakBox: @unchecked Sendable {
        weak var connection: WebSocketConnection?
    }

    /// Starts speaking WebSocket with the bytes that came after the handshake.
    func start(leftover: [UInt8], onOpen: @Sendable (WebSocket) -> Void) {
        updateDeadline()
        onOpen(socket)
        if !leftover.isEmpty { leftover.withUnsafeBytes { received($0) } }
        pump()
    }

    // MARK: Input

    func received(_ bytes: UnsafeRawBufferPointer) {
        guard !connection.isClosed else { return }
        lastReceived = Monotonic.now()
        pingSentAt = nil
        if parser.isIdle { frameStarted = lastReceived }
        parser.append(bytes)
        loop: while !connection.isClosed {
            switch parser.next() {
            case .needMore:
                break loop
            case .failure(let code, let reason):
                fail(code, reason)
                break loop
            case .frame(let frame):
                handle(frame)
            }
            frameStarted = parser.isIdle ? nil : Monotonic.now()
        }
        if parser.isIdle { frameStarted = nil }
        reportHeld()
        updateDeadline()
    }

    private func handle(_ frame: WebSocketFrame) {
        switch frame.opcode {
        case .ping:
            guard !closeSent else { return }
            // What the application queued before the ping goes out first: answers keep the
            // order the client asked in.
            pump()
            var out: [UInt8] = []
            WebSocketFrame.serialize(.pong, frame.payload, into: &out)
            connection.write(out)
        case .pong:
            break
        case .close:
            receivedClose(frame.payload)
        case .text, .binary:
            guard fragmentOpcode == nil else { return fail(WebSocketCloseCode.protocolError, "a new message began inside a fragmented one") }
            if frame.fin {
                deliver(frame.opcode, frame.payload)
            } else {
                guard frame.payload.count <= limits.maxMessageSize else { return tooBig() }
                fragmentOpcode = frame.opcode
                fragments = frame.payload
            }
        case .continuation:
            guard let opcode = fragmentOpcode else { return fail(WebSocketCloseCode.protocolError, "a continuation frame with no message begun") }
            guard fragments.count + frame.payload.count <= limits.maxMessageSize else { return tooBig() }
            fragments.append(contentsOf: frame.payload)
            if frame.fin {
                let payload = fragments
                fragments = []
                fragmentOpcode = nil
                deliver(opcode, payload)
            }
        }
    }

    private func tooBig() {
        fail(WebSocketCloseCode.tooBig, "message passes the limit of \(limits.maxMessageSize) bytes")
    }

    private func deliver(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        guard !closeSent else { return }
        guard payload.count <= limits.maxMessageSize else { return tooBig() }
        if opcode == .text {
            guard isValidUTF8(payload) else { return fail(WebSocketCloseCode.invalidData, "text message is not UTF-8") }
            socket.deliver(.text(String(decoding: payload, as: UTF8.self)))
        } else {
            socket.deliver(.binary(payload))
        }
    }

    private func receivedClose(_ payload: [UInt8]) {
        var code = WebSocketCloseCode.normal
        if payload.count == 1 { return fail(WebSocketCloseCode.protocolError, "close frame with a one-byte payload") }
        if payload.count >= 2 {
            let received = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard WebSocketCloseCode.isValidReceived(received) else { return fail(WebSocketCloseCode.protocolError, "invalid close code \(received)") }
            guard isValidUTF8(Array(payload[2...])) else { return fail(WebSocketCloseCode.invalidData, "close reason is not UTF-8") }
            code = received
        }
        socket.markClosed()
        if !closeSent {
            // The answer echoes the code (section 5.5.1); then the server closes the TCP connection.
            sendClose(payload.isEmpty ? nil : code, "")
        }
        connection.pause(.handler)
        connection.closeAfterFlush()
    }

    /// A protocol error: the close frame naming it, then the connection ends.
    private func fail(_ code: UInt16, _ reason: String) {
        connection.pause(.handler)
        socket.markClosed()
        if !closeSent { sendClose(code, reason) }
        connection.closeAfterFlush()
    }

    private func sendClose(_ code: UInt16?, _ reason: String) {
        closeSent = true
        closeSentAt = Monotonic.now()
        var out: [UInt8] = []
        WebSocketFrame.serialize(.close, code.map { WebSocketFrame.closePayload($0, reason) } ?? [], into: &out)
        connection.write(out)
    }

    private func reportHeld() {
        let held = parser.heldByteCount + fragments.count
        if held != heldReported {
            connection.adjustHeld(by: held - heldReported)
            heldReported = held
        }
    }

    func inputEnded() {
        // The client left without a close frame (or after ours): nothing more can be sent.
        socket.markClosed()
        connection.closeAfterFlush()
    }

    // MARK: Output

    /// Moves what the application queued to the connection's output, keeping that under the
    /// low-water mark: the rest waits in the WebSocket, counted against its send budget (and
    /// the shared one), so a client that does not read holds at most 64 KiB here.
    func pump() {
        guard !connection.isClosed, !closeSent else { return }
        let room = Connection.lowWater - connection.outboundCount
        guard room > 0 else {
            connection.requestWritableNotification()
            return
        }
        let pending = socket.take(max: room)
        if !pending.bytes.isEmpty { connection.write(pending.bytes) }
        if pending.close == nil, socket.queuedByteCount > 0 { connection.requestWritableNotification() }
        if let (code, reason) = pending.close {
            socket.markClosed()
            // The client's close frame is awaited for closeTimeout (input is still read for it).
            sendClose(code, reason)
            updateDeadline()
        }
    }

    func writable() { pump() }

    // MARK: Deadlines

    private func updateDeadline() {
        guard !connection.isClosed else { return }
        var next: Int64
        if let closed = closeSentAt {
            next = closed + Monotonic.nanoseconds(limits.closeTimeout)
        } else if let ping = pingSentAt {
            next = ping + Monotonic.nanoseconds(limits.pongTimeout)
        } else {
            next = lastReceived + Monotonic.nanoseconds(limits.pingInterval)
        }
        if let started = frameStarted { next = min(next, started + Monotonic.nanoseconds(limits.frameTimeout)) }
        connection.setDeadline(next)
    }

    func deadlinePassed() {
        let now = Monotonic.now()
        if closeSentAt != nil {
            connection.close()
            return
        }
        if let started = frameStarted, now - started >= Monotonic.nanoseconds(limits.frameTimeout) {
            return fail(WebSocketCloseCode.policyViolation, "a frame was not completed in time")
        }
        if let ping = pingSentAt {
            if now - ping >= Monotonic.nanoseconds(limits.pongTimeout) {
                return fail(WebSocketCloseCode.policyViolation, "no answer to a ping")
            }
        } else if now - lastReceived >= Monotonic.nanoseconds(limits.pingInterval) {
            pingSentAt = now
            var out: [UInt8] = []
            WebSocketFrame.serialize(.ping, [], into: &out)
            connection.write(out)
        }
        updateDeadline()
    }

    func serverStopping() {
        guard !closeSent else { return }
        socket.markClosed()
        sendClose(WebSocketCloseCode.goingAway, "the server is stopping")
        connection.closeAfterFlush()
    }

    func closed() {
        socket.markClosed()
        fragments = []
    }
}
