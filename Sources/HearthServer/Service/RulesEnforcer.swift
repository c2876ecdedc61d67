import Foundation
import HearthCore
import HearthRules

/// The security rules checks of one REST request, as the official emulator makes them and
/// as the embedded API's `AccessControl` does: `Bearer owner` bypasses the rules, a project
/// without rules allows everything, otherwise every read is an `allow get`, every query or
/// listing is proved as a `list` (rules are not filters) and every commit is authorized
/// write by write inside `Database.commit(_:transaction:authorize:)`, with `getAfter()`
/// seeing the commit's result. Every evaluation feeds the project's coverage counts, and
/// while the request log is observed every verdict goes to the request's trace.
struct RulesEnforcer {
    let database: DatabaseID
    let clock: EmulatorClock
    let log: RequestLog
    /// nil: nothing is checked (owner, or no rules for the project).
    private let checks: RulesChecks?
    /// `request.time` of the reads and queries this request makes: one reading of the clock
    /// when the request is checked (every document of a batchGet sees the same time, as on
    /// the official emulator), none when nothing is.
    private let requestTime: Timestamp?

    /// Throws the compile failure when the project's stored rules do not compile (the
    /// official emulator then answers every request of the project, the owner's too, with it).
    /// `oneRequest`: the enforcer serves one request (its reads share one `request.time`);
    /// false for a Listen stream's, which checks targets added over the stream's life.
    init(state: EmulatorState, database: DatabaseID, auth: AuthContext, oneRequest: Bool = true) throws(FirestoreError) {
        self.database = database
        self.clock = state.clock
        self.log = state.requestLog
        let rules = state.rules.rules(for: database)
        if let failure = rules?.compileFailure { throw failure }
        if auth.isAdmin { checks = nil; requestTime = nil; return }
        checks = rules?.program.map { RulesChecks(program: $0, auth: auth.rulesAuth, database: database, coverage: rules?.coverage) }
        requestTime = checks == nil || !oneRequest ? nil : state.clock.now()
    }

    /// `debug()` output goes to `HearthLog` (standard output by default, as the official
    /// emulator prints it): each value in protobuf text format, then an empty line, one
    /// message per decision.
    private static func printDebugOutput(_ decision: RulesDecision) {
        guard !decision.debugOutput.isEmpty else { return }
        HearthLog.rulesDebug(decision.debugOutput.map { $0 + "\n\n" }.joined())
    }

    /// Whether requests are checked at all.
    var isEnforcing: Bool { checks != nil }

    /// `allow get` for reading the document at `path`, with `state` as the data the rules
    /// see (`resource`, `get()`); `readTime` reads a past version of it.
    func checkGet(_ path: ResourcePath, in state: DatabaseState, readTime: Timestamp? = nil) throws(FirestoreError) {
        guard let checks else { return }
        try checks.checkGet(path, in: state, readTime: readTime, time: requestTime ?? clock.now(), observe: observer)
    }

    /// `allow list` for a query (also an aggregation's query, or a listing).
    func checkQuery(_ query: StructuredQuery, in state: DatabaseState) throws(FirestoreError) {
        guard let checks else { return }
        try checks.checkQuery(query, in: state, time: requestTime ?? clock.now(), observe: observer)
    }

    /// The commit-time check (nil when nothing is checked).
    func commitAuthorizer() -> Database.CommitAuthorizer? {
        guard let checks else { return nil }
        return checks.commitAuthorizer(observe: observer)
    }

    /// Prints each verdict's `debug()` output, and hands the verdict to the request's
    /// trace when the request is traced.
    private var observer: RulesChecks.Observer? {
        guard let trace = RequestTrace.current(ifObserving: log) else { return { Self.printDebugOutput($0) } }
        return {
            Self.printDebugOutput($0)
            trace.decided($0)
        }
    }
}
