// `hearth-bench --scale N`: Hearth at production size, as a server. Generates N documents
// of the benchmark's shape (docs/benchmark-workload.md; stream S, the same values the
// embedded workload inserts) spread over collections of at most 1,000,000 documents, in the
// official export format, with a firestore.indexes.json declaring a composite index per
// collection and the single-field indexes the queries use; then, for the reference size
// (10,000 documents, one collection) and for N:
//
// 1. `hearth serve --import EXPORT --data-dir DATA --indexes FILE`: the time until it is
//    ready (the import), its peak resident memory during it (VmHWM) against the resident
//    memory of the same data after a restart;
// 2. the server stopped and started again on DATA alone: the time until it is ready (the
//    restart, declared indexes built included), its resident memory, and what that is per
//    document beyond the reference server's;
// 3. h2load (4 connections × 8 streams) on three queries against both servers,
//    interleaved: equality with 100 results, range + order + limit 20, and equality +
//    range + order + limit 20 (the composite index).
//
// A server that passes --max-rss (default 10 GiB) is stopped and the run fails: the machine
// is shared. Nothing here runs in `swift test`.
import Foundation
import HearthCore
import HearthGRPC
import HearthProtobuf
import SeededRandom
#if canImport(Glibc)
import Glibc
#endif

struct ScaleOptions {
    var documents = 5_000_000
    var reference = 10_000
    var dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-bench-scale")
    var seconds = 5.0
    var warmUp = 2.0
    var rounds = 2
    var maxResidentBytes = 10 << 30
    var keep = false
    /// The reference server's port and the large one's (+1); 0: any free port.
    var port = 0

    static let usage = """
        usage: hearth-bench --scale N [--reference R] [--dir DIR] [--seconds D] [--warm-up W] [--rounds K]
                                      [--max-rss GIB] [--keep] [--port P]
          Generates N documents (default 5000000) and R (default 10000) in the official export
          format under DIR (default $TMPDIR/hearth-bench-scale; an export already there with the
          right count is reused), imports each into `hearth serve --data-dir`, restarts it, and
          runs three queries with h2load (4x8, D seconds after W of warm-up, K rounds,
          interleaved). Stops a server whose resident memory passes GIB (default 10).
          --keep leaves the data directories (the exports are always kept for reuse).
          --port P: the reference server listens on P, the large one on P + 1 (default: free ports).
        """

    init(_ args: [String]) throws {
        var rest = args[...]
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
            return v
        }
        func number(_ flag: String) throws -> Double {
            let v = try value(flag)
            guard let n = Double(v), n > 0 else { throw BenchError("\(flag) must be a positive number, got '\(v)'") }
            return n
        }
        if let first = rest.first, let n = Int(first) { documents = n; rest = rest.dropFirst() }
        while let flag = rest.popFirst() {
            switch flag {
            case "--reference": reference = Int(try number(flag))
            case "--dir": dir = try value(flag)
            case "--seconds": seconds = try number(flag)
            case "--warm-up": warmUp = Double(try value(flag)) ?? warmUp
            case "--rounds": rounds = Int(try number(flag))
            case "--max-rss": maxResidentBytes = Int(try number(flag) * Double(1 << 30))
            case "--keep": keep = true
            case "--port": port = Int(try number(flag))
            case "-h", "--help": print(Self.usage); exit(0)
            default: throw BenchError("unknown argument '\(flag)'\n\n\(Self.usage)")
            }
        }
    }
}

enum ScaleBenchmark {
    /// Documents per collection: `bench`, then `bench_2`, `bench_3`, …
    static let perCollection = 1_000_000

    static func collection(_ i: Int) -> String { i < perCollection ? "bench" : "bench_\(i / perCollection + 1)" }

    static func main(_ args: [String]) -> Int32 {
        do {
            try run(try ScaleOptions(args))
            return 0
        } catch {
            FileHandle.standardError.write(Data("hearth-bench --scale: \(error)\n".utf8))
            return 1
        }
    }

