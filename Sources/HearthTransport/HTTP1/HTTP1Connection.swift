import Synchronization

/// HTTP/1.1 on one event-loop connection: requests are parsed incrementally as bytes
/// arrive; each is handed to the server's handler (on the loop, or on the worker pool when
/// it may take long) once the one before it has been handled — a pipelined GET sees the
/// PATCH sent before it — and the answers are written strictly in request order. A streamed
/// answer (`HTTPResponse.stream`) holds the connection until it ends; requests pipelined
/// behind it wait.
///
/// Bounded: at most `maxPipelined` requests are in progress per connection (reading stops
/// until answers go out), the connection's budget bounds what is queued, and the deadlines
/// of `HTTPLimits` cover every phase — a request head must be complete `headerTimeout`
/// after its first byte, its body `bodyTimeout` after the head (408 and close either way),
/// an idle keep-alive connection closes after `idleTimeout`.
final class HTTP1Connection: ConnectionHandler, @unchecked Sendable {
    /// Requests in progress past which reading stops.
    static let maxPipelined = 16
    /// Requests handled per turn of the loop: a client pipelining thousands of point reads
    /// (handled inline) takes its turn, then the other connections of the loop take theirs.
    static let requestsPerTurn = 16

    let connection: Connection
    private let app: HTTPApplication
    private var parser: HTTPRequestParser
    private var heldReported = 0

    /// Answers in request order; the first is the next to write.
    private var queue: [Slot] = []
    private var queueHead = 0
    /// A streamed body being sent (always the answer at the head of the queue).
    private var stream: ActiveStream?
    /// No more requests are read (an answer closes the connection, or the input ended).
    private var noMoreRequests = false
    private var inputClosed = false
    private var stopping = false
    /// Parsed requests waiting for the one before them to be handled.
    private var waiting: [(HTTPRequest, Slot)] = []
    private var handling = false
    /// When the request being read started (for the header and body deadlines).
    private var requestStarted: Int64?
    private var phase: Phase = .idle
    /// `parseRequests` is running (an inline answer may call back into it).
    private var parsing = false
    private var continuationScheduled = false
    /// A WebSocket handshake was read: nothing after it is parsed as HTTP; what arrives is
    /// kept for the WebSocket (or dropped if the answer refuses the upgrade).
    private var upgradeRequested = false

    private enum Phase { case idle, head, body, busy }

    /// One answer's place in the queue. Touched on the loop only (a pool handler's answer is
    /// brought back with `execute`).
    final class Slot: @unchecked Sendable {
        var response: HTTPResponse?
        /// Bytes to write as they are (a 100 Continue, an error answer).
        var raw: [UInt8]?
        let keepAlive: Bool
        let chunked: Bool

        init(keepAlive: Bool, chunked: Bool) {
            self.keepAlive = keepAlive
            self.chunked = chunked
        }
    }

    private struct ActiveStream {
        let body: HTTPResponseStream
        let keepAlive: Bool
    }

    init(connection: Connection, app: HTTPApplication) {
        self.connection = connection
        self.app = app
        self.parser = HTTPRequestParser(limits: app.limits)
        updateDeadline()
    }

    private var pendingCount: Int { queue.count - queueHead }

    // MARK: Input

    func received(_ bytes: UnsafeRawBufferPointer) {
        if upgradeRequested {
            parser.append(bytes)
            reportHeld()
            return
        }
        guard !noMoreRequests else { return }
        if phase == .idle || phase == .busy, parser.isIdle { requestStarted = Monotonic.now() }
        parser.append(bytes)
        parseRequests()
    }

    private func parseRequests() {
        // Re-entered from an answer handled inline: the loop below goes on by itself.
        guard !parsing else { return }
        parsing = true
        defer { parsing = false }
        var handledThisTurn = 0
        var held = false
        parsing: while !noMoreRequests && pendingCount < Self.maxPipelined {
            // Only while the client reads its answers, and a turn's worth at a time; reading
            // waits meanwhile, so what the client sends ahead stays in the socket, not here.
            guard connection.isWritable else {
                connection.requestWritableNotification()
                held = true
                break
            }
            guard handledThisTurn < Self.requestsPerTurn else {
                continueNextTurn()
                held = true
                break
            }
            switch parser.next() {
            case .needMore:
                break parsing
            case .sendContinue:
                let slot = Slot(keepAlive: true, chunked: true)
                slot.raw = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                enqueue(slot)
            case .request(let request):
                handledThisTurn += 1
                requestStarted = parser.isIdle ? nil : Monotonic.now()
                // An upgrade is the connection's last HTTP request, whatever the answer.
                let upgrade = WebSocketHandshake.isUpgrade(request)
                let keepAlive = request.keepAlive && !stopping && !upgrade
                let slot = Slot(keepAlive: keepAlive, chunked: request.minorVersion >= 1)
                enqueue(slot)
                if upgrade { upgradeRequested = true }
                if !keepAlive { noMoreRequests = true }
                dispatch(request, into: slot)
            case .failure(let status, let message):
                let slot = Slot(keepAlive: false, chunked: true)
                var bytes: [UInt8] = []
                HTTPResponse.text(status, message + "\n").serialize(into: &bytes, keepAlive: false)
                slot.raw = bytes
                noMoreRequests = true
                enqueue(slot)
            }
        }
        // Switched to WebSocket while handling: the connection is no longer ours to steer.
        guard connection.handler === self else { return }
        if held || pendingCount >= Self.maxPipelined {
            connection.pause(.handler)
        } else if pendingCount < Self.maxPipelined / 2 {
            connection.resume(.handler)
        }
        reportHeld()
        updateDeadline()
    }

