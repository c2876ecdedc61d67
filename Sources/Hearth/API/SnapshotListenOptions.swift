/// Where a listener reads from. Hearth's listeners get the server's result as soon as they
/// start (after their cached view, when one is raised: docs/local-view.md), so `.cache`
/// listens like `.default`.
public enum ListenSource: UInt, Sendable {
    case `default`, cache
}

/// Options for `addSnapshotListener(options:listener:)`; every `with…` returns a copy.
public final class SnapshotListenOptions: @unchecked Sendable {
    public let source: ListenSource
    /// Whether snapshots are also delivered when only the pending state of the instance's
    /// own writes changed (`hasPendingWrites`; see `LocalWriteEvents`), and whether
    /// `documentChanges(includeMetadataChanges: true)` may be called on them.
    public let includeMetadataChanges: Bool

    public convenience init() {
        self.init(source: .default, includeMetadataChanges: false)
    }

    init(source: ListenSource, includeMetadataChanges: Bool) {
        self.source = source
        self.includeMetadataChanges = includeMetadataChanges
    }

    public func withIncludeMetadataChanges(_ include: Bool) -> SnapshotListenOptions {
        SnapshotListenOptions(source: source, includeMetadataChanges: include)
    }

    public func withSource(_ source: ListenSource) -> SnapshotListenOptions {
        SnapshotListenOptions(source: source, includeMetadataChanges: includeMetadataChanges)
    }
}
