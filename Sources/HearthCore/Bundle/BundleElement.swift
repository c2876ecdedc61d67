/// A Firestore bundle: documents and named queries serialised so a client can load them
/// into its cache without asking the server (firestore/bundle.proto). On the wire it is a
/// stream of `BundleElement`s, each as its JSON text's UTF-8 byte count in decimal followed
/// by that JSON: one metadata element first, then the named queries, then for each
/// document its metadata, followed by the document itself when it exists.
public enum BundleElement: Sendable, Equatable {
    case metadata(BundleMetadata)
    case namedQuery(BundleNamedQuery)
    case documentMetadata(BundledDocumentMetadata)
    case document(Document)
}

/// `BundleMetadata`: the bundle's id (a client skips a bundle it has loaded with the same
/// id and a create time as late), when its snapshot was taken, and its size.
public struct BundleMetadata: Sendable, Equatable {
    public var id: String
    public var createTime: Timestamp
    public var version: UInt32
    public var totalDocuments: Int
    /// The bytes of every element after this one (length prefixes included).
    public var totalBytes: Int

    public init(id: String, createTime: Timestamp, version: UInt32 = 1, totalDocuments: Int, totalBytes: Int) {
        self.id = id
        self.createTime = createTime
        self.version = version
        self.totalDocuments = totalDocuments
        self.totalBytes = totalBytes
    }
}

/// `BundledQuery`: a query as the server would run it, and whether the client applies its
/// limit to the first or the last results. A `limit(toLast:)` query is stored with the
/// user's own order (not reversed), as the Admin SDKs write it.
public struct BundledQuery: Sendable, Equatable {
    public enum LimitType: Sendable, Equatable { case first, last }

    public var query: StructuredQuery
    public var limitType: LimitType

    public init(query: StructuredQuery, limitType: LimitType = .first) {
        self.query = query
        self.limitType = limitType
    }
}

/// `NamedQuery`: a query a client can look up by name once the bundle is loaded.
public struct BundleNamedQuery: Sendable, Equatable {
    public var name: String
    public var query: BundledQuery
    public var readTime: Timestamp

    public init(name: String, query: BundledQuery, readTime: Timestamp) {
        self.name = name
        self.query = query
        self.readTime = readTime
    }
}

/// `BundledDocumentMetadata`: one document's name, the time it was read, whether it
/// existed then, and the named queries whose results it is part of.
public struct BundledDocumentMetadata: Sendable, Equatable {
    public var path: ResourcePath
    public var readTime: Timestamp
    public var exists: Bool
    public var queries: [String]

    public init(path: ResourcePath, readTime: Timestamp, exists: Bool, queries: [String] = []) {
        self.path = path
        self.readTime = readTime
        self.exists = exists
        self.queries = queries
    }
}
