import FirebaseFirestore
import Foundation
import SeededRandom

/// The workload's parameter streams, generated before any timer starts, and its documents,
/// generated a chunk at a time (`documents(_:)`) before each chunk's timer starts: at
/// N = 1,000,000 the whole set as `[String: Any]` held 1.5 GB of the benchmark's peak.
struct Workload {
    let n: Int
    let seed: UInt64
    let gets: [Int]
    /// c_eq's 200 category operands (`k % 100`), made before the timer like every parameter.
    let equalityCategories: [String]
    let increments: [Int]
    /// d_range lower bounds (stream S+3).
    let rangeLows: [Int]
    /// g_combo (category, lower bound) pairs, category drawn first (stream S+5).
    let combos: [(category: String, low: Int)]

    init(n: Int, seed: UInt64) {
        self.n = n
        self.seed = seed
        var g = SplitMix64(seed: seed + 1)
        gets = (0..<n).map { _ in g.below(n) }
        equalityCategories = (0..<200).map { Self.category($0 % 100) }
        var inc = SplitMix64(seed: seed + 4)
        increments = (0..<n).map { _ in Int(inc.below(100)) }
        var range = SplitMix64(seed: seed + 3)
        rangeLows = (0..<200).map { _ in Int(range.below(1_000_000)) }
        var combo = SplitMix64(seed: seed + 5)
        combos = (0..<100).map { _ in
            let c = Int(combo.below(100))
            return (Self.category(c), Int(combo.below(1_000_000)))
        }
    }

    /// Draws per document (`document(_:_:)`); SplitMix64 adds a constant to its state per
    /// draw, so document i's stream starts at `seed + i × 11 × γ`: any range can be made alone.
    static let drawsPerDocument: UInt64 = 11

    /// Documents `range` of the stream that starts at the seed (stream S).
    func documents(_ range: Range<Int>) -> [[String: Any]] {
        var r = SplitMix64(seed: seed &+ UInt64(range.lowerBound) &* Self.drawsPerDocument &* 0x9E37_79B9_7F4A_7C15)
        return range.map { i in Self.document(i, &r) }
    }

    /// Every document (the server fixture's 10,000).
    var documents: [[String: Any]] { documents(0..<n) }

    static func id(_ i: Int) -> String { String(format: "d%08d", i) }

    static func category(_ c: Int) -> String { String(format: "cat-%02d", c) }

    /// Exactly 11 draws per document, in the order of docs/benchmark-workload.md's table.
    static func document(_ i: Int, _ r: inout SplitMix64) -> [String: Any] {
        let category = String(format: "cat-%02d", Int(r.below(100)))
        let score = Int(r.below(1_000_000))
        let age = 18 + Int(r.below(72))
        let name = String(format: "name-%09d", Int(r.below(1_000_000_000)))
        let active = r.below(2) == 1
        let price = Double(r.below(100_000)) / 100.0
        let tags = (0..<3).map { _ in "tag-\(r.below(50))" }
        let city = String(format: "city-%02d", Int(r.below(20)))
        let zip = String(format: "%05d", Int(r.below(100_000)))
        return [
            "category": category, "score": score, "age": age, "name": name, "active": active,
            "price": price, "tags": tags,
            "address": ["city": city, "zip": zip, "street": "\(i) Main St"],
            "email": "user\(i)@example.com",
            "created": Timestamp(seconds: 1_700_000_000 + Int64(i), nanoseconds: 0),
            "counter": 0,
        ]
    }
}
