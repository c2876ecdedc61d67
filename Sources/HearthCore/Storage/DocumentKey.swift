/// The storage order of documents: by parent collection path, then by document ID (§2 ID
/// order). Each collection's documents are therefore contiguous and in `__name__` order.
public struct DocumentKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let collection: ResourcePath
    public let id: String

    public init(collection: ResourcePath, id: String) {
        self.collection = collection
        self.id = id
    }

    /// `path` must be a document path.
    public init(_ path: ResourcePath) {
        collection = path.parent
        id = path.lastSegment
    }

    public var path: ResourcePath { collection.appending(id) }
    public var description: String { path.description }

    /// The smallest possible document ID, the start of any collection's range.
    static let minimumID = "__id-9223372036854775808__"

    /// The first key of `collection`'s range.
    public static func start(of collection: ResourcePath) -> DocumentKey {
        DocumentKey(collection: collection, id: minimumID)
    }

    public static func < (a: DocumentKey, b: DocumentKey) -> Bool {
        let c = ResourcePath.compare(a.collection, b.collection)
        if c != 0 { return c < 0 }
        return ResourcePath.compareSegments(a.id, b.id) < 0
    }

    public static func == (a: DocumentKey, b: DocumentKey) -> Bool {
        utf8Equal(a.id, b.id) && a.collection == b.collection
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(collection)
        hashUTF8(id, into: &hasher)
    }
}
