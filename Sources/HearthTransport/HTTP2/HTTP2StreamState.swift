/// What the connection keeps per open stream (RFC 9113 §5.1): which halves are closed,
/// both flow-control windows, and the response items waiting to be written (DATA waits
/// for window; HEADERS wait behind earlier DATA so trailers stay last).
struct HTTP2StreamState: Sendable {
    enum Outbound: Sendable {
        case headers([HTTP2Header], endStream: Bool)
        case data([UInt8], endStream: Bool)
    }

    let id: UInt32
    /// The peer has sent END_STREAM.
    var remoteClosed = false
    /// We have queued END_STREAM (no more response items may be queued).
    var localEndQueued = false
    /// We have written END_STREAM.
    var localClosed = false
    /// How much more we may send (can go negative after a SETTINGS change, §6.9.2).
    var sendWindow: Int
    /// How much more the peer may send before we replenish.
    var receiveWindow: Int
    /// Received bytes the application has consumed and whose window is not yet returned
    /// (when the window follows consumption).
    var consumedUnreturned = 0
    /// Response headers have been queued (so a later HEADERS is trailers).
    var responseHeadersQueued = false
    var pending: [Outbound] = []
    /// Index into the first pending DATA item already written (partial frames).
    var pendingOffset = 0
    /// The stream is in its connection's queue of streams with output (`sendQueue`).
    var inSendQueue = false

    init(id: UInt32, sendWindow: Int, receiveWindow: Int) {
        self.id = id
        self.sendWindow = sendWindow
        self.receiveWindow = receiveWindow
    }

    /// Response bytes queued but not yet written.
    var queuedBytes: Int {
        var n = 0
        for item in pending { if case .data(let d, _) = item { n += d.count } }
        return n - pendingOffset
    }
}
