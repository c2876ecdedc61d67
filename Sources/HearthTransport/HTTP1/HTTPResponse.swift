/// An HTTP response to write: status, headers and either a body (sent with Content-Length)
/// or, for a response that lasts, a `stream` callback (sent chunked, see `HTTPResponseStream`).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Close the connection after writing this response.
    public var closeConnection: Bool
    /// Close the connection instead of writing this response: the client sees the
    /// connection die (an injected fault, docs/faults.md). Answers queued before it go out.
    public var abortConnection = false
    /// Runs after the response has been written (e.g. `POST /shutdown` stops the server).
    public var afterWrite: (@Sendable () -> Void)?
    /// A response that lasts: when set, `body` is ignored, the status line and headers go out
    /// with `Transfer-Encoding: chunked` (no Content-Length), and `stream` is called once
    /// with the body's `HTTPResponseStream`. It must not block: it registers with whatever
    /// produces the data and returns.
    public var stream: (@Sendable (HTTPResponseStream) -> Void)?
    /// A 101 that switches the connection to a WebSocket (`HTTPResponse.webSocket`): after
    /// the head, the connection speaks RFC 6455 (WebSocket/WebSocketConnection.swift).
    public var webSocket: WebSocketUpgrade?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                closeConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closeConnection = closeConnection
    }

    /// A JSON response (`application/json; charset=UTF-8`).
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=UTF-8")], body: body)
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=UTF-8")], body: Array(text.utf8))
    }

    /// The reason phrase for the status codes this server uses.
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 499: "Client Closed Request"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }

    /// Appends the serialised response (status line, headers, Content-Length, body).
    func serialize(into out: inout [UInt8], keepAlive: Bool) {
        serializeHead(into: &out, framing: "Content-Length: \(body.count)", keepAlive: keepAlive)
        out.append(contentsOf: body)
    }

    /// Appends the status line and headers of a streamed response: chunked for HTTP/1.1; an
    /// HTTP/1.0 client gets the body raw, ended by closing the connection.
    func serializeStreamHead(into out: inout [UInt8], chunked: Bool, keepAlive: Bool) {
        serializeHead(into: &out, framing: chunked ? "Transfer-Encoding: chunked" : nil, keepAlive: keepAlive && chunked)
    }

    /// Appends the status line and headers of a 101: no body framing, no `Connection: close`
    /// (the headers say `Connection: Upgrade`).
    func serializeUpgradeHead(into out: inout [UInt8]) {
        serializeHead(into: &out, framing: nil, keepAlive: true)
    }

    private func serializeHead(into out: inout [UInt8], framing: String?, keepAlive: Bool) {
        out.append(contentsOf: "HTTP/1.1 \(status) \(Self.reason(status))\r\n".utf8)
        for (name, value) in headers {
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        if let framing { out.append(contentsOf: framing.utf8); out.append(contentsOf: "\r\n".utf8) }
        if !keepAlive { out.append(contentsOf: "Connection: close\r\n".utf8) }
        out.append(contentsOf: "\r\n".utf8)
    }
}
