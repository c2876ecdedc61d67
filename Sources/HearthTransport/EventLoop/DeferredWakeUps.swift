#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wake-ups of event loops held back on one thread until a piece of work is done
/// (`EventLoop.deferringWakeUps`). A commit hands each open Listen stream its change under
/// the engine's lock: waking a loop for each of them would let the loop (at a higher
/// priority than the workers) preempt the commit a thousand times, one delivery a turn;
/// held back, each loop is woken once and finds every delivery queued.
final class DeferredWakeUps {
    /// Loops with tasks queued whose wake-up is held back (a loop may appear twice).
    var loops: [EventLoop] = []

    /// The thread's current batch, if any.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: DeferredWakeUps? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<DeferredWakeUps>.fromOpaque(pointer).takeUnretainedValue()
    }

    static func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        if current != nil { return try body() }  // nested: the outer scope wakes
        let batch = DeferredWakeUps()
        pthread_setspecific(key, Unmanaged.passUnretained(batch).toOpaque())
        defer {
            pthread_setspecific(key, nil)
            for loop in batch.loops { loop.wakeUpNow() }
        }
        return try body()
    }
}

extension EventLoop {
    /// Runs `body`; tasks it hands to event loops (`execute`) are queued at once, but the
    /// loops are woken only when it returns — once each, however many tasks. For short
    /// work that feeds many connections at once (a commit's Listen fan-out); `body` must
    /// not wait for a loop.
    public static func deferringWakeUps<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try DeferredWakeUps.run(body)
    }
}
