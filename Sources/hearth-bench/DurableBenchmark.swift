// `hearth-bench --durable [--docs N] [--seconds S] [--dir DIR]`: what durability costs and
// what large data does.
//
// 1. Acknowledged single-document commits per second, one writer and 8 concurrent writers,
//    in memory and on a data directory (every commit synced before it returns; concurrent
//    ones share syncs), interleaved so the machine's noise hits both alike.
// 2. With N documents (default 1,000,000): loading them into a data directory, compacting,
//    exporting them (official format), restarting on the directory in a fresh process (time,
//    peak and resident memory), and importing the export in a fresh process (rate, peak
//    memory against the resident memory of the same database loaded by a restart).
import Foundation
import HearthCore

enum DurableBenchmark {
    static func main(_ args: [String]) -> Int32 {
        var docs = 1_000_000, seconds = 3.0
        var dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-bench-durable-\(getpid())")
        var keep = false
        var i = 0
        while i < args.count {
            let v = i + 1 < args.count ? args[i + 1] : ""
            switch args[i] {
            case "--docs": docs = Int(v) ?? docs; i += 1
            case "--seconds": seconds = Double(v) ?? seconds; i += 1
            case "--dir": dir = v; keep = true; i += 1
            case "--child": return child(Array(args[(i + 1)...]))
            default:
                FileHandle.standardError.write(Data("usage: hearth-bench --durable [--docs N] [--seconds S] [--dir DIR]\n".utf8))
                return 2
            }
            i += 1
        }
        #if DEBUG
        FileHandle.standardError.write(Data("note: debug build; measure with `swift run -c release hearth-bench --durable`\n".utf8))
        #endif
        try? FileManager.default.removeItem(atPath: dir)
        defer { if !keep { try? FileManager.default.removeItem(atPath: dir) } }
        commitRates(seconds: seconds, dir: dir + "/commits")
        return largeData(docs: docs, dir: dir)
    }

    // MARK: Commit rates

    private static func commitRates(seconds: Double, dir: String) {
        func rate(durable: Bool, writers: Int) -> Double {
            let path = dir + "-\(durable)-\(writers)"
            try? FileManager.default.removeItem(atPath: path)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let store = durable ? try! DurableStore.open(directory: path) : nil
            defer { store?.close() }
            let id = DatabaseID(project: "bench")
            let db = store?.database(id, clock: SystemClock()) ?? Database(id: id)
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
            let counts = Counter(writers)
            let start = DispatchTime.now().uptimeNanoseconds
            DispatchQueue.concurrentPerform(iterations: writers) { w in
                var n = 0
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let path = ResourcePath(segments: ["w\(w)", "d\(n % 1000)"])
                    do { try db.commit([.set(path, MapValue([("n", .integer(Int64(n))), ("s", .string("value \(n)"))]))]) } catch {
                        FileHandle.standardError.write(Data("commit failed: \(error)\n".utf8))
                        exit(1)
                    }
                    n += 1
                }
                counts.set(w, n)
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            return Double(counts.total) / elapsed
        }
        var rows: [(String, Double, Double)] = []
        for writers in [1, 8] {
            // Interleaved: memory, disk, memory, disk; the better of each pair is reported.
            var memory = 0.0, disk = 0.0
            for _ in 0..<2 {
                memory = max(memory, rate(durable: false, writers: writers))
                disk = max(disk, rate(durable: true, writers: writers))
            }
            rows.append(("\(writers) writer\(writers == 1 ? "" : "s")", memory, disk))
        }
        print("acknowledged single-document commits per second (best of 2 interleaved runs of \(seconds) s):")
        for (label, memory, disk) in rows {
            print(String(format: "  %-10@ in memory %10.0f/s   --data-dir %8.0f/s  (%.1f%%)", label as NSString, memory, disk, disk / memory * 100))
        }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [Int]
        init(_ n: Int) { counts = Array(repeating: 0, count: n) }
        func set(_ i: Int, _ v: Int) { lock.withLock { counts[i] = v } }
        var total: Int { lock.withLock { counts.reduce(0, +) } }
    }

    // MARK: Large data

    static func document(_ i: Int) -> (ResourcePath, MapValue) {
        (ResourcePath(segments: ["items", "item\(i)"]),
         MapValue([("i", .integer(Int64(i))), ("name", .string("item number \(i)")), ("category", .string("c\(i % 20)")),
                   ("score", .double(Double(i % 1000) / 10)), ("tags", .array([.string("t\(i % 7)"), .string("t\(i % 11)")])),
                   ("active", .boolean(i % 2 == 0))]))
    }

