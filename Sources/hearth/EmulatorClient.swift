import Foundation
import HearthCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Just enough HTTP/1.1 to call a running emulator's endpoints from the command line: one
/// POST with a JSON body per connection (`Connection: close`), the answer read to the end.
/// It speaks to Hearth and to the official emulator alike.
struct EmulatorClient {
    /// `host:port` or `[v6]:port`, as FIRESTORE_EMULATOR_HOST holds it.
    let address: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Posts `body`; returns the status and the response body.
    func post(_ path: String, json body: JSON) throws(Failure) -> (status: Int, body: JSON?) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            throw Failure(description: "the emulator address must be HOST:PORT, got '\(address)'")
        }
        let host = String(address[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let fd = try connect(host: host == "localhost" ? "127.0.0.1" : host, port: port)
        defer { close(fd) }
        let payload = body.bytes
        let head = "POST \(path) HTTP/1.1\r\nHost: \(address)\r\nContent-Type: application/json\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + payload
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "cannot send to \(address): \(String(cString: strerror(errno)))") }
            sent += n
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            response.append(contentsOf: chunk[0..<n])
        }
        guard let end = response.indices.first(where: { i in i + 3 < response.count && response[i...(i + 3)].elementsEqual([13, 10, 13, 10]) }) else {
            throw Failure(description: "no HTTP answer from \(address)")
        }
        let statusLine = String(decoding: response[0..<end], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "a malformed HTTP answer from \(address)") }
        var bodyBytes = Array(response[(end + 4)...])
        if String(decoding: response[0..<end], as: UTF8.self).lowercased().contains("transfer-encoding: chunked") {
            bodyBytes = Self.dechunk(bodyBytes)
        }
        return (status, try? JSON.parse(bodyBytes))
    }

    private func connect(host: String, port: Int) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        var info: UnsafeMutablePointer<addrinfo>? = first
        while let ai = info {
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            if fd >= 0 {
                if systemConnect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 { return fd }
                close(fd)
            }
            info = ai.pointee.ai_next
        }
        throw Failure(description: "cannot connect to \(address): \(String(cString: strerror(errno))); is the emulator running?")
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard let lineEnd = bytes[i...].firstIndex(of: 13) else { break }
            let size = Int(String(decoding: bytes[i..<lineEnd], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd + 2
            out.append(contentsOf: bytes[start..<min(start + size, bytes.count)])
            i = start + size + 2
        }
        return out
    }
}

// The struct's own `connect` shadows the C library's inside it.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
