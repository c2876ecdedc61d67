// The benchmark's own clients' sockets (RESTBenchmark, ListenFanout, ServerUnderTest): one
// way to connect, and the C library's spellings that differ between Linux and Darwin — here,
// so each of those files compiles on both (docs/platforms.md).
#if canImport(Glibc)
import Glibc

/// SOCK_STREAM: an enum case in Glibc's module, an Int32 in Darwin's.
let tcpStreamType = Int32(SOCK_STREAM.rawValue)
/// send(2) flags that keep a write to a closed connection from raising SIGPIPE.
let sendNoSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin

let tcpStreamType = SOCK_STREAM
/// Darwin has no MSG_NOSIGNAL; main.swift ignores SIGPIPE instead (a write then fails with EPIPE).
let sendNoSignal: Int32 = 0
#endif

/// close(2), callable from a type that has a `close` method of its own.
func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// A connected TCP socket to `host` (an IPv4 address or `localhost`) and `port`, with
/// Nagle off (requests are small and answered one by one); throws naming the address.
func connectTCP(host: String, port: Int) throws -> Int32 {
    let fd = socket(AF_INET, tcpStreamType, 0)
    guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = UInt16(port).bigEndian
    addr.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else {
        let code = errno
        closeDescriptor(fd)
        throw BenchError("connect \(host):\(port): errno \(code)")
    }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return fd
}
