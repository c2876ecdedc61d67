import Foundation
import HearthLock
import Synchronization
import Testing

/// HandOffContinuation: a value built on another thread and handed through `resume` before
/// the task reaches its `await` (the Swift runtime's path with no ThreadSanitizer edge).
/// Each round waits, in the continuation's body, until the other thread has resumed, so the
/// await always finds the continuation resumed. The wait is a relaxed atomic, which gives TSan
/// no ordering either: with `withCheckedContinuation` in place of `withHandOffContinuation`,
/// `swift test --sanitize=thread` reports the read of `box.value` as racing with the write in
/// `Box.init` (seen once a run; TSan reports a site once), which fails the sanitizer pass.
@Suite struct HandOffContinuationTests {
    final class Box: @unchecked Sendable {
        var value: Int
        init(_ value: Int) { self.value = value }
    }

    /// Raised by the resuming thread after `resume` returns; polled without ordering.
    final class Resumed: Sendable {
        private let raised = Atomic(false)
        func raise() { raised.store(true, ordering: .relaxed) }
        func wait() { while !raised.load(ordering: .relaxed) { usleep(100) } }
    }

    @Test func resumedBeforeTheAwait() async {
        var sum = 0
        for i in 0..<20 {
            let resumed = Resumed()
            let box: Box = await withHandOffContinuation { c in
                Thread { c.resume(returning: Box(i)); resumed.raise() }.start()
                resumed.wait()
            }
            sum += box.value
        }
        #expect(sum == 190)
    }

    @Test func throwingResumedBeforeTheAwait() async throws {
        struct Refused: Error { let box: Box }
        var sum = 0
        for i in 0..<20 {
            let resumed = Resumed()
            do {
                let box: Box = try await withThrowingHandOffContinuation { c in
                    Thread {
                        if i.isMultiple(of: 2) { c.resume(returning: Box(i)) } else { c.resume(throwing: Refused(box: Box(i))) }
                        resumed.raise()
                    }.start()
                    resumed.wait()
                }
                sum += box.value
            } catch let refused as Refused {
                sum += refused.box.value
            }
        }
        #expect(sum == 190)
    }

    @Test func resumedAfterTheAwait() async {
        let box: Box = await withHandOffContinuation { c in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { c.resume(returning: Box(7)) }
        }
        #expect(box.value == 7)
    }
}
