/// What a listener watches, in the shape of the protocol's `Target` (firestore.proto): a
/// set of documents by name, or a query. The Swift API and (later) the gRPC Listen stream
/// register the same targets with `Database.listen`.
public enum ListenTarget: Sendable, Hashable {
    /// `Target.documents`: the named documents (each reported whether or not it exists).
    case documents([ResourcePath])
    /// `Target.query`: the results of a structured query, maintained incrementally.
    case query(StructuredQuery)
}

/// Identifies a registered target, for `Database.stopListening`.
public struct ListenTargetID: Sendable, Hashable {
    public let rawValue: Int
}
