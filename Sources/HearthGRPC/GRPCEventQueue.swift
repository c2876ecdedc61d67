import Foundation

/// The FIFO between a bidirectional call's producers (the connection thread, and for
/// Listen the engine's snapshot sinks) and the call's worker thread, which handles events
/// in order.
public final class GRPCEventQueue<Event>: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [Event] = []

    public init() {}

    public func append(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// Appends `event`; when `limit` events are already waiting (a client that does not read
    /// holds the worker up), the queue is first replaced by `compact(queue)`, which must
    /// keep the meaning of what it drops.
    public func append(_ event: Event, limit: Int, compact: ([Event]) -> [Event]) {
        condition.lock()
        if events.count >= limit { events = compact(events) }
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// Waits until something is queued or `call` has ended, then takes everything queued;
    /// an empty result means the call ended with nothing left to do. (The wait wakes every
    /// half second to notice an ended call.)
    public func next(whileOpen call: GRPCServerCall) -> [Event] {
        next(until: { call.isEnded || !call.stream.isOpen })
    }

    /// Like `next(whileOpen:)` for any carrier of the stream (a gRPC call, a WebChannel
    /// session): waits until something is queued or `ended()` holds.
    public func next(until ended: () -> Bool) -> [Event] {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty && !ended() {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.5))
        }
        defer { events.removeAll() }
        return events
    }

    /// Takes whatever is queued now, without waiting.
    public func drain() -> [Event] {
        condition.lock()
        defer { condition.unlock() }
        defer { events.removeAll() }
        return events
    }
}
