import Foundation

/// The FIFO between a stream session's producers (the connection's event loop with request
/// messages; for Listen, the engine's snapshot sinks) and the session's work, which runs
/// one batch at a time on the worker pool — a session costs a thread only while it has
/// something to do, so a thousand open Listen streams hold no threads.
///
/// `append` says when the consumer is idle and must be scheduled; `take` hands over
/// everything queued, or marks the consumer idle when nothing is. Between the two, the
/// consumer is "running" (even while paused for a slow client), so it is scheduled at most
/// once at a time.
public final class GRPCMailbox<Event>: @unchecked Sendable {
    private struct State {
        var events: [Event] = []
        var running = false
    }

    private let lock = NSLock()
    /// Guarded by `lock` (a `Mutex` cannot hold events that are not `Sendable`).
    private var state = State()

    private func withLock<R>(_ body: (inout State) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    public init() {}

    /// Queues `event`; true when the consumer was idle and the caller must schedule it.
    public func append(_ event: Event) -> Bool {
        withLock { s in
            s.events.append(event)
            guard !s.running else { return false }
            s.running = true
            return true
        }
    }

    /// Queues `event`; when `limit` events are already waiting (a client that does not read
    /// holds the consumer up), the queue is first replaced by `compact(queue)`, which must
    /// keep the meaning of what it drops. True when the caller must schedule the consumer.
    public func append(_ event: Event, limit: Int, compact: ([Event]) -> [Event]) -> Bool {
        withLock { s in
            if s.events.count >= limit { s.events = compact(s.events) }
            s.events.append(event)
            guard !s.running else { return false }
            s.running = true
            return true
        }
    }

    /// Everything queued, in order; nil (and the consumer now idle) when nothing is.
    public func take() -> [Event]? {
        withLock { s in
            guard !s.events.isEmpty else {
                s.running = false
                return nil
            }
            defer { s.events = [] }
            return s.events
        }
    }

    /// Everything queued now (possibly nothing), without going idle.
    public func drain() -> [Event] {
        withLock { s in
            defer { s.events = [] }
            return s.events
        }
    }
}
