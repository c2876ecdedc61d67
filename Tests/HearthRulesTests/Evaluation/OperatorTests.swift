import Testing
@testable import HearthRules

/// Operators and their error semantics (docs/rules-language.md#errors-and-truthiness, #precedence, #operators).
@Suite struct OperatorTests {
    @Test func isSharesEqualitysPrecedenceLeftToRight() throws {
        // As the official emulator parses them (probed): `('a' is string) == true`, and
        // `((1 is int) == 'x') is string`, which is false.
        #expect(holds("'a' is string == true"))
        #expect(try outcome("1 is int == 'x' is string") == .notGranted)
        #expect(holds("1 < 2 is bool"))
        // An unknown name is a null value error when read.
        #expect(try outcome("nope == 1") == .error("Null value error."))
    }

    @Test func arithmetic() {
        #expect(holds("1 + 2 == 3 && 7 - 10 == -3 && 3 * 4 == 12"))
        #expect(holds("10 / 4 == 2 && -7 / 2 == -3 && 10 % 3 == 1 && -7 % 2 == -1"))
        #expect(holds("10 / 4.0 == 2.5 && 5.5 % 2 == 1.5"))
        #expect(holds("'a' + 'b' == 'ab'"))
        #expect(errors("1 / 0 == 0"))
        #expect(errors("1 % 0 == 0"))
        #expect(errors("9223372036854775807 + 1 > 0"))
        #expect(errors("9223372036854775807 * 2 > 0"))
        #expect(holds("-9223372036854775807 - 1 < 0"))
        #expect(holds("1.0 / 0 > 1000000.0"))            // +Inf, not an error (docs/rules-language.md#operators)
        #expect(holds("math.isNaN(0.0 / 0.0)"))
        #expect(!holds("(0.0 / 0.0) == (0.0 / 0.0)"))
        #expect(errors("'a' + 1 == 'a1'"))
        #expect(errors("[1] + [2] == [1, 2]"))
        #expect(errors("1 + null == 1"))
        #expect(errors("b'a' + b'b' == b'ab'"))
        #expect(errors("-'a' == 'a'"))
        // Division and remainder follow Java: no overflow error (observed on the emulator).
        #expect(holds("(-9223372036854775807 - 1) / -1 == -9223372036854775807 - 1"))
        #expect(holds("(-9223372036854775807 - 1) % -1 == 0"))
        #expect(holds("5 % -3 == 2 && -5.5 % 2 == -1.5"))
    }

    @Test func equalityIsNumericAtTopLevelButStrictInContainers() {
        #expect(holds("1 == 1.0"))
        #expect(!holds("[1] == [1.0]"))
        #expect(!holds("{'a': 1} == {'a': 1.0}"))
        #expect(holds("{'a': 1, 'b': 2} == {'b': 2, 'a': 1}"))
        #expect(holds("[1].toSet() == [1.0].toSet()"))
        #expect(!holds("1.0 in [1, 2]"))
        #expect(holds("1.0 in [1, 2].toSet()"))
        #expect(!holds("1 in [1.0]"))
        #expect(holds("null == null && 'name' != null && 1 != 'a'"))
        #expect(holds("9007199254740993 != 9007199254740992.0"))
    }

    @Test func comparisons() {
        #expect(holds("'B' < 'a' && '' < 'a' && 'abc' < 'abd'"))
        #expect(holds("'😀' < '\\uffff' && 'z' < 'é'"))        // UTF-16 code-unit order, as Java
        #expect(!holds("'e\\u0301' == 'é'"))                     // no canonical equivalence
        #expect(holds("1 < 2.5 && 2.5 > 2 && 1 >= 1.0"))
        #expect(holds("b'abc' < b'abd'"))
        #expect(holds("timestamp.date(2024, 1, 2) > timestamp.date(2024, 1, 1)"))
        #expect(holds("duration.value(1, 's') < duration.value(2, 's')"))
        #expect(errors("1 < 'a'"))
        #expect(errors("null <= 1"))
        #expect(errors("true < false"))
        #expect(errors("1 < 2 < 3"))
    }

    /// docs/rules-language.md#errors-and-truthiness: errors propagate except where && / || / ?: absorb them.
    @Test func errorAbsorption() throws {
        #expect(holds("(1 / 0 == 1) || true"))
        #expect(try outcome("(1 / 0 == 1) && false") == .notGranted)
        #expect(errors("(1 / 0 == 1) || false"))
        #expect(errors("(1 / 0 == 1) && true"))
        #expect(holds("((1 / 0 == 1) && false) || true"))
        #expect(errors("!(1 / 0 == 1)"))
        #expect(errors("1 && true"))
        #expect(errors("true && 1"))
        #expect(try outcome("false && 1") == .notGranted)
        #expect(holds("true || 1"))
        #expect(holds("1 || true"))
        #expect(errors("!1"))
        #expect(errors("1 ? true : true"))
        #expect(errors("(1 / 0 == 1) ? true : true"))
        #expect(holds("false ? 1 / 0 == 1 : true"))     // only the chosen branch runs
        #expect(errors("true ? 1 / 0 == 1 : true"))
    }

