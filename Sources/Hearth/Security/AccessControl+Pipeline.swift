import HearthCore

extension AccessControl {
    /// Rules are not filters: a pipeline's reads must be provable — its source and leading
    /// filters as a `list` query, or `documents` as gets; what the prover cannot judge
    /// (the whole database, unions, subqueries, writes) is denied to a user.
    func checkPipeline(_ pipeline: StructuredPipeline, in database: Database) throws(FirestoreError) {
        guard case .user = principal, rules.current != nil else { return }
        switch try pipeline.readScope(database: database.id) {
        case .query(let query): try checkQuery(query, in: database)
        case .documents(let paths): for p in paths { try checkGet(p, in: database) }
        case .nothing: return
        case .unprovable(let why):
            throw FirestoreError(.permissionDenied, "Missing or insufficient permissions: security rules cannot be proved for this pipeline (\(why)).")
        }
    }
}
