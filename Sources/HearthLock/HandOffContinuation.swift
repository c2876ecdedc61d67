import CHearthSanitizers

/// `withCheckedContinuation`/`withCheckedThrowingContinuation` with the hand-off from
/// `resume` to the code after the `await` made visible to ThreadSanitizer. Every
/// continuation in Hearth goes through these.
///
/// Why: the Swift runtime (libswift_Concurrency, not instrumented) tells TSan of that edge
/// only when the task had already suspended: `resume` releases on the task and running the
/// re-enqueued task acquires it. When `resume` comes first (the work finished on another
/// thread before the awaiting task reached its `await`; common under load), the runtime
/// sees the continuation already resumed and goes on in the same thread without enqueueing
/// (swiftlang/swift, `stdlib/public/Concurrency/Task.cpp`, `swift_continuation_awaitImpl`:
/// a plain acquire load, no TSan acquire). TSan then reports whatever the resuming side
/// built as racing with the reads after the `await` (BundleTests.inputStream's
/// `LoadBundleTaskProgress`, docs/reliability.md, report class 2).
///
/// Cost: outside a TSan build, one null check at each end (no allocation); under TSan a
/// small object whose address the release and the acquire name.
public struct HandOffContinuation<T, E: Error>: Sendable {
    let continuation: CheckedContinuation<T, E>
    let mark: HandOffMark?

    public func resume(returning value: sending T) {
        mark?.release()
        continuation.resume(returning: value)
    }

    public func resume(throwing error: E) {
        mark?.release()
        continuation.resume(throwing: error)
    }
}

extension HandOffContinuation where T == Void {
    public func resume() { resume(returning: ()) }
}

/// The address TSan's release (before `resume`) and acquire (after the `await`) name: one
/// per continuation, made only when the TSan runtime is in the process.
final class HandOffMark: Sendable {
    static func make() -> HandOffMark? { hearth_tsan_present() != 0 ? HandOffMark() : nil }
    private var address: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    func release() { hearth_tsan_release(address) }
    func acquire() { hearth_tsan_acquire(address) }
}

/// `withCheckedContinuation`, ordered for ThreadSanitizer (see `HandOffContinuation`).
public func withHandOffContinuation<T>(isolation: isolated (any Actor)? = #isolation, function: String = #function,
                                       _ body: (HandOffContinuation<T, Never>) -> Void) async -> sending T {
    let mark = HandOffMark.make()
    let value = await withCheckedContinuation(isolation: isolation, function: function) {
        body(HandOffContinuation(continuation: $0, mark: mark))
    }
    mark?.acquire()
    return value
}

/// `withCheckedThrowingContinuation`, ordered for ThreadSanitizer (see `HandOffContinuation`).
public func withThrowingHandOffContinuation<T>(isolation: isolated (any Actor)? = #isolation, function: String = #function,
                                               _ body: (HandOffContinuation<T, any Error>) -> Void) async throws -> sending T {
    let mark = HandOffMark.make()
    defer { mark?.acquire() }
    return try await withCheckedThrowingContinuation(isolation: isolation, function: function) {
        body(HandOffContinuation(continuation: $0, mark: mark))
    }
}
