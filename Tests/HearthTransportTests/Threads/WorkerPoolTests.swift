import Foundation
import HearthLock
import Testing
@testable import HearthTransport

/// WorkerPool: concurrent jobs run at the same time (up to the thread limit), a worker
/// that finished is reused for the next job, and the queue is bounded.
@Suite struct WorkerPoolTests {
    @Test func concurrentJobsRunTogether() {
        let pool = WorkerPool(maxThreads: 8, stackSize: 256 << 10, idleTimeout: 1)
        let started = HearthMutex(0)
        let done = HearthMutex(0)
        let jobs = 6
        for _ in 0..<jobs {
            pool.submit {
                started.withLock { $0 += 1 }
                // Each job waits until all have started: serialised jobs would never finish.
                let deadline = Date(timeIntervalSinceNow: 5)
                while started.withLock({ $0 }) < jobs && Date() < deadline { usleep(1000) }
                if started.withLock({ $0 }) == jobs { done.withLock { $0 += 1 } }
            }
        }
        let deadline = Date(timeIntervalSinceNow: 10)
        while done.withLock({ $0 }) < jobs && Date() < deadline { usleep(1000) }
        #expect(done.withLock { $0 } == jobs)
    }

    @Test func finishedWorkersAreReused() {
        let pool = WorkerPool(maxThreads: 8, stackSize: 256 << 10, idleTimeout: 5)
        let threads = HearthMutex<Set<UInt>>([])
        for _ in 0..<20 {
            let finished = HearthMutex(false)
            pool.submit {
                threads.withLock { _ = $0.insert(UInt(bitPattern: Thread.current.hashValue)) }
                finished.withLock { $0 = true }
            }
            while !finished.withLock({ $0 }) { usleep(100) }
            usleep(2000)  // let the worker park itself
        }
        #expect(threads.withLock { $0.count } <= 2)
    }

    @Test func threadsAndQueueAreBounded() {
        let pool = WorkerPool(maxThreads: 2, maxQueued: 3, stackSize: 256 << 10, idleTimeout: 5)
        let gate = DispatchSemaphore(value: 0)
        let running = HearthMutex(0)
        let peak = HearthMutex(0)
        // Two jobs block the two threads; three more wait; the sixth is refused.
        var accepted = 0
        for _ in 0..<6 {
            let ok = pool.submit {
                let n = running.withLock { $0 += 1; return $0 }
                peak.withLock { $0 = max($0, n) }
                gate.wait()
                running.withLock { $0 -= 1 }
            }
            if ok { accepted += 1 }
            usleep(20_000)
        }
        #expect(accepted == 5)
        #expect(pool.queuedCount == 3)
        for _ in 0..<5 { gate.signal() }
        let deadline = Date(timeIntervalSinceNow: 10)
        while (pool.queuedCount > 0 || running.withLock({ $0 }) > 0) && Date() < deadline { usleep(1000) }
        #expect(peak.withLock { $0 } == 2)
        #expect(pool.submit {})
    }

    @Test func streamSessionsWaitPastTheQueuesBound() {
        let pool = WorkerPool(maxThreads: 1, maxQueued: 2, stackSize: 256 << 10, idleTimeout: 5)
        let gate = DispatchSemaphore(value: 0)
        let ran = HearthMutex(0)
        // One job holds the only thread, two fill the queue: a request is refused, a
        // stream session's batch is queued behind them, and everything runs in order.
        #expect(pool.submit { gate.wait() })
        usleep(20_000)
        #expect(pool.submit { ran.withLock { $0 += 1 } })
        #expect(pool.submit { ran.withLock { $0 += 1 } })
        #expect(!pool.submit {})
        var queued = 0
        for _ in 0..<100 where pool.submit({ ran.withLock { $0 += 1 } }, bounded: false) { queued += 1 }
        #expect(queued == 100)
        #expect(pool.queuedCount == 102)
        #expect(!pool.submit {})
        gate.signal()
        let deadline = Date(timeIntervalSinceNow: 10)
        while ran.withLock({ $0 }) < 102 && Date() < deadline { usleep(1000) }
        #expect(ran.withLock { $0 } == 102)
        // With the queue drained, requests are taken again.
        #expect(pool.submit {})
        pool.shutdown()
        let afterShutdown = pool.submit({}, bounded: false)
        #expect(!afterShutdown)
    }
}
