import Foundation
import Synchronization
import Testing
@testable import HearthTransport

/// WorkerPool: concurrent jobs run at the same time (none waits for another), and a
/// worker that finished is reused for the next job.
@Suite struct WorkerPoolTests {
    @Test func concurrentJobsRunTogether() {
        let pool = WorkerPool(stackSize: 256 << 10, idleTimeout: 1)
        let started = Mutex(0)
        let done = Mutex(0)
        let jobs = 6
        for _ in 0..<jobs {
            pool.run {
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
        let pool = WorkerPool(stackSize: 256 << 10, idleTimeout: 5)
        let threads = Mutex<Set<UInt>>([])
        for _ in 0..<20 {
            let finished = Mutex(false)
            pool.run {
                threads.withLock { _ = $0.insert(UInt(bitPattern: Thread.current.hashValue)) }
                finished.withLock { $0 = true }
            }
            while !finished.withLock({ $0 }) { usleep(100) }
            usleep(2000)  // let the worker park itself
        }
        #expect(threads.withLock { $0.count } <= 2)
    }
}
