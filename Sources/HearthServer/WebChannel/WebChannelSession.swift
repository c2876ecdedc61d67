import Foundation
import HearthCore
import HearthGRPC
import HearthTransport

/// One WebChannel session (one SID): the transport of one Listen or Write stream for a
/// browser. The stream itself is a `ListenSession` or `WriteSession` — the same code gRPC
/// clients get — which sees this session as its `FirestoreStreamCall`.
///
/// Messages from the client arrive in forward-channel POSTs, numbered by map id; a retried
/// POST's messages already seen are skipped. Messages to the client become numbered arrays
/// (1, 2, …; 0 was the handshake's `c`), kept until the client acknowledges them (`AID` on
/// its next request) so a back channel that broke or timed out can be resumed by the next
/// GET from exactly the first array the client lacks. A back channel is a streamed HTTP
/// response: in streaming mode (`CI=0`) it stays open and carries arrays as they come; in
/// long polling (`CI=1`) it ends after the first batch. The arrays kept are bounded
/// (`maxRetainedBytes`): past it the session is not writable, so the stream pauses between
/// batches until acknowledgements free room (a Listen stream's queue meanwhile collapses its
/// pending changes, as for a slow gRPC client), and a back channel is given at most that
/// many unacknowledged bytes, below the transport's per-response budget. What that costs: a
/// streaming client acknowledges only with its next request, so a burst larger than the
/// bound waits until the client re-opens its back channel (after 45 s of silence) or posts. A stream error goes to the client as an `error` message,
/// after which the back channel ends.
final class WebChannelSession: FirestoreStreamCall, @unchecked Sendable {
    enum Kind: String, Sendable { case listen = "Listen", write = "Write" }

    /// Unacknowledged arrays beyond which the stream pauses.
    let maxRetainedBytes: Int
    /// Runs a batch of the stream's work on the server's worker pool; false when full.
    private let submit: @Sendable (@escaping @Sendable () -> Void) -> Bool
    /// Arrays written to a back channel per frame, at most (one frame may hold many).
    static let maxFrameBytes = 1 << 20

    let id: String
    let kind: Kind
    let authorization: String?
    var transport: RequestLogEntry.Transport { .webChannel }

    /// The stream behind this channel (set once, right after init).
    private(set) var inbound: (any GRPCInboundStream)?

    private struct BackChannel {
        let stream: HTTPResponseStream
        let longPoll: Bool
    }

    // Guarded by `lock`.
    private let lock = NSCondition()
    private var arrays: [(id: Int, bytes: [UInt8])] = []
    private var retainedBytes = 0
    private var nextArrayID = 1
    /// The last array id written to the current back channel (or acknowledged).
    private var writtenUpTo = 0
    private var back: BackChannel?
    private var lastMapID = -1
    private var ended = false
    private var lastActivity = ContinuousClock.now
    /// Waiting for room (`whenWritable`) and for the end (`onEnded`).
    private var writableWaiters: [@Sendable () -> Void] = []
    private var endedWaiters: [@Sendable () -> Void] = []

    /// Serialises writes to back channels, so arrays go out in order. Taken before `lock`.
    private let pushLock = NSLock()

    init(id: String, kind: Kind, authorization: String?, maxRetainedBytes: Int,
         submit: @escaping @Sendable (@escaping @Sendable () -> Void) -> Bool) {
        self.id = id
        self.kind = kind
        self.authorization = authorization
        self.maxRetainedBytes = maxRetainedBytes
        self.submit = submit
    }

    /// Bytes of arrays kept for the client (not yet acknowledged).
    var retained: Int {
        lock.lock()
        defer { lock.unlock() }
        return retainedBytes
    }

    /// Starts the Listen or Write stream this channel carries.
    func start(state: EmulatorState) {
        switch kind {
        case .listen: inbound = ListenSession.start(state: state, call: self, codec: ListenJSONCodec())
        case .write: inbound = WriteSession.start(state: state, call: self, codec: WriteJSONCodec())
        }
    }

