import Testing
@testable import HearthRules

/// String methods (docs/rules-language.md#methods).
@Suite struct StringBuiltinTests {
    @Test func sizesAndIndexesCountUTF16CodeUnits() {
        #expect(holds("'abc'.size() == 3 && '😀'.size() == 2 && '😀a'.size() == 3"))
        #expect(holds("'😀a'[2] == 'a'"))
        #expect(holds("'😀'.toUtf8().size() == 4 && 'é'.toUtf8().size() == 2"))
    }

    @Test func caseMappingIsASCIIOnly() {
        #expect(holds("'AbC'.lower() == 'abc' && 'AbC'.upper() == 'ABC'"))
        #expect(holds("'É'.lower() == 'É' && 'straße'.upper() == 'STRAßE'"))
    }

    @Test func trim() {
        #expect(holds("'  a b  '.trim() == 'a b' && '\\ta\\n'.trim() == 'a'"))
    }

    @Test func matchesIsWholeString() {
        #expect(!holds("'hello world'.matches('world')"))
        #expect(holds("'hello world'.matches('.*world') && 'hello world'.matches('hello.*')"))
        #expect(holds("'ab'.matches('a|ab')"))
        #expect(holds("'alice@acme.com'.matches('[a-z]+@acme\\\\.com')"))
        #expect(!holds("'alice@acmexcom'.matches('[a-z]+@acme\\\\.com')"))
        #expect(holds("'ABC'.matches('(?i)abc')"))
        #expect(errors("'abc'.matches(1)"))
    }

    /// Reproduced through the `rules-eval` fuzz target (Fuzz/regressions/rules-eval/): ICU backtracks
    /// exponentially on `(a+)+b` against a run of `a`s (production's RE2 is linear). A search
    /// past the time limit is an evaluation error, so the condition is false — within about
    /// the limit (1 s per search), not the hours the search would take (30 `a`s).
    @Test func catastrophicBacktrackingStopsAtTheTimeLimit() {
        let subject = "'" + String(repeating: "a", count: 30) + "!'"
        let started = ContinuousClock.now
        #expect(errors("\(subject).matches('(a+)+b')"))
        #expect(errors("\(subject).split('(a+)+b').size() == 1"))
        #expect(errors("\(subject).replace('(a+)+b', 'x') == ''"))
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(holds("'aaab'.matches('(a+)+b')"))
    }

    @Test func replaceUsesDollarGroupsAndBackslashEscapes() {
        #expect(holds("'a1b2'.replace('[0-9]', '#') == 'a#b#'"))
        #expect(holds("'foo@test.com'.replace('.', '-') == '------------'"))  // every character matches '.'
        #expect(holds("'a-b'.replace('(a)-(b)', '$2-$1') == 'b-a'"))
        #expect(holds("'ab'.replace('(a)(b)', '\\\\2 \\\\1') == '2 1'"))
        #expect(errors("'abc'.replace('(', 'x') == 'x'"))  // compiles; fails when run
    }

    @Test func splitFollowsJava() {
        #expect(holds("'a/b/c'.split('/') == ['a', 'b', 'c']"))
        #expect(holds("'a,b,'.split(',') == ['a', 'b'] && 'a,,'.split(',') == ['a']"))
        #expect(holds("','.split(',') == [''] && ''.split(',') == ['']"))
        #expect(holds("',a'.split(',') == ['', 'a'] && 'a,b,,c'.split(',') == ['a', 'b', '', 'c']"))
        #expect(holds("'abc'.split('') == ['', 'a', 'b', 'c']"))
        #expect(holds("'a1b22c'.split('[0-9]+') == ['a', 'b', 'c']"))
    }

    @Test func missingMethodsAreFunctionNotFound() throws {
        #expect(try outcome("'abc'.startsWith('a')") == .error("Function not found error: Name: [startsWith]."))
        #expect(errors("'abc'.contains('b')"))
        #expect(errors("'abc'.length == 3"))
    }

    @Test func bytes() {
        #expect(holds("'hi'.toUtf8().toBase64() == 'aGk=' && '~~~'.toUtf8().toBase64() == 'fn5-'"))
        #expect(holds("b'\\x2A'.toHexString() == '2A' && b'abc'.size() == 3"))
    }
}
