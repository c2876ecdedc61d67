import HearthCore
import HearthGRPC
import HearthTransport
import HearthProtobuf

/// `google.firestore.v1.Firestore` over gRPC: every unary and server-streaming RPC, on
/// the same `DocumentService` as the REST front end (rules, transactions, paging, admin
/// checks), with auth from the `authorization` metadata exactly as REST reads its header.
/// The bidirectional streams run a session each: `ListenSession` for Listen,
/// `WriteSession` for Write.
struct FirestoreGRPCService: GRPCService {
    let state: EmulatorState
    let name = "google.firestore.v1.Firestore"
    /// Each unary and server-streaming method's handler, made once (making it per call was
    /// a closure allocation a call).
    private let handlers: [String: GRPCHandler]

    init(state: EmulatorState) {
        self.state = state
        var handlers: [String: GRPCHandler] = [:]
        for method in Self.rpcs.keys { handlers[method] = Self.makeHandler(method, state: state, service: name) }
        self.handlers = handlers
    }

    /// One Firestore RPC: decodes the request, answers through the call, throws its error.
    typealias FirestoreRPC = @Sendable (FirestoreRPCs) -> @Sendable (_ request: [UInt8], _ call: FirestoreCall) throws(FirestoreError) -> Void

    /// The RPC table: each unary and server-streaming method, what it does (which decides
    /// where it runs, as for REST) and its handler.
    static let rpcs: [String: (operation: FirestoreOperation, rpc: FirestoreRPC)] = [
        "GetDocument": (.getDocument, FirestoreRPCs.getDocument),
        "CreateDocument": (.createDocument, FirestoreRPCs.createDocument),
        "UpdateDocument": (.updateDocument, FirestoreRPCs.updateDocument),
        "DeleteDocument": (.deleteDocument, FirestoreRPCs.deleteDocument),
        "ListDocuments": (.listDocuments, FirestoreRPCs.listDocuments),
        "ListCollectionIds": (.listCollectionIds, FirestoreRPCs.listCollectionIds),
        "BatchGetDocuments": (.batchGet, FirestoreRPCs.batchGetDocuments),
        "BeginTransaction": (.beginTransaction, FirestoreRPCs.beginTransaction),
        "Commit": (.commit, FirestoreRPCs.commit),
        "Rollback": (.rollback, FirestoreRPCs.rollback),
        "BatchWrite": (.batchWrite, FirestoreRPCs.batchWrite),
        "RunQuery": (.runQuery, FirestoreRPCs.runQuery),
        "RunAggregationQuery": (.runAggregationQuery, FirestoreRPCs.runAggregationQuery),
        "PartitionQuery": (.partitionQuery, FirestoreRPCs.partitionQuery),
        "ExecutePipeline": (.executePipeline, FirestoreRPCs.executePipeline),
    ]

    /// The method's handler, recording each call in the request log while it is observed.
    func handler(for method: String) -> GRPCHandler? { handlers[method] }

    private static func makeHandler(_ method: String, state: EmulatorState, service: String) -> GRPCHandler? {
        guard let rpc = Self.rpcs[method]?.rpc else { return nil }
        // Bound once: `rpc(rpcs)` in the call made a closure each time.
        let bound = rpc(FirestoreRPCs(state: state))
        let log = state.requestLog
        // The path is spelled out only when the request log records the call: an
        // interpolation and an allocation every request otherwise.
        return { bytes, call throws(GRPCStatus) in
            do throws(FirestoreError) {
                try log.serve(.grpc, method: method, path: "/\(service)/\(method)", authorization: call.request.value("authorization")) { () throws(FirestoreError) in
                    try RequestSize.check(bytes.count)
                    try bound(bytes, FirestoreCall(call))
                }
            } catch {
                // An injected reset or dropped answer: the connection dies instead of a status.
                if error.closesConnection { call.abortConnection() }
                throw GRPCStatus(error)
            }
        }
    }

    func placement(for method: String) -> HandlerPlacement {
        Self.rpcs[method]?.operation.placement(commitsWaitForDisk: state.commitsWaitForDisk, faultsArmed: state.faults.isArmed) ?? .pool
    }

    func streamHandler(for method: String) -> GRPCStreamHandler? {
        switch method {
        case "Listen": return { [state] call in ListenSession.start(state: state, call: FirestoreCall(call, waitsForClient: false)) }
        case "Write": return { [state] call in WriteSession.start(state: state, call: FirestoreCall(call, waitsForClient: false)) }
        default: return nil
        }
    }
}

