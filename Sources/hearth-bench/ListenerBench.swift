import FirebaseFirestore
import Foundation
import HearthLock
import SeededRandom

/// Listener workloads, on private callback queues so delivery is measured rather
/// than the main run loop:
/// - l_eq_commit: 1,000 query listeners with different equality filters on a
///   10,000-document collection; time from a commit changing one document until every
///   resulting snapshot ran (one snapshot per commit: unrelated listeners get nothing).
/// - l_initial_10k: time until a 10,000-document query listener's first snapshot ran (its
///   documents materialised).
/// - l_writes_100k: 10,000 writes under a listener on a 100,000-document collection; a
///   client-side replica rebuilt only from documentChanges (positions included) must end
///   equal to the collection, with exactly one snapshot per write.
/// - l_pending_1k: 1,000 fire-and-forget `setData` calls issued in one turn of the callback
///   queue (as app code on the main queue writes) under a listener with metadata changes
///   on a 1,000-document collection, until all are acknowledged and delivered: each write
///   is shown pending at once while up to `LocalView.maxUnacknowledged` earlier ones still
///   wait, so this is what a write costs with many pending.
func listenerBench(only: String? = nil) async throws -> [Measurement] {
    let workloads: [(name: String, run: () async throws -> Measurement)] = [
        ("l_eq_commit", eqCommitListeners), ("l_initial_10k", initialSnapshot),
        ("l_writes_100k", writesUnderListener), ("l_pending_1k", pendingWrites),
    ]
    var results: [Measurement] = []
    for w in workloads where only.map({ $0 == w.name }) ?? true { results.append(try await w.run()) }
    return results
}

/// A database whose listeners run on their own serial queue.
private func database(_ label: String) -> Firestore {
    let db = Firestore.inMemory(projectID: "bench-listen")
    let settings = db.settings
    settings.dispatchQueue = DispatchQueue(label: "hearth-bench.\(label)")
    db.settings = settings
    return db
}

/// `count` documents in 500-write batches.
private func fill(_ collection: CollectionReference, _ db: Firestore, count: Int, _ fields: (Int) -> [String: Any]) async throws {
    for start in stride(from: 0, to: count, by: 500) {
        let batch = db.batch()
        for i in start..<min(start + 500, count) { batch.setData(fields(i), forDocument: collection.document(Workload.id(i))) }
        try await batch.commit()
    }
}

/// l_eq_commit: 1,000 equality listeners; a commit's time until every snapshot ran.
private func eqCommitListeners() async throws -> Measurement {
    let db = database("eq")
    let c = db.collection("listen")
    try await fill(c, db, count: 10_000) { ["g": $0 % 1000, "v": 0] }
    let delivered = Counter()
    let registrations = (0..<1000).map { k in
        c.whereField("g", isEqualTo: k).addSnapshotListener { snap, _ in if snap != nil { delivered.add(1) } }
    }
    await db.waitUntilIdle()
    check("l_eq_commit initial", delivered.value, 1000)
    let rounds = 2000
    var latencies: [Double] = []
    for r in 0..<rounds {
        let ref = c.document(Workload.id((r * 7919) % 10_000))
        latencies.append(try await time {
            try await ref.updateData(["v": r + 1])
            await db.waitUntilIdle()
        })
    }
    check("l_eq_commit snapshots", delivered.value, 1000 + rounds)
    registrations.forEach { $0.remove() }
    latencies.sort()
    var m = Measurement(workload: "l_eq_commit", n: 10_000, ops: rounds, seconds: latencies.reduce(0, +))
    m.extra["listeners"] = "1000"
    m.extra["us_p50"] = String(format: "%.1f", latencies[rounds / 2] * 1e6)
    m.extra["us_p99"] = String(format: "%.1f", latencies[rounds * 99 / 100] * 1e6)
    m.extra["us_mean"] = String(format: "%.1f", latencies.reduce(0, +) / Double(rounds) * 1e6)
    return m
}

/// l_initial_10k: a 10,000-document query listener's first snapshot.
private func initialSnapshot() async throws -> Measurement {
    let db = database("initial")
    let c = db.collection("listen")
    try await fill(c, db, count: 10_000) { ["g": $0 % 1000, "v": $0] }
    var samples: [Double] = []
    for _ in 0..<20 {
        let size = Counter()
        var registration: ListenerRegistration?
        samples.append(await time {
            registration = c.order(by: "v").addSnapshotListener { snap, _ in size.add(snap?.documents.count ?? 0) }
            await db.waitUntilIdle()
        })
        check("l_initial_10k size", size.value, 10_000)
        registration?.remove()
    }
    samples.sort()
    var m = Measurement(workload: "l_initial_10k", n: 10_000, ops: samples.count, seconds: samples.reduce(0, +))
    m.extra["ms_p50"] = String(format: "%.2f", samples[samples.count / 2] * 1e3)
    m.extra["ms_max"] = String(format: "%.2f", samples.last! * 1e3)
    return m
}

