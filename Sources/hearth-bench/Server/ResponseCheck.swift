// Each request kind sent once, read whole, before it is timed: h2load counts a gRPC call
// that failed in its trailers (grpc-status ≠ 0) as a success, so the status and the answer
// are checked here, with nghttp (nghttp2-client) for gRPC, which prints the trailers.
import Foundation

enum ResponseCheck {
    /// nil when the answer is right; otherwise what is wrong.
    static func verify(_ workload: ServerWorkload, on server: ServerUnderTest, bodyFile: String) -> String? {
        guard workload.isGRPC else {
            guard let (status, body) = try? HTTPProbe.request(host: server.host, port: server.port, method: "GET", path: workload.path) else {
                return "no HTTP response"
            }
            guard status == 200 else { return "HTTP \(status): \(String(decoding: body.prefix(300), as: UTF8.self))" }
            return workload.check(body)
        }
        guard let nghttp = ChildProcess.which("nghttp") else { return "nghttp is not installed (apt-get install -y nghttp2-client)" }
        let url = "http://\(server.address)\(workload.path)"
        let headers = ServerWorkload.grpcHeaders.flatMap { ["-H", $0] }
        // -v prints every header received, trailers included; without it, the body only.
        let verbose = String(decoding: ChildProcess.run([nghttp, "-v"] + headers + ["-d", bodyFile, url]).output, as: UTF8.self)
        var grpcStatus: String?, grpcMessage = ""
        for line in verbose.split(separator: "\n") {
            if let r = line.range(of: "grpc-status: ") { grpcStatus = String(line[r.upperBound...]) }
            if let r = line.range(of: "grpc-message: ") { grpcMessage = String(line[r.upperBound...]) }
        }
        guard let grpcStatus else { return "no grpc-status trailer" }
        guard grpcStatus == "0" else { return "grpc-status \(grpcStatus) \(grpcMessage)" }
        let (status, body) = ChildProcess.run([nghttp] + headers + ["-d", bodyFile, url])
        guard status == 0 else { return "nghttp exited with \(status)" }
        return workload.check(body)
    }

    /// The answer's body as a client reads it (gRPC: the length-prefixed messages; REST: the
    /// JSON), or nil when there is none. On the floor, every request goes over HTTP/2.
    static func answer(_ workload: ServerWorkload, on server: ServerUnderTest, bodyFile: String) -> [UInt8]? {
        if !workload.isGRPC && !server.isFloor {
            guard let (status, body) = try? HTTPProbe.request(host: server.host, port: server.port, method: "GET", path: workload.path),
                  status == 200 else { return nil }
            return body
        }
        guard let nghttp = ChildProcess.which("nghttp") else { return nil }
        var argv = [nghttp]
        if workload.isGRPC { argv += ServerWorkload.grpcHeaders.flatMap { ["-H", $0] } + ["-d", bodyFile] }
        let (status, body) = ChildProcess.run(argv + ["http://\(server.address)\(server.path(workload))"])
        return status == 0 ? body : nil
    }
}
