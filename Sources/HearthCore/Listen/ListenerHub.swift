import Synchronization

/// The registered listen targets of one database and their views. The database publishes
/// each commit's ChangeSet here under its commit lock, so views advance in commit order and
/// a target registered under that lock sees every commit after its initial result exactly
/// once. Sinks are called under the lock too, so they must only hand the snapshot on (the
/// Swift API queues a callback).
///
/// A target may belong to a client with a local view of its own (a mobile SDK instance):
/// its view then shows the database's documents with the client's pending local batches
/// applied on top (`LocalOverlay`), and each snapshot names the documents that carry them
/// (`ViewSnapshot.mutatedKeys`). Applying, committing and rejecting a local batch are
/// published to the client's targets the same way, under the same lock, so every view
/// moves through one order of events.
///
/// A commit with no targets registered costs the database one atomic load.
final class ListenerHub: Sendable {
    private struct Target: Sendable {
        var view: QueryView
        let route: TargetRouting.Route
        let sink: @Sendable (ViewSnapshot) -> Void
        let client: Int?
    }

    private struct Client: Sendable {
        var overlay = LocalOverlay()
        var targets: Set<Int> = []
    }

    private struct Registry: Sendable {
        var targets: [Int: Target] = [:]
        var routing = TargetRouting()
        var clients: [Int: Client] = [:]
        /// The clients with pending local batches (a commit looks at these only).
        var pendingClients: Set<Int> = []
        var nextID = 1
    }

    private let registry = Mutex(Registry())
    private let targetCount = Atomic<Int>(0)

    /// Whether any target is registered (commits skip building a ChangeSet otherwise).
    var isActive: Bool { targetCount.load(ordering: .acquiring) > 0 }

    var count: Int { targetCount.load(ordering: .acquiring) }

    // MARK: Clients

    func registerClient() -> ListenClientID {
        registry.withLock { r in
            defer { r.nextID += 1 }
            r.clients[r.nextID] = Client()
            return ListenClientID(rawValue: r.nextID)
        }
    }

    /// Forgets a client; its targets stay registered as targets of no client.
    func removeClient(_ client: ListenClientID) {
        registry.withLock { r in
            r.clients.removeValue(forKey: client.rawValue)
            r.pendingClients.remove(client.rawValue)
        }
    }

    /// The client's pending overlay (empty for an unknown client).
    func overlay(of client: ListenClientID) -> LocalOverlay {
        registry.withLock { $0.clients[client.rawValue]?.overlay ?? LocalOverlay() }
    }

    // MARK: Targets

    /// Registers a view; call under the commit lock, with the view built from the current
    /// state (with `client`'s overlay applied), after handing its initial snapshot to `sink`.
    func register(_ view: QueryView, client: ListenClientID? = nil, sink: @escaping @Sendable (ViewSnapshot) -> Void) -> ListenTargetID {
        registry.withLock { r in
            let id = r.nextID
            r.nextID += 1
            let route = TargetRouting.route(for: view)
            let owner = client.flatMap { r.clients[$0.rawValue] != nil ? $0.rawValue : nil }
            r.targets[id] = Target(view: view, route: route, sink: sink, client: owner)
            if let owner { r.clients[owner]!.targets.insert(id) }
            r.routing.add(id, route)
            targetCount.wrappingAdd(1, ordering: .releasing)
            return ListenTargetID(rawValue: id)
        }
    }

    /// Unregisters a target; no snapshot is handed to its sink once this returns.
    func unregister(_ id: ListenTargetID) {
        registry.withLock { r in
            guard let target = r.targets.removeValue(forKey: id.rawValue) else { return }
            r.routing.remove(id.rawValue, target.route)
            if let owner = target.client { r.clients[owner]?.targets.remove(id.rawValue) }
            targetCount.wrappingSubtract(1, ordering: .releasing)
        }
    }

