import HearthCore
import HearthGRPC
import HearthProtobuf

/// The Write stream's messages (firestore.proto):
/// WriteRequest {database = 1, stream_id = 2, writes = 3, stream_token = 4, labels = 5,
/// request_options = 6} → WriteResponse {stream_id = 1, stream_token = 2,
/// write_results = 3, commit_time = 4}.
enum WriteStreamMessages {
    /// A decoded `WriteRequest`. The writes stay undecoded until the session knows the
    /// stream's database (later requests usually leave `database` empty).
    struct Request: Sendable {
        var database = ""
        var streamID = ""
        var streamToken: [UInt8]?
        var writes: [StreamMessage] = []
    }

    static func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> Request {
        var r = ProtoReader(bytes)
        var req = Request()
        while let key = try r.next() {
            switch key.number {
            case 1: req.database = try r.readString(key)
            case 2: req.streamID = try r.readString(key)
            case 3: req.writes.append(.protobuf(try r.readMessage(key)))
            case 4: req.streamToken = try r.readBytes(key)
            default: try r.skip(key)  // labels, request_options
            }
        }
        return req
    }

    /// Decodes a request's writes in `database`.
    static func decodeWrites(_ messages: [StreamMessage], database: DatabaseID) throws(FirestoreError) -> [Write] {
        var writes: [Write] = []
        writes.reserveCapacity(messages.count)
        for (i, message) in messages.enumerated() {
            switch message {
            case .protobuf(var sub): writes.append(try WriteMessage.decode(&sub, database: database))
            case .json(let json): writes.append(try ProtoWrite.decodeWrite(json, database: database, context: "writes[\(i)]"))
            }
        }
        return writes
    }

    /// A WriteResponse: the handshake's (no results, no commit time) or a batch's.
    static func encodeResponse(streamID: String, streamToken: [UInt8], result: CommitResult? = nil) -> [UInt8] {
        var w = ProtoWriter()
        if !streamID.isEmpty { w.writeString(1, streamID) }
        w.writeBytes(2, streamToken)
        if let result {
            for r in result.writeResults { w.writeMessage(3) { WriteMessage.encodeWriteResult(r, into: &$0) } }
            WellKnownMessages.writeTimestamp(4, result.commitTime, into: &w)
        }
        return w.bytes
    }
}
