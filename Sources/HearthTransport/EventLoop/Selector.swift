#if canImport(Glibc)
import Glibc
import CHearthEpoll
#elseif canImport(Darwin)
import Darwin
#endif

/// What a registered descriptor waits for.
struct IOInterest: OptionSet, Sendable {
    let rawValue: UInt8
    static let read = IOInterest(rawValue: 1)
    static let write = IOInterest(rawValue: 2)
}

/// One readiness report: the registration's token and what happened.
struct IOEvent {
    var token: UInt64
    var readable: Bool
    var writable: Bool
    /// The peer hung up or the socket failed (reading then returns 0 or an error).
    var hangup: Bool
}

/// The operating system's readiness API behind one small interface: `epoll` on Linux,
/// `kqueue` on macOS. Level-triggered: a descriptor with unread bytes (or room to write,
/// while write interest is on) is reported again at every wait, so a handler may stop
/// after part of the work and pick it up at the next turn. Each registration carries a
/// 64-bit token (the event loop puts the descriptor and a generation in it, so a report
/// for a descriptor closed and reused within one batch is recognised as stale).
///
/// Only the event loop's thread registers, waits and reads events; `wakeUp()` may be
/// called from any thread to end a wait early.
final class Selector {
    private let fd: Int32
    /// Events of the last wait (reused, so waiting allocates nothing).
    private let capacity = 256
    #if canImport(Glibc)
    private let wakeFD: Int32
    private var events: UnsafeMutablePointer<epoll_event>
    #else
    private var events: UnsafeMutablePointer<kevent>
    #endif
    /// The token of the wake-up registration (never a descriptor's token).
    static let wakeToken = UInt64.max

    init() throws(Socket.SystemError) {
        #if canImport(Glibc)
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
        #else
        fd = kqueue()
        guard fd >= 0 else { throw Socket.SystemError(call: "kqueue", code: errno) }
        events = .allocate(capacity: capacity)
        var ev = kevent(ident: 0, filter: Int16(EVFILT_USER), flags: UInt16(EV_ADD | EV_CLEAR), fflags: 0, data: 0,
                        udata: UnsafeMutableRawPointer(bitPattern: UInt(Self.wakeToken)))
        _ = kevent(fd, &ev, 1, nil, 0, nil)
        #endif
    }

    deinit {
        events.deallocate()
    }

    /// Closes the selector's own descriptors (after the loop's last wait).
    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(wakeFD)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// Starts watching `descriptor`.
    func register(_ descriptor: Int32, token: UInt64, interest: IOInterest) {
        #if canImport(Glibc)
        var ev = epoll_event()
        ev.events = Self.epollMask(interest)
        ev.data.u64 = token
        _ = epoll_ctl(fd, EPOLL_CTL_ADD, descriptor, &ev)
        #else
        apply(descriptor, token: token, old: [], new: interest)
        #endif
    }

    /// Changes what `descriptor` waits for (`old` is what it waited for until now).
    func reregister(_ descriptor: Int32, token: UInt64, old: IOInterest, new: IOInterest) {
        #if canImport(Glibc)
        var ev = epoll_event()
        ev.events = Self.epollMask(new)
        ev.data.u64 = token
        _ = epoll_ctl(fd, EPOLL_CTL_MOD, descriptor, &ev)
        #else
        apply(descriptor, token: token, old: old, new: new)
        #endif
    }

    /// Stops watching `descriptor` (before it is closed).
    func deregister(_ descriptor: Int32, interest: IOInterest) {
        #if canImport(Glibc)
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, descriptor, &ev)
        #else
        apply(descriptor, token: 0, old: interest, new: [])
        #endif
    }

    #if canImport(Glibc)
    private static func epollMask(_ interest: IOInterest) -> UInt32 {
        // Hang-ups and errors are always reported; with read interest, so is the peer's
        // half-close (RDHUP), which a read then confirms by returning 0.
        var mask: UInt32 = 0
        if interest.contains(.read) { mask |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.write) { mask |= EPOLLOUT.rawValue }
        return mask
    }
    #else
    /// kqueue has a filter per direction: adds the ones now wanted, deletes the others.
    private func apply(_ descriptor: Int32, token: UInt64, old: IOInterest, new: IOInterest) {
        var changes: [kevent] = []
        let udata = UnsafeMutableRawPointer(bitPattern: UInt(token))
        for (flag, filter) in [(IOInterest.read, EVFILT_READ), (IOInterest.write, EVFILT_WRITE)] {
            if new.contains(flag) && !old.contains(flag) {
                changes.append(kevent(ident: UInt(descriptor), filter: Int16(filter), flags: UInt16(EV_ADD), fflags: 0, data: 0, udata: udata))
            } else if !new.contains(flag) && old.contains(flag) {
                changes.append(kevent(ident: UInt(descriptor), filter: Int16(filter), flags: UInt16(EV_DELETE), fflags: 0, data: 0, udata: udata))
            }
        }
        if !changes.isEmpty { _ = kevent(fd, &changes, Int32(changes.count), nil, 0, nil) }
    }
    #endif

    /// Waits until something is ready, `timeoutNanos` pass (nil: no limit) or `wakeUp()`
    /// is called, then reports each ready registration (never the wake-up itself).
    func wait(timeoutNanos: Int64?, _ body: (IOEvent) -> Void) {
        #if canImport(Glibc)
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
        #else
        var ts = timespec()
        var tsp: UnsafeMutablePointer<timespec>? = nil
        if let t = timeoutNanos {
            let clamped = max(0, t)
            ts.tv_sec = Int(clamped / 1_000_000_000)
            ts.tv_nsec = Int(clamped % 1_000_000_000)
        }
        let n = withUnsafeMutablePointer(to: &ts) { p -> Int32 in
            if timeoutNanos != nil { tsp = p }
            return kevent(fd, nil, 0, events, Int32(capacity), tsp)
        }
        guard n > 0 else { return }
        for i in 0..<Int(n) {
            let ev = events[i]
            let token = UInt64(UInt(bitPattern: ev.udata))
            if Int32(ev.filter) == EVFILT_USER { continue }
            let failed = Int32(ev.flags) & (EV_EOF | EV_ERROR) != 0
            body(IOEvent(token: token, readable: Int32(ev.filter) == EVFILT_READ || failed,
                         writable: Int32(ev.filter) == EVFILT_WRITE, hangup: failed))
        }
        #endif
    }

    /// Ends the current (or next) `wait` early. Any thread.
    func wakeUp() {
        #if canImport(Glibc)
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
        #else
        var ev = kevent(ident: 0, filter: Int16(EVFILT_USER), flags: 0, fflags: UInt32(NOTE_TRIGGER), data: 0,
                        udata: UnsafeMutableRawPointer(bitPattern: UInt(Self.wakeToken)))
        _ = kevent(fd, &ev, 1, nil, 0, nil)
        #endif
    }
}
