/// An index over one collection group: its scope and its fields, in order. Automatic
/// single-field indexes and declared composite indexes are both described this way; every
/// index ends with `__name__` implicitly, in the direction of its last field.
public struct IndexDefinition: Sendable, Hashable, CustomStringConvertible {
    public enum Scope: String, Sendable, Hashable {
        /// Queries on one collection (`users/u1/posts`).
        case collection = "COLLECTION"
        /// Collection-group queries (every `posts` collection).
        case collectionGroup = "COLLECTION_GROUP"
    }

    public enum Kind: Sendable, Hashable {
        case ascending, descending
        /// `arrayConfig: CONTAINS`: one entry per distinct array element.
        case contains
        /// `vectorConfig` with its dimension (flat index).
        case vector(dimension: Int)
    }

    public struct Field: Sendable, Hashable, CustomStringConvertible {
        public var path: FieldPath
        public var kind: Kind

        public init(_ path: FieldPath, _ kind: Kind) {
            self.path = path
            self.kind = kind
        }

        public var description: String {
            switch kind {
            case .ascending: "\(path.dotted) ASC"
            case .descending: "\(path.dotted) DESC"
            case .contains: "\(path.dotted) CONTAINS"
            case .vector(let d): "\(path.dotted) VECTOR(\(d))"
            }
        }
    }

    /// The collection ID the index covers.
    public var collectionGroup: String
    public var scope: Scope
    /// The indexed fields, without the implicit trailing `__name__`.
    public var fields: [Field]

    public init(collectionGroup: String, scope: Scope = .collection, fields: [Field]) {
        self.collectionGroup = collectionGroup
        self.scope = scope
        self.fields = fields
    }

    /// Whether the trailing `__name__` runs descending (it follows the last ordered field).
    public var nameDescending: Bool { Self.nameDescending(after: fields) }

    /// Whether `__name__` runs descending after `fields` (the direction of the last ordered one).
    static func nameDescending(after fields: some BidirectionalCollection<Field>) -> Bool {
        fields.last(where: { $0.kind == .ascending || $0.kind == .descending })?.kind == .descending
    }

    public var description: String {
        "\(collectionGroup) [\(scope.rawValue)] (\(fields.map(\.description).joined(separator: ", ")))"
    }
}
