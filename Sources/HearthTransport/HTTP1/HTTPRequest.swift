/// One parsed HTTP/1.x request: the request line, the headers (names lower-cased, in
/// arrival order) and the complete body (de-chunked).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target as sent (`/v1/projects/p/…?x=1`), still percent-encoded.
    public var target: String
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    public var minorVersion: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, target: String, minorVersion: Int = 1,
                headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.headers = headers
        self.body = body
    }

    /// The target's path, before any `?`, still percent-encoded.
    public var path: Substring {
        // Found among the UTF-8 bytes: a search by Characters walked grapheme clusters, a
        // tenth of a REST point read's CPU (the path is read for routing and placement).
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return target[...]
    }

    /// The target's query string (after `?`), or empty.
    public var query: Substring {
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[target.utf8.index(after: q)...] }
        return ""
    }

    /// The first value of a header (`name` lower-case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// Whether the connection stays open after this request. HTTP/1.1 defaults to
    /// keep-alive; HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        let tokens = (header("connection") ?? "").lowercased().split(separator: ",").map { $0.trimmingWhitespace }
        if minorVersion >= 1 { return !tokens.contains("close") }
        return tokens.contains("keep-alive")
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
