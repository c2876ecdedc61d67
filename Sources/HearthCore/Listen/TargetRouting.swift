/// Which registered targets a changed document can affect, found without looking at the
/// others: document targets by key; query targets by the collection ID of the document's
/// parent (collection and collection-group queries alike), and — when a query has a
/// top-level equality (`==`, `in`, `IS_NULL`) — by that field's value too, so a thousand
/// listeners with different equality filters on one collection cost nothing for a document
/// that matches none of them (a necessary condition: the view still checks the whole query).
struct TargetRouting: Sendable {
    /// How one target is found.
    enum Route: Sendable {
        case documents([DocumentKey])
        /// `field` set: only documents whose value of `field` encodes to one of `values`.
        case collection(id: String, field: FieldPath?, values: [[UInt8]])
    }

    private struct CollectionTargets: Sendable {
        var unkeyed: Set<Int> = []
        var byEquality: [FieldPath: [[UInt8]: Set<Int>]] = [:]

        var isEmpty: Bool { unkeyed.isEmpty && byEquality.isEmpty }
    }

    private var byDocument: [DocumentKey: Set<Int>] = [:]
    private var byCollection: [String: CollectionTargets] = [:]

    /// The route of a target: its documents, or its collection ID and first top-level
    /// equality filter.
    static func route(for view: QueryView) -> Route {
        switch view.scope {
        case .documents(let paths):
            return .documents(paths.map(DocumentKey.init))
        case .query(let q):
            for conjunct in NormalizedQuery.topLevelConjuncts(q.filter) {
                let values: [Value]
                switch conjunct {
                case .field(let f, .equal, let v) where !f.isDocumentName: values = [v]
                case .field(let f, .in, .array(let list)) where !f.isDocumentName: values = list
                case .unary(let f, .isNull) where !f.isDocumentName: values = [.null]
                default: continue
                }
                return .collection(id: q.query.collectionID, field: conjunct.field, values: values.map(encoded))
            }
            return .collection(id: q.query.collectionID, field: nil, values: [])
        }
    }

    /// Equal values (`1` and `1.0`, `-0.0` and `0.0`) encode identically.
    private static func encoded(_ value: Value) -> [UInt8] {
        var bytes: [UInt8] = []
        IndexKeyEncoding.encode(value, into: &bytes)
        return bytes
    }

    mutating func add(_ id: Int, _ route: Route) {
        switch route {
        case .documents(let keys):
            for key in keys { byDocument[key, default: []].insert(id) }
        case .collection(let collectionID, let field, let values):
            if let field {
                for v in values { byCollection[collectionID, default: .init()].byEquality[field, default: [:]][v, default: []].insert(id) }
            } else {
                byCollection[collectionID, default: .init()].unkeyed.insert(id)
            }
        }
    }

    mutating func remove(_ id: Int, _ route: Route) {
        switch route {
        case .documents(let keys):
            for key in keys {
                byDocument[key]?.remove(id)
                if byDocument[key]?.isEmpty == true { byDocument[key] = nil }
            }
        case .collection(let collectionID, let field, let values):
            guard var targets = byCollection[collectionID] else { return }
            if let field {
                for v in values {
                    targets.byEquality[field]?[v]?.remove(id)
                    if targets.byEquality[field]?[v]?.isEmpty == true { targets.byEquality[field]?[v] = nil }
                }
                if targets.byEquality[field]?.isEmpty == true { targets.byEquality[field] = nil }
            } else {
                targets.unkeyed.remove(id)
            }
            byCollection[collectionID] = targets.isEmpty ? nil : targets
        }
    }

    /// Calls `visit` with every target `entry` may affect (a target can be visited twice).
    func forEachCandidate(of entry: ChangeSet.Entry, _ visit: (Int) -> Void) {
        if let ids = byDocument[entry.key] { ids.forEach(visit) }
        let path = entry.key.path
        guard path.count >= 2, let targets = byCollection[path.segments[path.count - 2]] else { return }
        targets.unkeyed.forEach(visit)
        for (field, byValue) in targets.byEquality {
            var seen: [UInt8]? = nil
            for doc in [entry.before, entry.after] {
                guard let value = doc?.fields.value(at: field) else { continue }
                let key = Self.encoded(value)
                if key == seen { continue }
                seen = key
                byValue[key]?.forEach(visit)
            }
        }
    }
}
