// Rules engine figures: evaluating a typical owner check with one get() (target
// < 5 µs) and compiling a 500-line rules file (target < 10 ms). Run with
// `swift run -c release hearth-bench --rules`.
import Foundation
import HearthCore
import HearthRules

enum RulesBenchmark {
    static let ownerRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            function signedIn() { return request.auth != null; }
            match /projects/{project}/tasks/{task} {
              allow read: if signedIn()
                && get(/databases/$(database)/documents/projects/$(project)).data.owner == request.auth.uid;
              allow write: if false;
            }
          }
        }
        """

    /// A realistic 500-line ruleset: helper functions and validated collections.
    static func largeRules(lines target: Int = 500) -> String {
        var lines = ["rules_version = '2';", "service cloud.firestore {", "  match /databases/{database}/documents {",
                     "    function signedIn() { return request.auth != null; }",
                     "    function isOwner(uid) { return signedIn() && request.auth.uid == uid; }"]
        var i = 0
        while lines.count < target - 3 {
            lines += [
                "    function valid\(i)(d) {",
                "      let keys = d.keys();",
                "      return keys.hasOnly(['title', 'owner', 'tags', 'count', 'at'])",
                "        && d.title is string && d.title.size() <= 100",
                "        && (!('tags' in d) || (d.tags is list && d.tags.size() <= 10))",
                "        && (!('count' in d) || d.count is int && d.count >= 0);",
                "    }",
                "    match /coll\(i)/{doc} {",
                "      allow get: if isOwner(resource.data.owner) || resource.data.public == true;",
                "      allow list: if request.query.limit <= 50 && resource.data.owner == request.auth.uid;",
                "      allow create: if isOwner(request.resource.data.owner) && valid\(i)(request.resource.data)",
                "        && request.resource.data.at == request.time;",
                "      allow update: if isOwner(resource.data.owner) && valid\(i)(request.resource.data)",
                "        && request.resource.data.diff(resource.data).affectedKeys().hasOnly(['title', 'tags', 'count']);",
                "      allow delete: if isOwner(resource.data.owner)",
                "        || get(/databases/$(database)/documents/admins/$(request.auth.uid)).data.role == 'admin';",
                "    }",
            ]
            i += 1
        }
        return (lines + ["  }", "}", ""]).joined(separator: "\n")
    }

    static func measure(_ iterations: Int, _ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Returns (workload, per-operation microseconds) pairs after checking the verdicts.
    static func run() throws -> [(String, Double)] {
        let program = try RulesProgram.compile(source: ownerRules)
        let projects = try ResourcePath.parse("projects/p1")
        let data = RulesDocumentStore([projects: MapValue([("owner", .string("alice")), ("name", .string("Apollo"))])])
        let request = RulesRequest(method: .get, path: try ResourcePath.parse("projects/p1/tasks/t1"),
                                   auth: .mockUser(uid: "alice"), time: Timestamp(seconds: 1_700_000_000, nanos: 0))
        guard program.evaluate(request, data: data).allowed else { throw RulesBenchmarkError.wrongVerdict }
        var denied = request
        denied.auth = .mockUser(uid: "bob")
        guard !program.evaluate(denied, data: data).allowed else { throw RulesBenchmarkError.wrongVerdict }

        let evalIterations = 200_000
        _ = measure(10_000) { _ = program.evaluate(request, data: data) }  // warm-up
        let evalSeconds = measure(evalIterations) { _ = program.evaluate(request, data: data) }

        let source = largeRules()
        let lineCount = source.split(separator: "\n", omittingEmptySubsequences: false).count
        _ = try RulesProgram.compile(source: source)
        let compileIterations = 50
        let compileSeconds = measure(compileIterations) { _ = try? RulesProgram.compile(source: source) }
        return [("rules_eval_owner_get", evalSeconds / Double(evalIterations) * 1e6),
                ("rules_compile_\(lineCount)_lines", compileSeconds / Double(compileIterations) * 1e6)]
    }

    static func printResults() {
        do {
            for (name, micros) in try run() {
                print(String(format: "%-28@ %10.2f µs/op", name as NSString, micros))
            }
        } catch {
            FileHandle.standardError.write("rules benchmark failed: \(error)\n".data(using: .utf8)!)
            exit(1)
        }
    }
}

enum RulesBenchmarkError: Error { case wrongVerdict }
