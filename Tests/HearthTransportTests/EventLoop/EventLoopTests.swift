import Dispatch
import Foundation
import HearthLock
import Testing
@testable import HearthTransport

/// The event loop's timers and task queue: order, cancellation, tasks from many threads.
@Suite struct EventLoopTests {
    @Test func timersFireInDeadlineOrderAndCancelledOnesLeaveAtOnce() {
        var q = TimerQueue()
        var fired: [Int] = []
        let handles = (0..<100).map { _ in TimerHandle() }
        for (i, h) in handles.enumerated() {
            // Deadlines in a scrambled order; ties keep the order they were set in.
            let deadline = Int64((i * 37) % 50)
            q.schedule(h, at: deadline) { fired.append(i) }
        }
        for h in handles where handles.firstIndex(where: { $0 === h })! % 3 == 0 { q.remove(h) }
        // Cancelled timers are gone at once: the queue holds only live ones.
        #expect(q.count == 66)
        // A timer moved later is one entry, not two.
        q.schedule(handles[1], at: 1_000) { fired.append(1) }
        #expect(q.count == 66)
        while let task = q.popDue(now: 10_000) { task() }
        #expect(fired.count == 66)
        #expect(!fired.contains { $0 % 3 == 0 })
        #expect(fired.last == 1)
        let deadlines = fired.dropLast().map { ($0 * 37) % 50 }
        #expect(deadlines == deadlines.sorted())
    }

    @Test func aCancelThatOvertakesItsTimersSchedulingWins() {
        // A call's timer is set through a task from another thread and cancelled on the
        // loop before that task ran: it must never enter the queue (it would hold the call
        // for the whole timeout — the leak of one timer per unary call this test pins).
        var q = TimerQueue()
        let h = TimerHandle()
        q.cancel(h)
        q.schedule(h, at: 10) {}
        #expect(q.count == 0)
        #expect(q.popDue(now: 100) == nil)
    }

    @Test func wakeUpsHeldBackAreSentOnceWhenTheWorkIsDone() throws {
        // A commit hands a thousand Listen streams their change, each a task on its
        // stream's loop: the loop is woken once, when the commit is done, rather than for
        // each task (and preempting the commit each time).
        let loop = try EventLoop(name: "test-loop")
        defer { loop.stop() }
        let idle = DispatchSemaphore(value: 0)
        loop.execute { idle.signal() }
        #expect(idle.wait(timeout: .now() + 10) == .success)
        usleep(20_000)  // back in its wait, with no timer: only a wake-up gets it out
        let before = loop.wakeUpCount
        let ran = HearthMutex(0)
        EventLoop.deferringWakeUps {
            for _ in 0..<100 { loop.execute { ran.withLock { $0 += 1 } } }
            usleep(20_000)
            #expect(ran.withLock { $0 } == 0)
        }
        for _ in 0..<1_000 where ran.withLock({ $0 }) < 100 { usleep(10_000) }
        #expect(ran.withLock { $0 } == 100)
        #expect(loop.wakeUpCount - before == 1)
    }

    @Test func tasksFromManyThreadsAllRunOnTheLoop() throws {
        let loop = try EventLoop(name: "test-loop")
        defer { loop.stop() }
        let count = HearthMutex(0)
        let onLoop = HearthMutex(true)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                loop.execute {
                    if !loop.inEventLoop { onLoop.withLock { $0 = false } }
                    if count.withLock({ $0 += 1; return $0 }) == 4_000 { done.signal() }
                }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(onLoop.withLock { $0 })
        #expect(!loop.inEventLoop)
    }

    @Test func aTimerSetFromAnotherThreadFiresAndACancelledOneDoesNot() throws {
        let loop = try EventLoop(name: "test-loop")
        defer { loop.stop() }
        let fired = DispatchSemaphore(value: 0)
        let cancelledFired = HearthMutex(false)
        let cancelled = loop.scheduleFromAnyThread(after: 50_000_000) { cancelledFired.withLock { $0 = true } }
        loop.cancel(cancelled)
        _ = loop.scheduleFromAnyThread(after: 100_000_000) { fired.signal() }
        #expect(fired.wait(timeout: .now() + 5) == .success)
        #expect(!cancelledFired.withLock { $0 })
    }
}
