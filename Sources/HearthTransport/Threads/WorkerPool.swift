import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bounded pool of threads for work that may take long (a query over a large
/// collection, a Listen stream's initial result): at most `maxThreads` threads, started
/// on demand and ended after `idleTimeout` seconds without work (an idle server keeps
/// none), and at most `maxQueued` requests waiting. A request beyond that is refused
/// (`submit` returns false) and the caller answers "busy" — load never turns into unbounded
/// threads or memory. Stream sessions' batches are not refused (`submit(_:bounded:)`).
/// Jobs start in submission order.
///
/// On Linux the workers run at a lower priority (nice +5) than the event loops: when long
/// work and quick calls compete for the cores, the loops — which read, write and answer
/// point reads — get about three times the workers' share, so a heavy query load delays a
/// GetDocument by little.
public final class WorkerPool: @unchecked Sendable {
    public let maxThreads: Int
    public let maxQueued: Int
    let stackSize: Int
    let idleTimeout: Double

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    private var shutDown = false

    /// The default size: two threads per core, at least four (handlers are CPU-bound; a
    /// few more threads than cores keep the cores busy while one waits on a lock).
    public static var defaultThreadCount: Int { max(4, 2 * ProcessorCount.online) }

    public init(maxThreads: Int = WorkerPool.defaultThreadCount, maxQueued: Int = 4096,
                stackSize: Int = 8 << 20, idleTimeout: Double = 10) {
        self.maxThreads = max(1, maxThreads)
        self.maxQueued = max(1, maxQueued)
        self.stackSize = stackSize
        self.idleTimeout = idleTimeout
    }

    /// Threads running a job now.
    public var busyCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads - idle
    }

    /// Threads started and not yet ended (busy or idle).
    public var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Jobs waiting for a thread.
    public var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    /// Queues `job`; false when `maxQueued` jobs are already waiting (or the pool is shut
    /// down, or no thread could be started for it). `bounded: false` queues it whatever
    /// waits: for a stream session's next batch, which its mailbox submits at most once at
    /// a time, so such jobs are bounded by the open streams (which the connection limits
    /// bound) rather than by the queue — a client opening ten thousand listeners at once
    /// waits for their first results instead of being refused, as production serves them.
    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void, bounded: Bool = true) -> Bool {
        condition.lock()
        guard !shutDown, !bounded || jobs.count - head < maxQueued else {
            condition.unlock()
            return false
        }
        jobs.append(job)
        if idle > 0 { condition.signal() }
        // Another thread when more jobs wait than idle threads can take.
        guard jobs.count - head > idle, threads < maxThreads else {
            condition.unlock()
            return true
        }
        threads += 1
        condition.unlock()
        if ThreadSpawner.spawn(stackSize: stackSize, { [self] in work() }) { return true }
        condition.lock()
        threads -= 1
        // No thread: the job stays queued only if another thread will take it.
        let orphaned = threads == 0
        if orphaned { jobs.removeLast() }
        condition.unlock()
        return !orphaned
    }

    /// Lets the threads end once the queue is empty; later submissions are refused.
    public func shutdown() {
        condition.lock()
        shutDown = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        #if os(Linux)
        // Linux keeps the nice value per thread; `who == 0` is the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
        #endif
        condition.lock()
        while true {
            if head < jobs.count {
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: jobs.capacity <= 1024)
                    head = 0
                }
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            if shutDown { break }
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
            idle -= 1
            if !signalled && head == jobs.count { break }
        }
        threads -= 1
        condition.unlock()
    }
}
