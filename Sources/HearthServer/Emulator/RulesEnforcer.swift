import HearthCore
import HearthRules

/// The security rules checks of one REST request, as the official emulator makes them and
/// as the embedded API's `AccessControl` does: `Bearer owner` bypasses the rules, a project
/// without rules allows everything, otherwise every read is an `allow get`, every query or
/// listing is proved as a `list` (rules are not filters) and every commit is authorized
/// write by write inside `Database.commit(_:transaction:authorize:)`, with `getAfter()`
/// seeing the commit's result. Every evaluation feeds the project's coverage counts.
struct RulesEnforcer {
    let database: DatabaseID
    let clock: EmulatorClock
    /// nil: nothing is checked (owner, or no rules for the project).
    private let program: RulesProgram?
    private let coverage: RulesCoverage?
    private let auth: RulesAuth?

    /// Throws the compile failure when the project's stored rules do not compile (the
    /// official emulator then answers every request of the project, the owner's too, with it).
    init(state: EmulatorState, database: DatabaseID, auth: AuthContext) throws(FirestoreError) {
        self.database = database
        self.clock = state.clock
        let rules = state.rules.rules(forProject: database.project)
        if let failure = rules?.compileFailure { throw failure }
        if auth.isAdmin || rules == nil {
            program = nil
            coverage = nil
        } else {
            program = rules?.program
            coverage = rules?.coverage
        }
        self.auth = auth.rulesAuth
    }

    /// Whether requests are checked at all.
    var isEnforcing: Bool { program != nil }

    /// `allow get` for reading the document at `path`, with `state` as the data the rules
    /// see (`resource`, `get()`); `readTime` reads a past version of it.
    func checkGet(_ path: ResourcePath, in state: DatabaseState, readTime: Timestamp? = nil) throws(FirestoreError) {
        guard let program else { return }
        let decision = program.evaluate(
            RulesRequest(method: .get, path: path, database: database.database, auth: auth, time: clock.now()),
            data: StateDataSource(state: state, readTime: readTime), coverage: coverage)
        if !decision.allowed { throw FirestoreError(.permissionDenied, decision.denialMessage) }
    }

    /// `allow list` for a query (also an aggregation's query, or a listing), proved from its
    /// constraints.
    func checkQuery(_ query: StructuredQuery, in state: DatabaseState) throws(FirestoreError) {
        guard let program else { return }
        let decision = program.allowsQuery(query, database: database.database, auth: auth, time: clock.now(),
                                           data: StateDataSource(state: state, readTime: nil), coverage: coverage)
        if !decision.allowed { throw FirestoreError(.permissionDenied, decision.denialMessage) }
    }

    /// The commit-time check: create / update / delete rules for every written document
    /// (verify-only writes are left out by the engine); one denial refuses the whole commit.
    func commitAuthorizer() -> Database.CommitAuthorizer? {
        guard let program else { return nil }
        let (name, auth, coverage) = (database.database, auth, coverage)
        return { (before: DatabaseState, time: Timestamp, after: [(path: ResourcePath, document: Document?)]) throws(FirestoreError) in
            let writes = after.map { RulesWrite(path: $0.path, newData: $0.document?.fields) }
            let decision = program.evaluateBatch(writes, database: name, auth: auth, time: time,
                                                 data: StateDataSource(state: before, readTime: nil), coverage: coverage)
            if let denial = decision.firstDenial { throw FirestoreError(.permissionDenied, denial.denialMessage) }
        }
    }
}

/// The rules engine reads documents (`get()`, `exists()`, `resource`) from one state of
/// one database, optionally as of a read time.
private struct StateDataSource: RulesDataSource {
    let state: DatabaseState
    let readTime: Timestamp?

    func document(at path: ResourcePath, database: String) -> Document? {
        guard database == state.database.database, path.isDocument else { return nil }
        if let readTime { return state.document(path, at: readTime) }
        return state.document(path)
    }
}
