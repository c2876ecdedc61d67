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

// `Selector` is the operating system's readiness API behind one small interface, one
// whole class per system: `epoll` on Linux (SelectorEpoll.swift), `kqueue` on macOS
// (SelectorKqueue.swift — the transport's only Darwin-only code of any size; nothing on
// Linux compiles it: docs/platforms.md). Both have the same members:
//
//     init() throws(Socket.SystemError)
//     func close()                                    // its own descriptors, after the last wait
//     func register(_ fd: Int32, token: UInt64, interest: IOInterest)
//     func reregister(_ fd: Int32, token: UInt64, old: IOInterest, new: IOInterest)
//     func deregister(_ fd: Int32, interest: IOInterest)
//     func wait(timeoutNanos: Int64?, _ body: (IOEvent) -> Void)
//     func wakeUp()                                   // any thread
//     static let wakeToken: UInt64
//
// Level-triggered: a descriptor with unread bytes (or room to write, while write interest
// is on) is reported again at every wait, so a handler may stop after part of the work and
// pick it up at the next turn. Each registration carries a 64-bit token (the event loop
// puts the descriptor and a generation in it, so a report for a descriptor closed and
// reused within one batch is recognised as stale). Only the event loop's thread registers,
// waits and reads events; `wakeUp()` may be called from any thread to end a wait early.
