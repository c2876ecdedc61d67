import Synchronization

/// The registered listen targets of one database and their views. The database publishes
/// each commit's ChangeSet here under its commit lock, so views advance in commit order and
/// a target registered under that lock sees every commit after its initial result exactly
/// once. Sinks are called under the lock too, so they must only hand the snapshot on (the
/// Swift API queues a callback).
///
/// A commit with no targets registered costs the database one atomic load.
final class ListenerHub: Sendable {
    private struct Target: Sendable {
        var view: QueryView
        let route: TargetRouting.Route
        let sink: @Sendable (ViewSnapshot) -> Void
    }

    private struct Registry: Sendable {
        var targets: [Int: Target] = [:]
        var routing = TargetRouting()
        var nextID = 1
    }

    private let registry = Mutex(Registry())
    private let targetCount = Atomic<Int>(0)

    /// Whether any target is registered (commits skip building a ChangeSet otherwise).
    var isActive: Bool { targetCount.load(ordering: .acquiring) > 0 }

    var count: Int { targetCount.load(ordering: .acquiring) }

    /// Registers a view; call under the commit lock, with the view built from the current
    /// state, after handing its initial snapshot to `sink`.
    func register(_ view: QueryView, sink: @escaping @Sendable (ViewSnapshot) -> Void) -> ListenTargetID {
        registry.withLock { r in
            let id = r.nextID
            r.nextID += 1
            let route = TargetRouting.route(for: view)
            r.targets[id] = Target(view: view, route: route, sink: sink)
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

    /// Routes a commit's changes to the targets they can affect, updates those views and
    /// hands each changed view's snapshot to its sink. Call under the commit lock.
    func publish(_ changes: ChangeSet) {
        registry.withLock { r in
            var routed: [Int: [ChangeSet.Entry]] = [:]
            var order: [Int] = []
            for entry in changes.entries {
                var visited: Set<Int> = []
                r.routing.forEachCandidate(of: entry) { id in
                    guard visited.insert(id).inserted else { return }
                    if routed[id] == nil { order.append(id) }
                    routed[id, default: []].append(entry)
                }
            }
            for id in order {
                guard let entries = routed[id],
                      let snapshot = r.targets[id]?.view.apply(entries, commitTime: changes.commitTime, state: changes.state)
                else { continue }
                r.targets[id]!.sink(snapshot)
            }
        }
    }
}
