import HearthCore
@testable import HearthRules

/// Wraps one condition as `match /t/{id} { allow get: if CONDITION; }` and returns what the
/// allow evaluated to for `get t/x` by a signed-in alice (data: `docs`).
func outcome(_ condition: String, docs: [String: MapValue] = [:], auth: RulesAuth? = .mockUser(uid: "alice"),
             version: String = "2") throws -> AllowOutcome.Result {
    let source = """
        rules_version = '\(version)';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /t/{id} { allow get: if \(condition); }
          }
        }
        """
    let program = try RulesProgram.compile(source: source)
    let decision = program.evaluate(RulesRequest(method: .get, path: try ResourcePath.parse("t/x"), auth: auth, time: testTime),
                                    data: store(docs))
    return decision.outcomes.first?.result ?? .notGranted
}

/// True when `condition` evaluates to exactly `true`.
func holds(_ condition: String, docs: [String: MapValue] = [:]) -> Bool {
    (try? outcome(condition, docs: docs)) == .granted
}

/// True when evaluating `condition` is an error (not just false).
func errors(_ condition: String, docs: [String: MapValue] = [:]) -> Bool {
    if case .error? = try? outcome(condition, docs: docs) { return true }
    return false
}

/// 2024-05-06T07:08:09Z
let testTime = Timestamp(seconds: 1_714_979_289, nanos: 0)

func store(_ docs: [String: MapValue], database: String = "(default)") -> RulesDocumentStore {
    var out: [ResourcePath: MapValue] = [:]
    for (k, v) in docs { out[try! ResourcePath.parse(k)] = v }
    return RulesDocumentStore(out, database: database)
}

func fields(_ pairs: (String, Value)...) -> MapValue { MapValue(pairs) }

func path(_ s: String) -> ResourcePath { try! ResourcePath.parse(s) }

/// Compiles a full ruleset (tests that need several match blocks).
func program(_ body: String, version: String = "2") throws -> RulesProgram {
    try RulesProgram.compile(source: """
        rules_version = '\(version)';
        service cloud.firestore {
          match /databases/{database}/documents {
        \(body)
          }
        }
        """)
}
