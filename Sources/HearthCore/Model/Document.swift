import Synchronization

/// A stored document: its path, fields and the commit times that created and last changed it.
public struct Document: Sendable, Hashable {
    public var path: ResourcePath
    /// Changing the fields of a copy detaches it from the stored version's memo.
    public var fields: MapValue { didSet { memo = nil } }
    public var createTime: Timestamp
    public var updateTime: Timestamp
    /// Set on documents the database stores: see `DocumentMemo`. Not part of equality.
    public internal(set) var memo: DocumentMemo?

    public init(path: ResourcePath, fields: MapValue, createTime: Timestamp, updateTime: Timestamp) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    public var id: String { path.lastSegment }

    public func value(at field: FieldPath) -> Value? { fields.value(at: field) }

    public static func == (a: Document, b: Document) -> Bool {
        a.path == b.path && a.fields == b.fields && a.createTime == b.createTime && a.updateTime == b.updateTime
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(fields)
        hasher.combine(updateTime)
    }
}

/// A slot in which the Swift API keeps the bridged `[String: Any]` of one stored document
/// version, so reading an unchanged document again does not convert it again. The value is
/// tagged with its owner (a `Firestore` instance: bridged references belong to it) and
/// replaced when another owner asks.
public final class DocumentMemo: Sendable {
    private struct Entry: @unchecked Sendable {
        let owner: ObjectIdentifier
        let fields: [String: Any]
    }

    private let slot = Mutex<Entry?>(nil)

    public init() {}

    /// The fields memoised for `owner`, made by `make` the first time.
    public func fields(for owner: AnyObject, make: () -> [String: Any]) -> [String: Any] {
        let id = ObjectIdentifier(owner)
        let hit = slot.withLock { (entry: inout Entry?) -> [String: Any]? in
            entry?.owner == id ? entry.unsafelyUnwrapped.fields : nil
        }
        if let hit { return hit }
        let fields = make()
        slot.withLock { $0 = Entry(owner: id, fields: fields) }
        return fields
    }

    /// Drops the memoised value (`DocumentVersion.markReplaced`).
    func clear() {
        slot.withLock { $0 = nil }
    }
}
