import HearthCore
import HearthTransport

/// The Firestore methods as work, whichever front end carries them: REST's route table and
/// gRPC's RPC table each name one per route, and the placement below is the only place that
/// decides where a method runs — so the same work runs in the same place over every
/// protocol.
enum FirestoreOperation: Sendable {
    case getDocument, createDocument, updateDocument, deleteDocument
    case listDocuments, listCollectionIds
    case batchGet, beginTransaction, commit, rollback, batchWrite
    case runQuery, runAggregationQuery, partitionQuery, executePipeline

    /// Where the handler runs. Point reads, transaction bookkeeping and commits take
    /// microseconds and never wait (the commit lock is held for microseconds; transactions
    /// are optimistic), so they run on the connection's event loop and are spared two
    /// thread hand-offs. Commits go to the worker pool when they wait for the disk (a data
    /// directory: a group commit's fsync). Queries, listings, batch writes and pipelines,
    /// whose cost grows with the data or the request, always run on the pool, so one large
    /// request cannot stall the other connections of its loop.
    ///
    /// While a fault is set (`faultsArmed`, one atomic load) everything runs on the pool: an
    /// injected delay then sleeps a worker, never an event loop that other connections share.
    func placement(commitsWaitForDisk: Bool, faultsArmed: Bool = false) -> HandlerPlacement {
        if faultsArmed { return .pool }
        return switch self {
        case .getDocument, .batchGet, .beginTransaction, .rollback:
            .inline
        case .commit, .createDocument, .updateDocument, .deleteDocument:
            commitsWaitForDisk ? .pool : .inline
        case .listDocuments, .listCollectionIds, .batchWrite, .runQuery, .runAggregationQuery, .partitionQuery, .executePipeline:
            .pool
        }
    }

    /// The method a fault rule names for this work (the gRPC RPC's name).
    var faultMethod: FaultMethod {
        switch self {
        case .getDocument: .getDocument
        case .createDocument: .createDocument
        case .updateDocument: .updateDocument
        case .deleteDocument: .deleteDocument
        case .listDocuments: .listDocuments
        case .listCollectionIds: .listCollectionIds
        case .batchGet: .batchGetDocuments
        case .beginTransaction: .beginTransaction
        case .commit: .commit
        case .rollback: .rollback
        case .batchWrite: .batchWrite
        case .runQuery: .runQuery
        case .runAggregationQuery: .runAggregationQuery
        case .partitionQuery: .partitionQuery
        case .executePipeline: .executePipeline
        }
    }
}
