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

/// A timer's handle: cancelling it makes the loop skip the timer when it comes due.
public final class TimerHandle: @unchecked Sendable {
    // Read and written on the loop's thread only.
    fileprivate(set) var cancelled = false

    /// Cancels the timer (on the loop's thread; elsewhere, through `EventLoop.execute`).
    func cancel() { cancelled = true }
}

/// The loop's timers, earliest first: a binary min-heap of (deadline, sequence, task).
/// Cancelled timers stay in the heap until they come due and are then dropped, so
/// cancelling is O(1); the sequence number keeps timers with one deadline in order.
struct TimerQueue {
    private struct Entry {
        let deadline: Int64
        let sequence: UInt64
        let handle: TimerHandle?
        let task: () -> Void

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var sequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// When the earliest timer is due.
    var nextDeadline: Int64? { heap.first?.deadline }

    mutating func schedule(at deadline: Int64, handle: TimerHandle?, _ task: @escaping () -> Void) {
        sequence &+= 1
        heap.append(Entry(deadline: deadline, sequence: sequence, handle: handle, task: task))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].precedes(heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns the task of the earliest timer due at `now` (cancelled ones are
    /// dropped on the way), or nil when none is due.
    mutating func popDue(now: Int64) -> (() -> Void)? {
        while let first = heap.first, first.deadline <= now {
            let entry = removeFirst()
            if entry.handle?.cancelled == true { continue }
            return entry.task
        }
        return nil
    }

    private mutating func removeFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var smallest = i
                if l < heap.count && heap[l].precedes(heap[smallest]) { smallest = l }
                if r < heap.count && heap[r].precedes(heap[smallest]) { smallest = r }
                if smallest == i { break }
                heap.swapAt(i, smallest)
                i = smallest
            }
        }
        return first
    }

    mutating func removeAll() { heap.removeAll() }
}
