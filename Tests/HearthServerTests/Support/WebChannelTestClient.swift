import Foundation
import HearthTestSupport
import HearthCore
@testable import HearthServer

/// A WebChannel client speaking the protocol as the Firebase JS SDK does (VER=8): the
/// handshake carrying the first message and the `headers` field, numbered forward POSTs
/// with `AID`, back-channel GETs in streaming (`CI=0`) or long-polling (`CI=1`) mode, and
/// `TYPE=terminate`. It parses frames by their UTF-16 length prefix and keeps the last
/// array id it received, as the SDK does.
final class WebChannelTestClient {
    let port: Int
    let path: String
    let origin: String?
    let database = "projects%2Fdemo-test%2Fdatabases%2F(default)"
    private(set) var sid = ""
    private(set) var lastArrayID = 0
    private var nextMapID = 0
    private var rid = 1000
    /// The open back channel.
    private var back: RawHTTPClient?
    private var backLongPoll = false
    private var pending: [UInt8] = []

    init(port: Int, stream: String, origin: String? = "http://127.0.0.1:9") {
        self.port = port
        self.path = "/google.firestore.v1.Firestore/\(stream)/channel"
        self.origin = origin
    }

    private var originHeader: [String: String] { origin.map { ["Origin": $0] } ?? [:] }