    private static func largeData(docs: Int, dir: String) -> Int32 {
        let data = dir + "/data", exports = dir + "/exports"
        try? FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        let id = DatabaseID(project: "bench")
        // Load through the log (batches of 1,000, as an import commits), then compact.
        var summary: ExportWriter.Summary
        do {
            let store = try DurableStore.open(directory: data)
            let db = store.database(id, clock: SystemClock())
            var loaded = 0
            let loadSeconds = try measure {
                var batch: [(path: ResourcePath, fields: MapValue)] = []
                batch.reserveCapacity(1000)
                for i in 0..<docs {
                    batch.append(document(i))
                    if batch.count == 1000 || i == docs - 1 {
                        try db.importDocuments(batch)
                        loaded += batch.count
                        batch.removeAll(keepingCapacity: true)
                    }
                }
            }
            print("load \(loaded) documents into --data-dir (batches of 1,000, logged): \(rates(loaded, loadSeconds))")
            let compactSeconds = try measure { try store.compact() }
            let snapshotBytes = (try? FileManager.default.attributesOfItem(atPath: data + "/" + (try FileManager.default.contentsOfDirectory(atPath: data).first { $0.hasPrefix("snapshot-") } ?? ""))[.size] as? Int) ?? 0
            print(String(format: "compact into a snapshot: %.2f s wall, %.2f s CPU (%.1f MB)", compactSeconds.wall, compactSeconds.cpu, Double(snapshotBytes) / 1e6))
            let state = db.state()
            var exportSummary: ExportWriter.Summary?
            let exportSeconds = try measure {
                let writer = try ExportWriter(directory: exports, name: "export")
                try writer.add(state)
                exportSummary = try writer.finish()
            }
            summary = exportSummary!
            print(String(format: "export %d documents (official format, %d files, %.1f MB): ", summary.documents, summary.dataFiles,
                         Double(summary.dataBytes) / 1e6) + rates(summary.documents, exportSeconds))
            store.close()
        } catch {
            FileHandle.standardError.write(Data("durable benchmark failed: \(error)\n".utf8))
            return 1
        }
        guard let restart = spawnChild(["restart", data]), let importRun = spawnChild(["import", summary.overallFile]),
              let importLogged = spawnChild(["import-data-dir", summary.overallFile, dir + "/imported"]) else { return 1 }
        print(String(format: "restart on the directory (fresh process): %.2f s wall, %.2f s CPU for %@ documents; peak %.0f MiB, resident after %.0f MiB",
                     restart["seconds"]!, restart["cpu"]!, String(Int(restart["documents"]!)) as NSString, restart["peak_mib"]!, restart["rss_mib"]!))
        for (label, run) in [("in memory", importRun), ("into a --data-dir", importLogged)] {
            let n = Int(run["documents"]!)
            print("import \(n) documents \(label) (fresh process): " + rates(n, (run["seconds"]!, run["cpu"]!))
                + String(format: "; peak %.0f MiB = %.2f× the loaded database's resident %.0f MiB",
                         run["peak_mib"]!, run["peak_mib"]! / restart["rss_mib"]!, restart["rss_mib"]!))
        }
        return 0
    }

    /// Wall-clock and CPU seconds of `body`. On a shared machine the wall clock also counts
    /// other processes' time; the CPU time (user + system of this process) does not.
    private static func measure(_ body: () throws -> Void) throws -> (wall: Double, cpu: Double) {
        let start = DispatchTime.now().uptimeNanoseconds, cpu0 = cpuSeconds()
        try body()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpuSeconds() - cpu0)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private static func rates(_ n: Int, _ t: (wall: Double, cpu: Double)) -> String {
        String(format: "%.2f s wall (%.0f docs/s), %.2f s CPU (%.0f docs/s)", t.wall, Double(n) / t.wall, t.cpu, Double(n) / t.cpu)
    }

    /// Runs `hearth-bench --durable --child ARGS` and reads its one line of `key=value`.
    private static func spawnChild(_ args: [String]) -> [String: Double]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--durable", "--child"] + args
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            FileHandle.standardError.write(Data("cannot run the child benchmark: \(error)\n".utf8))
            return nil
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        var out: [String: Double] = [:]
        for pair in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let kv = pair.split(separator: "=")
            if kv.count == 2, let v = Double(kv[1]) { out[String(kv[0])] = v }
        }
        return out
    }

    /// Peak and current resident memory in MiB (Linux /proc/self/status).
    private static func memory() -> (peak: Double, resident: Double) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }
        return (field("VmHWM"), field("VmRSS"))
    }

    private static func child(_ args: [String]) -> Int32 {
        let start = DispatchTime.now().uptimeNanoseconds, cpu0 = cpuSeconds()
        var documents = 0
        var keep: [Database] = []
        do {
            switch args.first {
            case "restart":
                let store = try DurableStore.open(directory: args[1])
                let registry = DatabaseRegistry(store: store)
                keep = registry.all
                documents = keep.reduce(0) { $0 + $1.state().documentCount }
            case "import":
                let registry = DatabaseRegistry()
                documents = try DataImport.run(args[1], project: nil, databases: registry.database).documents
                keep = registry.all
            case "import-data-dir":
                try? FileManager.default.removeItem(atPath: args[2])
                let store = try DurableStore.open(directory: args[2])
                let registry = DatabaseRegistry(store: store)
                documents = try DataImport.run(args[1], project: nil, databases: registry.database).documents
                keep = registry.all
            default:
                return 2
            }
        } catch {
            FileHandle.standardError.write(Data("child failed: \(error)\n".utf8))
            return 1
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpu = cpuSeconds() - cpu0
        let (peak, resident) = memory()
        print("seconds=\(seconds) cpu=\(cpu) documents=\(documents) peak_mib=\(peak) rss_mib=\(resident) databases=\(keep.count)")
        return 0
    }
}