    /// The indexes the registered views read when they re-run their queries.
    var requiredIndexes: [IndexDefinition] {
        registry.withLock { r in
            var seen = Set<IndexDefinition>()
            return r.targets.values.flatMap(\.view.requiredIndexes).filter { seen.insert($0).inserted }
        }
    }

    /// The targets a change is routed to (what `publish` considers), for inspection.
    func candidateTargets(of entry: ChangeSet.Entry) -> Set<Int> {
        registry.withLock { r in
            var out = Set<Int>()
            r.routing.forEachCandidate(of: entry) { out.insert($0) }
            return out
        }
    }

    // MARK: Publishing

    /// Routes a commit's changes to the targets they can affect, updates those views and
    /// hands each changed view's snapshot to its sink. Call under the commit lock.
    /// `acknowledging`: the commit is that client's local batch, which leaves its overlay
    /// now; its documents are published to the client's targets even when the commit left
    /// them unchanged (they stop showing a pending write).
    /// With `keepingPending`, the commit is that client's batch but stays pending for it.
    func publish(_ changes: ChangeSet, acknowledging ack: (client: ListenClientID, batch: LocalBatchID)? = nil,
                 keepingPending: Bool = false) {
        registry.withLock { r in
            var before: [Int: LocalOverlay] = [:]
            var extra: [ChangeSet.Entry] = []
            if let ack, keepingPending {
                before[ack.client.rawValue] = r.clients[ack.client.rawValue]?.overlay
            } else if let ack, var client = r.clients[ack.client.rawValue] {
                before[ack.client.rawValue] = client.overlay
                let committed = Set(changes.entries.map(\.key))
                var seen = Set<DocumentKey>()
                for batch in client.overlay.remove(through: ack.batch.rawValue) {
                    for key in batch.keys where !committed.contains(key) && seen.insert(key).inserted {
                        let doc = changes.state.documents[key]?.document
                        extra.append(ChangeSet.Entry(key: key, before: doc, after: doc))
                    }
                }
                r.clients[ack.client.rawValue] = client
                if client.overlay.isEmpty { r.pendingClients.remove(ack.client.rawValue) }
            }
            var routed: [Int: [ChangeSet.Entry]] = [:]
            var order: [Int] = []
            func route(_ entry: ChangeSet.Entry, onlyTo client: Int?) {
                var visited: Set<Int> = []
                r.routing.forEachCandidate(of: entry) { id in
                    guard visited.insert(id).inserted else { return }
                    if let client, r.targets[id]?.client != client { return }
                    if routed[id] == nil { order.append(id) }
                    routed[id, default: []].append(entry)
                }
            }
            for entry in changes.entries { route(entry, onlyTo: nil) }
            for entry in extra { route(entry, onlyTo: ack?.client.rawValue) }
            var overlays: [Int: (before: LocalOverlay, after: LocalOverlay)] = [:]
            for id in r.pendingClients.union(before.keys) {
                guard var client = r.clients[id] else { continue }
                let was = before[id] ?? client.overlay
                // A commit that is not this client's own supersedes its pending writes to
                // the documents it changed (LocalOverlay.supersede).
                if id != ack?.client.rawValue {
                    var superseded = false
                    for entry in changes.entries where client.overlay.contains(entry.key) {
                        client.overlay.supersede(entry.key)
                        superseded = true
                    }
                    if superseded { r.clients[id] = client }
                }
                overlays[id] = (was, client.overlay)
            }
            Self.apply(routed, order: order, in: &r, commitTime: changes.commitTime, state: changes.state, overlays: overlays)
        }
    }

    /// Applies a client's new local batch to its targets' views (the latency-compensated
    /// snapshot). Call under the commit lock, with the database's current state.
    func applyLocally(_ writes: [Write], client: ListenClientID, localWriteTime: Timestamp, state: DatabaseState) -> LocalBatchID {
        registry.withLock { r in
            let id = r.nextID
            r.nextID += 1
            guard var c = r.clients[client.rawValue] else { return LocalBatchID(rawValue: id) }
            let before = c.overlay
            c.overlay.apply(writes, id: id, localWriteTime: localWriteTime) { state.documents[$0]?.document }
            let after = c.overlay
            let keys = after.batches[after.batches.count - 1].keys
            r.clients[client.rawValue] = c
            r.pendingClients.insert(client.rawValue)
            publishOverlayChange(keys, client: client.rawValue, from: before, to: after, in: &r, state: state)
            return LocalBatchID(rawValue: id)
        }
    }

