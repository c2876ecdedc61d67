import Foundation
import HearthCore
import HearthTransport

/// The bytes of WebChannel (closure library's protocol version 8), both ways.
///
/// Server → client, every body is a run of frames `<length>\n<payload>`, where the length
/// counts UTF-16 code units (JavaScript's `string.length`), not bytes; a back-channel
/// payload is a JSON array of `[arrayId, message]` pairs. Client → server, requests carry
/// URL parameters (`SID`, `RID`, `AID`, `CI`, `TYPE`, …) and forward-channel POSTs an
/// `application/x-www-form-urlencoded` body: `count`, `ofs` and `req<i>___data__` for each
/// message, and on the handshake a `headers` field with the stream's HTTP headers.
enum WebChannelWire {
    /// Appends one frame: the payload's UTF-16 length, a newline, the payload.
    static func appendFrame(_ payload: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: String(utf16Length(payload)).utf8)
        out.append(10)
        out.append(contentsOf: payload)
    }

    static func frame(_ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        appendFrame(payload, to: &out)
        return out
    }

    /// The number of UTF-16 code units of valid UTF-8 `bytes`: one per scalar, two for a
    /// scalar beyond the BMP (a four-byte sequence).
    static func utf16Length(_ bytes: [UInt8]) -> Int {
        var n = 0
        for b in bytes {
            if b & 0xC0 != 0x80 { n += 1 }     // a scalar's first byte
            if b >= 0xF0 { n += 1 }            // four-byte sequence: a surrogate pair
        }
        return n
    }

    /// `[id,[message]]`: one data array holding a JSON message.
    static func dataArray(id: Int, message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = Array("[\(id),[".utf8)
        out.append(contentsOf: message)
        out.append(contentsOf: "]]".utf8)
        return out
    }

    /// `[id,["noop"]]`.
    static func noopArray(id: Int) -> [UInt8] { Array("[\(id),[\"noop\"]]".utf8) }

    /// The handshake's answer: array 0 holds `["c", SID, hostPrefix, version, serverVersion,
    /// keepAliveMs]` (the client sets its back-channel timeout to 1.5 × keepAliveMs).
    static func created(sid: String, keepAliveMs: Int) -> [UInt8] {
        frame(Array("[[0,[\"c\",\"\(sid)\",\"\",8,12,\(keepAliveMs)]]]".utf8))
    }

    /// A forward POST's answer: `[backChannelAttached, lastArrayId, outstandingBytes]`.
    static func forwardAnswer(backChannel: Bool, lastArrayID: Int, outstandingBytes: Int) -> [UInt8] {
        frame(Array("[\(backChannel ? 1 : 0),\(lastArrayID),\(outstandingBytes)]".utf8))
    }

    /// An `application/x-www-form-urlencoded` body or query string as name → value (the
    /// last of a repeated name wins); nil when its percent-encoding is malformed.
    static func form<S: StringProtocol>(_ text: S) -> [String: String]? { form(utf8: text.utf8) }

    static func form<C: Collection<UInt8>>(utf8 bytes: C) -> [String: String]? {
        var out: [String: String] = [:]
        for part in bytes.split(separator: 38, omittingEmptySubsequences: true) {    // &
            let eq = part.firstIndex(of: 61)                                          // =
            let rawName = eq.map { part[..<$0] } ?? part[...]
            let rawValue = eq.map { part[part.index(after: $0)...] } ?? part[part.endIndex...]
            guard let name = PercentDecoding.decode(utf8: rawName, plusIsSpace: true),
                  let value = PercentDecoding.decode(utf8: rawValue, plusIsSpace: true) else { return nil }
            out[name] = value
        }
        return out
    }

    /// A forward POST's messages: `req<i>___data__` for i in 0..<count, with the map id of
    /// the first (`ofs`). Throws a message for a malformed body.
    static func messages(_ form: [String: String]) throws(WebChannelError) -> (offset: Int, messages: [String]) {
        guard let countText = form["count"] else { return (0, []) }
        guard let count = Int(countText), count >= 0, count <= 1000 else {
            throw WebChannelError(400, "Bad count \(countText.prefix(20)) in the forward channel body.")
        }
        if count == 0 { return (0, []) }
        guard let offset = Int(form["ofs"] ?? ""), offset >= 0 else {
            throw WebChannelError(400, "A forward channel body with messages needs a numeric ofs.")
        }
        var messages: [String] = []
        for i in 0..<count {
            guard let m = form["req\(i)___data__"] else {
                throw WebChannelError(400, "The forward channel body has count=\(count) but no req\(i)___data__.")
            }
            messages.append(m)
        }
        return (offset, messages)
    }

    /// The `headers` field: `Name:value` lines joined by CRLF; names lower-cased.
    static func headers(_ field: String?) -> [String: String] {
        guard let field else { return [:] }
        var out: [String: String] = [:]
        for line in field.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            out[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return out
    }
}

/// A WebChannel request that cannot be served: an HTTP status and a plain-text message.
struct WebChannelError: Error {
    let status: Int
    let message: String
    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
