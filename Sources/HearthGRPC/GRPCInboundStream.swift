/// The request side of a bidirectional gRPC call, as the router delivers it: each complete
/// request message, then either the end of the client's input (half-close) or the end of
/// the call (reset by the client, framing error, deadline). The router calls these on the
/// connection's thread, in order, so implementations must only hand the event on (never
/// block, never send from here).
public protocol GRPCInboundStream: AnyObject, Sendable {
    /// One complete request message.
    func received(_ message: [UInt8])
    /// The client half-closed: no more request messages.
    func inputEnded()
    /// The call is over (reset, deadline, or the router finished it with an error): stop
    /// and release everything the call holds.
    func cancelled()
}
