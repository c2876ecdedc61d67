#if canImport(Glibc)
import Glibc
/// SOCK_STREAM: an enum case in Glibc's module, an Int32 in Darwin's.
private let streamType = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamType = SOCK_STREAM
#endif
import Foundation

// What the test targets of more than one module share (HearthTransportTests and
// HearthServerTests): a raw HTTP/1.1 client. Plain code on the C library — it depends on no
// Hearth module, so a transport test need not pull in the server.

/// `connect` failed (errno `code`).
public struct ConnectError: Error, CustomStringConvertible {
    public let port: Int
    public let code: Int32
    public var description: String { "connect to 127.0.0.1:\(port): errno \(code)" }
}

/// A minimal blocking HTTP/1.1 client over a loopback socket, so tests control the exact
/// bytes (pipelining, chunking, malformed input) and read responses one by one.
public final class RawHTTPClient {
    public struct Response {
        public var status: Int
        public var headers: [String: String]
        /// Every header line as sent (lower-cased names), duplicates included.
        public var headerLines: [(name: String, value: String)] = []
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }

        public init(status: Int, headers: [String: String], headerLines: [(name: String, value: String)] = [], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.headerLines = headerLines
            self.body = body
        }
    }

    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int) throws {
        fd = socket(AF_INET, streamType, 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: a class's deinit runs even when its init throws, and closing twice
        // could close a descriptor another test has just been given.
        guard rc == 0 else { throw ConnectError(port: port, code: errno) }
        var tv = timeval(tv_sec: 10 * SanitizerSlowdown.factor, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        // Requests go out in several writes (headers, then body): without this, Nagle's
        // algorithm holds the second back for the server's delayed ACK (40 ms).
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    /// Writes every byte (blocking); stops quietly when the server has closed.
    public func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let n = Darwin.send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends one request with a Content-Length body.
    public func request(_ method: String, _ target: String, body: String? = nil, headers: [String: String] = [:]) -> Response? {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        send(head + "\r\n" + (body ?? ""))
        return readResponse()
    }

    /// Reads bytes until the peer closes (or times out); true when it closed.
    public func readUntilClosed() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads one response (nil when the connection closed first).
    public func readResponse() -> Response? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return false }
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                var headers: [String: String] = [:]
                var headerLines: [(name: String, value: String)] = []
                for l in lines where !l.isEmpty {
                    if let c = l.firstIndex(of: ":") {
                        let name = l[..<c].lowercased(), value = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)
                        headers[name] = value
                        headerLines.append((name, value))
                    }
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while buffer.count < end + 4 + length { if !fill() { return nil } }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                if status == 100 { continue }
                return Response(status: status, headers: headers, headerLines: headerLines, body: body)
            }
            if !fill() { return nil }
        }
    }

    /// What has been read and not yet taken as a response (after `readUntilClosed`).
    public var remainingText: String { String(decoding: buffer, as: UTF8.self) }

    /// Reads a response head only (for a chunked body read with `readChunk`).
    public func readHead() -> (status: Int, headers: [String: String])? {
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                var headers: [String: String] = [:]
                for l in lines {
                    if let c = l.firstIndex(of: ":") {
                        headers[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)
                    }
                }
                return (status, headers)
            }
            if !fill() { return nil }
        }
    }

    /// Reads one chunk of a chunked body: its bytes, empty for the last chunk, nil when the
    /// connection closed (or the read timed out) first.
    public func readChunk() -> [UInt8]? {
        func line() -> String? {
            while true {
                if let i = buffer.firstIndex(of: 10), i > 0, buffer[i - 1] == 13 {
                    let l = String(decoding: buffer[0..<(i - 1)], as: UTF8.self)
                    buffer.removeFirst(i + 1)
                    return l
                }
                if !fill() { return nil }
            }
        }
        guard let sizeLine = line(), let size = Int(sizeLine, radix: 16) else { return nil }
        while buffer.count < size + 2 { if !fill() { return nil } }
        let data = Array(buffer[0..<size])
        buffer.removeFirst(size + 2)
        return data
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}