/// l_writes_100k: random writes under a listener on 100,000 documents, checked by a replica.
private func writesUnderListener() async throws -> Measurement {
    let db = database("writes")
    let c = db.collection("listen")
    let n = 100_000
    try await fill(c, db, count: n) { ["v": $0] }
    let replica = Replica()
    let registration = c.addSnapshotListener { snap, _ in if let snap { replica.apply(snap) } }
    await db.waitUntilIdle()
    var rng = SplitMix64(seed: 7)
    var existing = Array(0..<n)
    var next = n
    let writes = 10_000
    let seconds = try await time {
        for w in 0..<writes {
            switch rng.below(5) {
            case 0: // create
                try await c.document(Workload.id(next)).setData(["v": w])
                existing.append(next)
                next += 1
            case 1: // delete
                let i = rng.below(existing.count)
                try await c.document(Workload.id(existing[i])).delete()
                existing.swapAt(i, existing.count - 1)
                existing.removeLast()
            default: // update
                let id = existing[rng.below(existing.count)]
                try await c.document(Workload.id(id)).updateData(["v": -w - 1])
            }
        }
        await db.waitUntilIdle()
    }
    registration.remove()
    let final = try await c.getDocuments()
    check("l_writes_100k snapshots", replica.snapshots, 1 + writes)
    check("l_writes_100k violations", replica.violations, 0)
    check("l_writes_100k replica", replica.matches(final) ? 1 : 0, 1)
    return Measurement(workload: "l_writes_100k", n: n, ops: writes, seconds: seconds,
                       extra: ["final_docs": String(final.count)])
}

/// l_pending_1k: 1,000 fire-and-forget writes in one turn of the callback queue, under a
/// listener with metadata changes, until acknowledged and delivered.
private func pendingWrites() async throws -> Measurement {
    let queue = DispatchQueue(label: "hearth-bench.pending")
    let db = Firestore.inMemory(projectID: "bench-listen")
    let settings = db.settings
    settings.dispatchQueue = queue
    db.settings = settings
    let c = db.collection("listen")
    try await fill(c, db, count: 1000) { ["v": $0] }
    let last = LastSnapshot()
    let registration = c.addSnapshotListener(includeMetadataChanges: true) { snap, _ in if let snap { last.set(snap) } }
    await db.waitUntilIdle()
    let writes = 1000
    var samples: [Double] = []
    for round in 0..<5 {
        samples.append(try await time {
            await withHandOffContinuation { (done: HandOffContinuation<Void, Never>) in
                queue.async {
                    for i in 0..<writes { c.document(Workload.id(i)).setData(["v": round * writes + i]) }
                    done.resume()
                }
            }
            try await db.waitForPendingWrites()
            await db.waitUntilIdle()
        })
        let (count, pending, sum) = last.summary
        check("l_pending_1k size", count, 1000)
        check("l_pending_1k pending", pending ? 1 : 0, 0)
        check("l_pending_1k values", sum, (0..<writes).reduce(0) { $0 + round * writes + $1 })
    }
    registration.remove()
    samples.sort()
    var m = Measurement(workload: "l_pending_1k", n: 1000, ops: writes * samples.count, seconds: samples.reduce(0, +))
    m.extra["ms_p50"] = String(format: "%.2f", samples[samples.count / 2] * 1e3)
    return m
}

/// The last snapshot a listener got: its size, whether it had pending writes, the sum of `v`.
private final class LastSnapshot: @unchecked Sendable {
    private let lock = NSLock()
    private var snapshot: QuerySnapshot?
    func set(_ s: QuerySnapshot) { lock.withLock { snapshot = s } }
    var summary: (count: Int, pending: Bool, sum: Int) {
        lock.withLock {
            guard let s = snapshot else { return (0, false, 0) }
            return (s.count, s.metadata.hasPendingWrites, s.documents.reduce(0) { $0 + ($1.data()["v"] as? Int ?? 0) })
        }
    }
}

/// A thread-safe tally.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ n: Int) { lock.withLock { total += n } }
    var value: Int { lock.withLock { total } }
}

/// What an app that mirrors a query result from `documentChanges` would hold.
private final class Replica: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [String] = []
    private var values: [String: Int] = [:]
    private(set) var snapshots = 0
    /// Changes whose positions or kinds disagree with the replica.
    private(set) var violations = 0

    func apply(_ snapshot: QuerySnapshot) {
        lock.withLock {
            snapshots += 1
            for change in snapshot.documentChanges {
                let id = change.document.documentID
                if change.type != .added {
                    let old = Int(change.oldIndex)
                    if old >= ids.count || ids[old] != id { violations += 1; continue }
                    ids.remove(at: old)
                    values[id] = nil
                }
                if change.type != .removed {
                    let new = Int(change.newIndex)
                    if new > ids.count || values[id] != nil { violations += 1; continue }
                    ids.insert(id, at: new)
                    values[id] = change.document.data()["v"] as? Int
                }
            }
        }
    }

    func matches(_ result: QuerySnapshot) -> Bool {
        lock.withLock {
            ids == result.documents.map(\.documentID)
                && result.documents.allSatisfy { values[$0.documentID] == $0.data()["v"] as? Int }
        }
    }
}
