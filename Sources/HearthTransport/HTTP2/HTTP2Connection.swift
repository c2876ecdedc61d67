#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Drives one HTTP/2 connection over a socket: a reader loop on the calling thread feeds
/// the `HTTP2ConnectionState`, dispatches its events to the `HTTP2StreamHandler`, and
/// writes what the state machine queued. Responders on other threads go through
/// `perform`, which locks the state, then flushes.
///
/// Writes are ordered: bytes are appended to the state's outbox under the state lock and
/// drained FIFO under a separate writer lock, so a slow socket never holds up the state.
///
/// The socket is closed only through `closeSocket()`, which waits out a write in progress;
/// writes and `shutdownSocket()` check that it is still open, so no thread ever touches the
/// descriptor after it was closed (when the system may have reused it for another socket).
final class HTTP2Connection: Sendable {
    let socket: Int32
    private let state: Mutex<HTTP2ConnectionState>
    private let writer = Mutex<Void>(())
    private let socketClosed = Mutex(false)
    private let handler: any HTTP2StreamHandler
    /// How long a connection may stay idle (no bytes from the client) before it is closed.
    let idleTimeout: Double

    init(socket: Int32, handler: any HTTP2StreamHandler, config: HTTP2ConnectionState.Configuration = .init(), idleTimeout: Double = 3600) {
        self.socket = socket
        self.handler = handler
        self.state = Mutex(HTTP2ConnectionState(config: config))
        self.idleTimeout = idleTimeout
    }

    /// Runs a state change from a responder, then writes what it produced.
    func perform<R, E: Error>(_ body: (inout HTTP2ConnectionState) throws(E) -> R) throws(E) -> R {
        let result = try state.withLock { (s: inout HTTP2ConnectionState) throws(E) -> R in try body(&s) }
        flushOutbox()
        return result
    }

    /// Reads the state without changing it.
    func read<R>(_ body: (HTTP2ConnectionState) -> R) -> R {
        state.withLock { body($0) }
    }

    /// Graceful shutdown: GOAWAY(NO_ERROR); the reader loop closes once streams finish.
    func goAway() {
        perform { (s: inout HTTP2ConnectionState) in s.goAway() }
        let finished = read { $0.isFinished }
        if finished { shutdownSocket() }
    }

    /// Ends both directions of the socket (the reader loop then ends), unless it is closed.
    func shutdownSocket() {
        socketClosed.withLock { closed in if !closed { Socket.shutdownBoth(socket) } }
    }

    /// Closes the socket once no write is in progress; later writes and shutdowns do nothing.
    func closeSocket() {
        writer.withLock { _ in
            socketClosed.withLock { closed in
                if !closed { Socket.closeSocket(socket) }
                closed = true
            }
        }
    }

    /// Drains the outbox to the socket, in order. False when the socket failed.
    @discardableResult
    private func flushOutbox() -> Bool {
        writer.withLock { _ in
            // `closeSocket` needs the writer lock, so the socket stays open while we hold it.
            if socketClosed.withLock({ $0 }) { return false }
            while true {
                let chunk = state.withLock { $0.takeOutbox() }
                if chunk.isEmpty { return true }
                if !Socket.sendAll(socket, chunk) { return false }
            }
        }
    }

    /// The reader loop; returns when the connection is over (the caller closes the socket).
    func run(initialBytes: [UInt8]) {
        var receivers: [UInt32: any HTTP2RequestBodyReceiver] = [:]
        var events = state.withLock { $0.receive(initialBytes) }
        flushOutbox()
        dispatch(events, receivers: &receivers)
        let chunkSize = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            if !flushOutbox() { break }
            if read({ $0.isFinished }) { break }
            guard Socket.waitReadable(socket, timeout: idleTimeout) else { break }
            let n = Socket.receive(socket, into: buffer, count: chunkSize)
            if n <= 0 { break }
            events = state.withLock { $0.receive(UnsafeRawBufferPointer(start: buffer, count: n)) }
            flushOutbox()
            dispatch(events, receivers: &receivers)
        }
        flushOutbox()
        events = state.withLock { $0.peerDisconnected() }
        dispatch(events, receivers: &receivers)
        for (_, r) in receivers { r.reset(.cancel) }
    }

    private func dispatch(_ events: [HTTP2ConnectionState.Event], receivers: inout [UInt32: any HTTP2RequestBodyReceiver]) {
        for event in events {
            switch event {
            case .streamOpened(let id, let request, let endStream):
                let stream = HTTP2ServerStream(id: id, request: request, connection: self)
                let receiver = handler.open(stream, request: request, endStream: endStream)
                if endStream { receiver.received([], endStream: true) } else { receivers[id] = receiver }
            case .data(let id, let bytes, let endStream):
                guard let receiver = receivers[id] else { continue }
                if endStream { receivers[id] = nil }
                receiver.received(bytes, endStream: endStream)
            case .streamReset(let id, let code):
                receivers.removeValue(forKey: id)?.reset(code)
            }
        }
    }
}
