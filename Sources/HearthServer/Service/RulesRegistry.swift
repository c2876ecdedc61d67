import Synchronization

/// The security rules of every project the emulator knows, keyed by project id. A project
/// without an entry has no rules: everything is allowed there.
public final class RulesRegistry: Sendable {
    private let byProject = Mutex<[String: ProjectRules]>([:])

    public init() {}

    /// The rules of `project`, if any were loaded.
    public func rules(forProject project: String) -> ProjectRules? {
        byProject.withLock { $0[project] }
    }

    /// Replaces the rules of `project` (and with them its coverage counts).
    public func set(_ rules: ProjectRules, forProject project: String) {
        byProject.withLock { $0[project] = rules }
    }

    /// The projects with rules, sorted.
    public var projects: [String] { byProject.withLock { $0.keys.sorted() } }

    /// Drops the rules of `project`: everything is allowed again.
    public func remove(project: String) {
        _ = byProject.withLock { $0.removeValue(forKey: project) }
    }
}
