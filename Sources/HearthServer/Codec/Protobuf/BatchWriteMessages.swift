import HearthCore
import HearthGRPC
import HearthProtobuf

/// BatchWriteRequest {database = 1, writes = 2, labels = 3} → BatchWriteResponse
/// {write_results = 1, status = 2 (google.rpc.Status {code = 1, message = 2, details = 3})}:
/// one result and one status per write, in order (an empty WriteResult for a failed write).
enum BatchWriteMessages {
    static func decodeRequest(_ bytes: [UInt8]) throws(FirestoreError) -> (database: DatabaseID, writes: [Write]) {
        var r = ProtoReader(bytes)
        var database = ""
        var writeReaders: [ProtoReader] = []
        while let key = try r.next() {
            switch key.number {
            case 1: database = try r.readString(key)
            case 2: writeReaders.append(try r.readMessage(key))
            default: try r.skip(key)
            }
        }
        let db = try ResourceNameFields.database(database)
        return (db, try TransactionMessages.decodeWrites(writeReaders, database: db))
    }

    static func encodeResponse(_ outcomes: [Result<WriteResult, FirestoreError>]) -> [UInt8] {
        var w = ProtoWriter()
        for o in outcomes {
            if case .success(let r) = o { w.writeMessage(1) { WriteMessage.encodeWriteResult(r, into: &$0) } }
            else { w.writeMessage(1) { _ in } }
        }
        for o in outcomes {
            w.writeMessage(2) { s in
                if case .failure(let e) = o {
                    s.writeInt32(1, Int32(e.code.rawValue))
                    if !e.message.isEmpty { s.writeString(2, e.message) }
                }
            }
        }
        return w.bytes
    }
}
