import SeededRandom
import Testing
@testable import HearthRules

/// The parser must never trap: random bytes, random tokens and mutations of a real ruleset
/// all end in a program or in diagnostics.
@Suite struct ParserFuzzTests {
    static let seed = """
        rules_version = '2';
        function f(a) { let b = a + 1; return b > 2; }
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{uid}/{rest=**} {
              allow read: if request.auth.uid == uid && f(1) || resource.data.x in ['a', "b"];
              allow write: if get(/databases/$(database)/documents/u/$(uid)).data.m.get(['k'], 7) is int
                && request.time < timestamp.date(2024, 1, 1) + duration.value(1, 'd') ? true : 'x'.matches('[a-z]+');
            }
          }
        }
        """

    private func exercise(_ source: String) {
        let diagnostics = RulesProgram.diagnose(source: source, file: "fuzz.rules")
        for d in diagnostics {
            // Line 0 is a diagnostic of the whole file (an empty source, an old version).
            #expect(d.location.line >= 1 || (d.location.line == 0 && d.location.column == 0))
            #expect(d.location.column >= 1 || d.location.line == 0)
        }
        // A program that compiled must also evaluate without trapping.
        if let p = try? RulesProgram.compile(source: source) {
            _ = p.evaluate(RulesRequest(method: .get, path: path("users/alice"), auth: .mockUser(uid: "alice"), time: testTime),
                           data: store([:]))
        }
    }

    @Test func randomBytes() {
        var rng = SplitMix64(seed: 1)
        for _ in 0..<300 {
            let n = rng.below(200)
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            exercise(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func randomTokens() {
        let vocabulary = ["service", "cloud.firestore", "match", "allow", "read", "if", "function", "let", "return",
                          "{", "}", "(", ")", "[", "]", "/", "/x", "{id}", "{p=**}", "$(", ":", ";", ",", ".", "?", "!",
                          "&&", "||", "==", "in", "is", "int", "1", "2.5", "'s'", "b'x'", "-", "*", "%", "x", "rules_version",
                          "=", "'2'", "\n", "//c\n", "/*", "*/", "\"", "'"]
        var rng = SplitMix64(seed: 2)
        for _ in 0..<400 {
            let n = rng.below(60)
            exercise((0..<n).map { _ in vocabulary[rng.below(vocabulary.count)] }.joined(separator: rng.below(3) == 0 ? "" : " "))
        }
    }

    @Test func mutationsOfARealRuleset() {
        var rng = SplitMix64(seed: 3)
        let base = Array(Self.seed.utf8)
        #expect(RulesProgram.diagnose(source: Self.seed).allSatisfy { $0.severity == .warning })
        for _ in 0..<400 {
            var bytes = base
            for _ in 0..<(1 + rng.below(4)) {
                let i = rng.below(bytes.count)
                switch rng.below(3) {
                case 0: bytes.remove(at: i)
                case 1: bytes.insert(base[rng.below(base.count)], at: i)
                default: bytes[i] = base[rng.below(base.count)]
                }
            }
            exercise(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func truncations() {
        let bytes = Array(Self.seed.utf8)
        for n in stride(from: 0, to: bytes.count, by: 3) {
            exercise(String(decoding: bytes[0..<n], as: UTF8.self))
        }
    }
}
