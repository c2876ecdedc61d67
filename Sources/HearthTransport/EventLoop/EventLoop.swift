#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HearthLock
import Synchronization

/// What a descriptor registered with an `EventLoop` is told, on the loop's thread.
protocol EventLoopSelectable: AnyObject {
    /// Bytes (or a connection to accept) are waiting; `hangup` when the peer closed or the
    /// socket failed (a read then says which).
    func readyToRead(hangup: Bool)
    /// There is room to write again (reported only while write interest is on).
    func readyToWrite()
    /// A hang-up or error was reported while no read interest was on.
    func hungUp()
}

/// Work the loop runs once at the end of an iteration, after every event and task of that
/// iteration: a connection flushes what several events and tasks queued in one system call.
protocol EventLoopDeferred: AnyObject {
    func runDeferred()
}

/// One event-loop thread: it owns a set of sockets and waits on all of them at once (one
/// `Selector`), runs the tasks other threads hand it (`execute`) and its timers, so a few
/// threads serve thousands of connections. Everything registered with a loop — the sockets,
/// their protocol state, their timers — is touched on the loop's thread only; other
/// threads reach it through `execute`. Handlers that run on the loop must not block.
///
/// Modelled on SwiftNIO's `SelectableEventLoop`, much reduced: level-triggered readiness,
/// one task queue behind a mutex, a wake-up only when the queue goes from "drained" to
/// "not drained", and a timer heap.
public final class EventLoop: @unchecked Sendable {
    /// The loop's name (its thread's, for debugging).
    public let name: String
    private let selector: Selector
    private let tasks = HearthMutex(TaskQueue())
    /// The loop thread's id (0 until it starts).
    private let threadID = Atomic<UInt>(0)
    private let wakeUps = Atomic<Int>(0)
    /// Set as the loop's thread leaves `run()`, its selector closed: what waits for a
    /// server's threads to end (`HTTPServer.waitUntilStopped`) reads it.
    private let finished = Atomic<Bool>(false)

    // Loop thread only.
    private var timers = TimerQueue()
    private var slots: [Slot] = []
    private var nextGeneration: UInt32 = 1
    private var deferred: [EventLoopDeferred] = []
    private var running = true
    private var exitHandlers: [() -> Void] = []
    /// A read buffer every socket of the loop shares: reads are handled before the next.
    let readBuffer: UnsafeMutableRawBufferPointer

    private struct TaskQueue {
        var tasks: [@Sendable () -> Void] = []
        /// A wake-up has been sent and the loop has not drained the queue since.
        var wakeUpSent = false
        /// The loop has exited: tasks are dropped (its selector is closed, so waking it
        /// could write to a descriptor number the system has given to someone else).
        var exited = false
    }

    private struct Slot {
        var generation: UInt32 = 0
        var handler: EventLoopSelectable?
        var interest: IOInterest = []
    }

    /// Creates the loop and starts its thread.
    init(name: String, stackSize: Int = 8 << 20) throws {
        self.name = name
        selector = try Selector()
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        let started = ThreadSpawner.spawn(stackSize: stackSize) { [self] in run() }
        if !started {
            selector.close()
            readBuffer.deallocate()
            throw Socket.SystemError(call: "pthread_create", code: EAGAIN)
        }
    }

    /// True on the loop's own thread.
    public var inEventLoop: Bool { threadID.load(ordering: .acquiring) == Self.currentThreadID() }

    private static func currentThreadID() -> UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    // MARK: Tasks and timers

