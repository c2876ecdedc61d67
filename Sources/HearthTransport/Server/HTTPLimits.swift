/// The server's budgets: sizes, counts, rates and deadlines, each with a default a laptop
/// can hold (`hearth serve` has a flag for each; docs/server.md lists them). Every budget
/// is enforced by the transport, whatever protocol a connection speaks.
public struct HTTPLimits: Sendable {
    // MARK: Requests

    /// HTTP/1.1 request line plus headers, in bytes.
    public var maxHeaderBytes: Int = 64 * 1024
    /// HTTP/1.1 decoded request body, in bytes.
    public var maxBodyBytes: Int = 32 * 1024 * 1024

    // MARK: Deadlines (seconds)

    /// A connection with nothing in progress (HTTP/1.1 keep-alive between requests, HTTP/2
    /// with no open stream) is closed after this long.
    public var idleTimeout: Double = 300
    /// A request head (HTTP/1.1), the HTTP/2 preface, any partial HTTP/2 frame and any
    /// header block awaiting CONTINUATION must be complete this long after it started
    /// (HTTP/1.1: 408 and close; HTTP/2: GOAWAY and close).
    public var headerTimeout: Double = 10
    /// An HTTP/1.1 request body must be complete this long after its head's deadline
    /// (a request has `headerTimeout + bodyTimeout` from its first byte); a unary gRPC
    /// call's request message likewise, from the stream's opening.
    public var bodyTimeout: Double = 30
    /// Queued output that makes no progress for this long (the client does not read)
    /// closes the connection — never half-written.
    public var sendTimeout: Double = 30

    // MARK: Counts and buffers

    /// Open connections; a connection past this is closed as soon as it is accepted.
    public var maxConnections: Int = 4096
    /// HTTP/2 streams open at once on one connection (announced in SETTINGS; more are
    /// refused with RST_STREAM REFUSED_STREAM).
    public var maxConcurrentStreams: Int = 1000
    /// Bytes one HTTP/2 stream may have buffered: its receive window (request bytes sent
    /// and not yet consumed) and the answer bytes queued before its producer waits.
    public var maxStreamBuffer: Int = 4 * 1024 * 1024
    /// Bytes one connection may hold (request bytes received and not consumed, answers
    /// queued and not read); past it the server stops reading from that connection until
    /// the client reads.
    public var maxConnectionBuffer: Int = 64 * 1024 * 1024
    /// Bytes all connections together may hold; past it, connections that hold any stop
    /// reading until the total is back under three quarters.
    public var maxTotalBuffer: Int = 512 * 1024 * 1024
    /// Bytes a streamed HTTP/1.1 answer (`HTTPResponse.stream`) may have queued and not yet
    /// sent; a write past this closes the stream.
    public var streamWriteBudget: Int = 8 * 1024 * 1024

    // MARK: HTTP/2 frame rates (per 10 seconds; past them: GOAWAY ENHANCE_YOUR_CALM)

    /// Streams the client resets before the server has begun answering them (the "rapid
    /// reset" attack); cancelling a stream being answered (a listener) is not counted.
    public var maxResetsPer10s: Int = 200
    /// PINGs while the server sends nothing (a HEADERS or DATA frame sent starts the count
    /// again: clients such as grpc-java ping throughout a busy stream to size windows).
    public var maxPingsPer10s: Int = 100
    public var maxSettingsPer10s: Int = 100

    // MARK: Threads

    /// Event-loop threads (0: one per core).
    public var eventLoops: Int = 0
    /// Worker threads for handlers that may take long (0: `WorkerPool.defaultThreadCount`).
    public var workerThreads: Int = 0
    /// Jobs that may wait for a worker; past it a request is answered "busy"
    /// (HTTP 503, gRPC RESOURCE_EXHAUSTED).
    public var maxQueuedJobs: Int = 4096

    public init() {}
}
