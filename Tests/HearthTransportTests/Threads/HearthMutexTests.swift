import Foundation
import HearthLock
import HearthTestSupport
import Testing

/// HearthMutex: mutual exclusion under contention, and (in `swift test --sanitize=thread`)
/// critical sections that ThreadSanitizer can order. Four threads append to one array under
/// the lock until it is long, then replace it: with Synchronization's `Mutex` alone this
/// contention made TSan report "Swift access race" inside the sections (the lock's
/// contended hand-over is invisible to it), which fails the sanitizer pass.
@Suite struct HearthMutexTests {
    @Test func contendedSectionsExcludeEachOtherAndAreOrdered() {
        final class Shared: Sendable {
            let values = HearthMutex<[Int]>([])
            let total = HearthMutex(0)
        }
        let shared = Shared()
        let threads = 4, rounds = 20_000
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread {
                for j in 0..<rounds {
                    shared.values.withLock { values in
                        values.append(j)
                        if values.count > 50 { values = [] }
                    }
                    shared.total.withLock { $0 += 1 }
                }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + .seconds(60 * SanitizerSlowdown.factor)) == .success)
        #expect(shared.total.withLock { $0 } == threads * rounds)
        #expect(shared.values.withLock { $0.count } <= 51)
    }

    @Test func throwsThroughTheLockAndKeepsTheValue() {
        struct Refused: Error {}
        let counter = HearthMutex(1)
        #expect(throws: Refused.self) {
            try counter.withLock { (value: inout Int) throws(Refused) in
                value += 1
                throw Refused()
            }
        }
        #expect(counter.withLock { $0 } == 2)
    }
}

