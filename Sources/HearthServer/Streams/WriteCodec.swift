import HearthCore

/// How a Write stream's messages are encoded on its transport: protobuf over gRPC
/// (`WriteProtobufCodec`), proto3 JSON over WebChannel (`WriteJSONCodec`).
protocol WriteCodec: Sendable {
    func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> WriteStreamMessages.Request
    /// A WriteResponse: the handshake's (no result) or a batch's.
    func response(streamID: String, streamToken: [UInt8], result: CommitResult?) -> [UInt8]
}

/// The gRPC encoding (firestore.proto).
struct WriteProtobufCodec: WriteCodec {
    func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> WriteStreamMessages.Request {
        try WriteStreamMessages.decodeRequest(bytes)
    }

    func response(streamID: String, streamToken: [UInt8], result: CommitResult?) -> [UInt8] {
        WriteStreamMessages.encodeResponse(streamID: streamID, streamToken: streamToken, result: result)
    }
}
