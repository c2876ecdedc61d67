/// A stored document: its path, fields and the commit times that created and last changed it.
public struct Document: Sendable, Hashable {
    public var path: ResourcePath
    public var fields: MapValue
    public var createTime: Timestamp
    public var updateTime: Timestamp

    public init(path: ResourcePath, fields: MapValue, createTime: Timestamp, updateTime: Timestamp) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    public var id: String { path.lastSegment }

    public func value(at field: FieldPath) -> Value? { fields.value(at: field) }
}
