/// An incremental HTTP/1.x request parser. Bytes are appended as they arrive; `next()`
/// yields each complete request in order (pipelining), asks the connection to send
/// `100 Continue`, or reports the error the client gets before the connection closes.
///
/// Every malformed input ends in `.failure` with a status and a message naming what is
/// wrong; nothing here traps on hostile bytes.
struct HTTPRequestParser {
    enum Outcome {
        case needMore
        case request(HTTPRequest)
        /// The request announced `Expect: 100-continue` and its body has not arrived yet.
        case sendContinue
        case failure(status: Int, message: String)
    }

    private struct Head {
        var method: String
        var target: String
        var minorVersion: Int
        var headers: [(name: String, value: String)]
        var expectsContinue: Bool
    }

    private enum BodyFraming {
        case length(Int)
        case chunked
    }

    private enum ChunkState {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
    }

    let limits: HTTPLimits
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already consumed.
    private var start = 0
    /// How far the search for the end of the head has looked.
    private var scanned = 0
    private var head: Head?
    private var framing: BodyFraming = .length(0)
    private var body: [UInt8] = []
    private var chunk: ChunkState = .size
    private var continueSent = false
    private var failed = false

    init(limits: HTTPLimits) { self.limits = limits }

    /// True when no part of a request is buffered (between requests).
    var isIdle: Bool { head == nil && start == buffer.count }

    /// True while the head of a request is incomplete.
    var isReadingHead: Bool { head == nil && start < buffer.count }

    /// True while a request's head is complete and its body is not.
    var isReadingBody: Bool { head != nil }

    /// Input held: bytes received and not yet returned in a request, and the body so far.
    var heldByteCount: Int { buffer.count - start + body.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanned = 0
        } else if start > 64 * 1024 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The bytes received past the last request (a protocol switch takes them over).
    mutating func takeUnparsed() -> [UInt8] {
        let rest = Array(buffer[start...])
        buffer = []
        start = 0
        scanned = 0
        return rest
    }

    mutating func next() -> Outcome {
        if failed { return .needMore }
        if head == nil {
            switch parseHead() {
            case .needMore: return .needMore
            case .failure(let s, let m): failed = true; return .failure(status: s, message: m)
            case .request, .sendContinue: break
            }
        }
        guard let h = head else { return .needMore }
        switch readBody() {
        case .needMore:
            if h.expectsContinue && !continueSent {
                continueSent = true
                return .sendContinue
            }
            return .needMore
        case .failure(let s, let m):
            failed = true
            return .failure(status: s, message: m)
        case .request, .sendContinue:
            let request = HTTPRequest(method: h.method, target: h.target, minorVersion: h.minorVersion,
                                      headers: h.headers, body: body)
            head = nil
            body = []
            chunk = .size
            continueSent = false
            scanned = start
            return .request(request)
        }
    }

    // MARK: Head

    private mutating func parseHead() -> Outcome {
        // Leading empty lines before a request line are ignored (RFC 9112 §2.2).
        while start + 1 < buffer.count, buffer[start] == 13, buffer[start + 1] == 10 { start += 2 }
        while start < buffer.count, buffer[start] == 10 { start += 1 }
        if scanned < start { scanned = start }
        var end = -1
        var i = max(scanned, start + 3)
        while i < buffer.count {
            if buffer[i] == 10, buffer[i - 1] == 13, buffer[i - 2] == 10, buffer[i - 3] == 13 { end = i + 1; break }
            i += 1
        }
        if end < 0 {
            scanned = max(start, buffer.count - 3)
            if buffer.count - start > limits.maxHeaderBytes {
                return .failure(status: 431, message: "Request header fields too large: the request line and headers exceed \(limits.maxHeaderBytes) bytes.")
            }
            return .needMore
        }
        if end - start > limits.maxHeaderBytes {
            return .failure(status: 431, message: "Request header fields too large: the request line and headers exceed \(limits.maxHeaderBytes) bytes.")
        }
        let headBytes = buffer[start..<(end - 4)]
        start = end
        return interpretHead(headBytes)
    }

    /// A request head that is refused: the status and message answered.
    private struct Refusal: Error {
        let status: Int
        let message: String
        init(_ status: Int, _ message: String) { self.status = status; self.message = message }
    }

