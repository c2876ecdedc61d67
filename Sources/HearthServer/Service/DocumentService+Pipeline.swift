import HearthCore

/// ExecutePipeline on the shared service (both front ends call it): the rules check, the
/// read point (now, a read time, a transaction or a new one) and the engine's run.
extension DocumentService {
    /// The run's output and the transaction a `newTransaction` began.
    func executePipeline(_ pipeline: StructuredPipeline, consistency: ReadConsistency) throws(FirestoreError) -> (PipelineOutput, TransactionID?) {
        let fault = try fault(.executePipeline, [])
        try checkRules(pipeline)
        let (txn, began, time) = try readPoint(consistency)
        let output = try db.executePipeline(pipeline, readTime: txn == nil ? time : nil, transaction: txn,
                                            authorize: rules.commitAuthorizer())
        try afterFault(fault)
        return (output, began)
    }

    /// Rules are not filters: the pipeline's reads must be provable from its source and
    /// leading filters (a list query), or be gets of named documents; anything else is
    /// denied for a signed-in or signed-out caller (the owner is not checked).
    private func checkRules(_ pipeline: StructuredPipeline) throws(FirestoreError) {
        guard rules.isEnforcing else { return }
        let state = db.state()
        switch try pipeline.readScope(database: database) {
        case .query(let query): try rules.checkQuery(query, in: state)
        case .documents(let paths): for p in paths { try rules.checkGet(p, in: state) }
        case .nothing: return
        case .unprovable(let why):
            throw FirestoreError(.permissionDenied, "Missing or insufficient permissions: security rules cannot be proved for this pipeline (\(why)).")
        }
    }
}
