/// Where a request's handler runs.
public enum HandlerPlacement: Sendable {
    /// On the connection's event loop, at once: for handlers that take microseconds and
    /// never wait (a point read). Saves two thread hand-offs; a slow one would delay every
    /// other connection on that loop.
    case inline
    /// On the server's bounded worker pool: for anything that may take long.
    case pool
}

/// How one HTTP/1.1 request is answered: where its handler runs and the handler. A router
/// decides both from one reading of the request (a parsed path serves the placement and
/// the handler), so what the placement looked at is never read twice.
public struct HTTPRoute: Sendable {
    public var placement: HandlerPlacement
    public var respond: @Sendable (HTTPRequest) -> HTTPResponse

    public init(_ placement: HandlerPlacement, _ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.placement = placement
        self.respond = respond
    }
}