    /// The head's lines, request line, headers and body framing, each checked; sets up the
    /// body's reading.
    private mutating func interpretHead(_ bytes: ArraySlice<UInt8>) -> Outcome {
        do throws(Refusal) {
            let lines = try Self.splitLines(bytes)
            let (method, target, minor) = try Self.parseRequestLine(lines[0])
            let headers = try Self.parseHeaders(lines.dropFirst())
            let (framing, expectsContinue) = try bodyFraming(headers)
            self.framing = framing
            head = Head(method: method, target: target, minorVersion: minor, headers: headers, expectsContinue: expectsContinue)
            body = []
            if case .length(let n) = framing { body.reserveCapacity(n) }
            return .request(HTTPRequest(method: method, target: target))
        } catch {
            return .failure(status: error.status, message: error.message)
        }
    }

    /// Lines end with CRLF; a bare CR or LF, or a NUL byte, is refused.
    private static func splitLines(_ bytes: ArraySlice<UInt8>) throws(Refusal) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var j = bytes.startIndex
        while j < bytes.endIndex {
            if bytes[j] == 13 {
                guard j + 1 < bytes.endIndex, bytes[j + 1] == 10 else {
                    throw Refusal(400, "Malformed request: a bare CR in the request head.")
                }
                lines.append(bytes[lineStart..<j])
                j += 2
                lineStart = j
                continue
            }
            if bytes[j] == 10 { throw Refusal(400, "Malformed request: a bare LF in the request head.") }
            if bytes[j] == 0 { throw Refusal(400, "Malformed request: a NUL byte in the request head.") }
            j += 1
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        return lines
    }

