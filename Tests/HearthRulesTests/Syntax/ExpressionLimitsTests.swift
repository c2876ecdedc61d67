import Foundation
import HearthCore
import Testing
@testable import HearthRules

/// Expressions as deep as production accepts, the compile errors past that, and long
/// chains that must neither crash nor hang. Positions and texts were probed on the official
/// emulator (1.19.9): the condition starts at column 18 of line 3 in every case here.
@Suite struct ExpressionLimitsTests {
    private func source(_ condition: String) -> String {
        "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents { match /c/{id} {\n  allow read: if "
            + condition + ";\n}}}\n"
    }

    /// Each compile error as "line:column message".
    private func errors(_ condition: String) -> [String] {
        RulesProgram.diagnose(source: source(condition)).filter { $0.severity == .error }
            .map { "\($0.location.line):\($0.location.column) \($0.message)" }
    }

    private let tooComplex = "Expression is too complex to evaluate safely."

    @Test func ninetyEightLevelsCompileAndTheNinetyNinthIsAnError() {
        let chain = { (n: Int) in Array(repeating: "true", count: n).joined(separator: " && ") }
        #expect(errors(chain(99)).isEmpty)
        // The left-deep tree's bottom node and the next operand sit on level 99.
        #expect(errors(chain(100)) == ["3:18 \(tooComplex)", "3:26 \(tooComplex)"])
        #expect(errors(chain(1000)) == ["3:18 \(tooComplex)", "3:7226 \(tooComplex)"])
        let sum = { (n: Int) in Array(repeating: "1", count: n).joined(separator: " + ") + " > 0" }
        #expect(errors(sum(98)).isEmpty)
        #expect(errors(sum(99)) == ["3:18 \(tooComplex)", "3:22 \(tooComplex)"])
    }

