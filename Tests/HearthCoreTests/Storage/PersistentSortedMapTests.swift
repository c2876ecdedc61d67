import SeededRandom
import Testing
@testable import HearthCore

private typealias IntMap = PersistentSortedMap<Int, Int>

private func pairs<K, V>(_ iterator: PersistentSortedMap<K, V>.Iterator) -> [(K, V)] {
    var it = iterator
    var out: [(K, V)] = []
    while let e = it.next() { out.append((e.key, e.value)) }
    return out
}

private func keys<K, V>(_ iterator: PersistentSortedMap<K, V>.Iterator) -> [K] {
    pairs(iterator).map(\.0)
}

private func contents(_ map: IntMap) -> [Int: Int] {
    var d: [Int: Int] = [:]
    for (k, v) in map { d[k] = v }
    return d
}

/// Builds a map holding `keys` (value = key * 10), inserted in a shuffled order.
private func makeMap(_ keys: [Int], maxKeysPerNode: Int = IntMap.defaultMaxKeysPerNode, seed: UInt64 = 1) -> IntMap {
    var rng = SplitMix64(seed: seed)
    var map = IntMap(maxKeysPerNode: maxKeysPerNode)
    for k in keys.shuffled(using: &rng) { map.updateValue(k * 10, forKey: k) }
    return map
}

/// Brute-force reference for `differences(from:isSame:)` using value equality.
private func bruteForceDiff(new: [Int: Int], old: [Int: Int]) -> [(key: Int, old: Int?, new: Int?)] {
    Set(new.keys).union(old.keys).sorted().compactMap { k in
        new[k] == old[k] ? nil : (k, old[k], new[k])
    }
}

/// The same reference, computed by merging two ascending (key, value) lists.
private func bruteForceDiff(new: [(Int, Int)], old: [(Int, Int)]) -> [(key: Int, old: Int?, new: Int?)] {
    var result: [(key: Int, old: Int?, new: Int?)] = []
    var i = 0, j = 0
    while i < new.count || j < old.count {
        if j == old.count || (i < new.count && new[i].0 < old[j].0) {
            result.append((new[i].0, nil, new[i].1))
            i += 1
        } else if i == new.count || old[j].0 < new[i].0 {
            result.append((old[j].0, old[j].1, nil))
            j += 1
        } else {
            if new[i].1 != old[j].1 { result.append((new[i].0, old[j].1, new[i].1)) }
            i += 1
            j += 1
        }
    }
    return result
}

private func sameDiff(_ a: [(key: Int, old: Int?, new: Int?)], _ b: [(key: Int, old: Int?, new: Int?)]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.old == $1.old && $0.new == $1.new }
}

@Suite("PersistentSortedMap")
struct PersistentSortedMapTests {
    @Test func emptyMap() {
        var map = IntMap()
        #expect(map.count == 0)
        #expect(map.isEmpty)
        #expect(map[0] == nil)
        #expect(map.first == nil)
        #expect(map.last == nil)
        #expect(Array(map).isEmpty)
        for descending in [false, true] {
            for inclusive in [false, true] {
                #expect(keys(map.elements(from: nil, inclusive: inclusive, descending: descending)).isEmpty)
                #expect(keys(map.elements(from: 5, inclusive: inclusive, descending: descending)).isEmpty)
            }
        }
        #expect(map.removeValue(forKey: 3) == nil)
        #expect(map.isEmpty)
        #expect(map.isIdentical(to: IntMap()))
        #expect(map.differences(from: IntMap(), isSame: ==).isEmpty)
        #expect(map.invariantViolation() == nil)
        var it = map.makeIterator()
        #expect(it.next() == nil)
        #expect(it.next() == nil)
    }

