/// SplitMix64: a tiny, fast, seeded generator whose numbers are the same on every machine,
/// so the benchmark workload (docs/benchmark-workload.md, which specifies it) and the
/// randomised tests reproduce from their seed. Not for anything that must be unpredictable
/// (document IDs, transaction IDs use the system's secure generator).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// Adds 0x9E3779B97F4A7C15 to the state and mixes it (all arithmetic modulo 2^64).
    public mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `next() % n` (the modulo bias is accepted, as the workload specifies); `n` > 0.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
