/// Size and time limits of the HTTP/1.1 front end (issue 7: headers ≤ 64 KiB,
/// bodies ≤ 32 MiB, idle and header timeouts for slow clients).
public struct HTTPLimits: Sendable {
    /// Request line plus headers, in bytes.
    public var maxHeaderBytes: Int = 64 * 1024
    /// Decoded body, in bytes.
    public var maxBodyBytes: Int = 32 * 1024 * 1024
    /// A keep-alive connection with no request in progress is closed after this long.
    public var idleTimeout: Double = 300
    /// A request whose head (request line + headers) is not complete this long after its
    /// first byte gets 408 and the connection is closed.
    public var headerTimeout: Double = 10
    /// A request whose body stalls (no byte arrives) this long gets 408.
    public var bodyTimeout: Double = 30
    /// A client that does not read its responses for this long is disconnected.
    public var sendTimeout: Double = 30
    /// Bytes a streamed response (`HTTPResponse.stream`) may have queued and not yet sent;
    /// a write past this closes the stream, so a client that stops reading costs bounded
    /// memory.
    public var streamWriteBudget: Int = 32 * 1024 * 1024

    public init() {}
}