    // MARK: Client → server

    /// Messages of a forward POST, the first numbered `offset`; those already received (a
    /// retried POST) are skipped. Returns the POST's answer.
    func forward(offset: Int, messages: [String], acknowledged aid: Int?) -> [UInt8] {
        lock.lock()
        lastActivity = .now
        if let aid { acknowledgeLocked(aid) }
        let freed = takeWaitersLocked()
        var fresh: [String] = []
        // After the stream ended (an error the client is about to read) nothing more goes in.
        for (i, m) in messages.enumerated() where offset + i > lastMapID && !ended {
            fresh.append(m)
            lastMapID = offset + i
        }
        lock.unlock()
        for w in freed { w() }
        for m in fresh { inbound?.received(Array(m.utf8)) }
        lock.lock()
        defer { lock.unlock() }
        let outstanding = arrays.reduce(0) { $0 + $1.bytes.count }
        return WebChannelWire.forwardAnswer(backChannel: back != nil, lastArrayID: nextArrayID - 1, outstandingBytes: outstanding)
    }

    /// A back-channel GET: the arrays after `aid` go out on `stream`, and later ones as
    /// they come (streaming) or with the first batch, which ends it (long polling). A
    /// back channel still open is ended: the client has given up on it.
    func attach(_ stream: HTTPResponseStream, acknowledged aid: Int, longPoll: Bool) {
        lock.lock()
        let previous = back
        lastActivity = .now
        acknowledgeLocked(aid)
        let freed = takeWaitersLocked()
        writtenUpTo = aid
        back = BackChannel(stream: stream, longPoll: longPoll)
        if !longPoll && !ended && arrays.isEmpty {
            // As the official emulator does: a fresh streaming back channel starts with a
            // noop, so the client sees it working at once.
            appendLocked(WebChannelWire.noopArray(id: nextArrayID))
        }
        lock.unlock()
        for w in freed { w() }
        previous?.stream.finish()
        stream.onClose { [weak self] in self?.detach(stream) }
        push()
    }

    /// The client ended the channel (`TYPE=terminate`), or it expired: the stream stops.
    func terminate() { end(aborting: false) }

    /// An injected reset or dropped answer: the back channel is cut mid-response (its
    /// connection closes, as a dropped network would) and the session ends, so the client's
    /// next request with this SID is answered "Unknown SID" and it opens a new channel —
    /// the SDK's reconnect path.
    func abortConnection() { end(aborting: true) }

    private func end(aborting: Bool) {
        lock.lock()
        let wasEnded = ended
        ended = true
        let channel = back
        back = nil
        arrays = []
        retainedBytes = 0
        let waiters = takeWaitersLocked()
        lock.unlock()
        if aborting {
            onAbort?(id)
            channel?.stream.abort()
        } else {
            channel?.stream.finish()
        }
        for w in waiters { w() }
        if !wasEnded { inbound?.cancelled() }
    }

    /// Set by the service: forgets the session when it is aborted.
    var onAbort: (@Sendable (String) -> Void)?

    /// The callbacks owed once the stream ended or room was freed (run outside the lock).
    private func takeWaitersLocked() -> [@Sendable () -> Void] {
        var out: [@Sendable () -> Void] = []
        if ended || retainedBytes <= maxRetainedBytes {
            out += writableWaiters
            writableWaiters = []
        }
        if ended {
            out += endedWaiters
            endedWaiters = []
        }
        return out
    }

