/// What the engine does when a query needs an index that production would not have
/// (docs/semantics.md#index-requirements). Hearth itself can serve every query; the mode only decides whether the
/// missing index is reported, so tests catch queries that would fail once deployed.
public enum IndexMode: Sendable, Hashable {
    /// Fail the query with FAILED_PRECONDITION, production's "The query requires an index…"
    /// message and console link, followed by the JSON of the index to declare.
    case enforce
    /// Run the query, and log the missing index once (the first time it is needed).
    case warn
    /// No index analysis at all (the official emulator's behaviour).
    case off
    /// Run the query and record the missing index, so the configuration a test suite needs
    /// can be collected and written as `firestore.indexes.json`.
    case learn
}
