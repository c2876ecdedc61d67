/// A document held by a view, with the values of the view's order-by fields extracted once
/// (so keeping the view sorted does not look fields up again at every comparison).
public struct ViewEntry: Sendable {
    /// One value per ordering of the view's `ViewOrder` (`.null` in `__name__` slots).
    let sortValues: [Value]
    public let document: Document

    public var path: ResourcePath { document.path }
}

/// The total order of a view: a query's normalised order (explicit order-bys, inequality
/// fields, `__name__`), or name order for a documents target. Matches
/// `QueryExecutor.compareInOrder` for documents that match the query.
struct ViewOrder: Sendable {
    let orderings: [Ordering]

    init(_ orderings: [Ordering]) {
        self.orderings = orderings
    }

    static let byName = ViewOrder([Ordering(.documentName)])

    /// `document` (already projected, when the query selects fields) keyed by `source`'s
    /// values, which still hold every ordered field.
    func entry(_ source: Document, document: Document? = nil) -> ViewEntry {
        ViewEntry(sortValues: orderings.map { o in
            o.field.isDocumentName ? .null : source.fields.value(at: o.field) ?? .null
        }, document: document ?? source)
    }

    func compare(_ a: ViewEntry, _ b: ViewEntry) -> Int {
        for (i, ordering) in orderings.enumerated() {
            var c = ordering.field.isDocumentName
                ? ResourcePath.compare(a.document.path, b.document.path)
                : Value.compare(a.sortValues[i], b.sortValues[i])
            if ordering.descending { c = -c }
            if c != 0 { return c }
        }
        return 0
    }
}
