/// Where a request's handler runs.
public enum HandlerPlacement: Sendable {
    /// On the connection's event loop, at once: for handlers that take microseconds and
    /// never wait (a point read). Saves two thread hand-offs; a slow one would delay every
    /// other connection on that loop.
    case inline
    /// On the server's bounded worker pool: for anything that may take long.
    case pool
}
