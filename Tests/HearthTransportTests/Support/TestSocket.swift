#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import HearthTransport

/// A blocking loopback client that controls every byte: it can send a request and never
/// read, stop half-way through a frame, or flood — what the budget tests need.
final class TestSocket: @unchecked Sendable {
    let fd: Int32
    private(set) var received: [UInt8] = []

    init(port: Int, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Socket.streamType, 0)
        if let receiveBuffer {
            // Set before connecting, so the window the client advertises stays small.
            var size = Int32(receiveBuffer)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw Socket.SystemError(call: "connect", code: errno) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// Writes every byte; false once the server has closed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let n = Darwin.send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads what arrives within `timeout` seconds into `received`; false when the server
    /// closed the connection (end of input or reset).
    @discardableResult
    func read(timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return true }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { return false }
        received.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads until `done(received)` or `timeout` seconds pass; true when `done` held.
    func read(until done: ([UInt8]) -> Bool, timeout: Double = 10) -> Bool {
        let deadline = Monotonic.now() + Monotonic.nanoseconds(timeout)
        while !done(received) {
            let left = Double(deadline - Monotonic.now()) / 1e9
            guard left > 0, read(timeout: min(left, 0.2)) else { return done(received) }
        }
        return true
    }

    /// Waits until the server closes the connection (true) or `timeout` seconds pass.
    func waitForClose(timeout: Double = 10) -> Bool {
        let deadline = Monotonic.now() + Monotonic.nanoseconds(timeout)
        while Monotonic.now() < deadline {
            if !read(timeout: 0.2) { return true }
        }
        return false
    }

    var text: String { String(decoding: received, as: UTF8.self) }
}

/// Waits until `condition` holds or `timeout` seconds pass.
func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Monotonic.now() + Monotonic.nanoseconds(timeout)
    while Monotonic.now() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
