/// The server's side of the RFC 6455 opening handshake (section 4.2): a GET with
/// `Upgrade: websocket`, `Connection: Upgrade`, `Sec-WebSocket-Version: 13` and a
/// `Sec-WebSocket-Key` of 16 base64 bytes is answered 101 with the key's
/// `Sec-WebSocket-Accept`; anything else gets 400 (426 with the version we speak for another
/// version), so a plain HTTP client sees why.
public enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a key: base64(SHA-1(key + GUID)).
    public static func accept(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + guid).utf8)))
    }

    /// Whether the request asks for a WebSocket (the upgrade path is taken for it).
    public static func isUpgrade(_ request: HTTPRequest) -> Bool {
        request.header("upgrade").map { $0.lowercased().contains("websocket") } ?? false
    }

    /// The answer to an opening handshake: 101 with `Sec-WebSocket-Accept` (`accepted`), or
    /// the refusal.
    static func response(to request: HTTPRequest) -> (response: HTTPResponse, accepted: Bool) {
        func refuse(_ status: Int, _ text: String) -> (response: HTTPResponse, accepted: Bool) {
            var r = HTTPResponse.text(status, text + "\n")
            r.closeConnection = true
            if status == 426 { r.headers.append(("Sec-WebSocket-Version", "13")) }
            return (r, false)
        }
        guard request.method == "GET" else { return refuse(405, "A WebSocket opens with GET.") }
        guard request.minorVersion >= 1 else { return refuse(400, "A WebSocket needs HTTP/1.1.") }
        guard isUpgrade(request) else { return refuse(426, "This endpoint is a WebSocket: send Upgrade: websocket.") }
        let connection = (request.header("connection") ?? "").lowercased().split(separator: ",").map { $0.trimmingWhitespace }
        guard connection.contains("upgrade") else { return refuse(400, "A WebSocket handshake needs Connection: Upgrade.") }
        guard request.header("sec-websocket-version")?.trimmingWhitespaceString == "13" else {
            return refuse(426, "Only WebSocket version 13 is spoken here.")
        }
        guard let key = request.header("sec-websocket-key")?.trimmingWhitespaceString, let raw = Base64.decode(key), raw.count == 16 else {
            return refuse(400, "Sec-WebSocket-Key must be 16 bytes in base64.")
        }
        return (HTTPResponse(status: 101, headers: [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept(forKey: key)),
        ]), true)
    }
}

extension String {
    var trimmingWhitespaceString: String { String(Substring(self).trimmingWhitespace) }
}
