import HearthCore

/// One request to authorize: a single-document read or write, or a query (`list`).
public struct RulesRequest: Sendable {
    public var method: RulesMethod
    /// The document path (for `list`, ignored in favour of `query`).
    public var path: ResourcePath
    public var database: String
    public var auth: RulesAuth?
    /// `request.time`; also what `serverTimestamp()` resolved to.
    public var time: Timestamp
    /// `request.resource.data` for `create` and `update`: the whole document as it would be
    /// after the write (for update: the stored fields merged with the written ones).
    public var newData: MapValue?
    /// The query of a `list` request.
    public var query: StructuredQuery?

    public init(method: RulesMethod, path: ResourcePath, database: String = "(default)", auth: RulesAuth?,
                time: Timestamp, newData: MapValue? = nil, query: StructuredQuery? = nil) {
        self.method = method
        self.path = path
        self.database = database
        self.auth = auth
        self.time = time
        self.newData = newData
        self.query = query
    }

    /// A `list` request for a query.
    public static func list(_ query: StructuredQuery, database: String = "(default)", auth: RulesAuth?, time: Timestamp) -> RulesRequest {
        RulesRequest(method: .list, path: query.collectionPath, database: database, auth: auth, time: time, query: query)
    }
}

/// One write of a batch or transaction: the document as it will be after the write
/// (nil = delete). Whether it is a create or an update follows from the data source.
public struct RulesWrite: Sendable {
    public var path: ResourcePath
    public var newData: MapValue?

    public init(path: ResourcePath, newData: MapValue?) {
        self.path = path
        self.newData = newData
    }
}