    /// What one size measured.
    struct SizeResult {
        var documents: Int
        var importSeconds: Double
        /// The server's CPU seconds until ready (user + system): what the wall clock
        /// measures less other processes' share of a loaded machine.
        var importCPU: Double
        var restartCPU: Double
        var importPeak: Int
        var importResident: Int
        var restartSeconds: Double
        var restartResident: Int
        var exportBytes: Int
    }

    private static func progress(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    private static func run(_ options: ScaleOptions) throws {
        guard LoadRun.h2load() != nil, ChildProcess.which("nghttp") != nil else {
            throw BenchError("h2load and nghttp are needed: apt-get install -y nghttp2-client")
        }
        try FileManager.default.createDirectory(atPath: options.dir, withIntermediateDirectories: true)
        let indexes = (options.dir as NSString).appendingPathComponent("firestore.indexes.json")
        try Data(indexesJSON(collections: (options.documents + perCollection - 1) / perCollection).utf8).write(to: URL(fileURLWithPath: indexes))
        let sizes = [options.reference, options.documents]
        var exports: [Int: (path: String, bytes: Int)] = [:]
        for n in sizes { exports[n] = try generate(n, in: options.dir) }

        // Import, stop, restart: one size at a time (the large one alone in memory).
        var results: [Int: SizeResult] = [:]
        var servers: [Int: ServerUnderTest] = [:]
        defer { for s in servers.values { s.stop() } }
        for n in sizes {
            let data = (options.dir as NSString).appendingPathComponent("data-\(n)")
            try? FileManager.default.removeItem(atPath: data)
            progress("\(n) documents: hearth serve --import (into --data-dir)")
            let port = options.port == 0 ? 0 : options.port + (n == options.reference ? 0 : 1)
            let imported = try startHearth(["--port", String(port), "--import", exports[n]!.path, "--data-dir", data, "--indexes", indexes],
                                           label: "import-\(n)", options: options)
            let importResident = imported.server.residentBytes() ?? 0
            let importPeak = imported.server.peakResidentBytes() ?? 0
            let importCPU = imported.server.cpuSeconds() ?? .nan
            progress(String(format: "  ready after %.1f s (server CPU %.1f s); peak %.0f MiB, resident %.0f MiB", imported.seconds, importCPU,
                            Double(importPeak) / 1_048_576, Double(importResident) / 1_048_576))
            imported.server.stop()
            progress("\(n) documents: restart on --data-dir")
            let restarted = try startHearth(["--port", String(port), "--data-dir", data, "--indexes", indexes], label: "restart-\(n)", options: options)
            let resident = restarted.server.residentBytes() ?? 0
            let restartCPU = restarted.server.cpuSeconds() ?? .nan
            progress(String(format: "  ready after %.1f s (server CPU %.1f s); resident %.0f MiB", restarted.seconds, restartCPU,
                            Double(resident) / 1_048_576))
            servers[n] = restarted.server
            results[n] = SizeResult(documents: n, importSeconds: imported.seconds, importCPU: importCPU, restartCPU: restartCPU, importPeak: importPeak, importResident: importResident,
                                    restartSeconds: restarted.seconds, restartResident: resident, exportBytes: exports[n]!.bytes)
        }

        // The queries, both servers up, interleaved.
        let workloads = queries()
        let bodies = URL(fileURLWithPath: options.dir).appendingPathComponent("bodies")
        try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        var bodyFiles: [String: String] = [:]
        for (i, w) in workloads.enumerated() {
            let file = bodies.appendingPathComponent("q\(i).bin").path
            try Data(w.body).write(to: URL(fileURLWithPath: file))
            bodyFiles[w.expectation] = file
        }
        for n in sizes {
            for w in workloads {
                if let problem = ResponseCheck.verify(w, on: servers[n]!, bodyFile: bodyFiles[w.expectation]!) {
                    throw BenchError("\(n) documents, \(w.expectation): \(problem)")
                }
            }
        }
        var rates: [String: [Int: [LoadResult]]] = [:]
        for round in 1...options.rounds {
            for w in workloads {
                for n in sizes {
                    progress("round \(round): \(w.expectation), \(n) documents")
                    let r = try LoadRun.run(w, on: servers[n]!, connections: 4, streams: 8, seconds: options.seconds,
                                            warmUp: options.warmUp, bodyFile: bodyFiles[w.expectation]!)
                    rates[w.expectation, default: [:]][n, default: []].append(r)
                }
            }
        }
        for s in servers.values { s.stop() }
        servers = [:]
        if !options.keep {
            for n in sizes { try? FileManager.default.removeItem(atPath: (options.dir as NSString).appendingPathComponent("data-\(n)")) }
        }
        report(options, sizes, results, workloads, rates)
    }

    private static func report(_ options: ScaleOptions, _ sizes: [Int], _ results: [Int: SizeResult],
                               _ workloads: [ServerWorkload], _ rates: [String: [Int: [LoadResult]]]) {
        let small = results[sizes[0]]!, large = results[sizes[1]]!
        func mib(_ b: Int) -> String { String(format: "%.0f MiB", Double(b) / 1_048_576) }
        print("hearth-bench --scale: \(large.documents) documents (reference \(small.documents)); load \(loadAverage())")
        for r in [small, large] {
            print(String(format: "  %9d docs: export %.0f MB; import %.1f s (%.0f docs/s; CPU %.1f s, %.0f docs/s), peak %@ = %.2f× the restarted resident %@;",
                         r.documents, Double(r.exportBytes) / 1e6, r.importSeconds, Double(r.documents) / r.importSeconds,
                         r.importCPU, Double(r.documents) / r.importCPU,
                         mib(r.importPeak) as NSString, Double(r.importPeak) / Double(max(1, r.restartResident)),
                         mib(r.restartResident) as NSString)
                  + String(format: " restart %.1f s (CPU %.1f s)", r.restartSeconds, r.restartCPU))
        }
        let perDocument = Double(large.restartResident - small.restartResident) / Double(large.documents - small.documents)
        print(String(format: "  resident bytes per document (beyond the reference server's): %.0f B", perDocument))
        print("  queries (h2load 4x8, requests/s, median of \(options.rounds); p99 ms):")
        for w in workloads {
            func med(_ rs: [LoadResult]) -> (Double, Double) {
                let sorted = rs.map(\.requestsPerSecond).sorted(), p99 = rs.map(\.p99).sorted()
                return (sorted[sorted.count / 2], p99[p99.count / 2])
            }
            let (a, ap) = med(rates[w.expectation]![sizes[0]]!), (b, bp) = med(rates[w.expectation]![sizes[1]]!)
            print(String(format: "    %-52@ %8.0f (p99 %.1f)  →  %8.0f (p99 %.1f)   %.0f%%", w.expectation as NSString, a, ap, b, bp, b / a * 100))
        }
    }

    private static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    // MARK: The data

    /// A composite (category, score) index on every collection, and the single-field indexes
    /// of `bench` the two single-field queries read (declared, so built at import).
    static func indexesJSON(collections: Int) -> String {
        let names = (0..<max(1, collections)).map { $0 == 0 ? "bench" : "bench_\($0 + 1)" }
        let composites = names.map {
            #"{"collectionGroup": "\#($0)", "queryScope": "COLLECTION", "fields": [{"fieldPath": "category", "order": "ASCENDING"}, {"fieldPath": "score", "order": "ASCENDING"}]}"#
        }
        let overrides = ["category", "score"].map {
            #"{"collectionGroup": "bench", "fieldPath": "\#($0)", "indexes": [{"order": "ASCENDING", "queryScope": "COLLECTION"}]}"#
        }
        return "{\"indexes\": [\n  " + composites.joined(separator: ",\n  ") + "\n],\n\"fieldOverrides\": [\n  "
            + overrides.joined(separator: ",\n  ") + "\n]}\n"
    }

    /// `d%08d`-style zero padding without Foundation's format parser (5M documents × 5
    /// formatted fields took longer than writing them).
    static func padded(_ v: Int, _ width: Int) -> String {
        let digits = String(v)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Document i of stream S: the values `Workload.document` makes (11 draws, same order).
    static func document(_ i: Int, _ r: inout SplitMix64) -> MapValue {
        let category = "cat-" + padded(r.below(100), 2)
        let score = Int64(r.below(1_000_000))
        let age = Int64(18 + r.below(72))
        let name = "name-" + padded(r.below(1_000_000_000), 9)
        let active = r.below(2) == 1
        let price = Double(r.below(100_000)) / 100.0
        let tags = (0..<3).map { _ in Value.string("tag-\(r.below(50))") }
        let city = "city-" + padded(r.below(20), 2)
        let zip = padded(r.below(100_000), 5)
        return MapValue([
            ("category", .string(category)), ("score", .integer(score)), ("age", .integer(age)), ("name", .string(name)),
            ("active", .boolean(active)), ("price", .double(price)), ("tags", .array(tags)),
            ("address", .map(MapValue([("city", .string(city)), ("zip", .string(zip)), ("street", .string("\(i) Main St"))]))),
            ("email", .string("user\(i)@example.com")),
            ("created", .timestamp(Timestamp(seconds: 1_700_000_000 + Int64(i), nanos: 0))),
            ("counter", .integer(0)),
        ])
    }

    /// Writes (or finds) DIR/export-N, a firebase-tools export folder of N documents.
    static func generate(_ n: Int, in dir: String) throws -> (path: String, bytes: Int) {
        let folder = (dir as NSString).appendingPathComponent("export-\(n)")
        let done = folder + ".complete"
        if let text = try? String(contentsOfFile: done, encoding: .utf8), let bytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
           FileManager.default.fileExists(atPath: folder) {
            progress("\(n) documents: reusing \(folder)")
            return (folder, bytes)
        }
        let id = DatabaseID(project: BenchDatabase.project)
        let start = DispatchTime.now().uptimeNanoseconds
        var lastShown = start
        let summary = try ExportFolder.replace(folder) { (staging: String) throws(FirestoreError) -> ExportWriter.Summary in
            let writer = try ExportWriter(directory: staging, name: ExportFolder.firestoreFolder)
            var r = SplitMix64(seed: 42)
            for i in 0..<n {
                let fields = document(i, &r)
                try writer.add(path: ResourcePath(segments: [collection(i), Workload.id(i)]), fields: fields, database: id)
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastShown > 500_000_000 || i == n - 1 {
                    lastShown = now
                    let rate = Double(i + 1) / (Double(now - start) / 1e9)
                    FileHandle.standardError.write(Data(String(format: "\rgenerating %d documents: %d (%.0f%%, %.0f/s)   ", n, i + 1,
                                                                Double(i + 1) * 100 / Double(n), rate).utf8))
                }
            }
            return try writer.finish()
        }
        FileHandle.standardError.write(Data("\n".utf8))
        try Data("\(summary.dataBytes)\n".utf8).write(to: URL(fileURLWithPath: done))
        return (folder, summary.dataBytes)
    }

    // MARK: The server

    /// Starts `hearth serve` with `arguments` and waits (as long as it takes, watching its
    /// memory) until it is ready; the seconds from spawn to ready.
    private static func startHearth(_ arguments: [String], label: String, options: ScaleOptions) throws -> (server: ServerUnderTest, seconds: Double) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hearth").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no hearth binary beside hearth-bench (\(binary)): swift build -c release")
        }
        let ready = (options.dir as NSString).appendingPathComponent("ready-\(label)")
        let log = (options.dir as NSString).appendingPathComponent("hearth-\(label).log")
        let seed = (options.dir as NSString).appendingPathComponent("empty.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: seed))
        try? FileManager.default.removeItem(atPath: ready)
        let start = DispatchTime.now().uptimeNanoseconds
        // A later --port in `arguments` wins over this one.
        let group = try ChildProcess.spawn([binary, "serve", "--port", "0", "--ready-file", ready, "--seed", seed,
                                            "--project", BenchDatabase.project] + arguments, log: log)
        var lastShown = start
        while true {
            if let text = try? String(contentsOfFile: ready, encoding: .utf8),
               let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? "") {
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                return (ServerUnderTest.started(label: label, port: port, group: group, log: log), seconds)
            }
            var status: Int32 = 0
            if waitpid(group, &status, WNOHANG) == group {
                throw BenchError("hearth serve (\(label)) exited (status \(status)); log: \(log)")
            }
            let resident = ProcessMemory.of(group).resident
            if resident > options.maxResidentBytes {
                ChildProcess.stop(group: group)
                throw BenchError(String(format: "hearth serve (%@) passed --max-rss (%.1f GiB resident); stopped", label as NSString,
                                        Double(resident) / Double(1 << 30)))
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now - lastShown > 5_000_000_000 {
                lastShown = now
                progress(String(format: "  … %.0f s, resident %.0f MiB", Double(now - start) / 1e9, Double(resident) / 1_048_576))
            }
            usleep(20_000)
        }
    }