    @Test func membership() throws {
        #expect(holds("'a' in ['a', 'b'] && !('c' in ['a', 'b'])"))
        #expect(holds("'a' in {'a': 1} && !('toString' in {'a': 1})"))
        #expect(holds("'a' in ['a', 'b'].toSet()"))
        #expect(errors("'a' in 'abc'"))
        // A map's keys are strings: another key is an error, not false, so negating it still
        // denies (the official emulator: "Received: map.in(int). Expected: map.in(string).").
        #expect(try outcome("1 in {'a': 1}") == .error("Unsupported operation error. Received: map.in(int). Expected: map.in(string)."))
        #expect(errors("!(1 in {})"))
        #expect(errors("null in {'a': 1}"))
        #expect(errors("'a' in null"))
    }

    @Test func typeTests() {
        #expect(holds("1 is int && 1.0 is float && !(1 is float) && !(1.0 is int)"))
        #expect(holds("1 is number && 1.5 is number && 'a' is string && true is bool"))
        #expect(holds("[1] is list && {'a': 1} is map && b'a' is bytes && path('a/b') is path"))
        #expect(holds("request.time is timestamp && duration.value(1, 's') is duration && latlng.value(1, 2) is latlng"))
        #expect(holds("{'a': 1}.diff({}) is map_diff"))
        #expect(!holds("[1].toSet() is set"))         // docs/rules-language.md#operators
        #expect(!holds("[1].toSet() is list"))
        #expect(!holds("null is string"))
        #expect(errors("{'a': 1}.b is string"))        // the operand is evaluated first
    }

    @Test func indexingAndSlicing() {
        #expect(holds("[1, 2, 3][1] == 2 && [1, 2, 3][1:3] == [2, 3] && [1, 2, 3][1:1] == []"))
        #expect(errors("[1, 2, 3][3] == 3"))
        #expect(errors("[1, 2, 3][-1] == 3"))
        #expect(errors("[1, 2, 3][2:9] == [3]"))
        #expect(errors("[1, 2, 3][0:0] == []"))          // the emulator checks index j-1
        #expect(holds("'abcdef'[1:3] == 'bc' && 'abc'[1:1] == '' && 'abc'[0] == 'a'"))
        #expect(errors("'abc'[3] == 'c'"))
        #expect(holds("{'a': 1}.a == 1 && {'a': 1}['a'] == 1 && {'a': {'b': {'c': 3}}}.a.b.c == 3"))
        #expect(errors("{'a': 1}.b == 1"))
        #expect(errors("{'a': 1}['b'] == null"))
        #expect(errors("null.a == 1"))
        #expect(errors("b'abc'[0] == 1"))
    }

    /// The errors a denial's report quotes, in the official emulator's words (recorded in the
    /// differential corpus, rules_operators): a slice checks its first index, then the last
    /// one it takes (j - 1), then the order; an operator names every operand pair it takes.
    @Test func sliceAndOperatorErrorsNameWhatTheEmulatorNames() throws {
        func error(_ e: String) throws -> String? {
            guard case .error(let m) = try outcome("debug(\(e)) != null") else { return nil }
            return m
        }
        #expect(try error("[1, 2, 3][0:0]") == "Index out of bound error. Index: [-1] , size: [3].")
        #expect(try error("[1, 2, 3][2:5]") == "Index out of bound error. Index: [4] , size: [3].")
        #expect(try error("[1, 2, 3][3:4]") == "Index out of bound error. Index: [3] , size: [3].")
        #expect(try error("[1][1:3]") == "Index out of bound error. Index: [1] , size: [1].")
        #expect(try error("[][0:0]") == "Index out of bound error. Index: [0] , size: [0].")
        #expect(try error("'abc'[2:1]") == "Illegal range error. From index: [2] , To index: [1].")
        #expect(try error("[1, 2][0:-9223372036854775807 - 1]") == "Index out of bound error. Index: [9223372036854775807] , size: [2].")
        #expect(try error("[1] + [2]") == "Unsupported operation error. Received: list + list. Expected: int + int, float + float, string + string, duration + duration, duration + timestamp, timestamp + duration.")
        #expect(try error("'a' - 'b'") == "Unsupported operation error. Received: string - string. Expected: int - int, float - float, duration - duration, timestamp - duration, timestamp - timestamp.")
        #expect(try error("'a' % 2") == "Unsupported operation error. Received: string % int. Expected: int % int, float % float.")
        #expect(try error("[1] <= [2]") == "Unsupported operation error. Received: list <= list. Expected: string <= string, bytes <= bytes, int <= int, float <= float, duration <= duration, timestamp <= timestamp, constraint <= any, any <= constraint.")
        #expect(try error("-'a'") == "Unsupported operation error. Received: -string. Expected: -int, -float, -duration.")
        #expect(try error("[1, 2, 3][1:1]") == nil)
    }
}
