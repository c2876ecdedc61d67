import HearthTransport

/// A gRPC service the router dispatches to: its full name (`package.Service`) and a
/// handler per implemented method.
public protocol GRPCService: Sendable {
    /// e.g. `google.firestore.v1.Firestore`.
    var name: String { get }
    /// The handler of a unary or server-streaming `method`, or nil.
    func handler(for method: String) -> GRPCHandler?
    /// The handler of a bidirectional-streaming `method`, or nil (then `handler(for:)`
    /// decides; nil from both is UNIMPLEMENTED).
    func streamHandler(for method: String) -> GRPCStreamHandler?
    /// Where the unary handler of `method` runs: `.inline` on the event loop only for
    /// calls that take microseconds and never wait (default: the worker pool).
    func placement(for method: String) -> HandlerPlacement
}

extension GRPCService {
    public func streamHandler(for method: String) -> GRPCStreamHandler? { nil }
    public func placement(for method: String) -> HandlerPlacement { .pool }
}

/// Runs one call (on the loop or a worker thread, as its service places it): decodes the single request message, sends the
/// response message(s) through the call, or throws the error status. The router ends the
/// call (OK after a normal return).
public typealias GRPCHandler = @Sendable (_ request: [UInt8], _ call: GRPCServerCall) throws(GRPCStatus) -> Void

/// Starts one bidirectional call: returns the receiver of its request messages. The
/// handler owns the call's end: it finishes the call itself (the router only ends it on
/// malformed framing, a deadline or a reset, and then tells the receiver).
public typealias GRPCStreamHandler = @Sendable (_ call: GRPCServerCall) -> any GRPCInboundStream
