import HearthCore
import SeededRandom
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport
import HearthProtobuf

/// Random and mutated bytes fed to every decoder: they must never trap, and every
/// failure must be INVALID_ARGUMENT.
@Suite struct ProtoFuzzTests {
    static let db = DatabaseID(project: "p")

    /// Runs every decoder on `bytes`; records any error that is not INVALID_ARGUMENT.
    static func decodeAll(_ bytes: [UInt8]) {
        let decoders: [(String, ([UInt8]) throws(FirestoreError) -> Void)] = [
            ("Value", { b throws(FirestoreError) in _ = try ValueMessage.decode(b) }),
            ("Document", { b throws(FirestoreError) in var r = ProtoReader(b); _ = try DocumentMessage.decode(&r) }),
            ("Write", { b throws(FirestoreError) in var r = ProtoReader(b); _ = try WriteMessage.decode(&r, database: db) }),
            ("StructuredQuery", { b throws(FirestoreError) in var r = ProtoReader(b); _ = try StructuredQueryMessage.decode(&r, parent: .root) }),
            ("StructuredAggregationQuery", { b throws(FirestoreError) in var r = ProtoReader(b); _ = try StructuredQueryMessage.decodeAggregationQuery(&r, parent: .root) }),
            ("WriteResult", { b throws(FirestoreError) in var r = ProtoReader(b); _ = try WriteMessage.decodeWriteResult(&r) }),
        ]
        for (name, decode) in decoders {
            do {
                try decode(bytes)
            } catch {
                if error.code != .invalidArgument { Issue.record("\(name): \(error) for \(bytes)") }
            }
        }
    }

    /// Realistic seeds to mutate.
    static func seeds() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for v in ProtoMessageRoundTripTests.sampleValues { seeds.append(ValueMessage.serialize(v)) }
        for write in ProtoMessageRoundTripTests.sampleWrites {
            var w = ProtoWriter()
            WriteMessage.encode(write, database: db, into: &w)
            seeds.append(w.bytes)
        }
        for q in ProtoMessageRoundTripTests.sampleQueries {
            var w = ProtoWriter()
            StructuredQueryMessage.encode(q, into: &w)
            seeds.append(w.bytes)
        }
        return seeds
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<3000 {
            let count = Int.random(in: 0...64, using: &rng)
            Self.decodeAll((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
    }

    @Test func mutatedMessagesNeverCrash() {
        var rng = SplitMix64(seed: 7)
        let seeds = Self.seeds()
        for seed in seeds {
            for _ in 0..<60 {
                var bytes = seed
                switch Int.random(in: 0..<5, using: &rng) {
                case 0 where !bytes.isEmpty:  // flip a bit
                    let i = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[i] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                case 1 where !bytes.isEmpty:  // truncate
                    bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
                case 2 where !bytes.isEmpty:  // overwrite a byte
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 3:  // insert random bytes
                    let at = Int.random(in: 0...bytes.count, using: &rng)
                    bytes.insert(contentsOf: (0..<Int.random(in: 1...4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
                default:  // duplicate a slice
                    if bytes.count > 2 {
                        let a = Int.random(in: 0..<bytes.count, using: &rng)
                        let b = Int.random(in: a..<bytes.count, using: &rng)
                        bytes.insert(contentsOf: bytes[a...b], at: b)
                    }
                }
                Self.decodeAll(bytes)
            }
        }
    }

    @Test func everyTruncationOfEverySeedFailsCleanly() {
        for seed in Self.seeds() {
            for n in 0..<seed.count { Self.decodeAll(Array(seed.prefix(n))) }
        }
    }
}
