#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HearthCore
import HearthTestSupport
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

extension RawHTTPClient.Response {
    var json: JSON? { try? JSON.parse(body) }
}

/// A server on an ephemeral loopback port for one test.
func withServer<T>(limits: HTTPLimits = HTTPLimits(), _ body: (EmulatorServer) throws -> T) throws -> T {
    let server = try EmulatorServer(host: "127.0.0.1", port: 0, limits: limits)
    defer { server.stop() }
    return try body(server)
}

let docs = "/v1/projects/p/databases/%28default%29/documents"
