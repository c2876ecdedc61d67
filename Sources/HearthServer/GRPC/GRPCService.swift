import HearthCore

/// A gRPC service the router dispatches to: its full name (`package.Service`) and a
/// handler per implemented method.
protocol GRPCService: Sendable {
    /// e.g. `google.firestore.v1.Firestore`.
    var name: String { get }
    /// The handler of `method`, or nil (UNIMPLEMENTED).
    func handler(for method: String) -> GRPCHandler?
}

/// Runs one call on a worker thread: decodes the single request message, sends the
/// response message(s) through the call, or throws the error status. The router ends the
/// call (OK after a normal return).
typealias GRPCHandler = @Sendable (_ request: [UInt8], _ call: GRPCServerCall) throws(FirestoreError) -> Void
