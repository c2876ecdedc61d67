#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The monotonic clock the transport measures deadlines with, in nanoseconds (one
/// `clock_gettime` call; no allocation, unlike building a `Duration`).
public enum Monotonic {
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// `seconds` as nanoseconds (saturating, so "no limit" values stay large).
    public static func nanoseconds(_ seconds: Double) -> Int64 {
        seconds >= 9e9 ? Int64.max / 4 : Int64(seconds * 1e9)
    }
}

/// One timer of an event loop: cancel it with `EventLoop.cancel`. Its fields belong to the
/// loop's thread.
public final class TimerHandle: @unchecked Sendable {
    fileprivate var deadline: Int64 = 0
    fileprivate var sequence: UInt64 = 0
    fileprivate var task: (() -> Void)?
    /// Its place in the heap; -1 when it is not there (fired, cancelled, not yet set).
    fileprivate var index = -1
    /// Cancelled: never (re)scheduled — a cancel that overtakes the task setting the
    /// timer wins.
    fileprivate var cancelled = false

    init() {}
}

/// The loop's timers, earliest first: a binary min-heap of handles that know their place,
/// so cancelling removes a timer at once (O(log n)) — connections move their deadlines at
/// every request, and a heap that kept cancelled entries until they came due would grow
/// with the request rate. Timers with one deadline run in the order they were set.
struct TimerQueue {
    private var heap: [TimerHandle] = []
    private var sequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// When the earliest timer is due.
    var nextDeadline: Int64? { heap.first?.deadline }

    mutating func schedule(_ handle: TimerHandle, at deadline: Int64, _ task: @escaping () -> Void) {
        guard !handle.cancelled else { return }
        if handle.index >= 0 { remove(handle) }
        sequence &+= 1
        handle.deadline = deadline
        handle.sequence = sequence
        handle.task = task
        handle.index = heap.count
        heap.append(handle)
        siftUp(heap.count - 1)
    }

    /// Cancels a timer: out of the queue now, and never scheduled again.
    mutating func cancel(_ handle: TimerHandle) {
        handle.cancelled = true
        remove(handle)
    }

    /// Takes a timer out (no-op when it is not in the queue).
    mutating func remove(_ handle: TimerHandle) {
        let i = handle.index
        guard i >= 0, i < heap.count, heap[i] === handle else { return }
        handle.index = -1
        handle.task = nil
        let last = heap.removeLast()
        guard i < heap.count else { return }
        heap[i] = last
        last.index = i
        siftDown(i)
        siftUp(last.index)
    }

    /// Removes and returns the task of the earliest timer due at `now`, or nil.
    mutating func popDue(now: Int64) -> (() -> Void)? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let task = first.task
        remove(first)
        return task
    }

    mutating func removeAll() {
        for h in heap {
            h.index = -1
            h.task = nil
        }
        heap.removeAll()
    }

    private func precedes(_ a: TimerHandle, _ b: TimerHandle) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard precedes(heap[i], heap[parent]) else { break }
            swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < heap.count && precedes(heap[l], heap[smallest]) { smallest = l }
            if r < heap.count && precedes(heap[r], heap[smallest]) { smallest = r }
            if smallest == i { return }
            swapAt(i, smallest)
            i = smallest
        }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        heap.swapAt(i, j)
        heap[i].index = i
        heap[j].index = j
    }
}
