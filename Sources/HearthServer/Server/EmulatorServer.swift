import Foundation
import HearthCore
import HearthGRPC
import HearthTransport

/// The emulator process's server: one port serving every protocol over one
/// `EmulatorState` — HTTP/1.1 for the Firestore REST API (`/v1/…`), the WebChannel
/// endpoints browsers use (`/google.firestore.v1.Firestore/{Listen,Write}/channel`) and the
/// emulator endpoints (`/emulator/v1/…`, `POST /shutdown`, `GET /`), and HTTP/2
/// (connections that open with its preface) for gRPC `google.firestore.v1.Firestore`.
public final class EmulatorServer: Sendable {
    public let state: EmulatorState
    let http: HTTPServer
    let webChannel: WebChannelService

    /// Binds `host:port` (0 = ephemeral) and starts serving.
    public init(host: String = "127.0.0.1", port: Int = 8080, state: EmulatorState = EmulatorState(),
                limits: HTTPLimits = HTTPLimits(), webChannelLimits: WebChannelLimits = WebChannelLimits()) throws {
        self.state = state
        let webChannel = WebChannelService(state: state, limits: webChannelLimits)
        let handler = RequestHandler(state: state, webChannel: webChannel)
        let box = ServerBox()
        let grpc = GRPCRouter(services: [FirestoreGRPCService(state: state)])
        http = try HTTPServer(host: host, port: port, limits: limits, http2: grpc) { request in
            handler.route(request, stop: { box.server?.stop() })
        }
        box.server = http
        self.webChannel = webChannel
        webChannel.workers.withLock { $0 = http.workers }
        http.onStop { webChannel.stop() }
    }

    /// The bound port.
    public var port: Int { http.port }
    public var host: String { http.host }
    /// `host:port`, as `FIRESTORE_EMULATOR_HOST` wants it.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    /// Open client connections, both protocols.
    public var connectionCount: Int { http.connectionCount }
    /// The transport's budgets in force.
    public var limits: HTTPLimits { http.limits }

    /// Stops serving (idempotent).
    public func stop() { http.stop() }

    /// After `stop()`: waits until the server's threads have ended and its descriptors are
    /// closed, or `timeout` seconds passed; true when they did.
    @discardableResult
    public func waitUntilStopped(timeout: Double = 5) -> Bool { http.waitUntilStopped(timeout: timeout) }

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

    /// Where a request runs and what answers it, from one reading of it: a REST request
    /// where its route's operation says (the same place as the same work over gRPC); the
    /// trivial answers on the event loop; WebChannel and the emulator endpoints (exports,
    /// imports, resets) on the worker pool.
    func route(_ request: HTTPRequest, stop: @escaping @Sendable () -> Void) -> HTTPRoute {
        if request.method == "OPTIONS" || (request.method == "GET" && request.path == "/") {
            return HTTPRoute(.inline) { handle($0, rest: nil, stop: stop) }
        }
        guard request.path.hasPrefix("/v1/") else { return HTTPRoute(.pool) { handle($0, rest: nil, stop: stop) } }
        let rest = RESTRouter.resolve(request)
        return HTTPRoute(rest.placement(commitsWaitForDisk: state.commitsWaitForDisk, faultsArmed: state.faults.isArmed)) { handle($0, rest: rest, stop: stop) }
    }

    func handle(_ request: HTTPRequest, rest: RESTRouter.Resolution?, stop: @escaping @Sendable () -> Void) -> HTTPResponse {
        var response: HTTPResponse
        // While no console watches, the atomic load of `isObserved` is all this costs.
        if state.requestLog.isObserved, request.path.hasPrefix("/v1/"), let trace = state.requestLog.begin(
            .rest, method: request.method, path: PercentDecoding.decode(request.path) ?? String(request.path),
            authorization: request.header("authorization")) {
            response = RequestTrace.$current.withValue(trace) { respond(request, rest: rest, stop: stop) }
            state.requestLog.record(trace.finish(code: trace.failure?.code ?? (response.status < 400 ? .ok : .notFound),
                                                 httpStatus: response.status, message: trace.failure?.message))
        } else {
            response = respond(request, rest: rest, stop: stop)
        }
        response.headers += CORS.headers(for: request)
        return response
    }

    /// A text body with no content type, as the official emulator writes `Ok` and `Not Found`.
    static func plain(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, body: Array(text.utf8))
    }

    private func respond(_ request: HTTPRequest, rest: RESTRouter.Resolution?, stop: @escaping @Sendable () -> Void) -> HTTPResponse {
        if request.method == "OPTIONS" { return CORS.preflight(request) }
        let path = request.path
        do {
            if path == "/" && request.method == "GET" { return Self.plain(200, "Ok\n") }
            if path == "/shutdown" && request.method == "POST" {
                var r = HTTPResponse.json(200, JSON.object([]).bytes)
                r.closeConnection = true
                r.afterWrite = stop
                return r
            }
            if let kind = WebChannelService.kind(of: path) { return webChannel.handle(request, kind: kind) }
            if path.hasPrefix("/v1/") {
                let auth = try AuthContext.parse(request.header("authorization"))
                if let r = try RESTRouter(state: state).route(request, auth: auth, rest ?? RESTRouter.resolve(request)) { return r }
            } else if path.hasPrefix("/emulator/v1/") {
                if let r = try EmulatorAPI(state: state).route(request) { return r }
            }
            return Self.plain(404, "Not Found\n")
        } catch {
            RequestTrace.current(ifObserving: state.requestLog)?.failed(error)
            var response = error.httpResponse
            // An injected reset or dropped answer: the connection dies instead of an answer.
            response.abortConnection = error.closesConnection
            return response
        }
    }
}