    /// Takes a client's local batch out of its overlay without a commit — its commit failed,
    /// or it was committed and its acknowledgement comes now — and publishes what the
    /// client's targets then show. Call under the commit lock.
    func remove(_ batch: LocalBatchID, client: ListenClientID, state: DatabaseState) {
        registry.withLock { r in
            guard var c = r.clients[client.rawValue] else { return }
            let before = c.overlay
            guard let removed = c.overlay.remove(batch.rawValue) else { return }
            let after = c.overlay
            r.clients[client.rawValue] = c
            if after.isEmpty { r.pendingClients.remove(client.rawValue) }
            publishOverlayChange(removed.keys, client: client.rawValue, from: before, to: after, in: &r, state: state)
        }
    }

    /// Publishes the documents `keys` as the client saw them under `before` and sees them
    /// under `after`, to that client's targets.
    private func publishOverlayChange(_ keys: [DocumentKey], client: Int, from before: LocalOverlay, to after: LocalOverlay,
                                      in r: inout Registry, state: DatabaseState) {
        guard let targets = r.clients[client]?.targets, !targets.isEmpty else { return }
        var routed: [Int: [ChangeSet.Entry]] = [:]
        var order: [Int] = []
        for key in keys {
            let doc = state.documents[key]?.document
            let entry = ChangeSet.Entry(key: key, before: doc, after: doc)
            var visited: Set<Int> = []
            r.routing.forEachCandidate(of: entry) { id in
                guard targets.contains(id), visited.insert(id).inserted else { return }
                if routed[id] == nil { order.append(id) }
                routed[id, default: []].append(entry)
            }
        }
        Self.apply(routed, order: order, in: &r, commitTime: state.readTime, state: state, overlays: [client: (before, after)])
    }

    /// Applies routed entries to their targets' views and hands each changed view's
    /// snapshot to its sink. For a target of a client with local batches, `overlays` holds
    /// the client's overlay before and after this step: each entry's documents are shown
    /// through it, views that re-run their query read the state with it applied, and the
    /// snapshot names the documents that carry pending writes.
    private static func apply(_ routed: [Int: [ChangeSet.Entry]], order: [Int], in r: inout Registry,
                              commitTime: Timestamp, state: DatabaseState,
                              overlays: [Int: (before: LocalOverlay, after: LocalOverlay)]) {
        var localStates: [Int: (before: LocalOverlay, after: LocalOverlay, state: DatabaseState)] = [:]
        for id in order {
            // Only the sink and client are taken out: a copy of the target would share its
            // view's storage and make the view's update below copy it whole (O(view) a step).
            guard let entries = routed[id], let (sink, client) = r.targets[id].map({ ($0.sink, $0.client) }) else { continue }
            guard let client, let (before, after) = overlays[client] else {
                if let snapshot = r.targets[id]!.view.apply(entries, commitTime: commitTime, state: state) { sink(snapshot) }
                continue
            }
            let local: (before: LocalOverlay, after: LocalOverlay, state: DatabaseState)
            if let known = localStates[client] {
                local = known
            } else {
                local = (before, after, after.applied(to: state))
                localStates[client] = local
            }
            let shown = entries.map { e in
                ChangeSet.Entry(key: e.key, before: local.before.document(e.key, over: e.before),
                                after: local.after.document(e.key, over: e.after))
            }
            guard var snapshot = r.targets[id]!.view.apply(shown, commitTime: commitTime, state: local.state) else { continue }
            let view = r.targets[id]!.view
            snapshot.mutatedKeys = local.after.paths.filter { view.contains($0) }
            sink(snapshot)
        }
    }
}
