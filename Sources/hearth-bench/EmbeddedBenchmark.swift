import FirebaseFirestore
import Foundation

/// The embedded API's workloads (docs/benchmark-workload.md) on one database, in a fixed
/// order: each one's checks assume the state the ones before it left. Every workload checks
/// its results (exits on a mismatch) and appends its measurement.
final class EmbeddedBenchmark {
    let n: Int
    let seed: UInt64
    let workload: Workload
    let db: Firestore
    let bench: CollectionReference
    /// The first 100 documents' references (the increments' and transactions' documents).
    let refs: [DocumentReference]
    /// Documents (and their references) are made this many at a time, before each chunk's
    /// timer starts, and dropped after it: memory holds one chunk of the workload's input,
    /// whatever N (N = 10,000 is one chunk, as before).
    static let chunk = 10_000
    private(set) var results: [Measurement] = []
    /// Whether the reference sums recorded for the default workload apply.
    private var isReference: Bool { n == 10_000 && seed == 42 }

    init(n: Int, seed: UInt64) throws {
        self.n = n
        self.seed = seed
        workload = Workload(n: n, seed: seed)
        // The composite index g_combo needs, declared as an app would in firestore.indexes.json.
        let indexes = try IndexConfiguration(json: Data(#"{"indexes": [{"collectionGroup": "bench", "queryScope": "COLLECTION", "fields": [{"fieldPath": "category", "order": "ASCENDING"}, {"fieldPath": "score", "order": "ASCENDING"}]}]}"#.utf8))
        db = Firestore.inMemory(projectID: "bench", indexes: indexes, indexMode: .enforce)
        bench = db.collection("bench")
        refs = (0..<min(100, n)).map { [bench] in bench.document(Workload.id($0)) }
    }

    /// Every workload, in order; `repeats` > 0 adds the repeated query runs.
    static func run(n: Int, seed: UInt64, repeats: Int, insertOnly: Bool = false) async throws -> [Measurement] {
        let b = try EmbeddedBenchmark(n: n, seed: seed)
        try await b.insert()
        b.noteMemory()
        if insertOnly { return b.results }
        try await b.get()
        b.noteMemory()
        // The first run of c_eq and d_range includes building the automatic index it needs
        // (Hearth materialises an undeclared index on first use, then maintains it on every
        // commit); g_combo's composite is declared, so it was built empty at configuration
        // and kept by every insert since.
        // Only with --repeat: a held snapshot makes later commits copy the nodes it shares.
        let beforeQueries = repeats > 0 ? b.db.snapshot() : nil
        try await b.record("c_eq", b.equalityQueries())
        b.noteMemory()
        try await b.record("d_range", b.rangeQueries())
        b.noteMemory()
        try await b.batchWrites()
        b.noteMemory()
        try await b.increments()
        try await b.record("g_combo", b.comboQueries())
        b.noteMemory()
        // The same three workloads again, with their indexes in place: the steady-state cost.
        try await b.record("c_eq_warm", b.equalityQueries())
        try await b.record("d_range_warm", b.rangeQueries())
        try await b.record("g_combo_warm", b.comboQueries())
        try await b.record("d_range_pipeline", b.rangePipelines())
        try await b.record("g_combo_pipeline", b.comboPipelines())
        if repeats > 0 { try await b.repeatQueries(repeats, restoring: beforeQueries) }
        try await b.indexedInserts()
        b.noteMemory()
        try await b.transactions()
        try await b.snapshotRestore()
        b.noteMemory()
        return b.results
    }

    /// Adds the process's memory after the last workload to its measurement: resident
    /// (`rss_mb`, which never shrinks much once touched) and malloc's bytes in use
    /// (`heap_mb`, mallinfo2: what the live objects hold now).
    private func noteMemory() {
        guard !results.isEmpty else { return }
        if let rss = residentBytes() { results[results.count - 1].extra["rss_mb"] = String(format: "%.0f", Double(rss) / 1_048_576) }
        if let heap = heapBytesInUse() { results[results.count - 1].extra["heap_mb"] = String(format: "%.0f", Double(heap) / 1_048_576) }
        if let peak = peakResidentBytes() { results[results.count - 1].extra["peak_mb"] = String(format: "%.0f", Double(peak) / 1_048_576) }
    }

    /// A query workload's run: how long, how many queries, what to report beside.
    struct QueryRun {
        let seconds: Double
        let ops: Int
        let extra: [String: String]
    }

    private func record(_ name: String, _ run: QueryRun) {
        results.append(Measurement(workload: name, n: n, ops: run.ops, seconds: run.seconds, extra: run.extra))
    }

    /// Times `body` over `0..<count` in chunks: `prepare` makes a chunk's input untimed,
    /// `body` runs timed; the input is dropped before the next chunk is made.
    private func chunked<Input>(_ count: Int, prepare: (Range<Int>) -> Input,
                                _ body: (Range<Int>, Input) async throws -> Void) async rethrows -> Double {
        var seconds = 0.0
        lastCPUSeconds = 0
        for start in stride(from: 0, to: count, by: Self.chunk) {
            let range = start..<min(start + Self.chunk, count)
            let input = prepare(range)
            let cpu = DurableBenchmark.cpuSeconds()
            seconds += try await time { try await body(range, input) }
            lastCPUSeconds += DurableBenchmark.cpuSeconds() - cpu
        }
        return seconds
    }

    /// The process's CPU seconds (user + system) in the timed parts of the last `chunked`
    /// run: on a loaded machine, ops per CPU second compare where ops per second cannot.
    private var lastCPUSeconds = 0.0

    // MARK: Writes and reads

    /// a_insert: `setData` of every document, with the memory it took.
    func insert() async throws {
        let (bench, workload) = (self.bench, self.workload)
        let rssBefore = residentBytes()
        let a = try await chunked(n, prepare: { r in (r.map { bench.document(Workload.id($0)) }, workload.documents(r)) }) { r, input in
            for k in 0..<r.count { try await input.0[k].setData(input.1[k]) }
        }
        let rssAfter = residentBytes()
        check("a_insert", try await bench.getDocuments().count, n)
        var insert = Measurement(workload: "a_insert", n: n, ops: n, seconds: a)
        insert.extra["cpu_s"] = String(format: "%.2f", lastCPUSeconds)
        insert.extra["ops_per_cpu_s"] = String(format: "%.0f", Double(n) / lastCPUSeconds)
        if let before = rssBefore, let after = rssAfter {
            insert.extra["rss_mb"] = String(format: "%.1f", Double(after) / 1_048_576)
            insert.extra["rss_delta_mb"] = String(format: "%.1f", Double(after - before) / 1_048_576)
        }
        results.append(insert)
    }

    /// b_get: `getDocument` + `data()` of random documents.
    func get() async throws {
        let (bench, gets) = (self.bench, workload.gets)
        var scoreSum = 0
        let b = try await chunked(gets.count, prepare: { r in r.map { bench.document(Workload.id(gets[$0])) } }) { _, refs in
            for ref in refs {
                let doc = try await ref.getDocument()
                scoreSum += doc.data()!["score"] as! Int
            }
        }
        if isReference { check("b_get", scoreSum, 5_003_257_080) }
        results.append(Measurement(workload: "b_get", n: n, ops: n, seconds: b, extra: ["sum": String(scoreSum)]))
    }

    /// e_batch: 500-write batches into a second collection.
    func batchWrites() async throws {
        let (db, n, workload) = (self.db, self.n, self.workload)
        let batchCollection = db.collection("bench_batch")
        let e = try await chunked(n, prepare: { r in (r.map { batchCollection.document(Workload.id($0)) }, workload.documents(r)) }) { r, input in
            for start in stride(from: 0, to: r.count, by: 500) {
                let batch = db.batch()
                for k in start..<min(start + 500, r.count) { batch.setData(input.1[k], forDocument: input.0[k]) }
                try await batch.commit()
            }
        }
        check("e_batch", try await batchCollection.getDocuments().count, n)
        results.append(Measurement(workload: "e_batch", n: n, ops: n, seconds: e))
    }

    /// f_incr: `updateData` with an increment on 100 documents.
    func increments() async throws {
        let (refs, increments) = (self.refs, workload.increments)
        let f = try await time {
            for j in increments {
                try await refs[j].updateData(["counter": FieldValue.increment(Int64(1))])
            }
        }
        check("f_incr", try await counterSum(), n)
        results.append(Measurement(workload: "f_incr", n: n, ops: n, seconds: f))
    }

    /// h_insert_indexed: inserts into the collection whose category, score and
    /// (category, score) indexes are now materialised — the cost of index maintenance.
    func indexedInserts() async throws {
        let (bench, workload) = (self.bench, self.workload)
        func extra(_ r: Range<Int>) -> [DocumentReference] { r.map { bench.document(String(format: "x%08d", $0)) } }
        let h = try await chunked(n, prepare: { r in (extra(r), workload.documents(r)) }) { r, input in
            for k in 0..<r.count { try await input.0[k].setData(input.1[k]) }
        }
        results.append(Measurement(workload: "h_insert_indexed", n: n, ops: n, seconds: h, extra: ["indexes": "3"]))
        _ = try await chunked(n, prepare: extra) { _, refs in for ref in refs { try await ref.delete() } }
    }

    /// t_txn: transactional read-increment-write on the same 100 documents.
    func transactions() async throws {
        let (db, refs, increments) = (self.db, self.refs, workload.increments)
        let t = try await time {
            for j in increments {
                let ref = refs[j]
                _ = try await db.runTransaction { txn, errorPointer in
                    do {
                        let snap = try txn.getDocument(ref)
                        let value = snap.data()!["counter"] as! Int
                        txn.updateData(["counter": value + 1], forDocument: ref)
                    } catch let error as NSError {
                        errorPointer?.pointee = error
                    }
                    return nil
                }
            }
        }
        check("t_txn", try await counterSum(), 2 * n)
        results.append(Measurement(workload: "t_txn", n: n, ops: n, seconds: t))
    }

    /// s_snapshot_restore: `snapshot()` + `restore()` of the whole database (2N documents here).
    func snapshotRestore() async throws {
        let db = self.db
        let rounds = 100_000
        let s = await time {
            for _ in 0..<rounds { db.restore(db.snapshot()) }
        }
        check("s_snapshot_restore", try await bench.getDocuments().count, n)
        var snap = Measurement(workload: "s_snapshot_restore", n: n, ops: rounds, seconds: s)
        snap.extra["ns_per_op"] = String(format: "%.0f", s / Double(rounds) * 1e9)
        results.append(snap)
    }

    /// The increments' counters, summed over the first 100 documents.
    private func counterSum() async throws -> Int {
        var counters = 0
        for i in 0..<min(100, n) { counters += try await refs[i].getDocument().data()!["counter"] as! Int }
        return counters
    }

    // MARK: Queries (each can run again: warm, repeated, rebuilt)

    /// c_eq: equality on one field, every result materialised (`data()`), in ID order.
    func equalityQueries() async throws -> QueryRun {
        let (bench, categories) = (self.bench, workload.equalityCategories)
        var count = 0
        let seconds = try await time {
            for category in categories {
                let snap = try await bench.whereField("category", isEqualTo: category).getDocuments()
                for doc in snap.documents { count += doc.data().isEmpty ? 0 : 1 }
            }
        }
        check("c_eq", count, 2 * n)
        return QueryRun(seconds: seconds, ops: 200, extra: ["results": String(count)])
    }

    /// d_range: range + order + limit on one field.
    func rangeQueries() async throws -> QueryRun {
        let (bench, lows) = (self.bench, workload.rangeLows)
        var count = 0, sum = 0
        let seconds = try await time {
            for lo in lows {
                let snap = try await bench.whereField("score", isGreaterThanOrEqualTo: lo).order(by: "score").limit(to: 20).getDocuments()
                for doc in snap.documents { count += 1; sum += doc.data()["score"] as! Int }
            }
        }
        if isReference { check("d_range count", count, 3998); check("d_range score", sum, 2_001_514_441) }
        return QueryRun(seconds: seconds, ops: 200, extra: ["count": String(count), "sum": String(sum)])
    }

    /// g_combo: equality + range + order + limit (the composite index (category, score)).
    func comboQueries() async throws -> QueryRun {
        let (bench, combos) = (self.bench, workload.combos)
        var count = 0, sum = 0
        let seconds = try await time {
            for (category, lo) in combos {
                let snap = try await bench.whereField("category", isEqualTo: category)
                    .whereField("score", isGreaterThanOrEqualTo: lo).order(by: "score").limit(to: 20).getDocuments()
                for doc in snap.documents { count += 1; sum += doc.data()["score"] as! Int }
            }
        }
        if isReference { check("g_combo count", count, 1681); check("g_combo score", sum, 947_558_340) }
        return QueryRun(seconds: seconds, ops: 100, extra: ["count": String(count), "sum": String(sum)])
    }

    /// d_range as a pipeline (`db.pipeline()`): the same queries through the pipeline
    /// evaluator, whose where + sort + limit head is an index scan.
    func rangePipelines() async throws -> QueryRun {
        let (db, bench, lows) = (self.db, self.bench, workload.rangeLows)
        var count = 0, sum = 0
        let seconds = try await time {
            for lo in lows {
                let snap = try await db.pipeline().collection(bench)
                    .where(Field("score").greaterThanOrEqual(lo)).sort([Field("score").ascending()]).limit(20).execute()
                for r in snap.results { count += 1; sum += r.data["score"] as! Int }
            }
        }
        if isReference { check("d_range_pipeline count", count, 3998); check("d_range_pipeline score", sum, 2_001_514_441) }
        return QueryRun(seconds: seconds, ops: 200, extra: ["count": String(count), "sum": String(sum)])
    }

    /// g_combo as a pipeline.
    func comboPipelines() async throws -> QueryRun {
        let (db, bench, combos) = (self.db, self.bench, workload.combos)
        var count = 0, sum = 0
        let seconds = try await time {
            for (category, lo) in combos {
                let snap = try await db.pipeline().collection(bench)
                    .where(Field("category").equal(category) && Field("score").greaterThanOrEqual(lo))
                    .sort([Field("score").ascending()]).limit(20).execute()
                for r in snap.results { count += 1; sum += r.data["score"] as! Int }
            }
        }
        if isReference { check("g_combo_pipeline count", count, 1681); check("g_combo_pipeline score", sum, 947_558_340) }
        return QueryRun(seconds: seconds, ops: 100, extra: ["count": String(count), "sum": String(sum)])
    }

    /// --repeat: each query workload K more times, warm, then with its index dropped each
    /// time (restoring the state from before the first queries, whose documents' `data()`
    /// stays cached: what is left is building the index). Reported as the median, plus the best.
    func repeatQueries(_ repeats: Int, restoring beforeQueries: DatabaseSnapshot?) async throws {
        let afterWarm = db.snapshot()
        for rebuild in [false, true] {
            let suffix = rebuild ? "_rebuild" : "_repeat"
            try await repeated("c_eq" + suffix, repeats, restoring: rebuild ? beforeQueries : nil) { try await self.equalityQueries() }
            try await repeated("d_range" + suffix, repeats, restoring: rebuild ? beforeQueries : nil) { try await self.rangeQueries() }
            try await repeated("g_combo" + suffix, repeats, restoring: rebuild ? beforeQueries : nil) { try await self.comboQueries() }
        }
        db.restore(afterWarm)
    }

    private func repeated(_ name: String, _ repeats: Int, restoring state: DatabaseSnapshot?, _ body: () async throws -> QueryRun) async throws {
        var seconds: [Double] = []
        var ops = 0
        for _ in 0..<repeats {
            if let state { db.restore(state) }
            let run = try await body()
            seconds.append(run.seconds)
            ops = run.ops
        }
        seconds.sort()
        results.append(Measurement(workload: name, n: n, ops: ops, seconds: seconds[seconds.count / 2],
                                   extra: ["runs": String(repeats), "best_ops_per_s": String(Int(Double(ops) / seconds[0]))]))
    }
}
