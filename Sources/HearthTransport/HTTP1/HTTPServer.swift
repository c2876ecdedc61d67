#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The HTTP/1.1 server: a listening socket, an accept thread and one thread per connection.
/// Each connection reads requests, answers them strictly in order (pipelining) and keeps the
/// connection alive; the first bytes of a connection are sniffed for the HTTP/2 preface.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public let host: String
    /// The bound port (the ephemeral one when started with port 0).
    public let port: Int
    let limits: HTTPLimits
    private let handler: Handler
    private let http2: (any HTTP2ConnectionHandler)?
    private let listenFD: Int32
    private let state = Mutex<State>(State())
    private let stoppedSignal = Mutex<[@Sendable () -> Void]>([])

    private struct State {
        var running = true
        var connections: Set<Int32> = []
        var acceptLoopDone = false
    }

    /// Binds and starts accepting. Throws when the address cannot be bound.
    public init(host: String, port: Int, limits: HTTPLimits = HTTPLimits(),
                http2: (any HTTP2ConnectionHandler)? = nil, handler: @escaping Handler) throws {
        let (fd, bound) = try Socket.listen(host: host, port: port)
        self.host = host
        self.port = bound
        self.limits = limits
        self.handler = handler
        self.http2 = http2
        self.listenFD = fd
        ThreadSpawner.spawn(stackSize: 256 * 1024) { [self] in acceptLoop() }
    }

    /// Number of open client connections.
    public var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Stops accepting, disconnects every client. Idempotent.
    public func stop() {
        // Connections are shut down under the lock: a connection's thread removes its
        // descriptor under the same lock before closing it, so none is touched after it was
        // closed (and perhaps reused for another socket).
        let stopping = state.withLock { s -> Bool in
            guard s.running else { return false }
            s.running = false
            for fd in s.connections { Socket.shutdownBoth(fd) }
            return true
        }
        guard stopping else { return }
        Socket.shutdownBoth(listenFD)
        Socket.closeSocket(listenFD)
        let callbacks = stoppedSignal.withLock { cbs -> [@Sendable () -> Void] in
            let c = cbs
            cbs = []
            return c
        }
        for cb in callbacks { cb() }
    }

    public var isRunning: Bool { state.withLock { $0.running } }

    /// Calls `body` once the server stops (immediately if it already has).
    public func onStop(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s in !s.running }
        if runNow { body(); return }
        stoppedSignal.withLock { $0.append(body) }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE {
                    // Out of descriptors: back off instead of spinning.
                    usleep(10_000)
                    if isRunning { continue }
                }
                break
            }
            let accepted = state.withLock { s -> Bool in
                guard s.running else { return false }
                s.connections.insert(fd)
                return true
            }
            guard accepted else { Socket.closeSocket(fd); break }
            Socket.configureAccepted(fd, sendTimeout: limits.sendTimeout)
            if !ThreadSpawner.spawn({ [self] in serveConnection(fd) }) {
                state.withLock { _ = $0.connections.remove(fd) }
                Socket.closeSocket(fd)
            }
        }
    }

    /// Sends a streamed response's head and then its body as its producer writes it, until
    /// it finishes (true: the connection may go on) or closes (false: budget passed, client
    /// gone, server stopping). Meanwhile the connection thread waits on the socket (to notice
    /// the client leaving; bytes of a next request are kept for later) and on the stream's
    /// wake-up pipe. The head leaves with whatever the producer wrote at once, in one send:
    /// clients that time the first byte (WebChannel's buffering-proxy detection) see it
    /// sooner.
    private func serveStream(_ produce: @Sendable (HTTPResponseStream) -> Void, head: [UInt8], afterHead: [@Sendable () -> Void],
                             fd: Int32, chunked: Bool, parser: inout HTTPRequestParser) -> Bool {
        guard let wakeup = StreamWakeup() else { return false }
        let stream = HTTPResponseStream(budget: limits.streamWriteBudget, chunked: chunked) { wakeup.signal() }
        defer {
            stream.close()
            wakeup.closeDescriptors()
        }
        produce(stream)
        var unsentHead = head
        var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)
        // A client may send its next request while this body runs; past one request head's
        // worth of such bytes, the socket is only watched for hang-ups.
        var pipelined = 0
        while true {
            let pending = stream.take()
            if pending.closed { return false }
            if !unsentHead.isEmpty {
                let ok = Socket.sendAll(fd, unsentHead + pending.bytes)
                unsentHead = []
                for a in afterHead { a() }
                if !ok { return false }
            } else if !pending.bytes.isEmpty && !Socket.sendAll(fd, pending.bytes) {
                return false
            }
            if pending.finished {
                // An HTTP/1.0 body ends with the connection.
                return chunked && Socket.sendAll(fd, Array("0\r\n\r\n".utf8))
            }
            if !isRunning { return false }
            let readable = pipelined <= limits.maxHeaderBytes
            var fds = [pollfd(fd: wakeup.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: fd, events: readable ? Int16(POLLIN) : 0, revents: 0)]
            let rc = poll(&fds, 2, 1000)
            if rc < 0 && errno != EINTR { return false }
            if fds[0].revents != 0 { wakeup.clear() }
            let socketEvents = Int32(fds[1].revents)
            if socketEvents & Int32(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
            if socketEvents & Int32(POLLIN) != 0 {
                let n = readBuffer.withUnsafeMutableBytes { Socket.receive(fd, into: $0.baseAddress!, count: $0.count) }
                if n <= 0 { return false }
                parser.append(Array(readBuffer[0..<n]))
                pipelined += n
            }
        }
    }

    private func serveConnection(_ fd: Int32) {
        var handedOff = false
        defer {
            state.withLock { s in
                s.connections.remove(fd)
                if !handedOff { Socket.closeSocket(fd) }
            }
        }
        var parser = HTTPRequestParser(limits: limits)
        let chunkSize = 64 * 1024
        let readBuffer = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { readBuffer.deallocate() }
        var sniffed = false
        var sniffBytes: [UInt8] = []
        var output: [UInt8] = []
        var requestStarted = ContinuousClock.now
        var wasIdle = true

        while true {
            // Answer every request already buffered, in order, then flush once.
            var close = false
            var after: [@Sendable () -> Void] = []
            parse: while true {
                switch parser.next() {
                case .needMore:
                    break parse
                case .sendContinue:
                    output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
                case .request(let request):
                    var response = handler(request)
                    let keepAlive = request.keepAlive && !response.closeConnection && isRunning
                    if let a = response.afterWrite { after.append(a); response.afterWrite = nil }
                    if let produce = response.stream {
                        // Everything before it goes out with the head (and the body's first
                        // bytes); the body then holds the connection until it ends.
                        let chunked = request.minorVersion >= 1
                        response.serializeStreamHead(into: &output, chunked: chunked, keepAlive: keepAlive)
                        let head = output
                        output.removeAll(keepingCapacity: true)
                        let ended = serveStream(produce, head: head, afterHead: after, fd: fd, chunked: chunked, parser: &parser)
                        after = []
                        guard ended, keepAlive else { return }
                        continue parse
                    }
                    response.serialize(into: &output, keepAlive: keepAlive)
                    if !keepAlive { close = true; break parse }
                case .failure(let status, let message):
                    HTTPResponse.text(status, message + "\n").serialize(into: &output, keepAlive: false)
                    close = true
                    break parse
                }
            }
            if !output.isEmpty {
                let ok = Socket.sendAll(fd, output)
                output.removeAll(keepingCapacity: true)
                for a in after { a() }
                if !ok { return }
            }
            if close || !isRunning { return }

            // Wait for more bytes, with the timeout that fits where the request stands.
            if parser.isIdle { wasIdle = true } else if wasIdle { wasIdle = false; requestStarted = .now }
            let timeout: Double
            if parser.isIdle {
                timeout = limits.idleTimeout
            } else if parser.isReadingHead {
                let elapsed = ContinuousClock.now - requestStarted
                timeout = limits.headerTimeout - Double(elapsed.components.seconds) - Double(elapsed.components.attoseconds) / 1e18
            } else {
                timeout = limits.bodyTimeout
            }
            if timeout <= 0 || !Socket.waitReadable(fd, timeout: timeout) {
                if !parser.isIdle {
                    var out: [UInt8] = []
                    HTTPResponse.text(408, "Request timeout: the request was not received in time.\n").serialize(into: &out, keepAlive: false)
                    _ = Socket.sendAll(fd, out)
                }
                return
            }
            let n = Socket.receive(fd, into: readBuffer, count: chunkSize)
            if n <= 0 { return }
            let bytes = UnsafeRawBufferPointer(start: readBuffer, count: n)
            if !sniffed {
                sniffBytes.append(contentsOf: bytes)
                let verdict = sniffBytes.withUnsafeBytes { ProtocolSniffer.detect($0) }
                switch verdict {
                case .undecided:
                    continue
                case .http2:
                    if let http2 {
                        handedOff = true
                        state.withLock { _ = $0.connections.remove(fd) }
                        http2.serve(socket: fd, initialBytes: sniffBytes)
                        return
                    }
                    // A server without an HTTP/2 front end says so in HTTP/2's own terms.
                    _ = Socket.sendAll(fd, HTTP2FrameSerializer.serialize(HTTP2Frame(streamID: 0, flags: [], payload: .goAway(
                        lastStreamID: 0, error: .http11Required, debugData: Array("This server speaks HTTP/1.1 only.".utf8)))))
                    return
                case .http1:
                    sniffed = true
                    parser.append(sniffBytes)
                    sniffBytes = []
                }
            } else {
                parser.append(bytes)
            }
        }
    }
}
