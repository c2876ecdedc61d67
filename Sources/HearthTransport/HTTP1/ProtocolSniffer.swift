/// Decides from the first bytes of a connection which protocol it speaks (wire-protocol
/// §1): the 24-byte HTTP/2 client preface means gRPC over cleartext HTTP/2 (prior
/// knowledge); anything else is HTTP/1.1.
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

/// Where an HTTP/2 connection goes once the sniffer has seen the preface (`HTTP2Server`).
/// A server built without one answers such a connection with GOAWAY(HTTP_1_1_REQUIRED).
public protocol HTTP2ConnectionHandler: Sendable {
    /// Takes over the socket; `initialBytes` are those already read (the preface and more).
    /// The handler owns `socket` and must close it.
    func serve(socket: Int32, initialBytes: [UInt8])
}
