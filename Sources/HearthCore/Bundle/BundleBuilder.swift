/// Writes a bundle, as the Admin SDKs' `firestore.bundle(id)` does: documents (each with the
/// time it was read and the named queries it belongs to) and named queries, then
/// `build()`: the metadata element (id, the latest read time as create time, counts and
/// byte size) followed by the named queries and the documents in the order first added.
/// Adding a document again keeps the later read.
public struct BundleBuilder: Sendable {
    public let id: String
    public let database: DatabaseID
    private var documents: [ResourcePath: (document: Document?, readTime: Timestamp, queries: [String])] = [:]
    private var documentOrder: [ResourcePath] = []
    private var queries: [String: BundleNamedQuery] = [:]
    private var queryOrder: [String] = []
    private var latestReadTime: Timestamp?

    public init(id: String, database: DatabaseID) {
        self.id = id
        self.database = database
    }

    /// Adds a document as read at `readTime` (nil document: it did not exist then).
    public mutating func add(document: Document?, path: ResourcePath, readTime: Timestamp) {
        note(readTime)
        if let held = documents[path] {
            guard held.readTime <= readTime else { return }
            documents[path] = (document, readTime, held.queries)
        } else {
            documents[path] = (document, readTime, [])
            documentOrder.append(path)
        }
    }

    /// Adds a named query with its results as read at `readTime`. A name already used is
    /// an error, as in the Admin SDKs.
    public mutating func add(namedQuery name: String, query: BundledQuery, results: [Document], readTime: Timestamp) throws(FirestoreError) {
        guard queries[name] == nil else { throw .invalidArgument("Query name conflict: \(name) has already been added.") }
        queries[name] = BundleNamedQuery(name: name, query: query, readTime: readTime)
        queryOrder.append(name)
        for doc in results {
            add(document: doc, path: doc.path, readTime: readTime)
            if !(documents[doc.path]?.queries.contains(name) ?? true) { documents[doc.path]!.queries.append(name) }
        }
        note(readTime)
    }

    private mutating func note(_ readTime: Timestamp) {
        if latestReadTime.map({ readTime > $0 }) ?? true { latestReadTime = readTime }
    }

    /// The bundle's bytes.
    public func build() -> [UInt8] {
        var body: [UInt8] = []
        func append(_ element: BundleElement) {
            let json = BundleJSON.json(element, database: database).bytes
            body.append(contentsOf: String(json.count).utf8)
            body.append(contentsOf: json)
        }
        for name in queryOrder { append(.namedQuery(queries[name]!)) }
        for path in documentOrder {
            let entry = documents[path]!
            append(.documentMetadata(BundledDocumentMetadata(path: path, readTime: entry.readTime, exists: entry.document != nil, queries: entry.queries)))
            if let doc = entry.document { append(.document(doc)) }
        }
        let metadata = BundleMetadata(id: id, createTime: latestReadTime ?? Timestamp(seconds: 0, nanos: 0),
                                      totalDocuments: documentOrder.count, totalBytes: body.count)
        let head = BundleJSON.json(.metadata(metadata), database: database).bytes
        return Array(String(head.count).utf8) + head + body
    }
}
