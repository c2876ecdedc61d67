import Foundation
import HearthTransport
import Synchronization

/// The response side of one gRPC call, safe to use from any thread: response messages
/// (the response headers go out before the first), then exactly one end — trailers with
/// `grpc-status`, or a trailers-only response when nothing was sent. Once the call has
/// ended (finished, deadline passed, stream reset by the client) further sends throw
/// CANCELLED and further ends are ignored, so a handler still running never writes to a
/// dead stream.
///
/// Messages are buffered and leave together — when the buffer passes `flushThreshold`, on
/// `flush()`, and at the end — so a streamed result is a few large DATA frames and socket
/// writes rather than one per message, and a unary answer (headers, message, trailers) is
/// one write. Calls that answer over time (Listen, Write) flush after each batch of work.
public final class GRPCServerCall: Sendable {
    public let stream: HTTP2ServerStream
    /// Request metadata (the HTTP/2 request headers).
    public let request: HTTP2RequestHeaders
    private let progress = Mutex(Progress())

    /// Queued response bytes above which `send` waits for the client to read (flow control
    /// back-pressure for long streams).
    static let maxQueuedBytes = 4 << 20
    /// Buffered message bytes that are handed to the stream without waiting for a flush.
    static let flushThreshold = 32 << 10

    private struct Progress {
        var headersSent = false
        var ended = false
        /// Framed messages not yet handed to the stream.
        var buffer: [UInt8] = []
        /// Registered with `GRPCDeadlines`.
        var watched = false
    }

    init(stream: HTTP2ServerStream, request: HTTP2RequestHeaders) {
        self.stream = stream
        self.request = request
    }

    /// Ends the call with DEADLINE_EXCEEDED when `duration` has passed, unless it has
    /// ended by then.
    func expire(after duration: Duration) {
        let register = progress.withLock { p -> Bool in
            guard !p.ended else { return false }
            p.watched = true
            return true
        }
        if register { GRPCDeadlines.shared.watch(self, for: duration) }
    }

    /// Runs the call's handler on a worker thread (`WorkerPool.calls`: an idle one or a new
    /// one, so calls never wait for each other); RESOURCE_EXHAUSTED when none can start.
    public func runWorker(_ body: @escaping @Sendable () -> Void) {
        if !WorkerPool.calls.run(body) {
            finish(.resourceExhausted, message: "The server could not start a thread for this call.")
        }
    }

    /// Whether the call has ended (answered, expired or reset).
    public var isEnded: Bool { progress.withLock { $0.ended } }

    /// Queues one response message (sent at the latest by the next `flush` or the end).
    public func send(_ message: [UInt8]) throws(GRPCStatus) {
        while stream.queuedBytes > Self.maxQueuedBytes && !isEnded && stream.isOpen {
            usleep(1000)
        }
        let sent = progress.withLock { p -> Bool in
            guard !p.ended else { return false }
            GRPCMessageWriter.frame(message, into: &p.buffer)
            return p.buffer.count < Self.flushThreshold || Self.write(&p, to: stream, trailers: nil)
        }
        if !sent { throw GRPCStatus(.cancelled, "The call was cancelled.") }
    }

    /// Hands the buffered messages to the stream.
    public func flush() {
        progress.withLock { p in
            guard !p.ended, !p.buffer.isEmpty else { return }
            _ = Self.write(&p, to: stream, trailers: nil)
        }
    }

    /// Ends the call with a status (no-op when it has already ended).
    public func finish(_ code: GRPCStatus.Code, message: String = "") {
        let watched = progress.withLock { p -> Bool in
            guard !p.ended else { return false }
            if p.headersSent || !p.buffer.isEmpty {
                _ = Self.write(&p, to: stream, trailers: GRPCStatus.trailers(code, message: message))
            } else {
                try? stream.sendHeaders(GRPCStatus.trailersOnly(code, message: message), endStream: true)
            }
            p.ended = true
            return p.watched
        }
        if watched { GRPCDeadlines.shared.forget(self) }
    }

    /// Ends the call with an error's code and message.
    public func finish(_ status: GRPCStatus) { finish(status.code, message: status.message) }

    /// The client reset the stream: nothing more is sent.
    func cancel() {
        let watched = progress.withLock { p -> Bool in
            defer { p.ended = true }
            return !p.ended && p.watched
        }
        if watched { GRPCDeadlines.shared.forget(self) }
    }

    /// Writes the headers (the first time), the buffer and optionally the trailers in one
    /// step; false (and the call ended) when the stream is gone.
    private static func write(_ p: inout Progress, to stream: HTTP2ServerStream, trailers: [HTTP2Header]?) -> Bool {
        do {
            try stream.send(headers: p.headersSent ? nil : GRPCStatus.responseHeaders, data: p.buffer, trailers: trailers)
            p.headersSent = true
            p.buffer.removeAll(keepingCapacity: true)
            return true
        } catch {
            p.ended = true
            return false
        }
    }
}
