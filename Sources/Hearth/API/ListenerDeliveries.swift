import HearthLock

/// Counts listener callbacks queued but not yet run, for `Firestore.waitUntilIdle()`.
/// Engine snapshots are queued while the commit that produced them still holds the commit
/// lock, so once a commit call has returned its callbacks are already counted.
final class ListenerDeliveries: Sendable {
    private struct State {
        var pending = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = HearthMutex(State())

    func begin() {
        state.withLock { $0.pending += 1 }
    }

    func end() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.pending -= 1
            guard s.pending == 0 else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once no callback is pending.
    func waitUntilIdle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.pending == 0 { return true }
                s.waiters.append(c)
                return false
            }
            if idle { c.resume() }
        }
    }
}
