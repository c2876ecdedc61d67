import HearthCore
import HearthLock

/// The server's clock: the system clock shifted by an offset, or stopped at a set time.
/// `PUT /emulator/v1/clock` sets or advances it; it drives commit times, server timestamps
/// and (with rules) `request.time`. Commit times still strictly increase.
public final class EmulatorClock: HearthClock {
    private enum Mode {
        case system(offsetMicros: Int64)
        case manual(Timestamp)
    }

    private let mode = HearthMutex<Mode>(.system(offsetMicros: 0))
    private let system = SystemClock()

    public init() {}

    public func now() -> Timestamp {
        switch mode.withLock({ $0 }) {
        case .manual(let t): return t
        case .system(let offset):
            if offset == 0 { return system.now() }
            let n = system.now()
            var t = Timestamp(microseconds: n.microseconds + offset)
            t.nanos += n.nanos % 1000
            return t
        }
    }

    /// True while the clock stands still at a set time.
    public var isManual: Bool {
        if case .manual = mode.withLock({ $0 }) { return true }
        return false
    }

    /// Stops the clock at `time`.
    public func set(_ time: Timestamp) { mode.withLock { $0 = .manual(time) } }

    /// Moves the clock by `seconds` (a stopped clock stays stopped, a running one keeps running).
    public func advance(by seconds: Double) {
        let delta = Int64((seconds * 1_000_000).rounded())
        mode.withLock { m in
            switch m {
            case .manual(let t):
                var next = Timestamp(microseconds: t.microseconds + delta)
                next.nanos += t.nanos % 1000
                m = .manual(next)
            case .system(let offset):
                m = .system(offsetMicros: offset + delta)
            }
        }
    }

    /// Back to the system clock.
    public func resume() { mode.withLock { $0 = .system(offsetMicros: 0) } }
}
