#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the server needs, hiding the Glibc/Darwin
/// differences. Sockets are non-blocking: the event loops wait for readiness, never a call. A failure carries the call's name and `strerror`.
enum Socket {
    struct SystemError: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    #if canImport(Glibc)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamType = SOCK_STREAM
    #endif

    /// Creates, binds and listens on `host:port` (port 0 = ephemeral). Returns the socket
    /// and the bound port.
    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SystemError) -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else { throw SystemError(call: "getaddrinfo(\(host))", code: EINVAL) }
        defer { freeaddrinfo(result) }
        var lastError = SystemError(call: "bind", code: EADDRNOTAVAIL)
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let ai = candidate {
            candidate = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, streamType, 0)
            if fd < 0 { lastError = SystemError(call: "socket", code: errno); continue }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) != 0 {
                lastError = SystemError(call: "bind(\(host):\(port))", code: errno)
                close(fd)
                continue
            }
            if Glibc_listen(fd, backlog) != 0 {
                lastError = SystemError(call: "listen", code: errno)
                close(fd)
                continue
            }
            return (fd, boundPort(fd))
        }
        throw lastError
    }

    static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: storage) { p -> Int in
            if family == AF_INET6 {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    // MARK: Non-blocking I/O (the event loops)

    /// What the non-blocking calls return when the socket has no data or no room now.
    static let wouldBlock = -2

    /// Puts `fd` in non-blocking mode and marks it close-on-exec.
    static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// Sets TCP_NODELAY (answers leave at once; the loop already writes each batch in one call).
    static func configureAcceptedNonBlocking(_ fd: Int32) {
        setNonBlocking(fd)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Accepts one pending connection: its descriptor, `wouldBlock` when none is pending,
    /// or -1 (with `errno`) on failure.
    static func acceptNonBlocking(_ listenFD: Int32) -> Int32 {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd >= 0 { return fd }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return Int32(wouldBlock)
            default: return -1
            }
        }
    }

    /// Writes up to `count` bytes: how many, `wouldBlock`, or -1 when the connection failed.
    static func sendNonBlocking(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        while true {
            #if canImport(Glibc)
            let n = send(fd, bytes, count, Int32(MSG_NOSIGNAL))
            #else
            let n = send(fd, bytes, count, 0)
            #endif
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return wouldBlock
            default: return -1
            }
        }
    }

    /// Reads up to `count` bytes: how many (0 at end of input), `wouldBlock`, or -1.
    static func receiveNonBlocking(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        while true {
            let n = recv(fd, buffer, count, 0)
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return wouldBlock
            default: return -1
            }
        }
    }

    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    static func closeSocket(_ fd: Int32) { _ = close(fd) }
}

#if canImport(Glibc)
private func Glibc_listen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
#else
private func Glibc_listen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
#endif
