import Foundation
import HearthTransport
import Synchronization

/// The gRPC front end over HTTP/2: checks that a request is gRPC (`content-type:
/// application/grpc…`, POST), finds the method (`/{service}/{method}`; unknown ones get a
/// trailers-only UNIMPLEMENTED), reassembles the request message, runs the handler where
/// its service places it (on the event loop for calls that take microseconds, on the
/// worker pool otherwise) and ends the call with `grpc-status`. A `grpc-timeout` ends the
/// call with DEADLINE_EXCEEDED when it passes; a stream reset cancels it; a unary request
/// message must arrive within the body timeout. Unary and server-streaming calls take
/// exactly one request message; bidirectional calls hand every request message to their
/// `GRPCInboundStream` as it arrives.
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
            return DiscardingReceiver(stream: stream)
        }
        let call = GRPCServerCall(stream: stream, request: request)
        guard request.method == "POST" else {
            call.finish(.unimplemented, message: "gRPC requires POST, got \(request.method).")
            return DiscardingReceiver(stream: stream)
        }
        guard let (service, method) = route(request.path) else {
            call.finish(.unimplemented, message: "Method not found: \(request.path.dropFirst())")
            return DiscardingReceiver(stream: stream)
        }
        let streamHandler = service.streamHandler(for: method)
        let handler = streamHandler == nil ? service.handler(for: method) : nil
        guard streamHandler != nil || handler != nil else {
            call.finish(.unimplemented, message: "Method not found: \(request.path.dropFirst())")
            return DiscardingReceiver(stream: stream)
        }
        if let timeout = request.value("grpc-timeout") {
            guard let duration = GRPCTimeout.parse(timeout) else {
                call.finish(.internal, message: "Invalid grpc-timeout \"\(timeout)\".")
                return DiscardingReceiver(stream: stream)
            }
            Self.scheduleDeadline(duration, for: call)
        }
        let encoding = request.value("grpc-encoding")
        if let encoding, !GRPCMessageReader.acceptedEncodings.contains(encoding) {
            let status = GRPCMessageReader.unsupported(encoding)
            call.finish(status.code, message: status.message)
            return DiscardingReceiver(stream: stream)
        }
        let reader = GRPCMessageReader(maxMessageSize: maxMessageSize, encoding: encoding)
        let receiver: any HTTP2RequestBodyReceiver
        if let streamHandler {
            receiver = StreamReceiver(call: call, inbound: streamHandler(call), reader: reader)
        } else if let handler {
            let unary = Receiver(call: call, handler: handler, placement: service.placement(for: method), reader: reader)
            // A body that came with the headers needs no timer (arming and cancelling one
            // was ~3,000 instructions a call).
            if !endStream && !stream.bodyFollowsHeaders { unary.expectBody(within: stream.limits.bodyTimeout) }
            receiver = unary
        } else {
            return DiscardingReceiver(stream: stream)
        }
        if endStream { receiver.received([], endStream: true) }
        return receiver
    }

    /// The service and method of `/{service}/{method}`, if the service is known.
    func route(_ path: String) -> (any GRPCService, String)? {
        // Cut at `/` bytes in the path's own UTF-8 storage when it is ASCII (every path a
        // client sends): splitting the String walks grapheme clusters (~19,000 instructions
        // a call), and a generic comparison through `String.UTF8View` still cost ~9,500 a
        // call; this costs a few hundred.
        switch path.utf8.withContiguousStorageIfAvailable({ routeASCII($0) }) ?? .notASCII {
        case .found(let service, let method): return (service, method)
        case .notFound: return nil
        case .notASCII: break
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty else { return nil }
        guard let service = services.first(where: { $0.name == parts[1] }) else { return nil }
        return (service, String(parts[2]))
    }

    private enum ASCIIRoute {
        case found(any GRPCService, String)
        case notFound
        case notASCII
    }

    private func routeASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> ASCIIRoute {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return .notASCII }
        let slashByte = UInt8(ascii: "/")
        guard bytes.first == slashByte, let slash = bytes[1...].firstIndex(of: slashByte),
              !bytes[(slash + 1)...].contains(slashByte) else { return .notFound }
        let serviceName = UnsafeBufferPointer(rebasing: bytes[1..<slash])
        guard let service = services.first(where: { Self.utf8($0.name, equals: serviceName) }) else { return .notFound }
        return .found(service, String(decoding: UnsafeBufferPointer(rebasing: bytes[(slash + 1)...]), as: UTF8.self))
    }

    /// Whether `name`'s UTF-8 is `bytes`, compared in place.
    private static func utf8(_ name: String, equals bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.utf8.count == bytes.count else { return false }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return name.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, base, bytes.count) == 0 }
            ?? name.utf8.elementsEqual(bytes)
    }

    /// The unary or server-streaming handler of `/{service}/{method}`, if any.
    func handler(for path: String) -> GRPCHandler? {
        route(path).flatMap { $0.0.handler(for: $0.1) }
    }

    /// The bidirectional handler of `/{service}/{method}`, if any.
    func streamHandler(for path: String) -> GRPCStreamHandler? {
        route(path).flatMap { $0.0.streamHandler(for: $0.1) }
    }

    /// Ends the call with DEADLINE_EXCEEDED once `duration` has passed (deadlines beyond
    /// a day are left to the client).
    static func scheduleDeadline(_ duration: Duration, for call: GRPCServerCall) {
        guard duration.components.seconds < 86_400 else { return }
        call.expire(after: duration)
    }

    /// Drops the body of a request already answered.
    final class DiscardingReceiver: HTTP2RequestBodyReceiver {
        let stream: HTTP2ServerStream
        init(stream: HTTP2ServerStream) { self.stream = stream }
        func received(_ data: [UInt8], endStream: Bool) { stream.releaseInput(data.count) }
        func reset(_ code: HTTP2ErrorCode) {}
    }

    /// Collects the request message; at the end of the request stream runs the handler.
    /// Touched on the connection's event loop only (the body timer runs there too).
    final class Receiver: HTTP2RequestBodyReceiver, @unchecked Sendable {
        let call: GRPCServerCall
        let handler: GRPCHandler
        let placement: HandlerPlacement
        private var reader: GRPCMessageReader
        private var messages: [[UInt8]] = []
        private var failed = false
        private var complete = false
        private var bodyTimer: TimerHandle?

        init(call: GRPCServerCall, handler: @escaping GRPCHandler, placement: HandlerPlacement, reader: GRPCMessageReader) {
            self.call = call
            self.handler = handler
            self.placement = placement
            self.reader = reader
        }

        /// Ends the call if its request message is not complete within `seconds` (a body
        /// trickled to hold the stream open).
        func expectBody(within seconds: Double) {
            let call = call
            bodyTimer = call.stream.eventLoop.scheduleFromAnyThread(after: Monotonic.nanoseconds(seconds)) { [weak self] in
                guard let self, !self.complete else { return }
                self.failed = true
                call.finish(.deadlineExceeded, message: "The request message was not received within \(seconds) s.")
            }
        }

        func received(_ data: [UInt8], endStream: Bool) {
            guard !failed else { call.stream.releaseInput(data.count); return }
            let heldBefore = reader.bufferedCount
            reader.append(data)
            defer { call.stream.releaseInput(heldBefore + data.count - (failed ? 0 : reader.bufferedCount)) }
            do throws(GRPCStatus) {
                while let m = try reader.next() {
                    messages.append(m)
                    if messages.count > 1 { throw GRPCStatus(.invalidArgument, "Too many request messages: this method takes exactly one.") }
                }
                call.stream.expectInput(reader.bytesToCompleteMessage)
                if endStream {
                    if reader.hasPartialMessage { throw GRPCStatus(.invalidArgument, "The request ended inside a gRPC message.") }
                    guard let message = messages.first else {
                        throw GRPCStatus(.invalidArgument, "The request ended without a request message.")
                    }
                    complete = true
                    if let t = bodyTimer { call.stream.eventLoop.cancel(t) }
                    dispatch(message)
                }
            } catch {
                failed = true
                call.finish(error)
            }
        }

        func reset(_ code: HTTP2ErrorCode) {
            if let t = bodyTimer { call.stream.eventLoop.cancel(t) }
            call.cancel()
        }

        private func dispatch(_ message: [UInt8]) {
            let (call, handler) = (call, handler)
            switch placement {
            case .inline:
                // At once, without the closure `run` would take (an allocation a call).
                Self.answer(call, handler, message)
            case .pool:
                call.run(.pool) { Self.answer(call, handler, message) }
            }
        }

        private static func answer(_ call: GRPCServerCall, _ handler: GRPCHandler, _ message: [UInt8]) {
            guard !call.isEnded else { return }
            do throws(GRPCStatus) {
                try handler(message, call)
                call.finish(.ok)
            } catch {
                call.finish(error)
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
            guard !done else { call.stream.releaseInput(data.count); return }
            let heldBefore = reader.bufferedCount
            reader.append(data)
            defer { call.stream.releaseInput(heldBefore + data.count - (done ? 0 : reader.bufferedCount)) }
            do throws(GRPCStatus) {
                while let m = try reader.next() { inbound.received(m) }
                call.stream.expectInput(reader.bytesToCompleteMessage)
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
