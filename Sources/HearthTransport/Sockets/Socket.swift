#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the server needs, hiding the Glibc/Darwin
/// differences. A failure carries the call's name and `strerror`.
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

    /// Sets TCP_NODELAY and a send timeout on an accepted connection.
    static func configureAccepted(_ fd: Int32, sendTimeout: Double) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var tv = timeval(tv_sec: Int(sendTimeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Waits until `fd` is readable or `timeout` seconds pass. True when readable (or hung up).
    static func waitReadable(_ fd: Int32, timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(max(0, min(timeout * 1000, Double(Int32.max))))
        while true {
            let rc = poll(&p, 1, ms)
            if rc < 0 && errno == EINTR { continue }
            return rc > 0
        }
    }

    /// Reads up to `count` bytes; 0 on orderly close, -1 on error.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        while true {
            let n = recv(fd, buffer, count, 0)
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Writes every byte (false when the peer went away or the send timed out).
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw -> Bool in
            guard var p = raw.baseAddress else { return true }
            var left = raw.count
            while left > 0 {
                #if canImport(Glibc)
                let n = send(fd, p, left, Int32(MSG_NOSIGNAL))
                #else
                let n = send(fd, p, left, 0)
                #endif
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                left -= n
                p = p.advanced(by: n)
            }
            return true
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