    @Test func insertUpdateRemoveLookup() {
        var map = PersistentSortedMap<String, Int>()
        #expect(map.updateValue(1, forKey: "b") == nil)
        #expect(map.updateValue(2, forKey: "a") == nil)
        #expect(map.updateValue(3, forKey: "c") == nil)
        #expect(map.count == 3)
        #expect(!map.isEmpty)
        #expect(map["a"] == 2)
        #expect(map["b"] == 1)
        #expect(map["c"] == 3)
        #expect(map["d"] == nil)
        #expect(map[""] == nil)

        #expect(map.updateValue(20, forKey: "a") == 2)
        #expect(map["a"] == 20)
        #expect(map.count == 3)

        #expect(map.removeValue(forKey: "b") == 1)
        #expect(map.removeValue(forKey: "b") == nil)
        #expect(map["b"] == nil)
        #expect(map.count == 2)
        #expect(map.map(\.key) == ["a", "c"])
        #expect(map.map(\.value) == [20, 3])
        #expect(map.invariantViolation() == nil)

        // Many keys, so updates and removals hit internal nodes as well as leaves.
        var big = makeMap(Array(0..<3000))
        #expect(big.height >= 1)
        for k in stride(from: 0, to: 3000, by: 7) {
            #expect(big.updateValue(-k, forKey: k) == k * 10)
        }
        for k in stride(from: 0, to: 3000, by: 3) {
            #expect(big.removeValue(forKey: k) == (k % 7 == 0 ? -k : k * 10))
        }
        #expect(big.count == 3000 - 1000)
        for k in 0..<3000 {
            let expected: Int? = k % 3 == 0 ? nil : (k % 7 == 0 ? -k : k * 10)
            #expect(big[k] == expected)
        }
        #expect(big[-1] == nil)
        #expect(big[3000] == nil)
        #expect(big.invariantViolation() == nil)
    }

    @Test func orderedIteration() {
        let all = Array(stride(from: 0, to: 10_000, by: 2))
        for fanout in [3, 4, IntMap.defaultMaxKeysPerNode] {
            let map = makeMap(all, maxKeysPerNode: fanout)
            #expect(map.invariantViolation() == nil)
            #expect(map.underestimatedCount == all.count)
            let ascending = Array(map)
            #expect(ascending.map(\.key) == all)
            #expect(ascending.allSatisfy { $0.value == $0.key * 10 })
            #expect(keys(map.elements(from: nil, inclusive: true, descending: true)) == all.reversed())
        }

        var rng = SplitMix64(seed: 99)
        var strings = PersistentSortedMap<String, Int>()
        var words: Set<String> = []
        for i in 0..<2000 {
            let w = "doc/\(rng.next() % 100_000)"
            words.insert(w)
            strings.updateValue(i, forKey: w)
        }
        #expect(strings.map(\.key) == words.sorted())
        #expect(keys(strings.elements(from: nil, inclusive: false, descending: true)) == words.sorted().reversed())
    }

    /// The upcoming values of the current leaf are exactly what iteration produces next from
    /// it: in key order, the first next when ascending, the last when descending.
    @Test func upcomingValuesInLeafAreWhatComesNext() {
        let all = Array(0..<500)
        for fanout in [3, 7, IntMap.defaultMaxKeysPerNode] {
            let map = makeMap(all, maxKeysPerNode: fanout)
            for descending in [false, true] {
                var it = map.elements(from: 123, inclusive: true, descending: descending)
                var produced: [Int] = []
                while true {
                    let upcoming = it.withUpcomingValuesInLeaf { Array($0) }
                    let next = (0..<upcoming.count).compactMap { _ in it.next()?.value }
                    #expect(next == (descending ? upcoming.reversed() : upcoming))
                    produced += next
                    // An exhausted leaf: the next element comes from an ancestor (or none).
                    guard let (_, value) = it.next() else { break }
                    produced.append(value)
                }
                #expect(produced == (descending ? all.prefix(124).reversed() : Array(all.dropFirst(123))).map { $0 * 10 })
            }
        }
    }

