import Foundation
import HearthCore

/// The emulator process's server: one port, HTTP/1.1, serving the Firestore REST API
/// (`/v1/…`), the WebChannel endpoints browsers use (`/google.firestore.v1.Firestore/
/// {Listen,Write}/channel`) and the emulator endpoints (`/emulator/v1/…`, `POST /shutdown`, `GET /`) over
/// one `EmulatorState`. The HTTP/2 (gRPC) front end plugs in through `http2`.
public final class EmulatorServer: Sendable {
    public let state: EmulatorState
    let http: HTTPServer
    let webChannel: WebChannelService

    /// Binds `host:port` (0 = ephemeral) and starts serving.
    public init(host: String = "127.0.0.1", port: Int = 8080, state: EmulatorState = EmulatorState(),
                limits: HTTPLimits = HTTPLimits(), http2: (any HTTP2ConnectionHandler)? = nil,
                webChannelLimits: WebChannelLimits = WebChannelLimits()) throws {
        self.state = state
        let webChannel = WebChannelService(state: state, limits: webChannelLimits)
        let handler = RequestHandler(state: state, webChannel: webChannel)
        let box = ServerBox()
        http = try HTTPServer(host: host, port: port, limits: limits, http2: http2) { request in
            handler.handle(request, stop: { box.server?.stop() })
        }
        box.server = http
        self.webChannel = webChannel
        http.onStop { webChannel.stop() }
    }

    /// The bound port.
    public var port: Int { http.port }
    public var host: String { http.host }
    /// `host:port`, as `FIRESTORE_EMULATOR_HOST` wants it.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    public var connectionCount: Int { http.connectionCount }

    /// Stops serving (idempotent).
    public func stop() { http.stop() }

    /// Calls `body` once the server has stopped (`stop()` or `POST /shutdown`).
    public func onStop(_ body: @escaping @Sendable () -> Void) { http.onStop(body) }
}

/// Lets the handler reach the server it belongs to (created before it).
private final class ServerBox: @unchecked Sendable {
    var server: HTTPServer?
}

/// Turns one HTTP request into one response: CORS, auth, routing, error mapping.
struct RequestHandler: Sendable {
    let state: EmulatorState
    let webChannel: WebChannelService

    func handle(_ request: HTTPRequest, stop: @escaping @Sendable () -> Void) -> HTTPResponse {
        var response = respond(request, stop: stop)
        response.headers += CORS.headers(for: request)
        return response
    }

    private func respond(_ request: HTTPRequest, stop: @escaping @Sendable () -> Void) -> HTTPResponse {
        if request.method == "OPTIONS" { return CORS.preflight(request) }
        let path = request.path
        do {
            if path == "/" && request.method == "GET" { return .text(200, "Ok\n") }
            if path == "/shutdown" && request.method == "POST" {
                var r = HTTPResponse.json(200, JSON.object([]).bytes)
                r.closeConnection = true
                r.afterWrite = stop
                return r
            }
            if let kind = WebChannelService.kind(of: path) { return webChannel.handle(request, kind: kind) }
            if path.hasPrefix("/v1/") {
                let auth = try AuthContext.parse(request.header("authorization"))
                if let r = try RESTRouter(state: state).route(request, auth: auth) { return r }
            } else if path.hasPrefix("/emulator/v1/") {
                if let r = try EmulatorAPI(state: state).route(request) { return r }
            }
            return .text(404, "Not Found\n")
        } catch {
            return error.httpResponse
        }
    }
}
