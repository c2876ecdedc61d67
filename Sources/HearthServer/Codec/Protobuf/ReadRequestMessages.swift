import Foundation
import HearthCore
import HearthGRPC
import HearthProtobuf

/// The multi-document read RPCs' messages:
/// BatchGetDocumentsRequest {database = 1, documents = 2, mask = 3, transaction = 4,
/// new_transaction = 5, read_time = 7} → stream {found = 1 | missing = 2, transaction = 3,
/// read_time = 4}; RunQueryRequest {parent = 1, structured_query = 2, transaction = 5,
/// new_transaction = 6, read_time = 7} → stream {document = 1, transaction = 2,
/// read_time = 3, skipped_results = 4, done = 6}; RunAggregationQueryRequest {parent = 1,
/// structured_aggregation_query = 2, transaction = 4, new_transaction = 5, read_time = 6} →
/// {result = 1 {aggregate_fields = 2}, transaction = 2, read_time = 3}; PartitionQueryRequest
/// {parent = 1, structured_query = 2, partition_count = 3, page_token = 4, page_size = 5,
/// read_time = 6} → {partitions = 1, next_page_token = 2}.
enum ReadRequestMessages {
    struct BatchGetRequest {
        var database = ""
        var documents: [String] = []
        var mask: [FieldPath]?
        var consistency: ReadConsistency = .current
    }

    static func decodeBatchGet(_ bytes: [UInt8]) throws(FirestoreError) -> BatchGetRequest {
        var r = ProtoReader(bytes)
        var req = BatchGetRequest()
        while let key = try r.next() {
            if try TransactionMessages.readConsistency(key, &r, into: &req.consistency, transaction: 4, newTransaction: 5, readTime: 7) { continue }
            switch key.number {
            case 1: req.database = try r.readString(key)
            case 2: req.documents.append(try r.readString(key))
            case 3: req.mask = try DocumentRequestMessages.readMask(key, &r, into: req.mask)
            default: try r.skip(key)
            }
        }
        return req
    }

    /// One BatchGetDocumentsResponse: `found` or `missing`, the transaction begun (first
    /// response only) and the read time (always set; the web SDK asserts it on `missing`).
    static func encodeBatchGetResponse(path: ResourcePath, document: Document?, readTime: Timestamp,
                                       database: DatabaseID, mask: [FieldPath]?) -> [UInt8] {
        var w = ProtoWriter(capacity: 32 + (document.map(DocumentMessage.estimatedSize) ?? 128))
        if let document { w.writeMessage(1) { DocumentMessage.encode(document, database: database, mask: mask, into: &$0) } }
        else { w.writeString(2, database.resourceName(path)) }
        WellKnownMessages.writeTimestamp(4, readTime, into: &w)
        return w.bytes
    }

    /// The response carrying only a new transaction's id: it comes first and alone (as the
    /// official emulator streams BatchGet, RunQuery and RunAggregationQuery answers).
    static func encodeTransactionOnly(_ transaction: TransactionID, transactionField: Int) -> [UInt8] {
        var w = ProtoWriter()
        w.writeBytes(transactionField, Array(transaction.bytes))
        return w.bytes
    }

    struct QueryRequest {
        var database: DatabaseID
        var query: StructuredQuery
        var aggregations: [Aggregation]
        var consistency: ReadConsistency
    }

    /// RunQueryRequest (`aggregation` false) or RunAggregationQueryRequest (true).
    static func decodeQuery(_ bytes: [UInt8], aggregation: Bool) throws(FirestoreError) -> QueryRequest {
        var r = ProtoReader(bytes)
        var parent = ""
        var queryReader: ProtoReader?
        var consistency: ReadConsistency = .current
        while let key = try r.next() {
            if aggregation {
                if try TransactionMessages.readConsistency(key, &r, into: &consistency, transaction: 4, newTransaction: 5, readTime: 6) { continue }
            } else {
                if try TransactionMessages.readConsistency(key, &r, into: &consistency, transaction: 5, newTransaction: 6, readTime: 7) { continue }
            }
            switch key.number {
            case 1: parent = try r.readString(key)
            case 2: queryReader = try r.readMessage(key)
            default: try r.skip(key)
            }
        }
        let (database, parentPath) = try ResourceNameFields.parent(parent)
        guard var sub = queryReader else {
            throw .onlyStructuredQueries
        }
        if aggregation {
            let (query, aggregations) = try StructuredQueryMessage.decodeAggregationQuery(&sub, parent: parentPath)
            return QueryRequest(database: database, query: query, aggregations: aggregations, consistency: consistency)
        }
        let query = try StructuredQueryMessage.decode(&sub, parent: parentPath)
        return QueryRequest(database: database, query: query, aggregations: [], consistency: consistency)
    }

    /// One RunQueryResponse.
    static func encodeRunQueryResponse(document: Document?, readTime: Timestamp,
                                       skippedResults: Int, done: Bool, database: DatabaseID) -> [UInt8] {
        var w = ProtoWriter(capacity: 32 + (document.map(DocumentMessage.estimatedSize) ?? 0))
        if let document { w.writeMessage(1) { DocumentMessage.encode(document, database: database, into: &$0) } }
        WellKnownMessages.writeTimestamp(3, readTime, into: &w)
        if skippedResults > 0 { w.writeInt32(4, Int32(clamping: skippedResults)) }
        if done { w.writeBool(6, true) }
        return w.bytes
    }

    /// The single RunAggregationQueryResponse: every aggregation's value by alias.
    static func encodeAggregationResponse(_ result: AggregationResult, aggregations: [Aggregation]) -> [UInt8] {
        var w = ProtoWriter()
        w.writeMessage(1) { m in
            for a in aggregations { ValueMessage.writeMapEntry(2, a.alias, result.values[a.alias] ?? .null, into: &m) }
        }
        WellKnownMessages.writeTimestamp(3, result.readTime, into: &w)
        return w.bytes
    }

    /// PartitionQueryRequest: its parent, query (optional) and partition count.
    static func decodePartition(_ bytes: [UInt8]) throws(FirestoreError) -> (database: DatabaseID, query: StructuredQuery?, partitionCount: Int64?) {
        var r = ProtoReader(bytes)
        var parent = ""
        var queryReader: ProtoReader?
        var count: Int64?
        while let key = try r.next() {
            switch key.number {
            case 1: parent = try r.readString(key)
            case 2: queryReader = try r.readMessage(key)
            case 3: count = try r.readInt64(key)
            case 6:
                var sub = try r.readMessage(key)
                _ = try WellKnownMessages.decodeTimestamp(&sub)
            default: try r.skip(key)
            }
        }
        let (database, parentPath) = try ResourceNameFields.parent(parent)
        var query: StructuredQuery?
        if var sub = queryReader { query = try StructuredQueryMessage.decode(&sub, parent: parentPath) }
        return (database, query, count)
    }
}
