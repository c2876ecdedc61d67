/// Listening: register a target, receive its initial snapshot and then one snapshot per
/// commit that changes its result.
extension Database {
    /// Starts listening to `target`. Validation, the index-mode check and index
    /// materialisation happen first (a failure throws, and nothing is registered); then,
    /// under the commit lock, the initial result is computed and handed to `sink`, and the
    /// target is registered so `sink` receives one snapshot for every later commit that
    /// changes the result, in commit order. `sink` runs under the commit lock: it must only
    /// hand the snapshot on, never call back into the database.
    /// With `client`, the target shows that client's pending local batches on top of the
    /// database's documents (see `applyLocally`). Without, it shares one view with every
    /// other target of no client on the same `target` (one update a commit for all of them;
    /// a target added later starts from that view's current result).
    public func listen(_ target: ListenTarget, client: ListenClientID? = nil,
                       sink: @escaping @Sendable (ViewSnapshot) -> Void) throws(FirestoreError) -> ListenTargetID {
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
            if client == nil {
                // A target of no client starts from the view others watching the same target
                // share, current under this lock, rather than running its query again.
                let view: QueryView
                if let shared = hub.sharedView(of: target) { view = shared } else { view = try QueryView(target: target, database: id, state: state) }
                sink(view.initialSnapshot(readTime: state.readTime))
                return hub.registerShared(target, view: view, sink: sink)
            }
            let overlay = client.map { hub.overlay(of: $0) } ?? LocalOverlay()
            // An offline client's view starts from its offline base (what its cache holds).
            var base = state
            if let client, var offline = hub.base(of: client) {
                for d in needed where offline.indexes.entries(d) == nil {
                    offline.indexes.materialize(d, from: offline.documents)
                }
                hub.updateBase(of: client, offline)
                base = offline
            }
            let view = try QueryView(target: target, database: id, state: overlay.applied(to: base))
            var initial = view.initialSnapshot(readTime: base.readTime)
            initial.mutatedKeys = overlay.paths.filter { view.contains($0) }
            sink(initial)
            return hub.register(view, client: client, mutated: initial.mutatedKeys, sink: sink)
        }
    }

    /// Stops a target; its sink receives nothing once this returns. Unknown ids are ignored.
    public func stopListening(_ target: ListenTargetID) {
        hub.unregister(target)
    }

    /// Whether every target has been handed its snapshot of the commit at `readTime` (a
    /// snapshot's read time): a consumer holding one snapshot of that commit then holds all
    /// it will get, and need not wait on the commit lock for the rest. Lock-free.
    public func hasPublished(through readTime: Timestamp) -> Bool { hub.hasPublished(through: readTime) }

    /// How many targets are registered.
    public var listenTargetCount: Int { hub.count }
}

/// Latency compensation: a client (a mobile SDK instance) applies its writes to its own
/// listen targets before the database commits them, as the SDKs do on a device. The
/// sequence for one batch of writes is `applyLocally` (the client's targets show the
/// writes at once, `ViewSnapshot.mutatedKeys` naming the documents they touch), then
/// `commit(_:acknowledging:)` (the batch — and any older one of the client — leaves the
/// overlay as the commit lands: one more snapshot for the documents whose contents or
/// pending state changed) or, when the commit fails, `removeLocalBatch` (the views return to
/// the database's documents). A batch can also be committed plainly and acknowledged later
/// with `removeLocalBatch` (`commit(_:acknowledging:keepingPending: true)`): until then the
/// client keeps seeing it pending. A commit that is not the client's own supersedes its
/// pending writes to the documents it changes. Other clients' targets see only the commit.
extension Database {
    /// A new client with a local view of its own.
    public func registerListenClient() -> ListenClientID { hub.registerClient() }

    /// Forgets a client (its targets stay registered, as targets of no client).
    public func removeListenClient(_ client: ListenClientID) { hub.removeClient(client) }

    /// Applies `writes` to `client`'s targets as a pending local batch and publishes the
    /// resulting snapshots. `localWriteTime` (default: the clock now) is what pending server
    /// timestamps estimate. The writes are not checked or committed here.
    public func applyLocally(_ writes: [Write], client: ListenClientID, localWriteTime: Timestamp? = nil) -> LocalBatchID {
        let time = localWriteTime ?? clock.now()
        // The commit lock orders the local step with every commit's publication.
        return underCommitLock { state in hub.applyLocally(writes, client: client, localWriteTime: time, state: state) }
    }

    /// Takes a batch out of `client`'s overlay: after its commit failed (its targets return
    /// to the database's documents, a rollback), or to acknowledge a batch committed without
    /// `acknowledging` (its documents stop showing a pending write). Unknown batches (already
    /// acknowledged by a later batch's commit) are ignored.
    public func removeLocalBatch(_ batch: LocalBatchID, client: ListenClientID) {
        underCommitLock { state in hub.remove(batch, client: client, state: state) }
    }

    /// The document at `key` as `client` sees it: with its pending local batches applied
    /// (`pending` true when one writes it); while it is offline, over its offline base.
    public func localDocument(_ key: DocumentKey, client: ListenClientID) -> (document: Document?, pending: Bool) {
        let (overlay, base) = underCommitLock { state in
            (hub.overlay(of: client), (hub.base(of: client) ?? state).documents[key]?.document)
        }
        guard overlay.contains(key) else { return (base, false) }
        return (overlay.document(key, over: base), true)
    }

    /// Takes `client` offline (`true`) or back online, as the SDK's `disableNetwork()` /
    /// `enableNetwork()`: offline, its targets and reads show `holding` (what the client's
    /// cache holds; nil: the database as it is at this point) with its pending batches on
    /// top, and commits do not reach them (its own batches are applied with `applyLocally`
    /// and committed once it is back); back online, each of its targets is brought to its
    /// current result in one step. Costs nothing while no client is offline.
    public func setListenClientOffline(_ client: ListenClientID, _ offline: Bool, holding: [Document]? = nil) {
        // Built outside the commit lock: O(n log n) in what the cache holds.
        let cached = holding.map { DatabaseState.holding($0, database: id, readTime: Timestamp(seconds: 0, nanos: 0)) }
        underCommitLock { state in
            guard offline else { return hub.setOnline(client, state: state) }
            var base = cached ?? state
            base.readTime = state.readTime
            hub.setOffline(client, state: base)
        }
    }

    /// The database as `client` sees it: the current state (while it is offline, its offline
    /// base) with its pending local batches applied, and the paths those batches write (the
    /// documents showing a pending write).
    public func localState(client: ListenClientID) -> (state: DatabaseState, pending: Set<ResourcePath>) {
        let (overlay, state) = underCommitLock { state in (hub.overlay(of: client), hub.base(of: client) ?? state) }
        guard !overlay.isEmpty else { return (state, []) }
        return (overlay.applied(to: state), overlay.paths)
    }
}
