import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small blocking HTTP/1.1 client connection, for the few calls the server makes out
/// (Cloud Functions trigger deliveries): one request at a time, kept alive between requests,
/// every step bounded by a timeout so a peer that stalls costs that long and no more.
/// Bodies are read by Content-Length or chunked; a response without either is read to the
/// connection's end. Not thread-safe: one owner at a time.
public final class HTTPClientConnection {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        /// The request may not have reached the peer (connect refused, reset before an answer).
        public let retryable: Bool
    }

    public struct Response: Sendable {
        public let status: Int
        public let headers: [(String, String)]
        public let body: [UInt8]
    }

    public let host: String
    public let port: Int
    /// How long a connect, and then each send or receive, may take.
    public let timeout: Double
    /// The largest response body read (larger: the connection fails).
    public let maxBody: Int
    private var fd: Int32 = -1

    public init(host: String, port: Int, timeout: Double = 5, maxBody: Int = 1 << 20) {
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.port = port
        self.timeout = timeout
        self.maxBody = maxBody
    }

    /// `host:port` or `[v6]:port` → (host, port), nil when malformed.
    public static func parseAddress(_ address: String) -> (host: String, port: Int)? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (1...65_535).contains(port) else { return nil }
        let host = String(address[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host.isEmpty ? nil : (host, port)
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { _ = systemClose(fd) }
        fd = -1
    }

    /// Sends one request and reads its answer. A kept-alive connection the peer has closed
    /// meanwhile is reopened once, transparently.
    public func send(method: String, path: String, headers: [(String, String)], body: [UInt8]) throws(Failure) -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        let reused = fd >= 0
        do throws(Failure) {
            if fd < 0 { try open() }
            try write(request)
            return try readResponse(method: method)
        } catch {
            close()
            // A stale kept-alive connection fails on first use: try a fresh one once.
            guard reused, error.retryable else { throw error }
            try open()
            do throws(Failure) {
                try write(request)
                return try readResponse(method: method)
            } catch {
                close()
                throw error
            }
        }
    }

    private func open() throws(Failure) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else {
            throw Failure(description: "cannot resolve \(host)", retryable: true)
        }
        defer { freeaddrinfo(result) }
        var info: UnsafeMutablePointer<addrinfo>? = first
        var lastError = "no address"
        while let ai = info {
            info = ai.pointee.ai_next
            let s = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            guard s >= 0 else { continue }
            let flags = fcntl(s, F_GETFL, 0)
            _ = fcntl(s, F_SETFL, flags | O_NONBLOCK)
            var rc = systemConnect(s, ai.pointee.ai_addr, ai.pointee.ai_addrlen)
            if rc != 0 && errno == EINPROGRESS {
                var p = pollfd(fd: s, events: Int16(POLLOUT), revents: 0)
                if poll(&p, 1, Int32(timeout * 1000)) == 1 {
                    var err: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len)
                    rc = err == 0 ? 0 : -1
                    errno = err
                } else {
                    errno = ETIMEDOUT
                    rc = -1
                }
            }
            if rc == 0 {
                _ = fcntl(s, F_SETFL, flags)
                var tv = timeval(tv_sec: .init(timeout), tv_usec: .init((timeout - timeout.rounded(.down)) * 1_000_000))
                setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                var one: Int32 = 1
                setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                #if canImport(Darwin)
                setsockopt(s, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
                #endif
                fd = s
                return
            }
            lastError = String(cString: strerror(errno))
            _ = systemClose(s)
        }
        throw Failure(description: "cannot connect to \(host):\(port): \(lastError)", retryable: true)
    }

    private func write(_ bytes: [UInt8]) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            #if canImport(Glibc)
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
            let n = bytes[sent...].withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
            #endif
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw Failure(description: "cannot send to \(host):\(port): \(String(cString: strerror(errno)))", retryable: true)
            }
            sent += n
        }
    }

    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16_384)

    private func fill() throws(Failure) -> Bool {
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                throw Failure(description: "\(host):\(port) did not answer within \(timeout) s", retryable: false)
            }
            if n < 0 { throw Failure(description: "reading from \(host):\(port): \(String(cString: strerror(errno)))", retryable: buffer.isEmpty) }
            if n == 0 { return false }
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
    }

    private func readResponse(method: String) throws(Failure) -> Response {
        buffer.removeAll(keepingCapacity: true)
        var end: Int?
        while end == nil {
            end = Self.find([13, 10, 13, 10], in: buffer)
            if end == nil {
                guard buffer.count < 65_536 else { throw Failure(description: "\(host):\(port) sent an oversized header", retryable: false) }
                guard try fill() else {
                    throw Failure(description: "\(host):\(port) closed the connection before answering", retryable: buffer.isEmpty)
                }
            }
        }
        let headText = String(decoding: buffer[0..<end!], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusParts = lines.removeFirst().split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure(description: "\(host):\(port) sent a malformed HTTP answer", retryable: false)
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var rest = Array(buffer[(end! + 4)...])
        buffer = []
        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        var keepAlive = header("connection")?.lowercased() != "close"
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            body = []
        } else if let length = header("content-length").flatMap({ Int($0) }) {
            guard length <= maxBody else { throw Failure(description: "\(host):\(port) answered with \(length) bytes", retryable: false) }
            buffer = rest
            while buffer.count < length {
                guard try fill() else { throw Failure(description: "\(host):\(port) closed mid-answer", retryable: false) }
            }
            body = Array(buffer[0..<length])
        } else if header("transfer-encoding")?.lowercased().contains("chunked") == true {
            buffer = rest
            var offset = 0
            while true {
                var lineEnd = Self.find([13, 10], in: buffer, from: offset)
                while lineEnd == nil {
                    guard try fill() else { throw Failure(description: "\(host):\(port) closed mid-answer", retryable: false) }
                    lineEnd = Self.find([13, 10], in: buffer, from: offset)
                }
                let sizeText = String(decoding: buffer[offset..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
                      body.count + size <= maxBody else {
                    throw Failure(description: "\(host):\(port) sent a malformed chunk", retryable: false)
                }
                offset = lineEnd! + 2
                while buffer.count < offset + size + 2 {
                    guard try fill() else { throw Failure(description: "\(host):\(port) closed mid-answer", retryable: false) }
                }
                body += buffer[offset..<(offset + size)]
                offset += size + 2
                if size == 0 { break }
            }
        } else {
            buffer = rest
            while try fill() {
                guard buffer.count <= maxBody else { throw Failure(description: "\(host):\(port) answered too much", retryable: false) }
            }
            body = buffer
            keepAlive = false
        }
        rest = []
        buffer = []
        if !keepAlive { close() }
        return Response(status: status, headers: headers, body: body)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int = 0) -> Int? {
        guard haystack.count >= needle.count + from else { return nil }
        var i = from
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

// The C calls, out of reach of the methods of the same names above.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.connect(fd, address, length)
    #else
    Darwin.connect(fd, address, length)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