    @Test(arguments: [1, 2, 5, 64, 2000])
    func rangeBoundaries(size: Int) {
        // Keys 0, 2, 4, …: odd bounds fall between keys, -1 and 2 * size are outside.
        let all = (0..<size).map { $0 * 2 }
        for fanout in [3, IntMap.defaultMaxKeysPerNode] {
            let map = makeMap(all, maxKeysPerNode: fanout)
            /// The first `limit` keys the iteration should produce (binary search on `all`).
            func expected(_ bound: Int?, _ inclusive: Bool, _ descending: Bool, limit: Int) -> [Int] {
                func partition(_ isBefore: (Int) -> Bool) -> Int {
                    var lo = 0, hi = all.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if isBefore(all[mid]) { lo = mid + 1 } else { hi = mid }
                    }
                    return lo
                }
                if descending {
                    let end = bound.map { b in inclusive ? partition { $0 <= b } : partition { $0 < b } } ?? all.count
                    return Array(all[max(0, end - limit)..<end].reversed())
                }
                let start = bound.map { b in inclusive ? partition { $0 < b } : partition { $0 <= b } } ?? 0
                return Array(all[start..<min(all.count, start + limit)])
            }
            let bounds: [Int?] = [nil] + Array(-1...(2 * size))
            for bound in bounds {
                for inclusive in [false, true] {
                    for descending in [false, true] {
                        let iterator = map.elements(from: bound, inclusive: inclusive, descending: descending)
                        let message: Comment = "bound \(String(describing: bound)) inclusive \(inclusive) descending \(descending)"
                        if size <= 64 || bound == nil || bound! % 97 == 0 || bound! < 3 || bound! > 2 * size - 3 {
                            #expect(keys(iterator) == expected(bound, inclusive, descending, limit: size), message)
                        } else {
                            // Large map: check the start position and a few steps only.
                            var it = iterator
                            var got: [Int] = []
                            while got.count < 3, let e = it.next() { got.append(e.key) }
                            #expect(got == expected(bound, inclusive, descending, limit: 3), message)
                        }
                    }
                }
            }
            // The named boundary cases, spelled out.
            let last = 2 * (size - 1)
            #expect(keys(map.elements(from: -1, inclusive: true, descending: false)) == all)  // before first
            #expect(keys(map.elements(from: -1, inclusive: true, descending: true)).isEmpty)
            #expect(keys(map.elements(from: last + 1, inclusive: true, descending: false)).isEmpty)  // after last
            #expect(keys(map.elements(from: last + 1, inclusive: false, descending: true)) == all.reversed())
            #expect(keys(map.elements(from: last, inclusive: true, descending: false)) == [last])  // exact hit
            #expect(keys(map.elements(from: last, inclusive: false, descending: false)).isEmpty)
            #expect(keys(map.elements(from: 0, inclusive: true, descending: true)) == [0])
            #expect(keys(map.elements(from: 0, inclusive: false, descending: true)).isEmpty)
            #expect(pairs(map.elements(from: 0, inclusive: true, descending: false)).first.map { $0.1 } == 0)
            if size >= 2 {
                // Between keys 0 and 2.
                #expect(keys(map.elements(from: 1, inclusive: true, descending: false)).first == 2)
                #expect(keys(map.elements(from: 1, inclusive: false, descending: false)).first == 2)
                #expect(keys(map.elements(from: 1, inclusive: true, descending: true)) == [0])
                #expect(keys(map.elements(from: 1, inclusive: false, descending: true)) == [0])
            }
        }
    }

    @Test func firstAndLast() {
        var map = IntMap(maxKeysPerNode: 4)
        map.updateValue(50, forKey: 5)
        #expect(map.first?.key == 5 && map.first?.value == 50)
        #expect(map.last?.key == 5 && map.last?.value == 50)
        var rng = SplitMix64(seed: 7)
        var reference: [Int: Int] = [5: 50]
        for _ in 0..<3000 {
            let k = Int(rng.next() % 5000)
            if rng.next() % 3 == 0 {
                map.removeValue(forKey: k)
                reference[k] = nil
            } else {
                map.updateValue(k + 1, forKey: k)
                reference[k] = k + 1
            }
            let minKey = reference.keys.min(), maxKey = reference.keys.max()
            #expect(map.first?.key == minKey)
            #expect(map.last?.key == maxKey)
            #expect(map.first?.value == minKey.flatMap { reference[$0] })
            #expect(map.last?.value == maxKey.flatMap { reference[$0] })
        }
        #expect(map.invariantViolation() == nil)
    }

    @Test(arguments: [3, IntMap.defaultMaxKeysPerNode])
    func structuralIndependence(fanout: Int) {
        let original = makeMap(Array(0..<5000), maxKeysPerNode: fanout)
        let originalPairs = Array(original).map { [$0.key, $0.value] }
        var copy = original
        #expect(copy.isIdentical(to: original))

        for k in 5000..<7000 { copy.updateValue(k, forKey: k) }          // splits
        for k in stride(from: 0, to: 5000, by: 2) { copy.removeValue(forKey: k) }  // merges
        for k in stride(from: 1, to: 5000, by: 10) { copy.updateValue(-1, forKey: k) }
        #expect(!copy.isIdentical(to: original))

        #expect(original.count == 5000)
        #expect(Array(original).map { [$0.key, $0.value] } == originalPairs)
        #expect(original.invariantViolation() == nil)
        #expect(copy.count == 5000 - 2500 + 2000)
        #expect(copy[1] == -1)
        #expect(copy[3] == 30)
        #expect(copy[0] == nil)
        #expect(copy[6999] == 6999)
        #expect(copy.invariantViolation() == nil)

        // The other direction: mutating the original leaves a snapshot alone.
        var mutated = original
        let snapshot = mutated
        for k in 0..<5000 { mutated.removeValue(forKey: k) }
        #expect(mutated.isEmpty)
        #expect(snapshot.count == 5000)
        #expect(Array(snapshot).map { [$0.key, $0.value] } == originalPairs)
    }

    @Test(arguments: [3, IntMap.defaultMaxKeysPerNode])
    func pathCopyingCopiesOnlyOnePath(fanout: Int) {
        let base = makeMap(Array(0..<5000), maxKeysPerNode: fanout)
        let baseNodes = base.nodeIdentities
        #expect(base.height >= 2)

        // Updating an existing key in a shared map copies exactly the root-to-node path.
        for key in [0, 2500, 4999] {
            var copy = base
            copy.updateValue(-1, forKey: key)
            let fresh = copy.nodeIdentities.subtracting(baseNodes)
            #expect(fresh.count >= 1 && fresh.count <= base.height + 1)
            #expect(copy.nodeIdentities.count == baseNodes.count)
        }

        // A uniquely owned map mutates in place: no node is replaced by a value update.
        var unique = makeMap(Array(0..<5000), maxKeysPerNode: fanout)
        let before = unique.nodeIdentities
        for k in stride(from: 0, to: 5000, by: 11) { unique.updateValue(0, forKey: k) }
        #expect(unique.nodeIdentities == before)

        // Removing an absent key from a shared map copies nothing.
        var copy = base
        #expect(copy.removeValue(forKey: 123_456) == nil)
        #expect(copy.isIdentical(to: base))
    }

    @Test(arguments: [3, IntMap.defaultMaxKeysPerNode])
    func replaceAtLookedUpPosition(fanout: Int) {
        let base = makeMap(Array(0..<5000), maxKeysPerNode: fanout)
        let baseNodes = base.nodeIdentities
        var map = base
        #expect(map.lookup(5000) == nil)
        // Keys in leaves and in internal nodes, in a shared map: the snapshot keeps its values.
        var replaced: [Int] = []
        for key in stride(from: 1, to: 5000, by: 7) {
            let found = map.lookup(key)
            #expect(found?.value == key * 10)
            guard let position = found?.position else { continue }
            map.replaceValue(at: position, with: -key)
            replaced.append(key)
        }
        #expect(replaced.count > 600)
        #expect(Array(map).filter { $0.value < 0 }.map(\.key) == replaced)
        #expect(replaced.allSatisfy { map[$0] == -$0 })
        #expect(map.count == 5000 && map.invariantViolation() == nil)
        #expect(base.nodeIdentities == baseNodes)
        #expect(Array(base).allSatisfy { $0.value == $0.key * 10 })
    }

    @Test(arguments: [3, 4, 5, IntMap.defaultMaxKeysPerNode])
    func removalDownToEmpty(fanout: Int) {
        let n = 4000
        var map = makeMap(Array(0..<n), maxKeysPerNode: fanout, seed: UInt64(fanout))
        let full = map
        var rng = SplitMix64(seed: 42)
        var remaining = Set(0..<n)
        for (step, k) in Array(0..<n).shuffled(using: &rng).enumerated() {
            #expect(map.removeValue(forKey: k) == k * 10)
            remaining.remove(k)
            if step % 250 == 0 {
                #expect(map.invariantViolation() == nil)
                #expect(map.map(\.key) == remaining.sorted())
            }
        }
        #expect(map.isEmpty)
        #expect(map.count == 0)
        #expect(map.height == 0)
        #expect(map.nodeIdentities.isEmpty)
        #expect(map.first == nil && map.last == nil)
        #expect(map.invariantViolation() == nil)
        // Removing in ascending order (always from the leftmost leaf) and descending order.
        for ascending in [true, false] {
            var m = full
            for k in (ascending ? Array(0..<n) : (0..<n).reversed()) {
                #expect(m.removeValue(forKey: k) != nil)
            }
            #expect(m.isEmpty && m.invariantViolation() == nil)
        }
        // The emptied map is reusable, and the snapshot taken before is intact.
        map.updateValue(1, forKey: 1)
        #expect(Array(map).map(\.key) == [1])
        #expect(full.count == n && full.invariantViolation() == nil)
        #expect(full.map(\.key) == Array(0..<n))
    }

    @Test(arguments: [3, IntMap.defaultMaxKeysPerNode])
    func differencesMatchBruteForce(fanout: Int) {
        var rng = SplitMix64(seed: 2024 + UInt64(fanout))
        var map = makeMap(Array(0..<1500).map { $0 * 3 }, maxKeysPerNode: fanout)
        var versions: [IntMap] = [map, IntMap(maxKeysPerNode: fanout)]
        for round in 0..<12 {
            // A batch of mutations: small batches early, large ones later.
            let batch = round < 6 ? 1 + round : 100 * round
            for _ in 0..<batch {
                let k = Int(rng.next() % 4_500)
                switch rng.next() % 3 {
                case 0: map.removeValue(forKey: k)
                case 1: map.updateValue(Int(rng.next() % 4), forKey: k)
                default: map.updateValue(k * 3, forKey: k)  // sometimes the same value again
                }
            }
            versions.append(map)
        }
        // Restore an old version, then diverge from it again.
        var restored = versions[3]
        restored.updateValue(-5, forKey: 42)
        restored.removeValue(forKey: 3)
        versions.append(restored)
        versions.append(versions[2])

        let snapshots = versions.map { Array($0).map { ($0.key, $0.value) } }
        // Consecutive versions (few changes), far-apart versions, the empty map, and the
        // restored versions against everything, in both directions.
        let last = versions.count - 1
        var pairs: Set<[Int]> = []
        for i in versions.indices {
            for j in [i - 1, 1, 7, last] where versions.indices.contains(j) {
                pairs.formUnion([[i, j], [j, i]])
            }
        }
        #expect(pairs.count > 40)
        for pair in pairs {
            let (i, j) = (pair[0], pair[1])
            let got = versions[i].differences(from: versions[j], isSame: ==)
            #expect(sameDiff(got, bruteForceDiff(new: snapshots[i], old: snapshots[j])), "versions \(i) vs \(j)")
        }
    }

    @Test func differencesSkipSharedSubtrees() {
        let base = makeMap(Array(0..<20_000))
        var changed = base
        changed.updateValue(-1, forKey: 10_000)
        changed.removeValue(forKey: 17)
        changed.updateValue(5, forKey: 20_001)

        var calls = 0
        let diff = changed.differences(from: base) { old, new in
            calls += 1
            return old == new
        }
        #expect(sameDiff(diff, [(17, 170, nil), (10_000, 100_000, -1), (20_001, nil, 5)]))
        // Only elements of the few copied nodes are compared, not the 20,000 elements.
        #expect(calls > 0 && calls < 3 * (base.height + 1) * 2 * IntMap.defaultMaxKeysPerNode)

        // Restoring the old version: the diff back is the exact inverse, just as cheap.
        calls = 0
        let back = base.differences(from: changed) { calls += 1; return $0 == $1 }
        #expect(sameDiff(back, [(17, nil, 170), (10_000, -1, 100_000), (20_001, 5, nil)]))
        #expect(calls < 3 * (base.height + 1) * 2 * IntMap.defaultMaxKeysPerNode)

        // Identical versions short-circuit without any comparison.
        calls = 0
        #expect(base.differences(from: base) { _, _ in calls += 1; return false }.isEmpty)
        #expect(calls == 0)

        // `isSame` decides identity of unshared values: claiming everything differs reports
        // only the touched neighbourhood, never elements of shared subtrees.
        let noisy = changed.differences(from: base) { _, _ in false }
        #expect(noisy.count < 3 * (base.height + 1) * 2 * IntMap.defaultMaxKeysPerNode)
        #expect(noisy.contains { $0.key == 10_000 })
    }

    @Test(arguments: [3, 4, IntMap.defaultMaxKeysPerNode])
    func randomizedAgainstModel(fanout: Int) {
        var rng = SplitMix64(seed: 0xC0FFEE &+ UInt64(fanout))
        var map = IntMap(maxKeysPerNode: fanout)
        var model: [Int: Int] = [:]
        var sortedKeys: [Int] = []
        var snapshots: [(map: IntMap, pairs: [[Int]])] = []
        let keySpace = 3000

        func insertionPoint(_ k: Int) -> Int {
            var lo = 0, hi = sortedKeys.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if sortedKeys[mid] < k { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        for step in 0..<20_000 {
            let k = Int(rng.next() % UInt64(keySpace)) - 10
            switch rng.next() % 10 {
            case 0..<5:
                let v = Int(rng.next() % 1000)
                #expect(map.updateValue(v, forKey: k) == model[k])
                if model[k] == nil { sortedKeys.insert(k, at: insertionPoint(k)) }
                model[k] = v
            case 5..<8:
                #expect(map.removeValue(forKey: k) == model[k])
                if model[k] != nil { sortedKeys.remove(at: insertionPoint(k)) }
                model[k] = nil
            default:
                #expect(map[k] == model[k])
            }
            #expect(map.count == model.count)

            if step % 97 == 0 {
                // Random range iteration in a random direction.
                let bound: Int? = rng.next() % 8 == 0 ? nil : Int(rng.next() % UInt64(keySpace + 20)) - 20
                let inclusive = rng.next() % 2 == 0
                let descending = rng.next() % 2 == 0
                var expected: [Int]
                if let b = bound {
                    expected = descending
                        ? sortedKeys.filter { inclusive ? $0 <= b : $0 < b }.reversed()
                        : sortedKeys.filter { inclusive ? $0 >= b : $0 > b }
                } else {
                    expected = descending ? sortedKeys.reversed() : sortedKeys
                }
                let got = pairs(map.elements(from: bound, inclusive: inclusive, descending: descending))
                #expect(got.map(\.0) == expected)
                #expect(got.allSatisfy { model[$0.0] == $0.1 })
            }
            if step % 1000 == 0 {
                #expect(map.invariantViolation() == nil)
                #expect(map.map(\.key) == sortedKeys)
                #expect(map.allSatisfy { model[$0.key] == $0.value })
            }
            if step % 4000 == 1 {
                snapshots.append((map, sortedKeys.map { [$0, model[$0]!] }))
            }
            if step % 2500 == 0 {
                for snapshot in snapshots {
                    #expect(Array(snapshot.map).map { [$0.key, $0.value] } == snapshot.pairs)
                }
            }
        }
        #expect(map.map(\.key) == sortedKeys)
        #expect(map.invariantViolation() == nil)
        #expect(snapshots.count == 5)
        for snapshot in snapshots {
            #expect(snapshot.map.count == snapshot.pairs.count)
            #expect(Array(snapshot.map).map { [$0.key, $0.value] } == snapshot.pairs)
            #expect(snapshot.map.invariantViolation() == nil)
            // Diffs between the final map and each snapshot agree with the model.
            let old = Dictionary(uniqueKeysWithValues: snapshot.pairs.map { ($0[0], $0[1]) })
            #expect(sameDiff(map.differences(from: snapshot.map, isSame: ==), bruteForceDiff(new: model, old: old)))
        }
    }

    @Test func iteratorIsUnaffectedByLaterMutation() {
        var map = makeMap(Array(0..<1000))
        var it = map.makeIterator()
        _ = it.next()
        for k in 0..<1000 { map.updateValue(-k, forKey: k) }
        for k in 0..<500 { map.removeValue(forKey: k * 2) }
        var rest: [Int] = []
        while let e = it.next() {
            #expect(e.value == e.key * 10)
            rest.append(e.key)
        }
        #expect(rest == Array(1..<1000))

        // A single-leaf map too (the iterator shares the leaf's buffers).
        var small = makeMap([1, 2, 3])
        var smallIt = small.makeIterator()
        small.updateValue(0, forKey: 2)
        small.removeValue(forKey: 3)
        #expect(pairs(smallIt).map { [$0.0, $0.1] } == [[1, 10], [2, 20], [3, 30]])
        #expect(smallIt.next()?.key == 1)
    }

    @Test func snapshotsAreReadableConcurrently() async {
        var map = makeMap(Array(0..<5000))
        let snapshot = map
        let sums = await withTaskGroup(of: Int.self) { group in
            for t in 0..<4 {
                group.addTask {
                    var sum = 0
                    for (k, v) in snapshot where k % 4 == t { sum += v }
                    return sum
                }
            }
            for k in 0..<5000 { map.updateValue(0, forKey: k) }
            return await group.reduce(0, +)
        }
        #expect(sums == (0..<5000).reduce(0) { $0 + $1 * 10 })
        #expect(map.allSatisfy { $0.value == 0 })
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 50, 63, 64, 100, 1000, 4097])
    func bulkBuildFromSortedElementsIsAValidTree(count: Int) {
        let elements = (0..<count).map { (key: $0 * 2, value: "v\($0)") }
        for maxKeys in [3, 4, 5, 63] {
            var map = PersistentSortedMap<Int, String>(sortedElements: elements, maxKeysPerNode: maxKeys)
            #expect(map.invariantViolation() == nil, "count \(count), maxKeys \(maxKeys)")
            #expect(map.count == count)
            #expect(Array(map).map(\.key) == elements.map(\.key))
            #expect(elements.allSatisfy { map[$0.key] == $0.value } && map[1] == nil)
            // It stays a working map.
            map.updateValue("new", forKey: 1)
            map.removeValue(forKey: 0)
            #expect(map.invariantViolation() == nil)
            #expect(map[1] == "new" && map[0] == nil)
        }
    }

    @Test func insertsIntoABuiltMapKeepNodesAtTheirSize() {
        // Bulk-built nodes have room for one more key, as inserted ones do: a full node that
        // takes a key splits without first doubling its arrays (which the half it keeps
        // would go on holding).
        let elements = (0..<5_000).map { (key: $0 * 2, value: $0) }
        var map = PersistentSortedMap<Int, Int>(sortedElements: elements)
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2_000 { map.updateValue(0, forKey: Int(rng.next() % 5_000) * 2 + 1) }
        #expect(map.invariantViolation() == nil)
        // (An array's capacity is what its allocation holds, a little over what was asked:
        // 65-67 here, against 123-127 for a doubled node.)
        let limit = (map.maxKeys + 2) * 3 / 2
        var nodes = [map.root!], doubled = 0
        while let node = nodes.popLast() {
            if node.keys.capacity > limit || node.values.capacity > limit || node.children.capacity > limit {
                doubled += 1
            }
            nodes += node.children
        }
        #expect(doubled == 0)
    }
}

