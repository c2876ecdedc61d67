import HearthCore

/// Where the rules engine reads documents for `get()`, `exists()` and `resource`: the
/// database state *before* the request. The engine never writes through it.
public protocol RulesDataSource {
    /// The stored document at `path` in the named database, or nil when it does not exist.
    func document(at path: ResourcePath, database: String) -> Document?
}

/// A plain in-memory data source (tests, `hearth rules test`).
public struct RulesDocumentStore: RulesDataSource, Sendable {
    public var documents: [String: [ResourcePath: MapValue]]

    public init(_ documents: [ResourcePath: MapValue] = [:], database: String = "(default)") {
        self.documents = [database: documents]
    }

    public func document(at path: ResourcePath, database: String) -> Document? {
        guard let fields = documents[database]?[path] else { return nil }
        return Document(path: path, fields: fields, createTime: Timestamp(seconds: 0, nanos: 0),
                        updateTime: Timestamp(seconds: 0, nanos: 0))
    }
}
