import HearthCore
import HearthRules
import HearthLock

/// The security rules of one database, shared by every `Firestore` view of it (the admin
/// instance and its `authenticated` / `unauthenticated` views).
final class SecurityRules: Sendable {
    private let program = HearthMutex<RulesProgram?>(nil)

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

    /// The checks for `database`, or nil when nothing is checked.
    private func checks(for database: Database) -> RulesChecks? {
        guard case .user(let auth) = principal, let program = rules.current else { return nil }
        return RulesChecks(program: program, auth: auth, database: database.id)
    }

    /// `allow get` for a document read.
    func checkGet(_ path: ResourcePath, in database: Database) throws(FirestoreError) {
        try checks(for: database)?.checkGet(path, in: database.state(), time: database.clock.now())
    }

    /// `allow list` for a query, proved from its constraints (rules are not filters).
    func checkQuery(_ query: StructuredQuery, in database: Database) throws(FirestoreError) {
        try checks(for: database)?.checkQuery(query, in: database.state(), time: database.clock.now())
    }

    /// The commit-time check: create / update / delete rules for every written document,
    /// with `getAfter()` seeing the commit's result; one denial refuses the whole commit.
    func commitAuthorizer(for database: Database) -> Database.CommitAuthorizer? {
        checks(for: database)?.commitAuthorizer()
    }
}
