import HearthCore
import HearthRules
import Synchronization

/// The security rules of one database, shared by every `Firestore` view of it (the admin
/// instance and its `authenticated` / `unauthenticated` views).
final class SecurityRules: Sendable {
    private let program = Mutex<RulesProgram?>(nil)

    var current: RulesProgram? { program.withLock { $0 } }

    func set(_ newProgram: RulesProgram) { program.withLock { $0 = newProgram } }
}

/// Who a `Firestore` instance acts as, and the checks that follows from it: the admin
/// (what `inMemory()` and `firestore()` return, like the server SDKs) bypasses the rules;
/// a user view — signed in or out — is checked on every read, query, listener and commit.
/// With no rules set, everything is allowed (as on the official emulator without rules).
struct AccessControl: Sendable {
    enum Principal: Sendable {
        case admin
        /// nil: signed out (`request.auth == null`).
        case user(RulesAuth?)
    }

    let rules: SecurityRules
    let principal: Principal

    static func admin() -> AccessControl { AccessControl(rules: SecurityRules(), principal: .admin) }

    func viewing(as principal: Principal) -> AccessControl { AccessControl(rules: rules, principal: principal) }

    /// For a forked database: the same principal and rules, but rules of its own from now on.
    func forked() -> AccessControl {
        let copy = SecurityRules()
        if let program = rules.current { copy.set(program) }
        return AccessControl(rules: copy, principal: principal)
    }

    /// The rules to apply and the caller's identity, or nil when nothing is checked.
    private var enforced: (program: RulesProgram, auth: RulesAuth?)? {
        guard case .user(let auth) = principal, let program = rules.current else { return nil }
        return (program, auth)
    }

    /// `allow get` for a document read.
    func checkGet(_ path: ResourcePath, in database: Database) throws(FirestoreError) {
        guard let (program, auth) = enforced else { return }
        let state = database.state()
        let decision = program.evaluate(
            RulesRequest(method: .get, path: path, database: database.id.database, auth: auth, time: database.clock.now()),
            data: StateDataSource(state: state))
        if !decision.allowed { throw FirestoreError(.permissionDenied, decision.denialMessage) }
    }

    /// `allow list` for a query, proved from its constraints (rules are not filters).
    func checkQuery(_ query: StructuredQuery, in database: Database) throws(FirestoreError) {
        guard let (program, auth) = enforced else { return }
        let decision = program.allowsQuery(query, database: database.id.database, auth: auth, time: database.clock.now(),
                                           data: StateDataSource(state: database.state()))
        if !decision.allowed { throw FirestoreError(.permissionDenied, decision.denialMessage) }
    }

    /// The commit-time check: create / update / delete rules for every written document,
    /// with `getAfter()` seeing the commit's result; one denial refuses the whole commit.
    func commitAuthorizer(for database: Database) -> Database.CommitAuthorizer? {
        guard let (program, auth) = enforced else { return nil }
        let name = database.id.database
        return { (before: DatabaseState, time: HearthCore.Timestamp, after: [(path: ResourcePath, document: HearthCore.Document?)]) throws(FirestoreError) in
            let writes = after.map { RulesWrite(path: $0.path, newData: $0.document?.fields) }
            let decision = program.evaluateBatch(writes, database: name, auth: auth, time: time, data: StateDataSource(state: before))
            if let denial = decision.firstDenial { throw FirestoreError(.permissionDenied, denial.denialMessage) }
        }
    }
}

/// The rules engine reads documents (`get()`, `exists()`, `resource`) from one state.
private struct StateDataSource: RulesDataSource {
    let state: DatabaseState

    func document(at path: ResourcePath, database: String) -> Document? {
        guard database == state.database.database, path.isDocument else { return nil }
        return state.document(path)
    }
}
