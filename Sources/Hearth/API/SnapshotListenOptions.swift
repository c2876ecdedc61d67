/// Where a listener reads from. Hearth's embedded database is the server and the cache at
/// once, so both sources see the same data.
public enum ListenSource: UInt, Sendable {
    case `default`, cache
}

/// Options for `addSnapshotListener(options:listener:)`; every `with…` returns a copy.
public final class SnapshotListenOptions: @unchecked Sendable {
    public let source: ListenSource
    /// Whether metadata-only changes are delivered. Hearth's metadata never changes
    /// (`hasPendingWrites` and `isFromCache` are always false), so this only decides whether
    /// `documentChanges(includeMetadataChanges: true)` may be called on the snapshots.
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
