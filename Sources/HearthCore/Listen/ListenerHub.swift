import HearthLock
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
/// Targets of no client watching the same `ListenTarget` share one view (`SharedView`): a
/// view holds nothing per target — its result depends only on the target and the commits —
/// so ten thousand streams watching one document cost one view update a commit and one
/// snapshot handed to ten thousand sinks, not ten thousand updates. What differs per
/// target (its id on a stream, resume token, read time sent, rules checked when it was
/// added) lives with the target's owner. A target of a client keeps a view of its own: the
/// client's overlay may show its pending writes at any step.
///
/// A commit with no targets registered costs the database one atomic load.
final class ListenerHub: Sendable {
    typealias Sink = @Sendable (ViewSnapshot) -> Void

    /// A target with a view of its own: a client's.
    private struct Target: Sendable {
        var view: QueryView
        let route: TargetRouting.Route
        let sink: @Sendable (ViewSnapshot) -> Void
        let client: Int?
        /// The view's documents that carry the client's pending writes.
        var mutated: Set<ResourcePath> = []
    }

    /// One view of a `ListenTarget` shared by every target of no client watching it, with
    /// their sinks. Its routing id is its own (from `nextID`), not a target's.
    private struct SharedView: Sendable {
        var view: QueryView
        let key: ListenTarget
        let route: TargetRouting.Route
        /// The sinks by target id.
        var sinks: [Int: Sink] = [:]
    }

    private struct Client: Sendable {
        var overlay = LocalOverlay()
        var targets: Set<Int> = []
        /// Set while the client is offline (`setOffline`).
        var offline: Offline?
    }

    /// An offline client (the SDK after `disableNetwork()`): its views and reads start from
    /// `base` (what the client's cache holds, or the database as it was when it went
    /// offline), with its own pending batches on top; commits are not routed to its targets.
    /// Back online, each of its views is brought to the current result at once.
    private struct Offline: Sendable {
        var base: DatabaseState
    }

    private struct Registry: Sendable {
        /// Targets with a view of their own, by target id.
        var targets: [Int: Target] = [:]
        /// Shared views by their routing id, that id by what they watch, and each sharing
        /// target's view id.
        var shared: [Int: SharedView] = [:]
        var sharedByTarget: [ListenTarget: Int] = [:]
        var sharedMembers: [Int: Int] = [:]
        /// Routes own-view targets by target id and shared views by view id (one id space).
        var routing = TargetRouting()
        var clients: [Int: Client] = [:]
        /// The clients with pending local batches (a commit looks at these only).
        var pendingClients: Set<Int> = []
        /// The clients that are offline.
        var offlineClients: Set<Int> = []
        var nextID = 1
    }

    private let registry = HearthMutex(Registry())
    private let targetCount = Atomic<Int>(0)
    /// Targets plus offline clients: a commit is published while either exists (an offline
    /// client notes what it misses). One counter, so a commit with neither still costs one
    /// atomic load.
    private let activity = Atomic<Int>(0)
    /// The commit time (µs) of the last commit whose snapshots have all been handed over.
    private let publishedThrough = Atomic<Int64>(.min)

