import Foundation
import Testing
@testable import HearthRules

/// Conversions, math, time, latlng, hashing and paths (docs/rules-language.md#global-functions, #methods).
@Suite struct ScalarBuiltinTests {
    @Test func conversions() throws {
        #expect(holds("string(true) == 'true' && string(1) == '1' && string(2.0) == '2.0' && string(null) == 'null'"))
        #expect(holds("string(100000000000000000000.0) == '1.0E20' && string(0.00001) == '1.0E-5'"))
        #expect(holds("string(123456789.0) == '1.23456789E8' && string(1234567.0) == '1234567.0' && string(0.001) == '0.001'"))
        #expect(holds("string(path('a/b')) == '/a/b'"))
        #expect(errors("string([1]) == '[1]'"))
        #expect(holds("int('2') == 2 && int('+7') == 7 && int('-7') == -7 && int(2.9) == 2 && int(-2.9) == -2"))
        #expect(errors("int('2.5') == 2"))
        #expect(errors("int(' 42') == 42"))
        #expect(errors("int(true) == 1"))
        #expect(holds("float('2.2') == 2.2 && float(2) == 2.0 && float('1e3') == 1000.0 && float(' 1.5') == 1.5"))
        #expect(errors("float('abc') == 0.0"))
        // int(float) is Java's (long) cast: saturating, NaN → 0.
        #expect(holds("int(10000000000000000000.0) == 9223372036854775807 && int(-10000000000000000000.0) < 0"))
        #expect(holds("int(0.0 / 0.0) == 0 && int(1.0 / 0) == 9223372036854775807"))
        #expect(try outcome("bool('true')") == .error("Function not found error: Name: [bool]."))
    }

    @Test func javaDoubleFormatting() {
        #expect(javaDoubleString(1e20) == "1.0E20")
        #expect(javaDoubleString(1.5e-7) == "1.5E-7")
        #expect(javaDoubleString(-2.5) == "-2.5")
        #expect(javaDoubleString(1e7) == "1.0E7")
        #expect(javaDoubleString(9999999.0) == "9999999.0")
    }

    @Test func math() {
        #expect(holds("math.abs(-3) == 3 && math.abs(-3) is int && math.abs(-2.5) == 2.5"))
        #expect(holds("math.abs(-9223372036854775807 - 1) < 0"))   // Java's Math.abs(Long.MIN_VALUE)
        #expect(holds("math.ceil(2.1) == 3 && math.ceil(2) is float && math.floor(-1.1) == -2"))
        #expect(holds("math.round(2.5) == 3 && math.round(-2.5) == -2 && math.round(-0.5) == 0 && math.round(-1.5) == -1"))
        #expect(holds("math.round(2.4) == 2 && math.round(2.5) is int"))
        #expect(holds("math.pow(2, 2) == 4 && math.pow(4, 0.5) == 2 && math.pow(2, 10) is float"))
        #expect(holds("math.sqrt(2.25) == 1.5 && !math.isNaN(1.0)"))
        #expect(!holds("math.sqrt(-1) > 0"))
        #expect(errors("math.isInfinite(1.0 / 0)"))
        #expect(errors("math.abs('a') == 1"))
    }

    @Test func timestamps() {
        #expect(holds("timestamp.date(2024, 2, 29).year() == 2024"))
        #expect(errors("timestamp.date(2024, 2, 30).year() == 2024"))
        #expect(errors("timestamp.date(2024, 13, 1).year() == 2024"))
        #expect(holds("timestamp.date(2024, 3, 15).dayOfWeek() == 5 && timestamp.date(2024, 3, 17).dayOfWeek() == 7 && timestamp.date(2024, 3, 18).dayOfWeek() == 1"))
        #expect(holds("timestamp.date(2024, 12, 31).dayOfYear() == 366"))
        #expect(holds("timestamp.date(2024, 1, 1).toMillis() == 1704067200000"))
        #expect(holds("timestamp.value(1704067200123).nanos() == 123000000"))
        #expect(holds("timestamp.value(1704070923000).hours() == 1 && timestamp.value(1704070923000).minutes() == 2 && timestamp.value(1704070923000).seconds() == 3"))
        #expect(holds("timestamp.value(1704070923000).date() == timestamp.date(2024, 1, 1)"))
        #expect(holds("timestamp.value(1704070923000).time() == duration.time(1, 2, 3, 0)"))
        #expect(holds("timestamp.date(2024, 1, 1) + duration.value(1, 'd') == timestamp.date(2024, 1, 2)"))
        #expect(holds("timestamp.date(2024, 1, 2) - timestamp.date(2024, 1, 1) == duration.value(1, 'd')"))
        #expect(errors("timestamp.date(2024, 1, 1) + timestamp.date(2024, 1, 1) == timestamp.date(2024, 1, 1)"))
        #expect(holds("request.time == timestamp.value(1714979289000)"))
    }

