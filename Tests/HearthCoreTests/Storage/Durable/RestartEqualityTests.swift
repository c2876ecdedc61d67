import Foundation
import Testing
@testable import HearthCore

@Suite("Restart equality: a randomised workload reads the same after every restart")
struct RestartEqualityTests {
    /// A small deterministic generator, so a failure reproduces from its seed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    private func value(_ g: inout Generator, depth: Int = 0) -> Value {
        switch g.int(depth > 1 ? 9 : 11) {
        case 0: return .null
        case 1: return .boolean(g.int(2) == 0)
        case 2: return .integer(Int64(bitPattern: g.next() &* 2654435761))
        case 3: return .double([0.5, -0.0, .nan, .infinity, 1e300, 3][g.int(6)])
        case 4: return .timestamp(Timestamp(seconds: Int64(g.int(2_000_000_000)), nanos: Int32(g.int(1_000_000_000))))
        case 5: return .string(["", "é", "x\u{0}y", String(repeating: "z", count: g.int(300))][g.int(4)])
        case 6: return .bytes(Data((0..<g.int(20)).map { UInt8(truncatingIfNeeded: $0 &* 37) }))
        case 7: return .geoPoint(GeoPoint(latitude: Double(g.int(180)) - 90, longitude: Double(g.int(360)) - 180))
        case 8: return testReference("r/\(g.int(5))", project: ["p", "other"][g.int(2)])
        case 9: return .array((0..<g.int(4)).map { _ in value(&g, depth: depth + 2) })
        default: return .map(MapValue((0..<g.int(4)).map { _ in ("k\(g.int(6))", value(&g, depth: depth + 1)) }))
        }
    }

    private func write(_ g: inout Generator, in collections: [String]) -> Write {
        let path = testPath("\(collections[g.int(collections.count)])/d\(g.int(30))")
        let fields = MapValue((0..<g.int(5)).map { _ in ("f\(g.int(8))", value(&g)) })
        switch g.int(6) {
        case 0: return .delete(path)
        case 1: return .set(path, fields, transforms: [FieldTransform(path: testFieldPath("at"), kind: .serverTimestamp)])
        case 2: return Write(path: path, operation: .update(fields, mask: fields.keys.map { testFieldPath($0) }), precondition: nil)
        case 3: return Write(path: path, operation: .transformOnly, transforms: [FieldTransform(path: testFieldPath("count"), kind: .increment(.integer(1)))])
        default: return .set(path, fields)
        }
    }

    @Test("random commits, restores, compactions, crashes and clean closes", arguments: [1, 2, 3])
    func randomised(seed: UInt64) throws {
        let dir = try DataDirectory()
        defer { dir.remove() }
        var g = Generator(state: seed)
        let clock = ManualClock(now: testEpoch)
        let ids = [DatabaseID(project: "p"), DatabaseID(project: "p", database: "second"), DatabaseID(project: "q")]
        var expected: [DatabaseID: [String: String]] = [:]
        var commits = 0
        for round in 0..<6 {
            let store = try dir.open(compactionThreshold: 8 << 10)
            for id in ids {
                #expect(durableContents(store.database(id, clock: clock)) == (expected[id] ?? [:]), "seed \(seed), round \(round), \(id)")
            }
            var snapshots: [(Database, DatabaseSnapshot)] = []
            for _ in 0..<120 {
                let db = store.database(ids[g.int(ids.count)], clock: clock)
                clock.advance(by: Double(g.int(3)))
                switch g.int(20) {
                case 0: snapshots.append((db, db.snapshot()))
                case 1:
                    if let (owner, snap) = snapshots.randomElement(using: &g), owner === db { db.restore(snap) }
                case 2: try store.compact()
                default:
                    let writes = (0..<(1 + g.int(4))).map { _ in write(&g, in: ["a", "b/x/c", "a/d1/sub"]) }
                    // Some batches fail (an update of a missing document): nothing of them may appear.
                    if (try? db.commit(writes)) != nil { commits += 1 }
                }
            }
            for id in ids { expected[id] = durableContents(store.database(id, clock: clock)) }
            if round % 2 == 0 { store.abandon() } else { store.close() }
        }
        #expect(commits > 300)
    }
}

extension RestartEqualityTests.Generator: RandomNumberGenerator {}
