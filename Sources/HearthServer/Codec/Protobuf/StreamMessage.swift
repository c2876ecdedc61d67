import HearthCore

/// A sub-message of a stream request kept undecoded until the session knows the context it
/// needs (the database, the query's parent), in the encoding its transport used: protobuf
/// over gRPC, proto3 JSON over WebChannel.
enum StreamMessage: Sendable {
    case protobuf(ProtoReader)
    case json(JSON)
}
