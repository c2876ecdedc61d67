#if canImport(Darwin)
import Darwin

/// The macOS `Selector`: kqueue, with an EVFILT_USER event for wake-ups (Selector.swift has
/// the contract). Darwin-only, so no Linux build compiles it (docs/platforms.md).
final class Selector {
    private let fd: Int32
    /// Events of the last wait (reused, so waiting allocates nothing).
    private let capacity = 256
    private var events: UnsafeMutablePointer<kevent>
    /// The token of the wake-up registration (never a descriptor's token).
    static let wakeToken = UInt64.max

    init() throws(Socket.SystemError) {
        fd = kqueue()
        guard fd >= 0 else { throw Socket.SystemError(call: "kqueue", code: errno) }
        events = .allocate(capacity: capacity)
        var ev = kevent(ident: 0, filter: Int16(EVFILT_USER), flags: UInt16(EV_ADD | EV_CLEAR), fflags: 0, data: 0,
                        udata: UnsafeMutableRawPointer(bitPattern: UInt(Self.wakeToken)))
        _ = kevent(fd, &ev, 1, nil, 0, nil)
    }

    deinit {
        events.deallocate()
    }

    /// Closes the selector's own descriptor (after the loop's last wait).
    func close() {
        _ = Darwin.close(fd)
    }

    /// Starts watching `descriptor`.
    func register(_ descriptor: Int32, token: UInt64, interest: IOInterest) {
        apply(descriptor, token: token, old: [], new: interest)
    }

    /// Changes what `descriptor` waits for (`old` is what it waited for until now).
    func reregister(_ descriptor: Int32, token: UInt64, old: IOInterest, new: IOInterest) {
        apply(descriptor, token: token, old: old, new: new)
    }

    /// Stops watching `descriptor` (before it is closed).
    func deregister(_ descriptor: Int32, interest: IOInterest) {
        apply(descriptor, token: 0, old: interest, new: [])
    }

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

    /// Waits until something is ready, `timeoutNanos` pass (nil: no limit) or `wakeUp()`
    /// is called, then reports each ready registration (never the wake-up itself).
    func wait(timeoutNanos: Int64?, _ body: (IOEvent) -> Void) {
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
    }

    /// Ends the current (or next) `wait` early. Any thread.
    func wakeUp() {
        var ev = kevent(ident: 0, filter: Int16(EVFILT_USER), flags: 0, fflags: UInt32(NOTE_TRIGGER), data: 0,
                        udata: UnsafeMutableRawPointer(bitPattern: UInt(Self.wakeToken)))
        _ = kevent(fd, &ev, 1, nil, 0, nil)
    }
}
#endif