/// The handlers of the Firestore RPCs: decode the request (protobuf), call the
/// `DocumentService`, send the response message(s).
struct FirestoreRPCs: Sendable {
    let state: EmulatorState

    private func service(_ database: DatabaseID, _ call: FirestoreCall) throws(FirestoreError) -> DocumentService {
        let auth = try AuthContext.parse(call.request.value("authorization"))
        return try DocumentService(state: state, database: database, auth: auth)
    }

    // MARK: Single documents

    func getDocument(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try DocumentRequestMessages.decodeGet(bytes)
        let (database, path) = try ResourceNameFields.document(req.name)
        var transaction: TransactionID?, readTime: Timestamp?
        switch req.consistency {
        case .transaction(let t): transaction = t
        case .readTime(let t): readTime = t
        case .current, .newTransaction: break
        }
        let doc = try service(database, call).get(path, transaction: transaction, readTime: readTime)
        var w = ProtoWriter(capacity: DocumentMessage.estimatedSize(doc))
        DocumentMessage.encode(doc, database: database, mask: req.mask, into: &w)
        try call.send(w.bytes)
    }

    func createDocument(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try DocumentRequestMessages.decodeCreate(bytes)
        let (database, parent) = try ResourceNameFields.parent(req.parent)
        guard !req.collectionID.isEmpty else { throw .invalidArgument("collection_id is required.") }
        guard let document = req.document else { throw .invalidArgument("document is required.") }
        guard document.name.isEmpty else {
            throw .documentNameSet
        }
        let doc = try service(database, call).create(collection: parent.appending(req.collectionID), id: req.documentID, fields: document.fields)
        var w = ProtoWriter()
        DocumentMessage.encode(doc, database: database, mask: req.mask, into: &w)
        try call.send(w.bytes)
    }

    func updateDocument(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try DocumentRequestMessages.decodeUpdate(bytes)
        guard let document = req.document else { throw .invalidArgument("document is required.") }
        let (database, path) = try ResourceNameFields.document(document.name)
        let doc = try service(database, call).update(path, fields: document.fields, updateMask: req.updateMask, precondition: req.precondition)
        var w = ProtoWriter()
        DocumentMessage.encode(doc, database: database, mask: req.mask, into: &w)
        try call.send(w.bytes)
    }

    func deleteDocument(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let (name, precondition) = try DocumentRequestMessages.decodeDelete(bytes)
        let (database, path) = try ResourceNameFields.document(name)
        try service(database, call).delete(path, precondition: precondition)
        try call.send([])
    }

    // MARK: Listing

    func listDocuments(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try DocumentRequestMessages.decodeList(bytes)
        let (database, parent) = try ResourceNameFields.parent(req.parent)
        let collection: ResourcePath
        if req.collectionID.isEmpty {
            // Every root collection, as REST's `documents/` lists them.
            guard parent.isEmpty else { throw .invalidArgument("collection_id is required under a document parent.") }
            collection = ResourcePath(segments: [""])
        } else {
            collection = parent.appending(req.collectionID)
        }
        let svc = try service(database, call)
        var readTime: Timestamp?
        switch req.consistency {
        case .transaction(let t): readTime = try state.database(database).readTime(of: t)
        case .readTime(let t): readTime = t
        case .current, .newTransaction: break
        }
        let (page, next) = try svc.list(collection: collection, showMissing: req.showMissing,
                                        orderBy: try DocumentService.parseOrderBy(req.orderBy), pageSize: Int(req.pageSize),
                                        pageToken: req.pageToken, readTime: readTime)
        try call.send(DocumentRequestMessages.encodeListResponse(page, nextPageToken: next, database: database, mask: req.mask))
    }

    func listCollectionIds(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try DocumentRequestMessages.decodeListCollectionIds(bytes)
        let (database, parent) = try ResourceNameFields.parent(req.parent)
        let (ids, next) = try service(database, call).listCollectionIds(parent: parent, pageSize: Int(req.pageSize),
                                                                          pageToken: req.pageToken, readTime: req.readTime)
        try call.send(DocumentRequestMessages.encodeListCollectionIdsResponse(ids, nextPageToken: next))
    }

    // MARK: Batches and transactions

