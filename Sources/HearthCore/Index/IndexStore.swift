/// The indexes a database state has materialised: for each index definition, a persistent
/// sorted set of entry keys (`[collection path] + field encodings + document path`) mapping
/// to the document they index. Part of `DatabaseState`, so it is shared, snapshotted and
/// restored with the documents in O(1).
///
/// An index is materialised the first time a query needs it (one pass over the collection
/// group) and from then on maintained incrementally by every commit, so collections that
/// are never queried on a field pay nothing for it.
struct IndexStore: Sendable {
    typealias Entries = PersistentSortedMap<IndexKey, DocumentKey>

    private(set) var indexes: [IndexDefinition: Entries] = [:]
    /// The materialised definitions per collection ID, for commit-time maintenance.
    private(set) var byGroup: [String: [IndexDefinition]] = [:]

    func entries(_ definition: IndexDefinition) -> Entries? { indexes[definition] }

    /// Builds `definition` from every document of its collection group in `documents`.
    mutating func materialize(_ definition: IndexDefinition, from documents: PersistentSortedMap<DocumentKey, DocumentVersion>) {
        guard indexes[definition] == nil else { return }
        var entries = Entries()
        for (key, version) in documents {
            guard let doc = version.document, utf8Equal(key.path.segments[key.path.count - 2], definition.collectionGroup) else { continue }
            for entry in Self.entryKeys(for: doc, in: definition) { entries.updateValue(key, forKey: entry) }
        }
        indexes[definition] = entries
        byGroup[definition.collectionGroup, default: []].append(definition)
    }

    /// Keeps every materialised index of the document's collection group in step with one
    /// document change.
    mutating func update(_ key: DocumentKey, from before: Document?, to after: Document?) {
        guard !byGroup.isEmpty, let definitions = byGroup[key.path.segments[key.path.count - 2]] else { return }
        for definition in definitions {
            let old = before.map { Self.entryKeys(for: $0, in: definition) } ?? []
            let new = after.map { Self.entryKeys(for: $0, in: definition) } ?? []
            if old == new { continue }
            for entry in old where !new.contains(entry) { indexes[definition]!.removeValue(forKey: entry) }
            for entry in new where !old.contains(entry) { indexes[definition]!.updateValue(key, forKey: entry) }
        }
    }

    /// The entry keys of `document` in `definition`: none when it lacks an indexed field
    /// (or a CONTAINS field is not an array), one per distinct element for a CONTAINS field.
    static func entryKeys(for document: Document, in definition: IndexDefinition) -> [IndexKey] {
        var prefixes: [[UInt8]] = [[]]
        if definition.scope == .collection { IndexKeyEncoding.encodePath(document.path.parent, into: &prefixes[0]) }
        for field in definition.fields {
            guard let value = document.fields.value(at: field.path) else { return [] }
            switch field.kind {
            case .ascending, .descending:
                for i in prefixes.indices { IndexKeyEncoding.encode(value, descending: field.kind == .descending, into: &prefixes[i]) }
            case .contains:
                guard case .array(let elements) = value else { return [] }
                var encoded: [[UInt8]] = []
                for e in elements {
                    var bytes: [UInt8] = []
                    IndexKeyEncoding.encode(e, into: &bytes)
                    if !encoded.contains(bytes) { encoded.append(bytes) }
                }
                prefixes = prefixes.flatMap { p in encoded.map { p + $0 } }
            case .vector:
                guard case .vector = value else { return [] }
                for i in prefixes.indices { IndexKeyEncoding.encode(value, into: &prefixes[i]) }
            }
        }
        var name: [UInt8] = []
        IndexKeyEncoding.encodePath(document.path, into: &name)
        if definition.nameDescending { IndexKeyEncoding.invert(&name, from: 0) }
        return prefixes.map { IndexKey($0 + name) }
    }
}
