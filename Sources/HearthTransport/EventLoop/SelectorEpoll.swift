#if canImport(Glibc)
import Glibc
import CHearthEpoll

/// The Linux `Selector`: epoll, with an eventfd for wake-ups (Selector.swift has the contract).
final class Selector {
    private let fd: Int32
    /// Events of the last wait (reused, so waiting allocates nothing).
    private let capacity = 256
    private let wakeFD: Int32
    private var events: UnsafeMutablePointer<epoll_event>
    /// The token of the wake-up registration (never a descriptor's token).
    static let wakeToken = UInt64.max

    init() throws(Socket.SystemError) {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw Socket.SystemError(call: "epoll_create1", code: errno) }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw Socket.SystemError(call: "eventfd", code: code)
        }
        events = .allocate(capacity: capacity)
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.u64 = Self.wakeToken
        _ = epoll_ctl(fd, EPOLL_CTL_ADD, wakeFD, &ev)
    }

    deinit {
        events.deallocate()
    }

    /// Closes the selector's own descriptors (after the loop's last wait).
    func close() {
        _ = Glibc.close(wakeFD)
        _ = Glibc.close(fd)
    }

    /// Starts watching `descriptor`.
    func register(_ descriptor: Int32, token: UInt64, interest: IOInterest) {
        var ev = epoll_event()
        ev.events = Self.epollMask(interest)
        ev.data.u64 = token
        _ = epoll_ctl(fd, EPOLL_CTL_ADD, descriptor, &ev)
    }

    /// Changes what `descriptor` waits for (`old` is what it waited for until now).
    func reregister(_ descriptor: Int32, token: UInt64, old: IOInterest, new: IOInterest) {
        var ev = epoll_event()
        ev.events = Self.epollMask(new)
        ev.data.u64 = token
        _ = epoll_ctl(fd, EPOLL_CTL_MOD, descriptor, &ev)
    }

    /// Stops watching `descriptor` (before it is closed).
    func deregister(_ descriptor: Int32, interest: IOInterest) {
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, descriptor, &ev)
    }

    private static func epollMask(_ interest: IOInterest) -> UInt32 {
        // Hang-ups and errors are always reported; with read interest, so is the peer's
        // half-close (RDHUP), which a read then confirms by returning 0.
        var mask: UInt32 = 0
        if interest.contains(.read) { mask |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.write) { mask |= EPOLLOUT.rawValue }
        return mask
    }

    /// Waits until something is ready, `timeoutNanos` pass (nil: no limit) or `wakeUp()`
    /// is called, then reports each ready registration (never the wake-up itself).
    func wait(timeoutNanos: Int64?, _ body: (IOEvent) -> Void) {
        let ms: Int32
        if let t = timeoutNanos {
            // Round up, so a timer is never woken for a little early and spun on.
            ms = Int32(clamping: t <= 0 ? 0 : (t + 999_999) / 1_000_000)
        } else {
            ms = -1
        }
        let n = epoll_wait(fd, events, Int32(capacity), ms)
        guard n > 0 else { return }
        for i in 0..<Int(n) {
            let ev = events[i]
            let token = ev.data.u64
            if token == Self.wakeToken {
                var value: UInt64 = 0
                _ = Glibc.read(wakeFD, &value, 8)
                continue
            }
            let mask = ev.events
            let failed = mask & (EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0
            body(IOEvent(token: token, readable: mask & EPOLLIN.rawValue != 0 || failed,
                         writable: mask & EPOLLOUT.rawValue != 0, hangup: failed))
        }
    }

    /// Ends the current (or next) `wait` early. Any thread.
    func wakeUp() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }
}
#endif