    @Test func parenthesesUnaryListsMapsAndCallsEachCountALevel() {
        let parens = { (n: Int) in String(repeating: "(", count: n) + "true" + String(repeating: ")", count: n) }
        #expect(errors(parens(98)).isEmpty)
        #expect(errors(parens(99)) == ["3:117 \(tooComplex)"])
        #expect(errors(parens(400)) == ["3:117 \(tooComplex)"])
        #expect(errors(String(repeating: "!", count: 98) + "true").isEmpty)
        #expect(errors(String(repeating: "!", count: 99) + "true") == ["3:117 \(tooComplex)"])
        #expect(errors(String(repeating: "[", count: 99) + String(repeating: "]", count: 99) + " != null") == ["3:116 \(tooComplex)"])
        #expect(errors(String(repeating: "{'a': ", count: 98) + "1" + String(repeating: "}", count: 98) + " != null")
            == ["3:601 \(tooComplex)", "3:606 \(tooComplex)"])
        #expect(errors(String(repeating: "string(", count: 98) + "1" + String(repeating: ")", count: 98) + " == '1'")
            == ["3:704 \(tooComplex)"])
    }

    @Test func receiversStayOnTheirParentsLevel() {
        // `a.b.c…` and `x[0][0]…` are not deep; an index's argument and a group are.
        #expect(errors("request" + String(repeating: ".a", count: 500) + " == 1").isEmpty)
        #expect(errors("'a'" + String(repeating: ".lower()", count: 200) + " == 'a'").isEmpty)
        #expect(errors(String(repeating: "[1][", count: 98) + "0" + String(repeating: "]", count: 98) + " == 1")
            == ["3:407 \(tooComplex)", "3:410 \(tooComplex)"])
        // `((request).a).a`: a node built on a group starts at its parenthesis.
        let grouped = { (n: Int) in String(repeating: "(", count: n) + "request" + String(repeating: ").a", count: n) + " == 1" }
        #expect(errors(grouped(97)).isEmpty)
        #expect(errors(grouped(98)) == ["3:116 \(tooComplex)"])
        #expect(errors(grouped(99)) == ["3:116 \(tooComplex)"])
    }

    @Test func tenThousandTermChainsAreCompileErrorsOnASmallStack() throws {
        // Each would overflow a recursive walk; on a 256 KB thread they must come back as
        // compile errors (the work runs on a LargeStack thread), quickly.
        let chains = [
            Array(repeating: "true", count: 10_000).joined(separator: " && "),
            Array(repeating: "1", count: 10_000).joined(separator: " + ") + " > 0",
            "request" + String(repeating: ".field", count: 10_000) + " == 1",
            "[1]" + String(repeating: "[0]", count: 10_000) + " == 1",
            String(repeating: "(", count: 10_000) + "true" + String(repeating: ")", count: 10_000),
            String(repeating: "!", count: 10_001) + "true",
            String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + " != null",
        ]
        let results = onThread(stackSize: 256 << 10) { chains.map { errors($0) } }
        for r in results {
            #expect(!r.isEmpty)
            #expect(r.allSatisfy { $0.hasSuffix(tooComplex) })
        }
    }

    @Test func deepProgramsEvaluateOnASmallStack() throws {
        // 98 levels (96 `&&`, `==`, `.uid`'s level) and a function called through 9 others, each 40 levels deep (800 expressions).
        let deep = Array(repeating: "request.auth.uid == 'alice'", count: 97).joined(separator: " && ")
        var functions = "function f0() { return " + Array(repeating: "true", count: 40).joined(separator: " && ") + "; }\n"
        for i in 1..<10 {
            functions += "function f\(i)() { return " + Array(repeating: "true", count: 39).joined(separator: " && ") + " && f\(i - 1)(); }\n"
        }
        let text = "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents {\n" + functions
            + "match /c/{id} { allow get: if " + deep + "; allow list: if f9(); }\n}}\n"
        let program = try RulesProgram.compile(source: text)
        #expect(program.evaluationLevels > RulesProgram.inlineLevels)
        let (get, list) = onThread(stackSize: 256 << 10) {
            (program.evaluate(RulesRequest(method: .get, path: try! ResourcePath.parse("c/x"), auth: .mockUser(uid: "alice"),
                                           time: testTime), data: store([:])).allowed,
             program.evaluate(RulesRequest(method: .list, path: try! ResourcePath.parse("c"), auth: nil, time: testTime),
                              data: store([:])).allowed)
        }
        #expect(get)
        #expect(list)
    }

    @Test func longReceiverChainsEvaluateOnASmallStack() throws {
        // 500 links compile (as in production) and evaluate in a loop; the first missing
        // field decides, as the emulator says.
        let text = source("request.auth" + String(repeating: ".a", count: 500) + " == 1")
        let program = try RulesProgram.compile(source: text)
        let result = onThread(stackSize: 256 << 10) {
            program.evaluate(RulesRequest(method: .get, path: try! ResourcePath.parse("c/x"), auth: .mockUser(uid: "alice"),
                                          time: testTime), data: store([:])).outcomes.map(\.result)
        }
        #expect(result == [.error("Property a is undefined on object.")])
    }

    @Test func aRequestEvaluatesAtMostOneThousandExpressions() throws {
        // A list of n literals, `.size()`, the number and `==`: n + 4 expressions.
        let list = { (n: Int) in "[" + Array(repeating: "1", count: n).joined(separator: ",") + "].size() == \(n)" }
        #expect(try outcome(list(996)) == .granted)
        #expect(try outcome(list(997))
            == .error("Unable to evaluate the expression as the maximum of 1000 expressions to evaluate has been reached."))
        // The budget is the request's, across its allow statements.
        let text = "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents { match /c/{id} {\n"
            + "allow get: if " + list(600).replacingOccurrences(of: "== 600", with: "== 0") + ";\nallow get: if " + list(600) + ";\n}}}\n"
        let decision = try RulesProgram.compile(source: text)
            .evaluate(RulesRequest(method: .get, path: try ResourcePath.parse("c/x"), auth: nil, time: testTime), data: store([:]))
        #expect(decision.outcomes.map(\.result) == [.notGranted,
            .error("Unable to evaluate the expression as the maximum of 1000 expressions to evaluate has been reached.")])
    }

    /// Runs `body` on a new thread with `stackSize` bytes of stack and waits for it.
    private func onThread<T>(stackSize: Int, _ body: @escaping () -> T) -> T {
        let box = ThreadResult(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.run()
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        done.wait()
        return box.value!
    }
}

/// Carries a body and its result across the test's thread.
private final class ThreadResult<T>: @unchecked Sendable {
    private let body: () -> T
    var value: T?
    init(_ body: @escaping () -> T) { self.body = body }
    func run() { value = body() }
}
