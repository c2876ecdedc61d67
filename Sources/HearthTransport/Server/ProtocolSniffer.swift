/// Decides from the first bytes of a connection which protocol it speaks: the 24-byte
/// HTTP/2 client preface means HTTP/2 with prior knowledge (how gRPC clients connect over
/// cleartext); anything else is HTTP/1.1.
enum ProtocolSniffer {
    enum Verdict: Equatable {
        case http1
        case http2
        /// Too few bytes to tell yet (a prefix of the preface).
        case undecided
    }

    static let http2Preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    static func detect(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        let n = min(bytes.count, http2Preface.count)
        for i in 0..<n where bytes[i] != http2Preface[i] { return .http1 }
        return bytes.count >= http2Preface.count ? .http2 : .undecided
    }
}

/// A new connection's first handler: it reads until the sniffer can tell the protocol,
/// then hands the connection (and the bytes so far) to HTTP/1.1 or HTTP/2. A server
/// without an HTTP/2 front end answers the preface with GOAWAY(HTTP_1_1_REQUIRED). A
/// connection that sends nothing is closed after `idleTimeout`; one that stops inside the
/// preface after `headerTimeout`.
final class ProtocolSniffingHandler: ConnectionHandler {
    let connection: Connection
    private let server: ServerContext
    private var bytes: [UInt8] = []

    init(connection: Connection, server: ServerContext) {
        self.connection = connection
        self.server = server
        connection.setDeadline(Monotonic.now() + Monotonic.nanoseconds(server.limits.idleTimeout))
    }

    func received(_ input: UnsafeRawBufferPointer) {
        let verdict: ProtocolSniffer.Verdict
        if bytes.isEmpty {
            verdict = ProtocolSniffer.detect(input)
            if verdict != .undecided { handOff(verdict, input); return }
        } else {
            bytes.append(contentsOf: input)
            verdict = bytes.withUnsafeBytes { ProtocolSniffer.detect($0) }
            if verdict != .undecided { bytes.withUnsafeBytes { handOff(verdict, $0) }; return }
        }
        if bytes.isEmpty { bytes.append(contentsOf: input) }
        connection.setDeadline(Monotonic.now() + Monotonic.nanoseconds(server.limits.headerTimeout))
    }

    private func handOff(_ verdict: ProtocolSniffer.Verdict, _ input: UnsafeRawBufferPointer) {
        let next: ConnectionHandler
        switch verdict {
        case .http2:
            guard let streams = server.http2 else {
                connection.write(HTTP2FrameSerializer.serialize(HTTP2Frame(streamID: 0, flags: [], payload: .goAway(
                    lastStreamID: 0, error: .http11Required, debugData: Array("This server speaks HTTP/1.1 only.".utf8)))))
                connection.closeAfterFlush()
                return
            }
            next = HTTP2Connection(connection: connection, handler: streams, limits: server.limits, workers: server.pool)
        case .http1, .undecided:
            next = HTTP1Connection(connection: connection, app: server.http1)
        }
        connection.handler = next
        next.received(input)
    }

    func inputEnded() { connection.close() }
    func writable() {}
    func deadlinePassed() { connection.close() }
    func serverStopping() { connection.close() }
    func closed() {}
}
