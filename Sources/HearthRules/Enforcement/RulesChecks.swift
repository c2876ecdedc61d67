import HearthCore

/// The checks every front end (the embedded API's user views, the emulator's REST and gRPC
/// requests) makes for one caller on one database: a document read is an `allow get`, a
/// query or listing is proved as a `list` from its constraints (rules are not filters), and
/// a commit is authorized write by write inside `Database.commit(_:transaction:authorize:)`,
/// with `getAfter()` seeing the commit's result. A denial throws PERMISSION_DENIED with the
/// decision's message; with `coverage`, every evaluation is counted. `observe`, when given,
/// sees every decision, allowed or not (the emulator's request log shows them).
public struct RulesChecks: Sendable {
    /// Sees each decision as it is reached.
    public typealias Observer = @Sendable (RulesDecision) -> Void

    public let program: RulesProgram
    /// nil: signed out.
    public let auth: RulesAuth?
    public let database: DatabaseID
    public let coverage: RulesCoverage?

    public init(program: RulesProgram, auth: RulesAuth?, database: DatabaseID, coverage: RulesCoverage? = nil) {
        self.program = program
        self.auth = auth
        self.database = database
        self.coverage = coverage
    }

    /// `allow get` for the document at `path`, with `state` (as of `readTime`, if given) as
    /// the data the rules see.
    public func checkGet(_ path: ResourcePath, in state: DatabaseState, readTime: Timestamp? = nil, time: Timestamp,
                         observe: Observer? = nil) throws(FirestoreError) {
        let decision = program.evaluate(
            RulesRequest(method: .get, path: path, database: database.database, auth: auth, time: time),
            data: DatabaseStateDataSource(state: state, readTime: readTime), coverage: coverage)
        observe?(decision)
        if !decision.allowed { throw FirestoreError(.permissionDenied, decision.denialMessage) }
    }

    /// `allow list` for a query (also an aggregation's query, or a listing).
    public func checkQuery(_ query: StructuredQuery, in state: DatabaseState, time: Timestamp,
                           observe: Observer? = nil) throws(FirestoreError) {
        let decision = program.allowsQuery(query, in: database, auth: auth, time: time,
                                           data: DatabaseStateDataSource(state: state), coverage: coverage)
        observe?(decision)
        if !decision.allowed { throw FirestoreError(.permissionDenied, decision.denialMessage) }
    }

    /// Create / update / delete rules for every written document of a commit (verify-only
    /// writes are left out by the engine); one denial refuses the whole commit.
    public func commitAuthorizer(observe: Observer? = nil) -> Database.CommitAuthorizer {
        let checks = self
        return { (before: DatabaseState, time: Timestamp, after: [(path: ResourcePath, document: Document?)]) throws(FirestoreError) in
            let writes = after.map { RulesWrite(path: $0.path, newData: $0.document?.fields) }
            let decision = checks.program.evaluateBatch(writes, database: checks.database.database, auth: checks.auth, time: time,
                                                        data: DatabaseStateDataSource(state: before), coverage: checks.coverage)
            if let observe { for d in decision.decisions { observe(d) } }
            if let denial = decision.firstDenial { throw FirestoreError(.permissionDenied, denial.denialMessage) }
        }
    }
}

/// The rules engine reads documents (`get()`, `exists()`, `resource`) from one state of
/// one database, optionally as of a retained read time.
public struct DatabaseStateDataSource: RulesDataSource {
    public let state: DatabaseState
    public let readTime: Timestamp?

    public init(state: DatabaseState, readTime: Timestamp? = nil) {
        self.state = state
        self.readTime = readTime
    }

    public func document(at path: ResourcePath, database: String) -> Document? {
        guard database == state.database.database, path.isDocument else { return nil }
        if let readTime { return state.document(path, at: readTime) }
        return state.document(path)
    }
}