    private func continueNextTurn() {
        guard !continuationScheduled else { return }
        continuationScheduled = true
        connection.loop.execute { [self] in
            continuationScheduled = false
            if !connection.isClosed { parseRequests() }
        }
    }

    private func enqueue(_ slot: Slot) {
        queue.append(slot)
        if slot.raw != nil { writeReadyAnswers() }
    }

    private func dispatch(_ request: HTTPRequest, into slot: Slot) {
        if handling {
            waiting.append((request, slot))
            return
        }
        handling = true
        let app = app
        let route = app.router(request)
        switch route.placement {
        case .inline:
            handled(slot, route.respond(request))
        case .pool:
            let loop = connection.loop
            let accepted = app.pool.submit { [self] in
                let response = route.respond(request)
                loop.execute { [self] in handled(slot, response) }
            }
            if !accepted { handled(slot, .text(503, "The server is busy: too many requests are waiting. Try again.\n")) }
        }
    }

    /// A request's answer is ready: the next waiting request goes to its handler.
    private func handled(_ slot: Slot, _ response: HTTPResponse) {
        slot.response = response
        handling = false
        writeReadyAnswers()
        dispatchNext()
    }

    /// Hands the next waiting request to its handler — only while the client reads its
    /// answers: one that does not gets no more work done for it than the output buffer's
    /// high-water mark and one answer.
    private func dispatchNext() {
        guard !handling, !waiting.isEmpty, !connection.isClosed else { return }
        guard connection.isWritable else {
            connection.requestWritableNotification()
            return
        }
        let (request, next) = waiting.removeFirst()
        dispatch(request, into: next)
    }

    private func reportHeld() {
        let held = parser.heldByteCount
        if held != heldReported {
            connection.adjustHeld(by: held - heldReported)
            heldReported = held
        }
    }

    func inputEnded() {
        inputClosed = true
        if !noFurtherRequests() { updateDeadline() }
    }

    /// No request will follow. A streamed answer in progress is cut and the connection
    /// closed (the client left, or the server stops, while it streams: the producer must
    /// hear of it); otherwise the connection closes once the answers are written. True when
    /// a stream was cut.
    private func noFurtherRequests() -> Bool {
        noMoreRequests = true
        guard let active = stream else {
            finishIfDone()
            return false
        }
        stream = nil
        active.body.close()
        connection.close()
        return true
    }

    // MARK: Output

    /// Writes every answer at the head of the queue that is ready, in order.
    private func writeReadyAnswers() {
        guard !connection.isClosed else { return }
        var after: [@Sendable () -> Void] = []
        while stream == nil, queueHead < queue.count {
            let slot = queue[queueHead]
            if let raw = slot.raw {
                connection.write(raw)
                advance()
                if !slot.keepAlive { closeAfterAnswers(); break }
                continue
            }
            guard var response = slot.response else { break }
            if response.abortConnection {
                connection.flush()
                connection.close()
                return
            }
            let keepAlive = slot.keepAlive && !response.closeConnection && !stopping
            if let a = response.afterWrite { after.append(a); response.afterWrite = nil }
            var bytes: [UInt8] = []
            if let upgrade = response.webSocket, response.status == 101, upgradeRequested, !stopping {
                response.serializeUpgradeHead(into: &bytes)
                connection.write(bytes)
                advance()
                switchToWebSocket(upgrade)
                return
            }
            if let produce = response.stream {
                response.serializeStreamHead(into: &bytes, chunked: slot.chunked, keepAlive: keepAlive)
                connection.write(bytes)
                advance()
                startStream(produce, chunked: slot.chunked, keepAlive: keepAlive)
                break
            }
            response.serialize(into: &bytes, keepAlive: keepAlive)
            connection.write(bytes)
            advance()
            if !keepAlive { noMoreRequests = true; closeAfterAnswers(); break }
        }
        if !after.isEmpty {
            // Written before the callbacks run (`POST /shutdown` stops the server after its answer).
            connection.flush()
            for a in after { a() }
        }
        if !noMoreRequests && !connection.isClosed && stream == nil { parseRequests() }
        finishIfDone()
        updateDeadline()
    }

