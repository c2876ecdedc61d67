import Foundation
import HearthTransport

/// Ends calls whose `grpc-timeout` passes with DEADLINE_EXCEEDED: one thread, started on
/// demand, sleeps until the earliest deadline of the calls still running. A call that ends
/// first is forgotten at once, so the table holds only running calls (registering and
/// forgetting are a dictionary update each; no timer per call).
final class GRPCDeadlines: @unchecked Sendable {
    static let shared = GRPCDeadlines()

    private struct Entry {
        let deadline: ContinuousClock.Instant
        weak var call: GRPCServerCall?
    }

    private let condition = NSCondition()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var running = false
    /// When the thread next wakes by itself (nil: it waits for a registration).
    private var nextWake: ContinuousClock.Instant?

    /// Ends `call` when `duration` has passed, unless it has ended by then.
    func watch(_ call: GRPCServerCall, for duration: Duration) {
        let deadline = ContinuousClock.now + duration
        condition.lock()
        defer { condition.unlock() }
        entries[ObjectIdentifier(call)] = Entry(deadline: deadline, call: call)
        if !running {
            running = ThreadSpawner.spawn(stackSize: 256 << 10) { [self] in loop() }
            if !running { entries[ObjectIdentifier(call)] = nil }  // no thread: the client's own deadline remains
        } else if nextWake.map({ deadline < $0 }) ?? true {
            condition.signal()
        }
    }

    /// `call` has ended.
    func forget(_ call: GRPCServerCall) {
        condition.lock()
        entries[ObjectIdentifier(call)] = nil
        condition.unlock()
    }

    private func loop() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            var expired: [GRPCServerCall] = []
            var next: ContinuousClock.Instant?
            for (key, entry) in entries {
                guard let call = entry.call else { entries[key] = nil; continue }
                if entry.deadline <= now {
                    expired.append(call)
                    entries[key] = nil
                } else {
                    next = min(next ?? entry.deadline, entry.deadline)
                }
            }
            if !expired.isEmpty {
                condition.unlock()
                for call in expired { call.finish(.deadlineExceeded, message: "Deadline Exceeded") }
                condition.lock()
                continue
            }
            nextWake = next
            if let next {
                let (seconds, attoseconds) = (next - now).components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18))
            } else if !condition.wait(until: Date(timeIntervalSinceNow: 30)) && entries.isEmpty {
                // Nothing to watch for a while: end the thread (the next watch starts one).
                running = false
                nextWake = nil
                condition.unlock()
                return
            }
        }
    }
}
