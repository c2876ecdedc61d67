/// Counts one kind of frame per fixed time window, for the connection's rate limits
/// (RST_STREAM, SETTINGS, PING). A fixed window lets a client send up to twice the limit
/// across a window boundary; that is still a bound, and it costs two integers.
struct HTTP2RateCounter: Sendable {
    private var windowStart: Int64 = 0
    private var n = 0

    /// Counts one frame at `now` and returns the count in the current window.
    mutating func count(at now: Int64, window: Int64) -> Int {
        if now - windowStart >= window {
            windowStart = now
            n = 0
        }
        n += 1
        return n
    }
}
