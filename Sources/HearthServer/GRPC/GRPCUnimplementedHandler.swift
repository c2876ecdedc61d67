import HearthCore

/// The gRPC front end before any RPC exists: every request is answered with a
/// trailers-only `grpc-status: 12` (UNIMPLEMENTED) naming the method, so clients see a
/// proper gRPC error rather than a transport failure. Requests that are not gRPC
/// (`content-type` not `application/grpc…`) get HTTP 415.
struct GRPCUnimplementedHandler: HTTP2StreamHandler {
    func open(_ stream: HTTP2ServerStream, request: HTTP2RequestHeaders, endStream: Bool) -> any HTTP2RequestBodyReceiver {
        let contentType = request.value("content-type") ?? ""
        if !contentType.hasPrefix("application/grpc") {
            try? stream.sendHeaders([HTTP2Header(":status", "415"), HTTP2Header("content-type", "text/plain")], endStream: false)
            try? stream.sendData(Array("Only gRPC (content-type application/grpc) is served over HTTP/2.\n".utf8), endStream: true)
        } else if request.method != "POST" {
            try? stream.sendHeaders(GRPCStatus.trailersOnly(.unimplemented, message: "gRPC requires POST, got \(request.method)."), endStream: true)
        } else {
            try? stream.sendHeaders(GRPCStatus.trailersOnly(.unimplemented, message: "Method not found: \(request.path)"), endStream: true)
        }
        return DiscardingReceiver()
    }

    /// Drops the body of a request already answered.
    final class DiscardingReceiver: HTTP2RequestBodyReceiver {
        func received(_ data: [UInt8], endStream: Bool) {}
        func reset(_ code: HTTP2ErrorCode) {}
    }
}
