/// Listening: register a target, receive its initial snapshot and then one snapshot per
/// commit that changes its result.
extension Database {
    /// Starts listening to `target`. Validation, the index-mode check and index
    /// materialisation happen first (a failure throws, and nothing is registered); then,
    /// under the commit lock, the initial result is computed and handed to `sink`, and the
    /// target is registered so `sink` receives one snapshot for every later commit that
    /// changes the result, in commit order. `sink` runs under the commit lock: it must only
    /// hand the snapshot on, never call back into the database.
    public func listen(_ target: ListenTarget, sink: @escaping @Sendable (ViewSnapshot) -> Void) throws(FirestoreError) -> ListenTargetID {
        var needed: [IndexDefinition] = []
        if case .query(let query) = target {
            let normalized = try NormalizedQuery(query, database: id)
            try checkIndexes(normalized, aggregations: [])
            var candidates = query
            if candidates.findNearest != nil {
                candidates.findNearest = nil
                candidates.limit = nil
                candidates.offset = 0
            }
            needed = QueryExecutor.requiredIndexes(try NormalizedQuery(candidates, database: id))
        }
        return try withCommitLock { (state: inout DatabaseState) throws(FirestoreError) -> ListenTargetID in
            for d in needed where state.indexes.entries(d) == nil {
                state.indexes.materialize(d, from: state.documents)
            }
            let view = try QueryView(target: target, database: id, state: state)
            sink(view.initialSnapshot(readTime: state.readTime))
            return hub.register(view, sink: sink)
        }
    }

    /// Stops a target; its sink receives nothing once this returns. Unknown ids are ignored.
    public func stopListening(_ target: ListenTargetID) {
        hub.unregister(target)
    }

    /// How many targets are registered.
    public var listenTargetCount: Int { hub.count }
}
