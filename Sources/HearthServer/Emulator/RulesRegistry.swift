import HearthCore
import HearthLock

/// The security rules of every project the emulator knows, keyed by project id, and the
/// rules of single databases that have their own (firebase.json's list form gives each
/// database its rules; the official emulator applies one set to all). A database without
/// rules of its own uses its project's, else the default (`--rules`, which the official
/// emulator applies to every project); with none, everything is allowed there.
public final class RulesRegistry: Sendable {
    private let byProject = HearthMutex<[String: ProjectRules]>([:])
    private let byDatabase = HearthMutex<[DatabaseID: ProjectRules]>([:])
    private let fallback = HearthMutex<ProjectRules?>(nil)

    public init() {}

    /// The rules of `project`, if any were loaded.
    public func rules(forProject project: String) -> ProjectRules? {
        byProject.withLock { $0[project] }
    }

    /// The rules requests to database `id` are checked against: its own, else its project's.
    public func rules(for id: DatabaseID) -> ProjectRules? {
        byDatabase.withLock { $0[id] } ?? rules(forProject: id.project) ?? fallback.withLock { $0 }
    }

    /// The rules of every project that has none of its own (the JAR's `--rules`: a hot reload
    /// through `PUT …:securityRules` then replaces them for that one project only, as the
    /// official emulator does).
    public func setDefault(_ rules: ProjectRules?) {
        fallback.withLock { $0 = rules }
    }

    /// The default rules, if any.
    public var defaultRules: ProjectRules? { fallback.withLock { $0 } }

    /// Replaces the rules of `project` (and with them its coverage counts), for all its
    /// databases: rules its databases had of their own are dropped, as the project-wide
    /// `securityRules` endpoint means.
    public func set(_ rules: ProjectRules, forProject project: String) {
        byDatabase.withLock { $0 = $0.filter { $0.key.project != project } }
        byProject.withLock { $0[project] = rules }
    }

    /// Gives database `id` rules of its own.
    public func set(_ rules: ProjectRules, forDatabase id: DatabaseID) {
        byDatabase.withLock { $0[id] = rules }
    }

    /// The projects with rules, sorted.
    public var projects: [String] { byProject.withLock { $0.keys.sorted() } }

    /// Drops the rules of `project`: everything is allowed again.
    public func remove(project: String) {
        _ = byProject.withLock { $0.removeValue(forKey: project) }
    }
}
