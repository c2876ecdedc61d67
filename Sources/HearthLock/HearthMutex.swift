import CHearthSanitizers
import Synchronization

/// The lock every module uses: `Synchronization.Mutex`, plus two ThreadSanitizer annotations
/// so that a `--sanitize=thread` build sees its critical sections.
///
/// Why not `Mutex` alone: on Linux, `Mutex` locks with a compare-exchange inlined into the
/// caller (which TSan sees) but, when the lock is contended, waits and hands over ownership
/// through `FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI` inside the Synchronization library, which is
/// not instrumented. A section entered that way has no happens-before edge TSan knows of,
/// so every contended `Mutex` region is reported as a race and real races drown (a TSan
/// `swift test` printed 155 such reports at 47 sites).
///
/// Why not a pthread mutex, as swift-nio's `NIOLock` is (TSan intercepts pthread calls):
/// `pthread_mutex_t` must not move, so it needs a heap box per lock (`ManagedBuffer`, one
/// allocation and ~80 bytes more), and some locks are per document version
/// (`Document.Storage`'s front-end cache) or per request. The annotations cost nothing of
/// that: outside a TSan build `__tsan_acquire`/`__tsan_release` are null weak symbols and
/// each `withLock` does two predictable null checks (measured in docs/performance-server.md).
///
/// Same shape as `Mutex`: noncopyable, stored as a `let`, `withLock` with typed throws and
/// `sending` values, so it can hold what is not `Sendable`.
public struct HearthMutex<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline
    let mutex: Mutex<Value>

    @inlinable
    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value, holding the lock.
    ///
    /// The annotations use the mutex's address (stable: a noncopyable `let` never moves
    /// while borrowed) and sit inside the locked region, around the first and last access to
    /// the value: TSan checks Swift's exclusive accesses too, so the acquire must come
    /// before the `inout` access begins.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = withUnsafePointer(to: mutex) { UnsafeMutableRawPointer(mutating: $0) }
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            hearth_tsan_acquire(address)
            defer { hearth_tsan_release(address) }
            return try body(&value)
        }
    }
}