    static func form(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    private func messageFields(_ messages: [JSON]) -> [(String, String)] {
        var fields: [(String, String)] = [("count", "\(messages.count)"), ("ofs", "\(nextMapID)")]
        for (i, m) in messages.enumerated() { fields.append(("req\(i)___data__", String(decoding: m.bytes, as: UTF8.self))) }
        nextMapID += messages.count
        return fields
    }

    /// The handshake: opens the session with its first message; returns the raw answer.
    @discardableResult
    func open(_ first: JSON, headers: [String: String] = [:]) throws -> RawHTTPClient.Response {
        var headerLines = "X-Goog-Api-Client:gl-js/ fire/12.3.0\r\nContent-Type:text/plain\r\nX-Firebase-GMPID:harness\r\n"
        for (k, v) in headers { headerLines += "\(k):\(v)\r\n" }
        let body = Self.form([("headers", headerLines)] + messageFields([first]))
        let c = try RawHTTPClient(port: port)
        let r = c.request("POST", "\(path)?VER=8&database=\(database)&RID=\(rid)&CVER=22&X-HTTP-Session-Id=gsessionid&zx=a1&t=1", body: body,
                          headers: ["Content-Type": "application/x-www-form-urlencoded"].merging(originHeader) { a, _ in a })
        rid += 1
        guard let r, r.status == 200 else { throw TestFailure("handshake: \(r?.status ?? 0) \(r?.text ?? "")") }
        let arrays = try Self.arrays(in: r.body)
        guard case .array(let first)? = arrays.first, first.first == .number("0"),
              case .array(let c)? = first.last, c.first == .string("c"), case .string(let sid)? = c.dropFirst().first else {
            throw TestFailure("handshake answer: \(r.text)")
        }
        self.sid = sid
        return r
    }

    /// A forward POST with `messages`; returns `[backChannel, lastArrayId, outstanding]`.
    @discardableResult
    func post(_ messages: [JSON], offset: Int? = nil) throws -> [Int] {
        if let offset { nextMapID = offset }
        let c = try RawHTTPClient(port: port)
        let r = c.request("POST", "\(path)?VER=8&database=\(database)&SID=\(sid)&RID=\(rid)&AID=\(lastArrayID)&zx=b2&t=1",
                          body: Self.form(messageFields(messages)),
                          headers: ["Content-Type": "application/x-www-form-urlencoded"].merging(originHeader) { a, _ in a })
        rid += 1
        guard let r, r.status == 200 else { throw TestFailure("forward POST: \(r?.status ?? 0) \(r?.text ?? "")") }
        guard case .array(let values)? = try Self.frames(in: r.body).first.flatMap({ try? JSON.parse($0) }) else {
            throw TestFailure("forward answer: \(r.text)")
        }
        return values.compactMap { if case .number(let n) = $0 { Int(n) } else { nil } }
    }

    /// Opens a back channel (closing any open one, as the SDK does when it retries).
    func openBackChannel(longPoll: Bool, aid: Int? = nil) throws {
        back = nil
        pending = []
        let c = try RawHTTPClient(port: port)
        var head = "GET \(path)?VER=8&database=\(database)&RID=rpc&SID=\(sid)&AID=\(aid ?? lastArrayID)&CI=\(longPoll ? 1 : 0)&TYPE=xmlhttp&zx=c3&t=1 HTTP/1.1\r\nHost: t\r\n"
        if let origin { head += "Origin: \(origin)\r\n" }
        c.send(head + "\r\n")
        guard let h = c.readHead() else { throw TestFailure("back channel: no answer (closed or timed out)") }
        guard h.status == 200 else { throw TestFailure("back channel refused: \(h.status)") }
        if let aid { lastArrayID = aid }
        back = c
        backLongPoll = longPoll
    }

    /// The data messages that arrive next on the back channel (noops skipped), waiting up
    /// to `count` of them; for long polling, re-polls after each completed GET. Nil entries
    /// never: a timeout throws.
    func receive(_ count: Int) throws -> [JSON] {
        var out: [JSON] = []
        while out.count < count {
            guard let back else { throw TestFailure("no back channel") }
            guard let chunk = back.readChunk() else { throw TestFailure("back channel closed or timed out after \(out.count) of \(count) messages: \(out.map(\.text))") }
            if chunk.isEmpty {
                // The GET ended: a long poll's batch is complete (or the server ended it).
                self.back = nil
                if backLongPoll && out.count < count { try openBackChannel(longPoll: true) } else if out.count < count {
                    throw TestFailure("back channel ended after \(out.count) of \(count) messages: \(out.map(\.text))")
                }
                continue
            }
            pending += chunk
            for payload in try Self.takeFrames(&pending) {
                guard case .array(let arrays) = try JSON.parse(payload) else { throw TestFailure("not an array: \(payload)") }
                for case .array(let pair) in arrays {
                    guard case .number(let id)? = pair.first, let n = Int(id), n > lastArrayID else { throw TestFailure("array ids out of order: \(JSON.array(pair).text)") }
                    lastArrayID = n
                    guard case .array(let message)? = pair.last, let m = message.first else { throw TestFailure("bad array \(JSON.array(pair).text)") }
                    if m == .string("noop") { continue }
                    out.append(m)
                }
            }
        }
        return out
    }

    /// Reads the back channel until it ends (server closed the GET); true when it did.
    func backChannelEnds() -> Bool {
        guard let back else { return true }
        while let chunk = back.readChunk() {
            if chunk.isEmpty { self.back = nil; return true }
        }
        self.back = nil
        return true
    }

    func terminate() throws -> Int {
        let c = try RawHTTPClient(port: port)
        let r = c.request("POST", "\(path)?VER=8&database=\(database)&SID=\(sid)&RID=\(rid)&TYPE=terminate&zx=d4",
                          body: "", headers: ["Content-Type": "text/plain;charset=UTF-8"])
        back = nil
        return r?.status ?? 0
    }

    // MARK: Framing

    /// Every frame of a complete body.
    static func frames(in body: [UInt8]) throws -> [[UInt8]] {
        var b = body
        let f = try takeFrames(&b)
        guard b.isEmpty else { throw TestFailure("trailing bytes in \(String(decoding: body, as: UTF8.self))") }
        return f
    }

    static func arrays(in body: [UInt8]) throws -> [JSON] {
        try frames(in: body).flatMap { f -> [JSON] in
            guard case .array(let a) = try JSON.parse(f) else { throw TestFailure("not an array") }
            return a
        }
    }

    /// Takes the complete frames off the front of `buffer`: `<UTF-16 length>\n<payload>`.
    static func takeFrames(_ buffer: inout [UInt8]) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let nl = buffer.firstIndex(of: 10) {
            guard let length = Int(String(decoding: buffer[..<nl], as: UTF8.self)) else {
                throw TestFailure("bad length prefix: \(String(decoding: buffer.prefix(40), as: UTF8.self))")
            }
            var units = 0, i = nl + 1
            while units < length && i < buffer.count {
                let b = buffer[i]
                let size = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
                guard i + size <= buffer.count else { break }
                units += size == 4 ? 2 : 1
                i += size
            }
            guard units == length else { break }  // the rest has not arrived yet
            out.append(Array(buffer[(nl + 1)..<i]))
            buffer.removeFirst(i)
        }
        return out
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSON {
    /// An array's element, for reading nested responses in tests.
    subscript(index: Int) -> JSON? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }
}