    /// `METHOD SP target SP HTTP/1.x`: the method, the target and the minor version.
    private static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(Refusal) -> (method: String, target: String, minor: Int) {
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw Refusal(400, "Malformed request line: expected 'METHOD target HTTP/1.1'.")
        }
        guard parts[0].allSatisfy(Self.isTokenByte) else {
            throw Refusal(400, "Malformed request line: invalid method.")
        }
        guard parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw Refusal(400, "Malformed request line: the request target contains a space or a non-ASCII byte.")
        }
        let version = parts[2]
        guard version.count == 8, version.starts(with: "HTTP/".utf8), version[version.startIndex + 6] == 46,
              let major = Self.digit(version[version.startIndex + 5]),
              let minor = Self.digit(version[version.startIndex + 7]) else {
            throw Refusal(400, "Malformed request line: invalid HTTP version.")
        }
        guard major == 1 else {
            throw Refusal(505, "HTTP version \(major).\(minor) is not supported on an HTTP/1.1 connection.")
        }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self), minor)
    }

    /// `name: value` lines: names lowercased, values without surrounding blanks; folded
    /// lines are refused.
    private static func parseHeaders(_ lines: ArraySlice<ArraySlice<UInt8>>) throws(Refusal) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(lines.count)
        for line in lines {
            guard let colon = line.firstIndex(of: 58) else {
                if let f = line.first, f == 32 || f == 9 {
                    throw Refusal(400, "Malformed header: obsolete line folding is not accepted.")
                }
                throw Refusal(400, "Malformed header line: missing ':'.")
            }
            let nameBytes = line[line.startIndex..<colon]
            guard !nameBytes.isEmpty, nameBytes.allSatisfy(Self.isTokenByte) else {
                throw Refusal(400, "Malformed header line: invalid header name.")
            }
            var v = line[(colon + 1)...]
            while let f = v.first, f == 32 || f == 9 { v = v.dropFirst() }
            while let l = v.last, l == 32 || l == 9 { v = v.dropLast() }
            headers.append((String(decoding: nameBytes, as: UTF8.self).lowercased(), String(decoding: v, as: UTF8.self)))
        }
        return headers
    }

    /// How the body is delimited (Content-Length or chunked, never both, within the body
    /// budget) and whether the client waits for `100 Continue`.
    private func bodyFraming(_ headers: [(name: String, value: String)]) throws(Refusal) -> (BodyFraming, expectsContinue: Bool) {
        var contentLength: Int?
        var chunked = false
        var expectsContinue = false
        for (name, value) in headers {
            switch name {
            case "content-length":
                guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(value) else {
                    throw Refusal(400, "Invalid Content-Length header: '\(value.prefix(40))'.")
                }
                if let c = contentLength, c != n {
                    throw Refusal(400, "Conflicting Content-Length headers.")
                }
                contentLength = n
            case "transfer-encoding":
                let codings = value.lowercased().split(separator: ",").map { $0.trimmingWhitespace }
                guard codings.last == "chunked", codings.allSatisfy({ $0 == "chunked" || $0 == "identity" }) else {
                    throw Refusal(501, "Unsupported Transfer-Encoding '\(value.prefix(40))': only chunked is accepted.")
                }
                chunked = true
            case "expect":
                if value.lowercased() == "100-continue" { expectsContinue = true }
            default:
                break
            }
        }
        if chunked && contentLength != nil {
            throw Refusal(400, "A request may not carry both Content-Length and Transfer-Encoding.")
        }
        if let n = contentLength, n > limits.maxBodyBytes {
            throw Refusal(413, "Request body of \(n) bytes exceeds the limit of \(limits.maxBodyBytes) bytes.")
        }
        return (chunked ? .chunked : .length(contentLength ?? 0), expectsContinue)
    }

    // MARK: Body

    private mutating func readBody() -> Outcome {
        switch framing {
        case .length(let n):
            let take = min(n - body.count, buffer.count - start)
            if take > 0 {
                body.append(contentsOf: buffer[start..<(start + take)])
                start += take
            }
            return body.count == n ? .request(HTTPRequest(method: "", target: "")) : .needMore
        case .chunked:
            return readChunks()
        }
    }

    private mutating func readChunks() -> Outcome {
        while true {
            switch chunk {
            case .size:
                guard let lineEnd = findCRLF(limit: 4096) else {
                    if buffer.count - start > 4096 { return .failure(status: 400, message: "Malformed chunked body: chunk-size line too long.") }
                    return .needMore
                }
                var line = buffer[start..<lineEnd]
                if let semi = line.firstIndex(of: 59) { line = line[line.startIndex..<semi] }
                while let l = line.last, l == 32 || l == 9 { line = line.dropLast() }
                guard !line.isEmpty, line.count <= 8 else {
                    return .failure(status: 400, message: "Malformed chunked body: invalid chunk size.")
                }
                var size = 0
                for b in line {
                    guard let d = Self.hexDigit(b) else { return .failure(status: 400, message: "Malformed chunked body: invalid chunk size.") }
                    size = size * 16 + d
                }
                start = lineEnd + 2
                if size == 0 {
                    chunk = .trailers
                } else {
                    if body.count + size > limits.maxBodyBytes {
                        return .failure(status: 413, message: "Request body exceeds the limit of \(limits.maxBodyBytes) bytes.")
                    }
                    chunk = .data(remaining: size)
                }
            case .data(let remaining):
                let take = min(remaining, buffer.count - start)
                if take == 0 { return .needMore }
                body.append(contentsOf: buffer[start..<(start + take)])
                start += take
                chunk = remaining == take ? .dataEnd : .data(remaining: remaining - take)
            case .dataEnd:
                guard buffer.count - start >= 2 else { return .needMore }
                guard buffer[start] == 13, buffer[start + 1] == 10 else {
                    return .failure(status: 400, message: "Malformed chunked body: missing CRLF after chunk data.")
                }
                start += 2
                chunk = .size
            case .trailers:
                guard let lineEnd = findCRLF(limit: limits.maxHeaderBytes) else {
                    if buffer.count - start > limits.maxHeaderBytes { return .failure(status: 431, message: "Chunked trailers too large.") }
                    return .needMore
                }
                let empty = lineEnd == start
                start = lineEnd + 2
                if empty { return .request(HTTPRequest(method: "", target: "")) }
            }
        }
    }

    private func findCRLF(limit: Int) -> Int? {
        var i = start
        let end = min(buffer.count, start + limit + 2)
        while i + 1 < end {
            if buffer[i] == 13 && buffer[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    // MARK: Bytes

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 48...57, 65...90, 97...122: true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: true
        default: false
        }
    }

    private static func digit(_ b: UInt8) -> Int? { b >= 48 && b <= 57 ? Int(b - 48) : nil }

    private static func hexDigit(_ b: UInt8) -> Int? {
        switch b {
        case 48...57: Int(b - 48)
        case 65...70: Int(b - 55)
        case 97...102: Int(b - 87)
        default: nil
        }
    }
}
