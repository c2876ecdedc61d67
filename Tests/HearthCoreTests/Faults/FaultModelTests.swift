import HearthCore
import Testing

/// The fault model (HearthCore/Faults): the two written forms read into the same rule, bad
/// rules refused with what is wrong, schedules (times, always, a seeded probability) and
/// which requests a rule covers.
@Suite struct FaultModelTests {
    @Test func compactAndJSONFormsReadTheSameRule() throws {
        let compact = try FaultRule.parse(spec: "method=commit, error=UNAVAILABLE, message=later, times=2, path=users/alice, database=(default)")
        let json = try FaultRule.parse(json: try JSON.parse(#"{"method":"Commit","error":"UNAVAILABLE","message":"later","times":2,"path":"users/alice","database":"(default)"}"#))
        #expect(compact == json)
        #expect(compact.method == .commit && compact.schedule == .times(2))
        #expect(compact.effect == .error(.unavailable, message: "later"))
        #expect(compact.pathPrefix == ResourcePath(segments: ["users", "alice"]))
        // What GET lists reads back as the same rule.
        #expect(try FaultRule.parse(json: .object(compact.json)) == compact)
        #expect(try FaultRule.parse(spec: "method=Listen,dropAfter=3,probability=0.25,seed=9").schedule == .probability(0.25, seed: 9))
        #expect(try FaultRule.parse(spec: "delay=50").effect == nil)
        #expect(try FaultRule.parse(spec: "reset,once").effect == .resetConnection)
    }

    @Test func badRulesAreRefusedNamingTheProblem() {
        func problem(_ spec: String) -> String {
            do { _ = try FaultRule.parse(spec: spec); return "" } catch { return error.message }
        }
        #expect(problem("method=Commit").contains("needs an effect"))
        #expect(problem("method=Commit,dropAfter=1").contains("Listen or Write"))
        #expect(problem("error=NOT_FOUND").contains("must be one of"))
        #expect(problem("method=Foo,reset").contains("unknown method 'Foo'"))
        #expect(problem("reset,dropAnswer").contains("at most one"))
        #expect(problem("reset,times=0").contains("at least 1"))
        #expect(problem("reset,probability=2").contains("between 0 and 1"))
        #expect(problem("reset,once,always").contains("one of once"))
        #expect(problem("reset,colour=red").contains("unknown key 'colour'"))
        #expect(problem("delay=-1").contains("between 0"))
        // Every refusal names the rule it is about, the model's checks included.
        #expect(problem("reset,times=0").hasPrefix("In the fault spec 'reset,times=0': times must"))
    }

    @Test func timesRulesAreUsedUpAndDisarm() throws {
        let faults = FaultInjector()
        #expect(!faults.isArmed)
        try faults.add(FaultRule(method: .commit, effect: .resetConnection, schedule: .times(2)))
        #expect(faults.isArmed)
        #expect(faults.hit(project: "p", database: "(default)", method: .runQuery, paths: []) == nil)
        #expect(faults.hit(project: "p", database: "(default)", method: .commit, paths: []) != nil)
        #expect(faults.list().first?.remaining == 1)
        #expect(faults.hit(project: "p", database: "(default)", method: .commit, paths: []) != nil)
        #expect(faults.hit(project: "p", database: "(default)", method: .commit, paths: []) == nil)
        #expect(!faults.isArmed && faults.list().isEmpty)
    }

    @Test func aSeededProbabilityRepeatsItsDraws() throws {
        func run(seed: UInt64) throws -> [Bool] {
            let faults = FaultInjector()
            try faults.add(FaultRule(effect: .error(.unavailable, message: "x"), schedule: .probability(0.5, seed: seed)))
            return (0..<64).map { _ in faults.hit(project: nil, database: nil, method: .getDocument, paths: []) != nil }
        }
        let a = try run(seed: 42)
        #expect(a == (try run(seed: 42)))
        #expect(a != (try run(seed: 43)))
        #expect(a.filter { $0 }.count > 16 && a.filter { $0 }.count < 48)
    }

    @Test func pathPrefixesMatchWholeSegmentsAndScopesFilter() throws {
        let rule = FaultRule(project: "p", database: "db", method: .commit, pathPrefix: ResourcePath(segments: ["users"]), effect: .dropAnswer)
        let faults = FaultInjector()
        try faults.add(rule)
        let users = ResourcePath(segments: ["users", "a"]), others = ResourcePath(segments: ["usersX", "a"])
        #expect(faults.hit(project: "p", database: "db", method: .commit, paths: [others]) == nil)
        #expect(faults.hit(project: "q", database: "db", method: .commit, paths: [users]) == nil)
        #expect(faults.hit(project: "p", database: "(default)", method: .commit, paths: [users]) == nil)
        #expect(faults.hit(project: "p", database: "db", method: .commit, paths: []) == nil)
        #expect(faults.hit(project: "p", database: "db", method: .commit, paths: [others, users]) == rule)
    }

    @Test func beforeAppliesDelayErrorAndResetAndLeavesTheRest() throws {
        let faults = FaultInjector()
        try faults.add(FaultRule(method: .getDocument, delayMilliseconds: 100, effect: .error(.aborted, message: "again"), schedule: .once))
        let start = ContinuousClock.now
        #expect(throws: FirestoreError(.aborted, "again")) { try faults.before(project: nil, database: nil, method: .getDocument, paths: []) }
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        try faults.add(FaultRule(effect: .resetConnection, schedule: .once))
        do { _ = try faults.before(project: nil, database: nil, method: .commit, paths: []); Issue.record("no reset") } catch {
            #expect(error.closesConnection && error.code == .unavailable)
        }
        try faults.add(FaultRule(effect: .dropAnswer, schedule: .once))
        #expect(try faults.before(project: nil, database: nil, method: .commit, paths: []) == .dropAnswer)
        #expect(try faults.before(project: nil, database: nil, method: .commit, paths: []) == nil)
    }
}
