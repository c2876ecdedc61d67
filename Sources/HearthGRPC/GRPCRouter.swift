import Foundation
import HearthTransport
import Synchronization

/// The gRPC front end over HTTP/2: checks that a request is gRPC (`content-type:
/// application/grpc…`, POST), finds the method (`/{service}/{method}`; unknown ones get a
/// trailers-only UNIMPLEMENTED), reassembles the request message, runs the handler on a
/// thread of `WorkerPool.calls` and ends the call with `grpc-status`.
/// A `grpc-timeout` ends the call with DEADLINE_EXCEEDED when it passes; a stream reset
/// cancels it. Unary and server-streaming calls take exactly one request message;
/// bidirectional calls hand every request message to their `GRPCInboundStream` as it
/// arrives.
public struct GRPCRouter: HTTP2StreamHandler {
    let services: [any GRPCService]
    let maxMessageSize: Int

    public init(services: [any GRPCService], maxMessageSize: Int = GRPCMessageReader.defaultMaxMessageSize) {
        self.services = services
        self.maxMessageSize = maxMessageSize
    }

    public func open(_ stream: HTTP2ServerStream, request: HTTP2RequestHeaders, endStream: Bool) -> any HTTP2RequestBodyReceiver {
        let contentType = request.value("content-type") ?? ""
        guard contentType.hasPrefix("application/grpc") else {
            try? stream.sendHeaders([HTTP2Header(":status", "415"), HTTP2Header("content-type", "text/plain")], endStream: false)
            try? stream.sendData(Array("Only gRPC (content-type application/grpc) is served over HTTP/2.\n".utf8), endStream: true)
            return DiscardingReceiver()
        }
        let call = GRPCServerCall(stream: stream, request: request)
        guard request.method == "POST" else {
            call.finish(.unimplemented, message: "gRPC requires POST, got \(request.method).")
            return DiscardingReceiver()
        }
        if let streamHandler = streamHandler(for: request.path) {
            if let timeout = request.value("grpc-timeout") {
                guard let duration = GRPCTimeout.parse(timeout) else {
                    call.finish(.internal, message: "Invalid grpc-timeout \"\(timeout)\".")
                    return DiscardingReceiver()
                }
                Self.scheduleDeadline(duration, for: call)
            }
            let receiver = StreamReceiver(call: call, inbound: streamHandler(call),
                                          reader: GRPCMessageReader(maxMessageSize: maxMessageSize, encoding: request.value("grpc-encoding")))
            if endStream { receiver.received([], endStream: true) }
            return receiver
        }
        guard let handler = handler(for: request.path) else {
            call.finish(.unimplemented, message: "Method not found: \(request.path)")
            return DiscardingReceiver()
        }
        if let timeout = request.value("grpc-timeout") {
            guard let duration = GRPCTimeout.parse(timeout) else {
                call.finish(.internal, message: "Invalid grpc-timeout \"\(timeout)\".")
                return DiscardingReceiver()
            }
            Self.scheduleDeadline(duration, for: call)
        }
        let receiver = Receiver(call: call, handler: handler,
                                reader: GRPCMessageReader(maxMessageSize: maxMessageSize, encoding: request.value("grpc-encoding")))
        if endStream { receiver.received([], endStream: true) }
        return receiver
    }

    /// The handler of `/{service}/{method}`, if any.
    func handler(for path: String) -> GRPCHandler? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty else { return nil }
        guard let service = services.first(where: { $0.name == parts[1] }) else { return nil }
        return service.handler(for: String(parts[2]))
    }

    /// The bidirectional handler of `/{service}/{method}`, if any.
    func streamHandler(for path: String) -> GRPCStreamHandler? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty else { return nil }
        guard let service = services.first(where: { $0.name == parts[1] }) else { return nil }
        return service.streamHandler(for: String(parts[2]))
    }

    /// Ends the call with DEADLINE_EXCEEDED once `duration` has passed (deadlines beyond
    /// a day are left to the client).
    static func scheduleDeadline(_ duration: Duration, for call: GRPCServerCall) {
        guard duration.components.seconds < 86_400 else { return }
        call.expire(after: duration)
    }

    /// Drops the body of a request already answered.
    final class DiscardingReceiver: HTTP2RequestBodyReceiver {
        func received(_ data: [UInt8], endStream: Bool) {}
        func reset(_ code: HTTP2ErrorCode) {}
    }

    /// Collects the request message; at the end of the request stream runs the handler.
    final class Receiver: HTTP2RequestBodyReceiver {
        let call: GRPCServerCall
        let handler: GRPCHandler
        private var reader: GRPCMessageReader
        private var messages: [[UInt8]] = []
        private var failed = false

        init(call: GRPCServerCall, handler: @escaping GRPCHandler, reader: GRPCMessageReader) {
            self.call = call
            self.handler = handler
            self.reader = reader
        }

        func received(_ data: [UInt8], endStream: Bool) {
            guard !failed else { return }
            reader.append(data)
            do throws(GRPCStatus) {
                while let m = try reader.next() {
                    messages.append(m)
                    if messages.count > 1 { throw GRPCStatus(.invalidArgument, "Too many request messages: this method takes exactly one.") }
                }
                if endStream {
                    if reader.hasPartialMessage { throw GRPCStatus(.invalidArgument, "The request ended inside a gRPC message.") }
                    guard let message = messages.first else {
                        throw GRPCStatus(.invalidArgument, "The request ended without a request message.")
                    }
                    dispatch(message)
                }
            } catch {
                failed = true
                call.finish(error)
            }
        }

        func reset(_ code: HTTP2ErrorCode) { call.cancel() }

        private func dispatch(_ message: [UInt8]) {
            let (call, handler) = (call, handler)
            call.runWorker {
                guard !call.isEnded else { return }
                do throws(GRPCStatus) {
                    try handler(message, call)
                    call.finish(.ok)
                } catch {
                    call.finish(error)
                }
            }
        }
    }

    /// Splits a bidirectional call's request body into messages and hands each to the
    /// handler's inbound stream as it completes; a framing error ends the call with its
    /// status and cancels the stream.
    final class StreamReceiver: HTTP2RequestBodyReceiver {
        let call: GRPCServerCall
        let inbound: any GRPCInboundStream
        private var reader: GRPCMessageReader
        private var done = false

        init(call: GRPCServerCall, inbound: any GRPCInboundStream, reader: GRPCMessageReader) {
            self.call = call
            self.inbound = inbound
            self.reader = reader
        }

        func received(_ data: [UInt8], endStream: Bool) {
            guard !done else { return }
            reader.append(data)
            do throws(GRPCStatus) {
                while let m = try reader.next() { inbound.received(m) }
                if endStream {
                    if reader.hasPartialMessage { throw GRPCStatus(.invalidArgument, "The request ended inside a gRPC message.") }
                    done = true
                    inbound.inputEnded()
                }
            } catch {
                done = true
                call.finish(error)
                inbound.cancelled()
            }
        }

        func reset(_ code: HTTP2ErrorCode) {
            call.cancel()
            inbound.cancelled()
        }
    }
}