    @Test func durations() {
        #expect(holds("duration.value(1500, 'ms').seconds() == 1 && duration.value(1500, 'ms').nanos() == 500000000"))
        #expect(errors("duration.value(1.5, 's') == duration.value(1500, 'ms')"))
        #expect(errors("duration.value(1, 'x') == duration.value(1, 's')"))
        #expect(holds("duration.value(2, 'w') == duration.value(14, 'd') && duration.value(1, 'h') == duration.value(60, 'm')"))
        #expect(holds("duration.value(1, 's') == duration.value(1000000000, 'ns')"))
        #expect(holds("duration.value(-90, 's').seconds() == -90 && duration.abs(duration.value(-5, 's')) == duration.value(5, 's')"))
        #expect(holds("-duration.value(1, 's') == duration.value(-1, 's')"))
        #expect(errors("duration.value(1, 's') * 2 == duration.value(2, 's')"))
    }

    @Test func latlngs() {
        #expect(holds("latlng.value(1, 2).latitude() == 1.0 && latlng.value(1.5, 2.5).longitude() == 2.5"))
        #expect(errors("latlng.value(91, 0).latitude() == 91"))
        #expect(holds("latlng.value(0, 0).distance(latlng.value(0, 1)) > 111000 && latlng.value(0, 0).distance(latlng.value(0, 1)) < 112000"))
    }

    @Test func hashing() {
        #expect(holds("hashing.md5('').toHexString() == 'D41D8CD98F00B204E9800998ECF8427E'"))
        #expect(holds("hashing.md5('hello'.toUtf8()) == hashing.md5('hello')"))
        #expect(holds("hashing.sha256('abc').toHexString() == 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD'"))
        #expect(holds("hashing.crc32('123456789').toHexString() == '2639F4CB'"))
        #expect(holds("hashing.crc32c('123456789').toHexString() == '839206E3'"))
        #expect(errors("hashing.sha256(1).size() == 32"))
        // Multi-block inputs exercise the padding across a second 64-byte block.
        #expect(Hashing.md5(Array(String(repeating: "a", count: 100).utf8)).map { String(format: "%02x", $0) }.joined() == "36a92cc94a9e0fa21f625f8bfb007adf")
    }

    @Test func paths() {
        #expect(holds("path('users/alice')[1] == 'alice' && path('/a/b') == path('a/b')"))
        #expect(errors("path('a//b') == path('a/b')"))
        #expect(errors("path('users/alice')[2] == 'x'"))
        #expect(holds("path('users/{uid}').bind({'uid': 'alice'}) == path('users/alice')"))
        #expect(errors("path('users/{uid}').bind({'x': 'alice'}) == path('users/alice')"))
        #expect(errors("path(path('a/b')) == path('a/b')"))
        #expect(holds("/databases/(default)/documents/users/alice == path('databases/(default)/documents/users/alice')"))
        #expect(holds("/databases/$(database)/documents/users/$('alice') == /databases/$(database)/documents/users/alice"))
        #expect(holds("string(/a/b) == '/a/b'"))
        #expect(holds("path('a/b/c')[0:2] == path('a/b') && string(path('a/b/c')[1:3]) == '/b/c'"))
        // An interpolated string is one segment, even with a '/' in it.
        #expect(holds("/databases/$(database)/documents/$('a/b')[3] == 'a/b'"))
        #expect(errors("/databases/$(database)/documents/$('b/c')[4] == 'c'"))
    }
}