    /// Runs `task` on the loop's thread, after what is already queued. Any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let onLoop = inEventLoop
        let batch = onLoop ? nil : DeferredWakeUps.current
        let deferWakeUp = tasks.withLock { q -> Bool in
            guard !q.exited else { return false }
            q.tasks.append(task)
            guard !onLoop && !q.wakeUpSent else { return false }
            q.wakeUpSent = true
            if batch != nil { return true }
            wakeUpHoldingLock()
            return false
        }
        if deferWakeUp { batch?.loops.append(self) }
    }

    /// Wakes the loop now, unless it has exited (a wake-up held back by `deferringWakeUps`).
    func wakeUpNow() {
        tasks.withLock { q in if !q.exited { wakeUpHoldingLock() } }
    }

    /// Under the tasks lock, so it cannot race the loop's exit: once `exited` is set the
    /// selector's descriptors are closed and their numbers may be another socket's, which
    /// must not receive our 8 bytes. Costs the write (an eventfd, never blocking) inside
    /// the lock.
    private func wakeUpHoldingLock() {
        wakeUps.wrappingAdd(1, ordering: .relaxed)
        selector.wakeUp()
    }

    /// Wake-ups sent to the loop so far (for tests).
    var wakeUpCount: Int { wakeUps.load(ordering: .relaxed) }

    /// Runs `task` on the loop's thread at `deadline` (`Monotonic` nanoseconds) unless the
    /// returned handle is cancelled first. Loop thread only.
    @discardableResult
    func schedule(at deadline: Int64, _ task: @escaping () -> Void) -> TimerHandle {
        let handle = TimerHandle()
        timers.schedule(handle, at: deadline, task)
        return handle
    }

    /// Like `schedule(at:)`, from any thread (on the loop's own, at once; from another,
    /// through `execute`). The handle is cancelled with `cancel(_:)`.
    public func scheduleFromAnyThread(after nanoseconds: Int64, _ task: @escaping @Sendable () -> Void) -> TimerHandle {
        let handle = TimerHandle()
        let deadline = Monotonic.now() + nanoseconds
        if inEventLoop {
            timers.schedule(handle, at: deadline, task)
        } else {
            execute { [self] in timers.schedule(handle, at: deadline, task) }
        }
        return handle
    }

    /// Cancels a timer (from any thread; on the loop's, at once).
    public func cancel(_ handle: TimerHandle) {
        if inEventLoop { timers.cancel(handle) } else { execute { [self] in timers.cancel(handle) } }
    }

    /// Runs `object.runDeferred()` at the end of this iteration (once, however often it is
    /// asked). Loop thread only; the caller keeps its own "already deferred" flag.
    func deferToEndOfIteration(_ object: EventLoopDeferred) {
        deferred.append(object)
    }

    // MARK: Registrations

    /// Registers `descriptor` with `handler`; returns the token its events carry.
    func register(_ descriptor: Int32, handler: EventLoopSelectable, interest: IOInterest) {
        let index = Int(descriptor)
        if index >= slots.count { slots.append(contentsOf: repeatElement(Slot(), count: index + 1 - slots.count)) }
        nextGeneration = nextGeneration == UInt32.max ? 1 : nextGeneration + 1
        slots[index] = Slot(generation: nextGeneration, handler: handler, interest: interest)
        selector.register(descriptor, token: token(descriptor), interest: interest)
    }

    /// Changes what a registered descriptor waits for.
    func setInterest(_ descriptor: Int32, _ interest: IOInterest) {
        let index = Int(descriptor)
        guard index < slots.count, slots[index].handler != nil, slots[index].interest != interest else { return }
        let old = slots[index].interest
        slots[index].interest = interest
        selector.reregister(descriptor, token: token(descriptor), old: old, new: interest)
    }

    /// Forgets a descriptor (call before closing it).
    func deregister(_ descriptor: Int32) {
        let index = Int(descriptor)
        guard index < slots.count, slots[index].handler != nil else { return }
        selector.deregister(descriptor, interest: slots[index].interest)
        slots[index] = Slot()
    }

    private func token(_ descriptor: Int32) -> UInt64 {
        UInt64(slots[Int(descriptor)].generation) << 32 | UInt64(UInt32(bitPattern: descriptor))
    }

    // MARK: Lifecycle

    /// Ends the loop after the tasks already queued; `whenDone` runs on the loop's thread
    /// as it exits (after which nothing may be queued). Any thread.
    public func stop(whenDone: (@Sendable () -> Void)? = nil) {
        execute { [self] in
            running = false
            if let whenDone { exitHandlers.append(whenDone) }
        }
    }

    private func run() {
        threadID.store(Self.currentThreadID(), ordering: .releasing)
        while running {
            let hasTasks = tasks.withLock { !$0.tasks.isEmpty }
            var timeout: Int64?
            if hasTasks || !deferred.isEmpty {
                timeout = 0
            } else if let next = timers.nextDeadline {
                timeout = max(0, next - Monotonic.now())
            }
            selector.wait(timeoutNanos: timeout) { event in dispatch(event) }
            runDueTimers()
            runTasks()
            runDeferred()
        }
        timers.removeAll()
        slots.removeAll()
        for h in exitHandlers { h() }
        tasks.withLock { q in
            q.exited = true
            q.tasks = []
        }
        selector.close()
        readBuffer.deallocate()
        finished.store(true, ordering: .releasing)
    }

    /// The loop's thread has finished its work and closed its descriptors (only the
    /// return from its start routine is left).
    var hasFinished: Bool { finished.load(ordering: .acquiring) }

    private func dispatch(_ event: IOEvent) {
        let index = Int(UInt32(truncatingIfNeeded: event.token))
        guard index < slots.count, UInt64(slots[index].generation) == event.token >> 32,
              let handler = slots[index].handler else { return }  // stale: closed in this batch
        let interest = slots[index].interest
        if event.writable && interest.contains(.write) { handler.readyToWrite() }
        // The write handler may have closed the descriptor.
        guard slots[index].handler === handler else { return }
        if event.readable && interest.contains(.read) {
            handler.readyToRead(hangup: event.hangup)
        } else if event.hangup && !event.writable {
            handler.hungUp()
        }
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let now = Monotonic.now()
        // Only the timers there were when this began: one a task sets for a time already
        // past waits for the next turn, so it cannot keep the loop from its other work.
        var budget = timers.count
        while budget > 0, let task = timers.popDue(now: now) {
            budget -= 1
            task()
        }
    }

    private func runTasks() {
        let batch = tasks.withLock { q -> [@Sendable () -> Void] in
            q.wakeUpSent = false
            guard !q.tasks.isEmpty else { return [] }
            let b = q.tasks
            q.tasks = []
            return b
        }
        for task in batch { task() }
    }

    private func runDeferred() {
        var i = 0
        // Deferred work may defer more (a flush that frees room lets a producer continue).
        while i < deferred.count {
            deferred[i].runDeferred()
            i += 1
        }
        deferred.removeAll(keepingCapacity: true)
    }
}