    func batchGetDocuments(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try ReadRequestMessages.decodeBatchGet(bytes)
        let database = try ResourceNameFields.database(req.database)
        var paths: [ResourcePath] = []
        paths.reserveCapacity(req.documents.count)
        for (i, name) in req.documents.enumerated() {
            let (db, path) = try ResourceNameFields.document(name)
            guard db == database else {
                throw .invalidArgument("Document \"\(name)\" (in documents[\(i)]) is not in the request's database \"\(database.name)\".")
            }
            paths.append(path)
        }
        let (results, began, readTime, dropAfter) = try service(database, call).batchGet(paths, consistency: req.consistency)
        var out = StreamCut(dropAfter)
        if let began { try out.send(ReadRequestMessages.encodeTransactionOnly(began, transactionField: 3), call) }
        for (path, doc) in results {
            try out.send(ReadRequestMessages.encodeBatchGetResponse(path: path, document: doc, readTime: readTime, database: database, mask: req.mask), call)
        }
        try out.end()
    }

    func beginTransaction(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try TransactionMessages.decodeBegin(bytes)
        let database = try ResourceNameFields.database(req.database)
        let id = try service(database, call).beginTransaction(req.mode)
        try call.send(TransactionMessages.encodeBeginResponse(id))
    }

    func commit(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try TransactionMessages.decodeCommit(bytes)
        let result = try service(req.database, call).commit(req.writes, transaction: req.transaction)
        try call.send(TransactionMessages.encodeCommitResponse(result))
    }

    func rollback(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let (name, transaction) = try TransactionMessages.decodeRollback(bytes)
        let database = try ResourceNameFields.database(name)
        try service(database, call).rollback(transaction)
        try call.send([])
    }

    func batchWrite(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let (database, writes) = try BatchWriteMessages.decodeRequest(bytes)
        let outcomes = try service(database, call).batchWrite(writes)
        try call.send(BatchWriteMessages.encodeResponse(outcomes))
    }

    // MARK: Queries

    /// A new transaction's id first, alone; then one response per document (each with the
    /// read time), or one with only the read time when there is none; `skipped_results` on
    /// the first after the offset, `done` on the last (as REST answers, and the emulator).
    func runQuery(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try ReadRequestMessages.decodeQuery(bytes, aggregation: false)
        let (result, began, dropAfter) = try service(req.database, call).runQuery(req.query, consistency: req.consistency)
        var out = StreamCut(dropAfter)
        if let began { try out.send(ReadRequestMessages.encodeTransactionOnly(began, transactionField: 2), call) }
        var skipped = result.skippedResults
        for (i, doc) in result.documents.enumerated() {
            try out.send(ReadRequestMessages.encodeRunQueryResponse(document: doc, readTime: result.readTime, skippedResults: skipped,
                                                                    done: i == result.documents.count - 1, database: req.database), call)
            skipped = 0
        }
        if result.documents.isEmpty {
            try out.send(ReadRequestMessages.encodeRunQueryResponse(document: nil, readTime: result.readTime, skippedResults: skipped,
                                                                    done: true, database: req.database), call)
        }
        try out.end()
    }

    func runAggregationQuery(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try ReadRequestMessages.decodeQuery(bytes, aggregation: true)
        let (result, began) = try service(req.database, call).runAggregation(req.query, aggregations: req.aggregations, consistency: req.consistency)
        if let began { try call.send(ReadRequestMessages.encodeTransactionOnly(began, transactionField: 2)) }
        try call.send(ReadRequestMessages.encodeAggregationResponse(result, aggregations: req.aggregations))
    }

    /// Zero partitions: an empty response (the whole query is one partition).
    func partitionQuery(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let (database, query, count) = try ReadRequestMessages.decodePartition(bytes)
        try service(database, call).partitionQuery(query, partitionCount: count)
        try call.send([])
    }
}

/// A server stream's answer under an injected `dropAfter` (docs/faults.md): after that many
/// messages the call ends UNAVAILABLE instead of sending the next one — or, when the answer
/// had no more, instead of ending OK (the client never sees it complete).
private struct StreamCut {
    var left: Int?

    init(_ dropAfter: Int?) { left = dropAfter }

    mutating func send(_ message: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        if let l = left {
            guard l > 0 else { throw .injectedDroppedStream }
            left = l - 1
        }
        try call.send(message)
    }

    func end() throws(FirestoreError) {
        if left != nil { throw .injectedDroppedStream }
    }
}