    // MARK: The queries

    /// The three queries on `bench`, their answers checked by count.
    static func queries() -> [ServerWorkload] {
        let category = ServerFixture.category, low = Int64(ServerFixture.rangeLow)
        func count(_ expected: Int) -> @Sendable ([UInt8]) -> String? {
            { body in
                let docs = GRPCFrame.split(body).filter { ProtoFields.has($0, 1) }.count
                return docs == expected ? nil : "expected \(expected) documents, got \(docs)"
            }
        }
        func orderByScoreLimit(_ n: Int32) -> (inout ProtoWriter) -> Void {
            { q in
                q.writeMessage(4) { order in
                    order.writeMessage(1) { $0.writeString(2, "score") }
                    order.writeInt32(2, 1)  // ASCENDING
                }
                q.writeMessage(5) { $0.writeInt32(1, n) }
            }
        }
        let equality = ServerWorkload(
            kind: .queryEquality, path: "/google.firestore.v1.Firestore/RunQuery",
            body: ServerFixture.runQuery(field: "category", op: 5, value: { $0.writeString(17, category) },
                                         rest: { q in q.writeMessage(5) { $0.writeInt32(1, 100) } }),
            expectation: "category == \(category), limit 100", check: count(100))
        let range = ServerWorkload(
            kind: .queryRange, path: "/google.firestore.v1.Firestore/RunQuery",
            body: ServerFixture.runQuery(field: "score", op: 4, value: { $0.writeInt64(2, low) }, rest: orderByScoreLimit(20)),
            expectation: "score ≥ \(low), order by score, limit 20", check: count(20))
        let composite = ServerWorkload(
            kind: .queryRange, path: "/google.firestore.v1.Firestore/RunQuery",
            body: GRPCFrame.wrap { w in
                w.writeString(1, BenchDatabase.documents)
                w.writeMessage(2) { q in
                    q.writeMessage(2) { $0.writeString(2, "bench") }
                    q.writeMessage(3) { filter in
                        filter.writeMessage(1) { c in  // CompositeFilter AND
                            c.writeInt32(1, 1)
                            c.writeMessage(2) { $0.writeMessage(2) { f in
                                f.writeMessage(1) { $0.writeString(2, "category") }
                                f.writeInt32(2, 5)
                                f.writeMessage(3) { $0.writeString(17, category) }
                            } }
                            c.writeMessage(2) { $0.writeMessage(2) { f in
                                f.writeMessage(1) { $0.writeString(2, "score") }
                                f.writeInt32(2, 4)
                                f.writeMessage(3) { $0.writeInt64(2, low) }
                            } }
                        }
                    }
                    orderByScoreLimit(20)(&q)
                }
            },
            expectation: "category == \(category), score ≥ \(low), order, limit 20", check: count(20))
        return [equality, range, composite]
    }
}

/// A process's resident and peak resident memory from /proc/PID/status (0 when unknown).
enum ProcessMemory {
    static func of(_ pid: pid_t) -> (resident: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
                  let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
            return kib * 1024
        }
        return (field("VmRSS:"), field("VmHWM:"))
    }
}
