import Foundation
import HearthLock

/// The source of commit times, server timestamps and `request.time`. Inject a
/// `ManualClock` for deterministic tests.
public protocol HearthClock: Sendable {
    func now() -> Timestamp
}

/// The machine's wall clock.
public struct SystemClock: HearthClock {
    public init() {}
    public func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Int64(ts.tv_sec), nanos: Int32(ts.tv_nsec))
    }
}

/// A clock that moves only when told to. Commit times still strictly increase (by one
/// microsecond per commit when the clock stands still).
public final class ManualClock: HearthClock {
    private let current: HearthMutex<Timestamp>

    public init(now: Timestamp) { current = HearthMutex(now) }

    public func now() -> Timestamp { current.withLock { $0 } }

    /// Moves the clock forward (or backward, for a negative amount) by `seconds`.
    public func advance(by seconds: Double) {
        current.withLock { t in
            let micros = t.microseconds + Int64((seconds * 1_000_000).rounded())
            let nanosBelowMicro = t.nanos % 1000
            var next = Timestamp(microseconds: micros)
            next.nanos += nanosBelowMicro
            t = next
        }
    }

    public func set(_ time: Timestamp) { current.withLock { $0 = time } }
}
