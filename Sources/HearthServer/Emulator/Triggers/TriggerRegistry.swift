import HearthCore
import HearthLock

/// The registered triggers, by project, in registration order; and the matching of a
/// commit's documents against them (on the dispatching thread, not under the commit lock).
final class TriggerRegistry: Sendable {
    private let triggers = HearthMutex<[String: [Trigger]]>([:])

    /// Registers (or replaces: the Functions emulator re-registers a key on reload) a trigger.
    func register(_ trigger: Trigger) {
        triggers.withLock { all in
            var list = all[trigger.project] ?? []
            if let i = list.firstIndex(where: { $0.key == trigger.key }) { list[i] = trigger } else { list.append(trigger) }
            all[trigger.project] = list
        }
    }

    var isEmpty: Bool { triggers.withLock { $0.isEmpty } }
    var count: Int { triggers.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    func keys(project: String) -> [String] {
        triggers.withLock { $0[project]?.map(\.key) ?? [] }
    }

    /// The events a commit fires, per document in the commit's order, per trigger in
    /// registration order. 1st-gen events of one document share an id (as the official
    /// emulator's do); 2nd-gen events each have their own.
    func events(for commit: CommittedDocuments) -> [TriggerEvent] {
        let candidates = triggers.withLock { $0[commit.database.project] } ?? []
        guard !candidates.isEmpty else { return [] }
        var events: [TriggerEvent] = []
        for entry in commit.entries {
            var shared: EventID?
            for trigger in candidates where trigger.fires(on: entry, in: commit.database) {
                let id: EventID
                if case .v1 = trigger.generation {
                    if shared == nil { shared = EventID() }
                    id = shared!
                } else {
                    id = EventID()
                }
                events.append(TriggerEvent(trigger: trigger, database: commit.database, entry: entry,
                                           commitTime: commit.commitTime, eventID: id))
            }
        }
        return events
    }
}
