import HearthTransport

/// Cross-origin headers (docs/protocol.md#cors): browsers call the emulator from another
/// origin with non-simple headers, so preflights are answered and every response to a
/// request with `Origin` carries the same headers, errors included.
///
/// The policy is the emulator's, deliberately permissive: any origin is allowed (echoed, with
/// credentials), any requested header is allowed (echoed), every method the API uses.
/// Each header is sent once: browsers reject a preflight whose `Access-Control-Allow-Origin`
/// appears twice, even with equal values.
enum CORS {
    /// The emulator's list (OPTIONS itself is not named: a preflight is always answered).
    static let allowedMethods = "DELETE,GET,HEAD,PATCH,POST,PUT"

    /// The headers every response to a request with `Origin` carries (none without it).
    static func headers(for request: HTTPRequest) -> [(name: String, value: String)] {
        guard let origin = request.header("origin") else { return [] }
        var h: [(name: String, value: String)] = [
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Allow-Credentials", "true"),
            ("Access-Control-Allow-Methods", allowedMethods),
            ("Vary", "Origin"),
        ]
        if let requested = request.header("access-control-request-headers") {
            h.append(("Access-Control-Allow-Headers", requested))
        }
        return h
    }

    /// The answer to an `OPTIONS` preflight, before the common headers (`headers(for:)`)
    /// are added to it like to every other response.
    static func preflight(_ request: HTTPRequest) -> HTTPResponse {
        var r = HTTPResponse(status: 200)
        if request.header("origin") != nil { r.headers.append(("Access-Control-Max-Age", "3600")) }
        return r
    }
}