    /// Whether the channel has had no back channel and no request for `idle`.
    func isIdle(for idle: Duration) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return back == nil && ContinuousClock.now - lastActivity > idle
    }

    private func detach(_ stream: HTTPResponseStream) {
        lock.lock()
        if back?.stream === stream {
            back = nil
            lastActivity = .now
        }
        lock.unlock()
    }

    private func acknowledgeLocked(_ aid: Int) {
        var dropped = 0
        while dropped < arrays.count && arrays[dropped].id <= aid { retainedBytes -= arrays[dropped].bytes.count; dropped += 1 }
        if dropped > 0 { arrays.removeFirst(dropped) }
    }

    private func appendLocked(_ array: [UInt8]) {
        arrays.append((nextArrayID, array))
        retainedBytes += array.count
        nextArrayID += 1
    }

    /// Writes the arrays the current back channel has not carried yet.
    private func push() {
        pushLock.lock()
        defer { pushLock.unlock() }
        lock.lock()
        guard let channel = back else { lock.unlock(); return }
        var body: [UInt8] = []
        var payload: [UInt8] = [91]  // "["
        // Written and not yet acknowledged: with what goes now, at most maxRetainedBytes
        // (below the transport's budget for one response) — the rest waits for the client.
        var inFlight = 0
        for a in arrays where a.id <= writtenUpTo { inFlight += a.bytes.count }
        for a in arrays where a.id > writtenUpTo {
            if inFlight > 0 && inFlight + a.bytes.count > maxRetainedBytes { break }
            inFlight += a.bytes.count
            if payload.count > 1 && payload.count + a.bytes.count > Self.maxFrameBytes {
                payload.append(93)
                WebChannelWire.appendFrame(payload, to: &body)
                payload = [91]
            }
            if payload.count > 1 { payload.append(44) }
            payload.append(contentsOf: a.bytes)
            writtenUpTo = a.id
        }
        if payload.count > 1 {
            payload.append(93)
            WebChannelWire.appendFrame(payload, to: &body)
        }
        // A long poll ends with its first batch; any back channel ends after an error.
        let ends = (channel.longPoll && !body.isEmpty) || ended
        if ends { back = nil }
        lock.unlock()
        if !body.isEmpty && !channel.stream.write(body) {
            detach(channel.stream)
            return
        }
        if ends { channel.stream.finish() }
    }

    // MARK: FirestoreStreamCall (the stream's worker)

    var hasEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    func send(_ message: [UInt8]) throws(FirestoreError) {
        lock.lock()
        defer { lock.unlock() }
        guard !ended else { throw FirestoreError(.cancelled, "The channel was closed.") }
        appendLocked(WebChannelWire.dataArray(id: nextArrayID, message: message))
    }

    var isWritable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended || retainedBytes <= maxRetainedBytes
    }

    func whenWritable(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        if ended || retainedBytes <= maxRetainedBytes {
            lock.unlock()
            body()
            return
        }
        writableWaiters.append(body)
        lock.unlock()
    }

    func onEnded(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        if ended {
            lock.unlock()
            body()
            return
        }
        endedWaiters.append(body)
        lock.unlock()
    }

    /// There is no event loop behind a channel: a thread of the pool, or a new one.
    func onEventLoop(_ body: @escaping @Sendable () -> Void) {
        if !submit(body) { _ = ThreadSpawner.spawn(body) }
    }

    func flush() { push() }

    /// An error goes out as `{"error": {"code", "message", "status"}}` (the status name is
    /// what the SDK reads), and the back channel then ends; OK just ends the stream.
    func finish(_ code: FirestoreError.Code, message: String) {
        lock.lock()
        guard !ended else { lock.unlock(); return }
        if code != .ok {
            let error = JSON.object([("error", .object([
                ("code", .int(code.rawValue)), ("message", .string(message)), ("status", .string(code.name)),
            ]))])
            appendLocked(WebChannelWire.dataArray(id: nextArrayID, message: error.bytes))
        }
        ended = true
        let waiters = takeWaitersLocked()
        lock.unlock()
        push()
        for w in waiters { w() }
    }

    /// No event loop behind a channel: short work goes to the pool too, within its bound.
    func runNonBlocking(_ body: @escaping @Sendable () -> Void) -> Bool { runWorker(body) }

    func runWorker(_ body: @escaping @Sendable () -> Void) -> Bool {
        if submit(body) { return true }
        finish(.resourceExhausted, message: "The server is busy: too many calls are waiting for a worker. Retry later.")
        return false
    }
}