    /// Whether any target is registered (commits skip building a ChangeSet otherwise).
    var isActive: Bool { activity.load(ordering: .acquiring) > 0 }

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
            if r.offlineClients.remove(client.rawValue) != nil { activity.wrappingSubtract(1, ordering: .releasing) }
        }
    }

    /// The client's pending overlay (empty for an unknown client).
    func overlay(of client: ListenClientID) -> LocalOverlay {
        registry.withLock { $0.clients[client.rawValue]?.overlay ?? LocalOverlay() }
    }

    // MARK: Targets

    /// Registers a view; call under the commit lock, with the view built from the current
    /// state (with `client`'s overlay applied), after handing its initial snapshot to `sink`.
    /// `mutated`: the view's documents that show pending writes of `client`.
    func register(_ view: QueryView, client: ListenClientID? = nil, mutated: Set<ResourcePath> = [],
                  sink: @escaping @Sendable (ViewSnapshot) -> Void) -> ListenTargetID {
        registry.withLock { r in
            let id = r.nextID
            r.nextID += 1
            let route = TargetRouting.route(for: view)
            let owner = client.flatMap { r.clients[$0.rawValue] != nil ? $0.rawValue : nil }
            r.targets[id] = Target(view: view, route: route, sink: sink, client: owner, mutated: owner == nil ? [] : mutated)
            if let owner { r.clients[owner]!.targets.insert(id) }
            r.routing.add(id, route)
            targetCount.wrappingAdd(1, ordering: .releasing)
            activity.wrappingAdd(1, ordering: .releasing)
            return ListenTargetID(rawValue: id)
        }
    }

    /// The current view of `target` shared by targets of no client, if one is registered:
    /// call under the commit lock (the view then reflects every commit so far, and stays
    /// the current one until the lock is released), to start a target from it instead of
    /// running its query.
    func sharedView(of target: ListenTarget) -> QueryView? {
        registry.withLock { r in r.sharedByTarget[target].flatMap { r.shared[$0]?.view } }
    }

    /// Registers a target of no client on the shared view of `target`, or on `view` (built
    /// from the current state, or taken from `sharedView(of:)`) when there is none — the
    /// last target of a shared view may have left since it was looked up. Call under the
    /// commit lock, after handing the initial snapshot to `sink`.
    func registerShared(_ target: ListenTarget, view: QueryView, sink: @escaping Sink) -> ListenTargetID {
        registry.withLock { r in
            let id = r.nextID
            r.nextID += 1
            let viewID: Int
            if let existing = r.sharedByTarget[target] {
                viewID = existing
            } else {
                viewID = r.nextID
                r.nextID += 1
                let route = TargetRouting.route(for: view)
                r.shared[viewID] = SharedView(view: view, key: target, route: route)
                r.sharedByTarget[target] = viewID
                r.routing.add(viewID, route)
            }
            r.shared[viewID]!.sinks[id] = sink
            r.sharedMembers[id] = viewID
            targetCount.wrappingAdd(1, ordering: .releasing)
            activity.wrappingAdd(1, ordering: .releasing)
            return ListenTargetID(rawValue: id)
        }
    }

    /// Unregisters a target; no snapshot is handed to its sink once this returns.
    func unregister(_ id: ListenTargetID) {
        registry.withLock { r in
            if let viewID = r.sharedMembers.removeValue(forKey: id.rawValue) {
                r.shared[viewID]!.sinks[id.rawValue] = nil
                if r.shared[viewID]!.sinks.isEmpty {
                    let gone = r.shared.removeValue(forKey: viewID)!
                    r.sharedByTarget[gone.key] = nil
                    r.routing.remove(viewID, gone.route)
                }
                targetCount.wrappingSubtract(1, ordering: .releasing)
                activity.wrappingSubtract(1, ordering: .releasing)
                return
            }
            guard let target = r.targets.removeValue(forKey: id.rawValue) else { return }
            r.routing.remove(id.rawValue, target.route)
            if let owner = target.client { r.clients[owner]?.targets.remove(id.rawValue) }
            targetCount.wrappingSubtract(1, ordering: .releasing)
            activity.wrappingSubtract(1, ordering: .releasing)
        }
    }

    // MARK: Offline clients

    /// The state an offline client's views and reads start from (nil: the client is online).
    func base(of client: ListenClientID) -> DatabaseState? {
        registry.withLock { $0.clients[client.rawValue]?.offline?.base }
    }

    /// Replaces an offline client's base by the same state with more indexes materialised
    /// (a view started offline re-runs its query on it).
    func updateBase(of client: ListenClientID, _ base: DatabaseState) {
        registry.withLock { r in
            guard r.clients[client.rawValue]?.offline != nil else { return }
            r.clients[client.rawValue]!.offline!.base = base
        }
    }

    /// Takes a client offline with `state` as its base (call under the commit lock).
    func setOffline(_ client: ListenClientID, state: DatabaseState) {
        registry.withLock { r in
            guard r.clients[client.rawValue] != nil, r.clients[client.rawValue]!.offline == nil else { return }
            r.clients[client.rawValue]!.offline = Offline(base: state)
            r.offlineClients.insert(client.rawValue)
            activity.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Brings a client back online (call under the commit lock, with the current state):
    /// each of its views is brought to its result on the current state (its pending batches
    /// still shown on top) in one step, as the SDK's resumed targets are: what others
    /// committed meanwhile, and for a view started offline on the cache alone, what the
    /// cache did not hold. Costs one re-run of each of the client's views.
    func setOnline(_ client: ListenClientID, state: DatabaseState) {
        registry.withLock { r in
            let owner = client.rawValue
            guard r.clients[owner]?.offline != nil else { return }
            r.clients[owner]!.offline = nil
            r.offlineClients.remove(owner)
            activity.wrappingSubtract(1, ordering: .releasing)
            let c = r.clients[owner]!
            guard !c.targets.isEmpty else { return }
            let local = c.overlay.isEmpty ? state : c.overlay.applied(to: state)
            let pending = c.overlay.paths
            for id in c.targets.sorted() {
                guard let sink = r.targets[id]?.sink,
                      var snapshot = r.targets[id]!.view.resync(to: local, commitTime: state.readTime) else { continue }
                let view = r.targets[id]!.view
                let mutated = pending.filter { view.contains($0) }
                r.targets[id]!.mutated = mutated
                snapshot.mutatedKeys = mutated
                sink(snapshot)
            }
        }
    }

    /// The indexes the registered views read when they re-run their queries.
    var requiredIndexes: [IndexDefinition] {
        registry.withLock { r in
            var seen = Set<IndexDefinition>()
            return (r.targets.values.flatMap(\.view.requiredIndexes) + r.shared.values.flatMap(\.view.requiredIndexes))
                .filter { seen.insert($0).inserted }
        }
    }

    /// The targets a change is routed to (what `publish` considers), for inspection: a
    /// shared view stands for all its targets.
    func candidateTargets(of entry: ChangeSet.Entry) -> Set<Int> {
        registry.withLock { r in
            var out = Set<Int>()
            r.routing.forEachCandidate(of: entry) { id in
                if let shared = r.shared[id] { out.formUnion(shared.sinks.keys) } else { out.insert(id) }
            }
            return out
        }
    }

    /// How many distinct shared views are registered (for inspection).
    var sharedViewCount: Int { registry.withLock { $0.shared.count } }

    // MARK: Publishing

    /// What a client's view showed for a document before a step that changed how its
    /// overlay shows it: the overlay's document, or the database's (`base`).
    private enum ShownBefore {
        case local(Document?)
        case base
    }

    /// Records, for `keys`, what the client's overlay shows now (call before changing it).
    private static func shownBefore(_ keys: some Sequence<DocumentKey>, in overlay: LocalOverlay,
                                    into out: inout [DocumentKey: ShownBefore]) {
        for key in keys where out[key] == nil {
            out[key] = overlay.contains(key) ? .local(overlay.document(key, over: nil)) : .base
        }
    }

    /// The entries of one step per target, and the targets in the order they got their first.
    private struct Routed {
        var entries: [Int: [ChangeSet.Entry]] = [:]
        var order: [Int] = []

        /// Hands `entry` to every target a probe routes to (each once), among `only` when
        /// given and not in `skip`.
        mutating func add(_ entry: ChangeSet.Entry, probes: [ChangeSet.Entry], routing: TargetRouting,
                          only: Set<Int>? = nil, skip: Set<Int> = []) {
            var visited = skip
            for probe in probes {
                routing.forEachCandidate(of: probe) { id in
                    guard only?.contains(id) ?? true, visited.insert(id).inserted else { return }
                    if entries[id] == nil { order.append(id) }
                    entries[id, default: []].append(entry)
                }
            }
        }
    }

    /// Routes, for a client whose overlay a step changed, each document it changed to the
    /// client's targets that its shown versions (before and after the step) can affect: a
    /// pending version may route elsewhere than the database's (another value of an
    /// equality-filtered field), and a document whose pending state alone changed must still
    /// reach the views that show it. `entry(key)` is the step's entry for the document and
    /// `reached(key)` the targets that have it already.
    private static func routeShown(_ shown: [DocumentKey: ShownBefore], client: Int, in r: Registry, into routed: inout Routed,
                                   entry: (DocumentKey) -> ChangeSet.Entry, reached: (ChangeSet.Entry) -> Set<Int>) {
        guard let c = r.clients[client], !c.targets.isEmpty else { return }
        for (key, was) in shown {
            let e = entry(key)
            let old: Document? = switch was {
            case .local(let d): d
            case .base: e.before
            }
            let probe = ChangeSet.Entry(key: key, before: old, after: c.overlay.document(key, over: e.after))
            routed.add(e, probes: [e, probe], routing: r.routing, only: c.targets, skip: reached(e))
        }
    }

    /// Routes a commit's changes to the targets they can affect, updates those views and
    /// hands each changed view's snapshot to its sink. Call under the commit lock.
    /// `acknowledging`: the commit is that client's local batch, which leaves its overlay
    /// now with the client's older batches; their documents are published to the client's
    /// targets even when the commit left them unchanged (they stop showing a pending
    /// write). With `keepingPending`, the commit is that client's batch but stays pending.
    func publish(_ changes: ChangeSet, acknowledging ack: (client: ListenClientID, batch: LocalBatchID)? = nil,
                 keepingPending: Bool = false) {
        registry.withLock { r in
            // Per client whose overlay this step changes: what its views showed before.
            var before: [Int: [DocumentKey: ShownBefore]] = [:]
            if let ack, !keepingPending, r.clients[ack.client.rawValue] != nil {
                let owner = ack.client.rawValue
                var shown: [DocumentKey: ShownBefore] = [:]
                for batch in r.clients[owner]!.overlay.batches.prefix(while: { $0.id <= ack.batch.rawValue }) {
                    Self.shownBefore(batch.keys, in: r.clients[owner]!.overlay, into: &shown)
                }
                r.clients[owner]!.overlay.remove(through: ack.batch.rawValue)
                before[owner] = shown
                if r.clients[owner]!.overlay.isEmpty { r.pendingClients.remove(owner) }
            }
            // Offline clients' targets get nothing (brought up to date by `setOnline`).
            var offlineTargets: Set<Int> = []
            for id in r.offlineClients { offlineTargets.formUnion(r.clients[id]!.targets) }
            // A commit that is not a client's own supersedes its pending writes to the
            // documents it changed (LocalOverlay.supersede); not while the client is offline
            // (its writes are not committed yet).
            for id in r.pendingClients where id != ack?.client.rawValue && !r.offlineClients.contains(id) {
                var shown: [DocumentKey: ShownBefore] = [:]
                for entry in changes.entries where r.clients[id]!.overlay.contains(entry.key) {
                    Self.shownBefore(CollectionOfOne(entry.key), in: r.clients[id]!.overlay, into: &shown)
                    r.clients[id]!.overlay.supersede(entry.key)
                }
                if !shown.isEmpty { before[id] = shown }
            }
            var routed = Routed()
            for entry in changes.entries { routed.add(entry, probes: [entry], routing: r.routing, skip: offlineTargets) }
            if !before.isEmpty {
                let committed = Dictionary(changes.entries.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
                for (client, shown) in before {
                    Self.routeShown(shown, client: client, in: r, into: &routed, entry: { key in
                        committed[key] ?? {
                            let doc = changes.state.documents[key]?.document
                            return ChangeSet.Entry(key: key, before: doc, after: doc)
                        }()
                    }, reached: { e in
                        guard committed[e.key] != nil else { return [] }
                        var out = Set<Int>()
                        r.routing.forEachCandidate(of: e) { out.insert($0) }
                        return out
                    })
                }
            }
            Self.apply(routed, in: &r, commitTime: changes.commitTime, state: changes.state, before: before)
        }
        publishedThrough.store(changes.commitTime.microseconds, ordering: .releasing)
    }

    /// Whether the snapshots of the commit at `commitTime` have all been handed to their
    /// sinks (a consumer holding one of them then has every other one it will get, without
    /// waiting on the commit lock). Commits publish in commit-time order.
    func hasPublished(through commitTime: Timestamp) -> Bool {
        publishedThrough.load(ordering: .acquiring) >= commitTime.microseconds
    }

    /// Applies a client's new local batch to its targets' views (the latency-compensated
    /// snapshot). Call under the commit lock, with the database's current state. The
    /// overlay changes in place: a step costs what its own documents cost, not what the
    /// other pending batches hold.
    func applyLocally(_ writes: [Write], client: ListenClientID, localWriteTime: Timestamp, state: DatabaseState) -> LocalBatchID {
        registry.withLock { r in
            let id = r.nextID
            r.nextID += 1
            guard r.clients[client.rawValue] != nil else { return LocalBatchID(rawValue: id) }
            let owner = client.rawValue
            let state = r.clients[owner]!.offline?.base ?? state
            let publishing = !r.clients[owner]!.targets.isEmpty
            var shown: [DocumentKey: ShownBefore] = [:]
            if publishing { Self.shownBefore(writes.map(\.key), in: r.clients[owner]!.overlay, into: &shown) }
            r.clients[owner]!.overlay.apply(writes, id: id, localWriteTime: localWriteTime) { state.documents[$0]?.document }
            r.pendingClients.insert(owner)
            if publishing { publishOverlayChange(shown, client: owner, in: &r, state: state) }
            return LocalBatchID(rawValue: id)
        }
    }

    /// Takes a batch out of a client's overlay (rolled back or acknowledged) and publishes
    /// the documents it wrote, as the client's targets then show. Call under the commit lock.
    func remove(_ batch: LocalBatchID, client: ListenClientID, state: DatabaseState) {
        registry.withLock { r in
            let owner = client.rawValue
            guard r.clients[owner] != nil,
                  let keys = r.clients[owner]!.overlay.batches.first(where: { $0.id == batch.rawValue })?.keys else { return }
            let state = r.clients[owner]!.offline?.base ?? state
            let publishing = !r.clients[owner]!.targets.isEmpty
            var shown: [DocumentKey: ShownBefore] = [:]
            if publishing { Self.shownBefore(keys, in: r.clients[owner]!.overlay, into: &shown) }
            r.clients[owner]!.overlay.remove(batch.rawValue)
            if r.clients[owner]!.overlay.isEmpty { r.pendingClients.remove(owner) }
            if publishing { publishOverlayChange(shown, client: owner, in: &r, state: state) }
        }
    }

    /// Publishes the documents of `before` (what the client's views showed of them before
    /// its overlay changed) to that client's targets.
    private func publishOverlayChange(_ before: [DocumentKey: ShownBefore], client: Int, in r: inout Registry, state: DatabaseState) {
        var routed = Routed()
        Self.routeShown(before, client: client, in: r, into: &routed, entry: { key in
            let doc = state.documents[key]?.document
            return ChangeSet.Entry(key: key, before: doc, after: doc)
        }, reached: { _ in [] })
        Self.apply(routed, in: &r, commitTime: state.readTime, state: state, before: [client: before])
    }

    /// Applies routed entries to their targets' views and hands each changed view's
    /// snapshot to its sink. A target of a client with local batches (or whose overlay this
    /// step changed, `before`) sees each entry's documents through the overlay (before: what
    /// it showed, after: what the overlay shows now), re-runs its query on the state with the
    /// overlay applied, and its snapshot names the documents that carry pending writes.
    private static func apply(_ routed: Routed, in r: inout Registry, commitTime: Timestamp, state: DatabaseState,
                              before: [Int: [DocumentKey: ShownBefore]]) {
        var localStates: [Int: DatabaseState] = [:]
        for id in routed.order {
            if r.shared[id] != nil {
                // One update for every target sharing the view, the same snapshot to each.
                guard let entries = routed.entries[id],
                      let snapshot = r.shared[id]!.view.apply(entries, commitTime: commitTime, state: state) else { continue }
                for sink in r.shared[id]!.sinks.values { sink(snapshot) }
                continue
            }
            // Only the sink and client are taken out: a copy of the target would share its
            // view's storage and make the view's update below copy it whole (O(view) a step).
            guard let entries = routed.entries[id], let (sink, client) = r.targets[id].map({ ($0.sink, $0.client) }) else { continue }
            guard let client, let overlay = r.clients[client]?.overlay, !overlay.isEmpty || before[client] != nil else {
                if let snapshot = r.targets[id]!.view.apply(entries, commitTime: commitTime, state: state) { sink(snapshot) }
                continue
            }
            // The state with the overlay applied costs what the overlay holds: built once
            // per client and step, and only for a view that re-runs its query.
            func localState() -> DatabaseState {
                if let known = localStates[client] { return known }
                let built = overlay.applied(to: state)
                localStates[client] = built
                return built
            }
            let was = before[client] ?? [:]
            let shown = entries.map { e -> ChangeSet.Entry in
                let old: Document? = switch was[e.key] {
                case .local(let d)?: d
                case .base?: e.before
                case nil: overlay.document(e.key, over: e.before)
                }
                return ChangeSet.Entry(key: e.key, before: old, after: overlay.document(e.key, over: e.after))
            }
            let snapshot = r.targets[id]!.view.apply(shown, commitTime: commitTime, state: state, rerunState: localState)
            // Which of the view's documents carry pending writes changes only for the
            // documents routed here (routeShown sees that every view showing one gets it)
            // and those the view gained or lost: kept up to date per target, so a step
            // costs what it touched, not what the overlay holds.
            func update(_ path: ResourcePath) {
                let pending = overlay.contains(DocumentKey(path)) && r.targets[id]!.view.contains(path)
                if pending != r.targets[id]!.mutated.contains(path) {
                    if pending { r.targets[id]!.mutated.insert(path) } else { r.targets[id]!.mutated.remove(path) }
                }
            }
            for e in entries { update(e.key.path) }
            guard var snapshot else { continue }
            for change in snapshot.changes { update(change.document.path) }
            snapshot.mutatedKeys = r.targets[id]!.mutated
            sink(snapshot)
        }
    }
}
