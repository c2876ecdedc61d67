import Foundation
import Testing
@testable import HearthCore

@Suite("OrderedBytes order")
struct OrderedBytesTests {
    /// Random byte strings around the 32 bytes kept inline: mostly sharing long prefixes,
    /// with zeros (equal to the head's padding) and 0xFF near the end.
    static func randomKeys(_ count: Int) -> [[UInt8]] {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x00, 0x01, 0x7F, 0xFF]
        let base = (0..<48).map { _ in alphabet.randomElement(using: &rng)! }
        return (0..<count).map { _ in
            var key = Array(base.prefix(Int.random(in: 0...48, using: &rng)))
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                key.append(alphabet.randomElement(using: &rng)!)
            }
            return key
        }
    }

    @Test("comparison, equality and hashing agree with memcmp order on the bytes")
    func matchesBytes() {
        let keys = Self.randomKeys(300)
        for a in keys {
            #expect(OrderedBytes(a).bytes == a && OrderedBytes(a).count == a.count)
            for b in keys.prefix(60) {
                let expected = a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
                let ka = OrderedBytes(a), kb = OrderedBytes(b)
                #expect(OrderedBytes.compare(ka, kb) == expected, "\(a) vs \(b)")
                #expect(OrderedBytes.compare(a, b) == expected)
                #expect((ka < kb) == (expected < 0))
                #expect((ka == kb) == (expected == 0))
                if expected == 0 { #expect(ka.hashValue == kb.hashValue) }
            }
        }
    }

    @Test("prefix and scan-bound tests read past the inline head")
    func prefixAndBounds() {
        let keys = Self.randomKeys(200)
        for a in keys {
            for bound in keys.prefix(40) {
                let key = OrderedBytes(a)
                #expect(key.hasPrefix(OrderedBytes(bound)) == a.starts(with: bound), "\(a) prefix \(bound)")
                let n = min(a.count, bound.count)
                let expected = Array(a.prefix(n)).lexicographicallyPrecedes(Array(bound.prefix(n))) == false
                    && Array(a.prefix(n)) != Array(bound.prefix(n))
                #expect(key.sortsAfter(OrderedBytes(bound)) == expected, "\(a) after \(bound)")
            }
        }
    }

    @Test("any byte range reads back, across the inline head's end")
    func ranges() {
        for a in Self.randomKeys(100) {
            for lower in 0...a.count {
                for upper in stride(from: lower, through: a.count, by: 3) {
                    var out: [UInt8] = [9]
                    OrderedBytes(a).appendBytes(lower..<upper, to: &out)
                    #expect(out == [9] + a[lower..<upper], "\(a) \(lower)..<\(upper)")
                }
            }
        }
    }
}
