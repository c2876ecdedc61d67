import Foundation
import HearthCore
import HearthGRPC
import HearthProtobuf

/// `TransactionOptions` {read_only = 2 {read_time = 2}, read_write = 3
/// {retry_transaction = 1}}, the read requests' `consistency_selector` oneof, and the
/// transaction RPCs' messages: BeginTransactionRequest {database = 1, options = 2} →
/// {transaction = 1}; RollbackRequest {database = 1, transaction = 2}; CommitRequest
/// {database = 1, writes = 2, transaction = 3} → CommitResponse {write_results = 1,
/// commit_time = 2}.
enum TransactionMessages {
    /// TransactionOptions; neither member set is read-only (as the official emulator treats it).
    static func decodeOptions(_ reader: inout ProtoReader) throws(FirestoreError) -> TransactionMode {
        var mode: TransactionMode = .readOnly(readTime: nil)
        while let key = try reader.next() {
            switch key.number {
            case 2:
                var sub = try reader.readMessage(key)
                var readTime: Timestamp?
                while let k = try sub.next() {
                    if k.number == 2 {
                        var t = try sub.readMessage(k)
                        readTime = try WellKnownMessages.decodeTimestamp(&t)
                    } else {
                        try sub.skip(k)
                    }
                }
                mode = .readOnly(readTime: readTime)
            case 3:
                var sub = try reader.readMessage(key)
                var retry: TransactionID?
                while let k = try sub.next() {
                    if k.number == 1 { retry = TransactionID(bytes: Data(try sub.readBytes(k))) } else { try sub.skip(k) }
                }
                mode = .readWrite(retry: retry)
            default: try reader.skip(key)
            }
        }
        return mode
    }

    /// Reads one member of a `consistency_selector` oneof (`transaction`,
    /// `new_transaction`, `read_time`) at the given field numbers; true when `key` was one.
    static func readConsistency(_ key: ProtoFieldKey, _ reader: inout ProtoReader, into c: inout ReadConsistency,
                                transaction: Int, newTransaction: Int?, readTime: Int) throws(FirestoreError) -> Bool {
        switch key.number {
        case transaction:
            c = .transaction(TransactionID(bytes: Data(try reader.readBytes(key))))
        case readTime:
            var sub = try reader.readMessage(key)
            c = .readTime(try WellKnownMessages.decodeTimestamp(&sub))
        case let n where n == newTransaction:
            var sub = try reader.readMessage(key)
            c = .newTransaction(try decodeOptions(&sub))
        default:
            return false
        }
        return true
    }

    // MARK: BeginTransaction

    struct BeginRequest {
        var database = ""
        /// Absent options: read-write (the default mode).
        var mode: TransactionMode = .readWrite
    }

    static func decodeBegin(_ bytes: [UInt8]) throws(FirestoreError) -> BeginRequest {
        var r = ProtoReader(bytes)
        var req = BeginRequest()
        while let key = try r.next() {
            switch key.number {
            case 1: req.database = try r.readString(key)
            case 2:
                var sub = try r.readMessage(key)
                req.mode = try decodeOptions(&sub)
            default: try r.skip(key)
            }
        }
        return req
    }

    static func encodeBeginResponse(_ id: TransactionID) -> [UInt8] {
        var w = ProtoWriter()
        w.writeBytes(1, Array(id.bytes))
        return w.bytes
    }

    // MARK: Rollback

    static func decodeRollback(_ bytes: [UInt8]) throws(FirestoreError) -> (database: String, transaction: TransactionID) {
        var r = ProtoReader(bytes)
        var database = ""
        var transaction: [UInt8]?
        while let key = try r.next() {
            switch key.number {
            case 1: database = try r.readString(key)
            case 2: transaction = try r.readBytes(key)
            default: try r.skip(key)
            }
        }
        guard let transaction, !transaction.isEmpty else { throw .missingTransaction }
        return (database, TransactionID(bytes: Data(transaction)))
    }

    // MARK: Commit

    struct CommitRequest {
        var database: DatabaseID
        var writes: [Write]
        var transaction: TransactionID?
    }

    static func decodeCommit(_ bytes: [UInt8]) throws(FirestoreError) -> CommitRequest {
        var r = ProtoReader(bytes)
        var database = ""
        var writeReaders: [ProtoReader] = []
        var transaction: TransactionID?
        while let key = try r.next() {
            switch key.number {
            case 1: database = try r.readString(key)
            case 2: writeReaders.append(try r.readMessage(key))
            case 3:
                let t = try r.readBytes(key)
                transaction = t.isEmpty ? nil : TransactionID(bytes: Data(t))
            default: try r.skip(key)
            }
        }
        let db = try ResourceNameFields.database(database)
        return CommitRequest(database: db, writes: try decodeWrites(writeReaders, database: db), transaction: transaction)
    }

    /// Decodes Write messages read before the request's database was known.
    static func decodeWrites(_ readers: [ProtoReader], database: DatabaseID) throws(FirestoreError) -> [Write] {
        var writes: [Write] = []
        writes.reserveCapacity(readers.count)
        for var sub in readers { writes.append(try WriteMessage.decode(&sub, database: database)) }
        return writes
    }

    static func encodeCommitResponse(_ result: CommitResult) -> [UInt8] {
        var w = ProtoWriter()
        for r in result.writeResults { w.writeMessage(1) { WriteMessage.encodeWriteResult(r, into: &$0) } }
        // A commit without writes committed nothing: no time (as the official emulator answers).
        if !result.writeResults.isEmpty { WellKnownMessages.writeTimestamp(2, result.commitTime, into: &w) }
        return w.bytes
    }
}