    private func advance() {
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 32 && queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    private func closeAfterAnswers() {
        noMoreRequests = true
        queue.removeAll()
        queueHead = 0
        connection.closeAfterFlush()
    }

    /// Closes once the input ended (or the server stops) and every answer is out.
    private func finishIfDone() {
        guard inputClosed || stopping, pendingCount == 0, stream == nil, !connection.isClosed else { return }
        connection.closeAfterFlush()
    }

    // MARK: WebSocket

    /// The 101 is written: the connection now speaks WebSocket, starting with whatever the
    /// client sent after its handshake.
    private func switchToWebSocket(_ upgrade: WebSocketUpgrade) {
        noMoreRequests = true
        let leftover = parser.takeUnparsed()
        if heldReported != 0 { connection.adjustHeld(by: -heldReported); heldReported = 0 }
        queue.removeAll()
        queueHead = 0
        waiting.removeAll()
        let next = WebSocketConnection(connection: connection, limits: upgrade.limits)
        connection.handler = next
        connection.resume(.handler)
        next.start(leftover: leftover, onOpen: upgrade.onOpen)
    }

    // MARK: Streamed answers

    private func startStream(_ produce: @Sendable (HTTPResponseStream) -> Void, chunked: Bool, keepAlive: Bool) {
        let loop = connection.loop
        let pumpScheduled = Atomic<Bool>(false)
        let body = HTTPResponseStream(budget: app.limits.streamWriteBudget, chunked: chunked) { [weak self] in
            // Coalesced: one task pumps whatever several writes queued.
            guard !pumpScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            loop.execute { [weak self] in
                pumpScheduled.store(false, ordering: .releasing)
                self?.pumpStream()
            }
        }
        stream = ActiveStream(body: body, keepAlive: keepAlive && chunked)
        updateDeadline()
        produce(body)
        pumpStream()
    }

    private func pumpStream() {
        guard let active = stream, !connection.isClosed else { return }
        let pending = active.body.take()
        if pending.closed {
            // Budget passed (or closed by the server): the body cannot be completed.
            stream = nil
            connection.close()
            return
        }
        if !pending.bytes.isEmpty { connection.write(pending.bytes) }
        guard pending.finished else { return }
        stream = nil
        active.body.close()
        if active.keepAlive {
            if active.body.chunked { connection.write(Array("0\r\n\r\n".utf8)) }
            writeReadyAnswers()
        } else {
            closeAfterAnswers()
        }
    }

    func writable() {
        dispatchNext()
        if !noMoreRequests && stream == nil { parseRequests() }
    }

    // MARK: Deadlines and ends

    private func updateDeadline() {
        guard !connection.isClosed, connection.handler === self else { return }
        let limits = app.limits
        if noMoreRequests {
            // Answers owed are written, then the connection closes: nothing more to read.
            phase = .busy
            connection.setDeadline(nil)
        } else if parser.isReadingBody, let started = requestStarted {
            phase = .body
            connection.setDeadline(started + Monotonic.nanoseconds(limits.headerTimeout + limits.bodyTimeout))
        } else if parser.isReadingHead, let started = requestStarted {
            phase = .head
            connection.setDeadline(started + Monotonic.nanoseconds(limits.headerTimeout))
        } else if pendingCount > 0 || stream != nil {
            // The server is working or streaming: nothing is the client's to hurry.
            phase = .busy
            connection.setDeadline(nil)
        } else {
            phase = .idle
            connection.setDeadline(Monotonic.now() + Monotonic.nanoseconds(limits.idleTimeout))
        }
    }

    func deadlinePassed() {
        switch phase {
        case .head, .body:
            // 408 after the answers already owed, then close.
            noMoreRequests = true
            let slot = Slot(keepAlive: false, chunked: true)
            var bytes: [UInt8] = []
            HTTPResponse.text(408, "Request timeout: the request was not received in time.\n").serialize(into: &bytes, keepAlive: false)
            slot.raw = bytes
            queue.append(slot)
            connection.pause(.handler)
            writeReadyAnswers()
        case .idle:
            connection.close()
        case .busy:
            break
        }
    }

    func serverStopping() {
        stopping = true
        _ = noFurtherRequests()
    }

    func closed() {
        if heldReported != 0 { heldReported = 0 }
        waiting.removeAll()
        stream?.body.close()
        stream = nil
        queue.removeAll()
        queueHead = 0
    }
}
