import Foundation
import Synchronization

/// Runs jobs on reusable threads: a job goes to an idle worker when there is one, else to
/// a new thread, so concurrent jobs never wait for each other. A worker that has had no job
/// for `idleTimeout` seconds ends, so an idle server keeps no workers. Reuse spares each
/// short call (a unary gRPC request) a thread's creation and teardown.
public final class WorkerPool: Sendable {
    /// The pool gRPC calls run on: unary handlers and the Listen / Write stream sessions.
    public static let calls = WorkerPool(stackSize: 8 << 20, idleTimeout: 10)

    private final class Worker: @unchecked Sendable {
        let condition = NSCondition()
        /// The next job (guarded by `condition`).
        var job: (@Sendable () -> Void)?
    }

    let stackSize: Int
    let idleTimeout: Double
    /// Workers waiting for a job, most recently idle last.
    private let idle = Mutex<[Worker]>([])

    init(stackSize: Int, idleTimeout: Double) {
        self.stackSize = stackSize
        self.idleTimeout = idleTimeout
    }

    /// Runs `job` on an idle worker or a new thread; false when no thread could be started.
    @discardableResult
    public func run(_ job: @escaping @Sendable () -> Void) -> Bool {
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.condition.lock()
            worker.job = job
            worker.condition.signal()
            worker.condition.unlock()
            return true
        }
        let worker = Worker()
        worker.job = job
        return ThreadSpawner.spawn(stackSize: stackSize) { [self] in work(worker) }
    }

    private func work(_ worker: Worker) {
        while true {
            worker.condition.lock()
            let job = worker.job
            worker.job = nil
            worker.condition.unlock()
            job?()
            idle.withLock { $0.append(worker) }
            worker.condition.lock()
            let deadline = Date(timeIntervalSinceNow: idleTimeout)
            while worker.job == nil {
                if !worker.condition.wait(until: deadline), worker.job == nil {
                    // Timed out: leave, unless a caller has just taken this worker and is
                    // about to hand it a job.
                    let left = idle.withLock { list -> Bool in
                        guard let i = list.firstIndex(where: { $0 === worker }) else { return false }
                        list.remove(at: i)
                        return true
                    }
                    if left { worker.condition.unlock(); return }
                    while worker.job == nil { worker.condition.wait() }
                }
            }
            worker.condition.unlock()
        }
    }
}
