import Foundation
import HearthCore
import HearthTransport

/// The emulator console: a web UI at `/ui/` on a port of its own, its JSON API under
/// `/api/` (`ConsoleAPI`), the live event stream `/api/events` (`ConsoleFeed`) and the
/// emulator endpoints (`/emulator/v1/…`: rules, clock, snapshots, clearing) on the same
/// origin, all over the one `EmulatorState` the Firestore front ends serve.
public final class ConsoleServer: Sendable {
    /// What the console tells the browser about the emulator it belongs to.
    public struct Info: Sendable {
        /// `host:port` of the Firestore APIs (what `FIRESTORE_EMULATOR_HOST` is set to).
        public var emulatorAddress: String

        public init(emulatorAddress: String) {
            self.emulatorAddress = emulatorAddress
        }
    }

    public let state: EmulatorState
    let http: HTTPServer
    let feed: ConsoleFeed

    /// The console serves one person's browser: one event loop and two worker threads are
    /// plenty, and keep the listener's cost to the process small.
    public static var defaultLimits: HTTPLimits {
        var limits = HTTPLimits()
        limits.eventLoops = 1
        limits.workerThreads = 2
        return limits
    }

    /// Binds `host:port` (0 = ephemeral) and starts serving.
    public init(host: String = "127.0.0.1", port: Int = 4000, state: EmulatorState, info: Info,
                limits: HTTPLimits = ConsoleServer.defaultLimits) throws {
        self.state = state
        let feed = ConsoleFeed(state: state)
        self.feed = feed
        let handler = ConsoleRequestHandler(state: state, info: info, feed: feed)
        http = try HTTPServer(host: host, port: port, limits: limits) { request in handler.handle(request) }
    }

    public var port: Int { http.port }
    public var host: String { http.host }
    /// The console's address, `http://host:port/ui/`.
    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/ui/" }

    /// Stops serving and ends every event stream (idempotent).
    public func stop() {
        feed.stop()
        http.stop()
    }
}

/// Routes one console request: the UI's files, the JSON API, the event stream and the
/// emulator endpoints. Requests that change anything must carry `X-Hearth-Console` — a
/// header a page from another origin cannot add without a CORS preflight this server
/// never grants — so another site open in the browser cannot drive the console.
struct ConsoleRequestHandler: Sendable {
    let state: EmulatorState
    let info: ConsoleServer.Info
    let feed: ConsoleFeed

    static let csrfHeader = "x-hearth-console"

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.path
        if request.method == "GET" {
            if path == "/" || path == "/ui" {
                return HTTPResponse(status: 302, headers: [("Location", "/ui/")])
            }
            if path.hasPrefix("/ui/") {
                guard let asset = ConsoleAssets.file(String(path.dropFirst("/ui/".count))) else { return .text(404, "Not Found\n") }
                return HTTPResponse(status: 200, headers: [("Content-Type", asset.contentType), ("Cache-Control", "no-cache")], body: asset.bytes)
            }
        } else if request.header(Self.csrfHeader) == nil {
            return FirestoreError(.permissionDenied, "Console requests that change data need the X-Hearth-Console header.").httpResponse
        }
        do {
            if path == "/api/events", request.method == "GET" { return feed.response(for: request) }
            if path.hasPrefix("/api/"), let r = try ConsoleAPI(state: state, info: info).route(request) { return r }
            if path.hasPrefix("/emulator/v1/"), let r = try EmulatorAPI(state: state).route(request) { return r }
            return .text(404, "Not Found\n")
        } catch {
            return error.httpResponse
        }
    }
}
