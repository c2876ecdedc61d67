import HearthCore
import HearthGRPC
import HearthTransport

/// A gRPC call as the Firestore handlers and sessions see it: the same call, with errors in
/// the engine's type. `FirestoreError` codes are the gRPC codes, so each mapping is by number.
struct FirestoreCall: FirestoreStreamCall {
    let grpc: GRPCServerCall
    /// Whether `send` waits for a client that is behind (an RPC handler on a worker thread)
    /// or never (a stream session, which pauses between batches instead).
    let waitsForClient: Bool

    init(_ grpc: GRPCServerCall, waitsForClient: Bool = true) {
        self.grpc = grpc
        self.waitsForClient = waitsForClient
    }

    /// Request metadata (the HTTP/2 request headers: `authorization` and the rest).
    var request: HTTP2RequestHeaders { grpc.request }

    /// Whether the call has ended (answered, expired or reset).
    var isEnded: Bool { grpc.isEnded }
    var transport: RequestLogEntry.Transport { .grpc }
    var authorization: String? { request.value("authorization") }

    /// Queues one response message; CANCELLED once the call has ended.
    func send(_ message: [UInt8]) throws(FirestoreError) {
        do { try grpc.send(message, waitIfBehind: waitsForClient) } catch { throw FirestoreError(error) }
    }

    /// Hands the buffered messages to the stream.
    func flush() { grpc.flush() }

    /// Ends the call with a status (no-op when it has already ended).
    func finish(_ code: FirestoreError.Code, message: String = "") { grpc.finish(GRPCStatus.Code(code), message: message) }

    /// Ends the call with an error's code and message (an injected reset: the connection closes).
    func finish(_ error: FirestoreError) {
        if error.closesConnection { grpc.abortConnection() } else { grpc.finish(GRPCStatus(error)) }
    }

    /// Closes the call's connection (an injected fault).
    func abortConnection() { grpc.abortConnection() }

    /// Runs the session's work on a worker thread; false when the pool is full (the call is
    /// then ended RESOURCE_EXHAUSTED).
    func runWorker(_ body: @escaping @Sendable () -> Void) -> Bool { grpc.runWorker(body) }

    /// Runs `body` on the call's event loop (never blocks the caller).
    func onEventLoop(_ body: @escaping @Sendable () -> Void) { grpc.stream.eventLoop.execute(body) }

    /// Runs `body` on the call's event loop (always queued).
    func runNonBlocking(_ body: @escaping @Sendable () -> Void) -> Bool {
        grpc.stream.eventLoop.execute(body)
        return true
    }

    /// Whether the client has read enough that more may be sent now.
    var isWritable: Bool { grpc.isWritable }
    var writableRoom: Int { grpc.writableRoom }

    /// Calls `body` once the client has caught up (or the call has ended).
    func whenWritable(_ body: @escaping @Sendable () -> Void) { grpc.whenWritable(body) }

    /// Calls `body` once the call ends, however it ends.
    func onEnded(_ body: @escaping @Sendable () -> Void) { grpc.onEnded(body) }
}

extension GRPCStatus {
    /// The gRPC status of an engine error (same code, same message).
    init(_ error: FirestoreError) { self.init(GRPCStatus.Code(error.code), error.message) }
}

extension GRPCStatus.Code {
    init(_ code: FirestoreError.Code) { self = GRPCStatus.Code(rawValue: code.rawValue) ?? .unknown }
}

extension FirestoreError {
    /// The engine error for a gRPC status (same code, same message).
    init(_ status: GRPCStatus) { self.init(FirestoreError.Code(rawValue: status.code.rawValue) ?? .unknown, status.message) }
}