@Suite("PersistentSortedMap.splitKeys")
struct PersistentSortedMapSplitTests {
    @Test("keys that cut the map into runs of about equal size", arguments: [4, 63])
    func balancedRuns(maxKeys: Int) {
        for (n, shuffled) in [(5_000, true), (5_000, false), (777, true)] {
            var map = IntMap(maxKeysPerNode: maxKeys)
            if shuffled { map = makeMap(Array(0..<n), maxKeysPerNode: maxKeys) } else {
                for k in 0..<n { map.updateValue(k, forKey: k) }  // ascending inserts leave leaves half full
            }
            for parts in [2, 8, 32] {
                let splits = map.splitKeys(parts: parts)
                if n / maxKeys < parts { continue }  // too few leaves: checked below
                #expect(splits.count == parts - 1)
                #expect(splits == splits.sorted() && Set(splits).count == splits.count)
                // Run sizes: keys before the first split, between splits, after the last.
                let bounds = [0] + splits + [n]
                let sizes = zip(bounds, bounds.dropFirst()).map { $1 - $0 }
                let even = n / parts
                #expect(sizes.allSatisfy { $0 >= even / 3 && $0 <= even * 3 }, "n \(n) parts \(parts): \(sizes)")
            }
        }
    }

    @Test("no keys when the map has fewer leaves than parts")
    func tooFewLeaves() {
        #expect(IntMap().splitKeys(parts: 2).isEmpty)
        #expect(makeMap(Array(0..<10)).splitKeys(parts: 2).isEmpty)  // one leaf
        #expect(makeMap(Array(0..<10), maxKeysPerNode: 4).splitKeys(parts: 2).count == 1)
        #expect(makeMap(Array(0..<1000)).splitKeys(parts: 1).isEmpty)
    }
}
