// hearth-bench: the benchmark workload (docs/benchmark-workload.md) run against
// Hearth's embedded API. Build in release: `swift run -c release hearth-bench [--n N] [--json]`.
// `--repeat K` also runs each query workload K more times in the same process, with its
// index in place and with it dropped again each time: steadier than whole runs for
// comparing changes on a noisy machine.
import FirebaseFirestore
import Foundation

struct Measurement {
    let workload: String
    let n: Int
    let ops: Int
    let seconds: Double
    var extra: [String: String] = [:]

    var opsPerSecond: Double { Double(ops) / seconds }
}

func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Resident set size in bytes (Linux: /proc/self/statm).
func residentBytes() -> Int? {
    #if os(Linux)
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return nil
    #endif
}

func check(_ name: String, _ actual: Int, _ expected: Int) {
    if actual != expected {
        FileHandle.standardError.write("check failed for \(name): got \(actual), expected \(expected)\n".data(using: .utf8)!)
        exit(1)
    }
}

func run(n: Int, seed: UInt64, repeats: Int) async throws -> [Measurement] {
    let workload = Workload(n: n, seed: seed)
    // The composite index g_combo needs, declared as an app would in firestore.indexes.json.
    let indexes = try IndexConfiguration(json: Data(#"{"indexes": [{"collectionGroup": "bench", "queryScope": "COLLECTION", "fields": [{"fieldPath": "category", "order": "ASCENDING"}, {"fieldPath": "score", "order": "ASCENDING"}]}]}"#.utf8))
    let db = Firestore.inMemory(projectID: "bench", indexes: indexes, indexMode: .enforce)
    let bench = db.collection("bench")
    let refs = (0..<n).map { bench.document(Workload.id($0)) }
    var results: [Measurement] = []

    let rssBefore = residentBytes()
    let a = try await time {
        for i in 0..<n { try await refs[i].setData(workload.documents[i]) }
    }
    let rssAfter = residentBytes()
    check("a_insert", try await bench.getDocuments().count, n)
    var insert = Measurement(workload: "a_insert", n: n, ops: n, seconds: a)
    if let before = rssBefore, let after = rssAfter {
        insert.extra["rss_mb"] = String(format: "%.1f", Double(after) / 1_048_576)
        insert.extra["rss_delta_mb"] = String(format: "%.1f", Double(after - before) / 1_048_576)
    }
    results.append(insert)

    var scoreSum = 0
    let b = try await time {
        for j in workload.gets {
            let doc = try await refs[j].getDocument()
            scoreSum += doc.data()!["score"] as! Int
        }
    }
    if n == 10_000 && seed == 42 { check("b_get", scoreSum, 5_003_257_080) }
    results.append(Measurement(workload: "b_get", n: n, ops: n, seconds: b, extra: ["sum": String(scoreSum)]))

    // The query workloads, as functions so they can also run a second time (warm).
    // c_eq: equality on one field, every result materialised (`data()`), in ID order.
    func eqWorkload() async throws -> (seconds: Double, count: Int) {
        var count = 0
        let seconds = try await time {
            for category in workload.equalityCategories {
                let snap = try await bench.whereField("category", isEqualTo: category).getDocuments()
                for doc in snap.documents { count += doc.data().isEmpty ? 0 : 1 }
            }
        }
        check("c_eq", count, 2 * n)
        return (seconds, count)
    }
    // d_range: range + order + limit on one field.
    func rangeWorkload() async throws -> (seconds: Double, count: Int, sum: Int) {
        var count = 0, sum = 0
        let seconds = try await time {
            for lo in workload.rangeLows {
                let snap = try await bench.whereField("score", isGreaterThanOrEqualTo: lo).order(by: "score").limit(to: 20).getDocuments()
                for doc in snap.documents { count += 1; sum += doc.data()["score"] as! Int }
            }
        }
        if n == 10_000 && seed == 42 { check("d_range count", count, 3998); check("d_range score", sum, 2_001_514_441) }
        return (seconds, count, sum)
    }
    // g_combo: equality + range + order + limit (the composite index (category, score)).
    func comboWorkload() async throws -> (seconds: Double, count: Int, sum: Int) {
        var count = 0, sum = 0
        let seconds = try await time {
            for (category, lo) in workload.combos {
                let snap = try await bench.whereField("category", isEqualTo: category)
                    .whereField("score", isGreaterThanOrEqualTo: lo).order(by: "score").limit(to: 20).getDocuments()
                for doc in snap.documents { count += 1; sum += doc.data()["score"] as! Int }
            }
        }
        if n == 10_000 && seed == 42 { check("g_combo count", count, 1681); check("g_combo score", sum, 947_558_340) }
        return (seconds, count, sum)
    }

    // d_range and g_combo as pipelines (`db.pipeline()`): the same queries through the
    // pipeline evaluator, whose where + sort + limit head is an index scan.
    func rangePipelineWorkload() async throws -> (seconds: Double, count: Int, sum: Int) {
        var count = 0, sum = 0
        let seconds = try await time {
            for lo in workload.rangeLows {
                let snap = try await db.pipeline().collection(bench)
                    .where(Field("score").greaterThanOrEqual(lo)).sort([Field("score").ascending()]).limit(20).execute()
                for r in snap.results { count += 1; sum += r.data["score"] as! Int }
            }
        }
        if n == 10_000 && seed == 42 { check("d_range_pipeline count", count, 3998); check("d_range_pipeline score", sum, 2_001_514_441) }
        return (seconds, count, sum)
    }
    func comboPipelineWorkload() async throws -> (seconds: Double, count: Int, sum: Int) {
        var count = 0, sum = 0
        let seconds = try await time {
            for (category, lo) in workload.combos {
                let snap = try await db.pipeline().collection(bench)
                    .where(Field("category").equal(category) && Field("score").greaterThanOrEqual(lo))
                    .sort([Field("score").ascending()]).limit(20).execute()
                for r in snap.results { count += 1; sum += r.data["score"] as! Int }
            }
        }
        if n == 10_000 && seed == 42 { check("g_combo_pipeline count", count, 1681); check("g_combo_pipeline score", sum, 947_558_340) }
        return (seconds, count, sum)
    }

    // The first run of each query workload includes building the automatic index it
    // needs (Hearth materialises an index on first use, then maintains it on every commit).
    // Only with --repeat: a held snapshot makes later commits copy the nodes it shares.
    let beforeQueries = repeats > 0 ? db.snapshot() : nil
    let c = try await eqWorkload()
    results.append(Measurement(workload: "c_eq", n: n, ops: 200, seconds: c.seconds, extra: ["results": String(c.count)]))
    let d = try await rangeWorkload()
    results.append(Measurement(workload: "d_range", n: n, ops: 200, seconds: d.seconds, extra: ["count": String(d.count), "sum": String(d.sum)]))

    let batchCollection = db.collection("bench_batch")
    let batchRefs = (0..<n).map { batchCollection.document(Workload.id($0)) }
    let e = try await time {
        for start in stride(from: 0, to: n, by: 500) {
            let batch = db.batch()
            for i in start..<min(start + 500, n) { batch.setData(workload.documents[i], forDocument: batchRefs[i]) }
            try await batch.commit()
        }
    }
    check("e_batch", try await batchCollection.getDocuments().count, n)
    results.append(Measurement(workload: "e_batch", n: n, ops: n, seconds: e))

    let f = try await time {
        for j in workload.increments {
            try await refs[j].updateData(["counter": FieldValue.increment(Int64(1))])
        }
    }
    var counters = 0
    for i in 0..<min(100, n) { counters += try await refs[i].getDocument().data()!["counter"] as! Int }
    check("f_incr", counters, n)
    results.append(Measurement(workload: "f_incr", n: n, ops: n, seconds: f))

    let g = try await comboWorkload()
    results.append(Measurement(workload: "g_combo", n: n, ops: 100, seconds: g.seconds, extra: ["count": String(g.count), "sum": String(g.sum)]))

    // The same three workloads again, with their indexes in place: the steady-state cost.
    let cw = try await eqWorkload()
    results.append(Measurement(workload: "c_eq_warm", n: n, ops: 200, seconds: cw.seconds, extra: ["results": String(cw.count)]))
    let dw = try await rangeWorkload()
    results.append(Measurement(workload: "d_range_warm", n: n, ops: 200, seconds: dw.seconds, extra: ["count": String(dw.count), "sum": String(dw.sum)]))
    let gw = try await comboWorkload()
    results.append(Measurement(workload: "g_combo_warm", n: n, ops: 100, seconds: gw.seconds, extra: ["count": String(gw.count), "sum": String(gw.sum)]))

    let dp = try await rangePipelineWorkload()
    results.append(Measurement(workload: "d_range_pipeline", n: n, ops: 200, seconds: dp.seconds, extra: ["count": String(dp.count), "sum": String(dp.sum)]))
    let gp = try await comboPipelineWorkload()
    results.append(Measurement(workload: "g_combo_pipeline", n: n, ops: 100, seconds: gp.seconds, extra: ["count": String(gp.count), "sum": String(gp.sum)]))

    // --repeat: each query workload K more times, warm, then with its index dropped each time
    // (restoring the state from before the first queries, whose documents' `data()` stays
    // memoised: what is left is building the index). Reported as the median, plus the best.
    if repeats > 0 {
        let afterWarm = db.snapshot()
        func repeated(_ name: String, ops: Int, rebuild: Bool, _ body: () async throws -> Double) async throws {
            var seconds: [Double] = []
            for _ in 0..<repeats {
                if rebuild, let beforeQueries { db.restore(beforeQueries) }
                seconds.append(try await body())
            }
            seconds.sort()
            results.append(Measurement(workload: name, n: n, ops: ops, seconds: seconds[seconds.count / 2],
                                       extra: ["runs": String(repeats), "best_ops_per_s": String(Int(Double(ops) / seconds[0]))]))
        }
        for rebuild in [false, true] {
            let suffix = rebuild ? "_rebuild" : "_repeat"
            try await repeated("c_eq" + suffix, ops: 200, rebuild: rebuild) { try await eqWorkload().seconds }
            try await repeated("d_range" + suffix, ops: 200, rebuild: rebuild) { try await rangeWorkload().seconds }
            try await repeated("g_combo" + suffix, ops: 100, rebuild: rebuild) { try await comboWorkload().seconds }
        }
        db.restore(afterWarm)
    }

    // Inserts into the collection group whose category, score and (category, score)
    // indexes are now materialised: the cost of index maintenance.
    let extra = (0..<n).map { bench.document(String(format: "x%08d", $0)) }
    let h = try await time {
        for i in 0..<n { try await extra[i].setData(workload.documents[i]) }
    }
    results.append(Measurement(workload: "h_insert_indexed", n: n, ops: n, seconds: h, extra: ["indexes": "3"]))
    for ref in extra { try await ref.delete() }

    // Transactional read-increment-write on the same 100 documents.
    let t = try await time {
        for j in workload.increments {
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
    counters = 0
    for i in 0..<min(100, n) { counters += try await refs[i].getDocument().data()!["counter"] as! Int }
    check("t_txn", counters, 2 * n)
    results.append(Measurement(workload: "t_txn", n: n, ops: n, seconds: t))

    // snapshot() + restore() of the whole database (2N documents here).
    let rounds = 100_000
    let s = await time {
        for _ in 0..<rounds { db.restore(db.snapshot()) }
    }
    check("s_snapshot_restore", try await bench.getDocuments().count, n)
    var snap = Measurement(workload: "s_snapshot_restore", n: n, ops: rounds, seconds: s)
    snap.extra["ns_per_op"] = String(format: "%.0f", s / Double(rounds) * 1e9)
    results.append(snap)
    return results
}

if CommandLine.arguments.dropFirst().first == "--durable" {
    exit(DurableBenchmark.main(Array(CommandLine.arguments.dropFirst(2))))
}

if CommandLine.arguments.dropFirst().first == "--server" {
    exit(ServerBenchmark.main(Array(CommandLine.arguments.dropFirst(2))))
}

var sizes = [10_000, 100_000]
var seed: UInt64 = 42
var json = false
var repeats = 0
var historyLimit: Int? = HistoryBenchmark.defaultLimitMiB
var updates = 1_200_000
var args = CommandLine.arguments.dropFirst()
while let arg = args.popFirst() {
    switch arg {
    case "--n": sizes = [Int(args.popFirst() ?? "") ?? 10_000]
    case "--seed": seed = UInt64(args.popFirst() ?? "") ?? 42
    case "--json": json = true
    case "--repeat": repeats = max(0, Int(args.popFirst() ?? "") ?? 0)
    case "--rules": RulesBenchmark.printResults(); exit(0)
    case "--rest": RESTBenchmark.printResults(); exit(0)
    case "--updates": updates = Int(args.popFirst() ?? "") ?? updates
    case "--limit":
        let v = args.popFirst() ?? ""
        historyLimit = v == "none" ? nil : Int(v) ?? historyLimit
    case "--history": break
    case "-h", "--help":
        print("""
            usage: hearth-bench [--n N] [--seed S] [--json] [--repeat K]   (default: N = 10000 and 100000, seed 42)
                   hearth-bench --rules | --rest
                   hearth-bench --server [--compare HOST:PORT | --compare-official] ...   (--server --help)
                   hearth-bench --history [--updates N] [--limit MIB|none]   (default: 1200000 updates, 128 MiB)
                   hearth-bench --durable [--docs N] [--seconds S] [--dir DIR]   (default: 1000000 documents, 3 s per commit run)
            """)
        exit(0)
    default:
        FileHandle.standardError.write("unknown argument \(arg)\n".data(using: .utf8)!)
        exit(2)
    }
}

if CommandLine.arguments.contains("--history") {
    HistoryBenchmark.printResults(updates: updates, limitMiB: historyLimit)
    exit(0)
}

#if DEBUG
FileHandle.standardError.write("note: debug build; measure with `swift run -c release hearth-bench`\n".data(using: .utf8)!)
#endif

for n in sizes {
    for m in try await run(n: n, seed: seed, repeats: repeats) + (n == sizes[0] ? try await listenerBench() : []) {
        if json {
            var fields = ["\"workload\": \"\(m.workload)\"", "\"n\": \(m.n)", "\"ops\": \(m.ops)",
                          "\"seconds\": \(m.seconds)", "\"ops_per_s\": \(Int(m.opsPerSecond))"]
            for (k, v) in m.extra.sorted(by: { $0.key < $1.key }) {
                fields.append("\"\(k)\": \(Double(v) != nil ? v : "\"\(v)\"")")
            }
            print("{" + fields.joined(separator: ", ") + "}")
        } else {
            let extra = m.extra.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            print(String(format: "%-20@ n=%-7d %12.0f ops/s  %@", m.workload as NSString, m.n, m.opsPerSecond, extra as NSString))
        }
    }
}
