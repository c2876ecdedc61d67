import HearthTransport

/// The `hearth serve` flags for the server's budgets (`HTTPLimits`): one row per flag,
/// parsed and documented from the same table. Each flag is spelled as its field.
enum ServerLimitFlags {
    private enum Kind { case count, size, seconds }

    private struct Flag: Sendable {
        let name: String
        let kind: Kind
        let help: String
        let apply: @Sendable (inout HTTPLimits, Double) -> Void
        let current: @Sendable (HTTPLimits) -> Double
    }

    private static let flags: [Flag] = [
        Flag(name: "--max-connections", kind: .count, help: "open connections; more are closed as accepted",
             apply: { $0.maxConnections = Int($1) }, current: { Double($0.maxConnections) }),
        Flag(name: "--max-concurrent-streams", kind: .count, help: "HTTP/2 streams open at once per connection",
             apply: { $0.maxConcurrentStreams = Int($1) }, current: { Double($0.maxConcurrentStreams) }),
        Flag(name: "--max-stream-buffer", kind: .size, help: "a stream's receive window and its unread answers",
             apply: { $0.maxStreamBuffer = Int($1) }, current: { Double($0.maxStreamBuffer) }),
        Flag(name: "--max-connection-buffer", kind: .size, help: "bytes one connection may hold; past it, it is not read",
             apply: { $0.maxConnectionBuffer = Int($1) }, current: { Double($0.maxConnectionBuffer) }),
        Flag(name: "--max-total-buffer", kind: .size, help: "bytes all connections may hold together",
             apply: { $0.maxTotalBuffer = Int($1) }, current: { Double($0.maxTotalBuffer) }),
        Flag(name: "--max-header-bytes", kind: .size, help: "an HTTP/1.1 request head; past it 431",
             apply: { $0.maxHeaderBytes = Int($1) }, current: { Double($0.maxHeaderBytes) }),
        Flag(name: "--max-body-bytes", kind: .size, help: "an HTTP/1.1 request body; past it 413",
             apply: { $0.maxBodyBytes = Int($1) }, current: { Double($0.maxBodyBytes) }),
        Flag(name: "--max-resets-per-10s", kind: .count, help: "HTTP/2 streams a client may reset per 10 s (rapid reset)",
             apply: { $0.maxResetsPer10s = Int($1) }, current: { Double($0.maxResetsPer10s) }),
        Flag(name: "--max-pings-per-10s", kind: .count, help: "HTTP/2 PINGs per 10 s",
             apply: { $0.maxPingsPer10s = Int($1) }, current: { Double($0.maxPingsPer10s) }),
        Flag(name: "--max-settings-per-10s", kind: .count, help: "HTTP/2 SETTINGS frames per 10 s",
             apply: { $0.maxSettingsPer10s = Int($1) }, current: { Double($0.maxSettingsPer10s) }),
        Flag(name: "--header-timeout", kind: .seconds, help: "a request head, HTTP/2 preface or partial frame",
             apply: { $0.headerTimeout = $1 }, current: { $0.headerTimeout }),
        Flag(name: "--body-timeout", kind: .seconds, help: "a request body, after the head's time",
             apply: { $0.bodyTimeout = $1 }, current: { $0.bodyTimeout }),
        Flag(name: "--idle-timeout", kind: .seconds, help: "a connection with nothing in progress",
             apply: { $0.idleTimeout = $1 }, current: { $0.idleTimeout }),
        Flag(name: "--send-timeout", kind: .seconds, help: "answers the client does not read",
             apply: { $0.sendTimeout = $1 }, current: { $0.sendTimeout }),
        Flag(name: "--event-loops", kind: .count, help: "event-loop threads, one per core",
             apply: { $0.eventLoops = Int($1) }, current: { _ in Double(EventLoopGroup.defaultLoopCount) }),
        Flag(name: "--worker-threads", kind: .count, help: "worker threads for long calls, 2 per core, at least 4",
             apply: { $0.workerThreads = Int($1) }, current: { _ in Double(WorkerPool.defaultThreadCount) }),
        Flag(name: "--max-queued-jobs", kind: .count, help: "calls waiting for a worker; more are answered busy",
             apply: { $0.maxQueuedJobs = Int($1) }, current: { Double($0.maxQueuedJobs) }),
    ]

    /// Whether `flag` is one of these.
    static func handles(_ flag: String) -> Bool { flags.contains { $0.name == flag } }

    /// Applies `flag value`; the error message when the value does not fit.
    static func apply(_ flag: String, _ value: String, to limits: inout HTTPLimits) -> String? {
        guard let f = flags.first(where: { $0.name == flag }) else { return "unknown flag '\(flag)'" }
        switch f.kind {
        case .count:
            guard let n = Int(value), n > 0 else { return "\(flag) must be a positive whole number, got '\(value)'" }
            f.apply(&limits, Double(n))
        case .size:
            guard let n = ByteSize.parse(value), n > 0 else { return "\(flag) must be a size (bytes, or with K, M or G), got '\(value)'" }
            f.apply(&limits, Double(n))
        case .seconds:
            guard let s = Double(value), s > 0, s.isFinite else { return "\(flag) must be a positive number of seconds, got '\(value)'" }
            f.apply(&limits, s)
        }
        return nil
    }

    /// The flags' lines for `--help`, with each default.
    static var usage: String {
        let defaults = HTTPLimits()
        return flags.map { f in
            let value = f.current(defaults)
            let shown: String
            switch f.kind {
            case .count: shown = String(Int(value))
            case .size: shown = Int(value) % (1 << 20) == 0 ? "\(Int(value) >> 20)MiB" : "\(Int(value) >> 10)KiB"
            case .seconds: shown = value == value.rounded() ? "\(Int(value))s" : "\(value)s"
            }
            return "  " + (f.name + " ").padding(toLength: 27, withPad: " ", startingAt: 0) + f.help + " (default \(shown))"
        }.joined(separator: "\n")
    }
}
