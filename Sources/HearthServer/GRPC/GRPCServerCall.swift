import Foundation
import HearthCore
import Synchronization

/// The response side of one gRPC call, safe to use from any thread: response messages
/// (the response headers go out before the first), then exactly one end — trailers with
/// `grpc-status`, or a trailers-only response when nothing was sent. Once the call has
/// ended (finished, deadline passed, stream reset by the client) further sends throw
/// CANCELLED and further ends are ignored, so a handler still running never writes to a
/// dead stream.
final class GRPCServerCall: Sendable {
    let stream: HTTP2ServerStream
    /// Request metadata (the HTTP/2 request headers).
    let request: HTTP2RequestHeaders
    private let progress = Mutex(Progress())

    /// Queued response bytes above which `send` waits for the client to read (flow control
    /// back-pressure for long streams).
    static let maxQueuedBytes = 4 << 20

    private struct Progress {
        var headersSent = false
        var ended = false
    }

    init(stream: HTTP2ServerStream, request: HTTP2RequestHeaders) {
        self.stream = stream
        self.request = request
    }

    /// Whether the call has ended (answered, expired or reset).
    var isEnded: Bool { progress.withLock { $0.ended } }

    /// Sends one response message.
    func send(_ message: [UInt8]) throws(FirestoreError) {
        while stream.queuedBytes > Self.maxQueuedBytes && !isEnded && stream.isOpen {
            usleep(1000)
        }
        let sent = progress.withLock { p -> Bool in
            guard !p.ended else { return false }
            do {
                if !p.headersSent {
                    try stream.sendHeaders(GRPCStatus.responseHeaders)
                    p.headersSent = true
                }
                try stream.sendData(GRPCMessageWriter.frame(message))
                return true
            } catch {
                p.ended = true
                return false
            }
        }
        if !sent { throw FirestoreError(.cancelled, "The call was cancelled.") }
    }

    /// Ends the call with a status (no-op when it has already ended).
    func finish(_ code: FirestoreError.Code, message: String = "") {
        progress.withLock { p in
            guard !p.ended else { return }
            p.ended = true
            if p.headersSent {
                try? stream.sendTrailers(GRPCStatus.trailers(code, message: message))
            } else {
                try? stream.sendHeaders(GRPCStatus.trailersOnly(code, message: message), endStream: true)
            }
        }
    }

    /// Ends the call with an error's code and message.
    func finish(_ error: FirestoreError) { finish(error.code, message: error.message) }

    /// The client reset the stream: nothing more is sent.
    func cancel() { progress.withLock { $0.ended = true } }
}
