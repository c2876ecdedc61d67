// hearth-bench: the benchmark workload (docs/benchmark-workload.md) run against
// Hearth's embedded API. Build in release: `swift run -c release hearth-bench [--n N] [--json]`.
// `--repeat K` also runs each query workload K more times in the same process, with its
// index in place and with it dropped again each time: steadier than whole runs for
// comparing changes on a noisy machine.
import FirebaseFirestore
import Foundation

// A write to a connection the server closed fails with EPIPE instead of ending the process
// (Linux's clients also pass MSG_NOSIGNAL; Darwin has no such flag: BenchSockets.swift).
signal(SIGPIPE, SIG_IGN)

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

/// Bytes malloc has handed out and not had back (glibc's mallinfo2: in-use chunks of every
/// arena plus mmapped ones); nil elsewhere. The Glibc module does not import <malloc.h>, so
/// the function is looked up by name; it returns its 10-word struct through a hidden
/// pointer, which x86-64 passes as the first argument (arm64 uses another register: nil).
func heapBytesInUse() -> Int? {
    #if os(Linux) && arch(x86_64)
    typealias Call = @convention(c) (UnsafeMutablePointer<Int>) -> UnsafeMutableRawPointer?
    guard let symbol = dlsym(nil /* RTLD_DEFAULT */, "mallinfo2") else { return nil }
    var info = [Int](repeating: 0, count: 10)
    _ = info.withUnsafeMutableBufferPointer { unsafeBitCast(symbol, to: Call.self)($0.baseAddress!) }
    // struct mallinfo2 { arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost }
    return info[7] + info[4]
    #else
    return nil
    #endif
}

/// The process's peak resident set so far (Linux: VmHWM in /proc/self/status).
func peakResidentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kib * 1024
}

func check(_ name: String, _ actual: Int, _ expected: Int) {
    if actual != expected {
        FileHandle.standardError.write("check failed for \(name): got \(actual), expected \(expected)\n".data(using: .utf8)!)
        exit(1)
    }
}

if CommandLine.arguments.dropFirst().first == "--durable" {
    exit(DurableBenchmark.main(Array(CommandLine.arguments.dropFirst(2))))
}

if CommandLine.arguments.dropFirst().first == "--scale" {
    exit(ScaleBenchmark.main(Array(CommandLine.arguments.dropFirst(2))))
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
var listenOnly = false
var insertOnly = false
var onlyWorkload: String?
var args = CommandLine.arguments.dropFirst()
while let arg = args.popFirst() {
    switch arg {
    case "--n": sizes = [Int(args.popFirst() ?? "") ?? 10_000]
    case "--seed": seed = UInt64(args.popFirst() ?? "") ?? 42
    case "--json": json = true
    case "--repeat": repeats = max(0, Int(args.popFirst() ?? "") ?? 0)
    case "--rules": RulesBenchmark.printResults(); exit(0)
    case "--rest": RESTBenchmark.printResults(); exit(0)
    case "--triggers": TriggerBenchmark.printResults(basePort: Int(args.popFirst() ?? "") ?? 0); exit(0)
    case "--updates": updates = Int(args.popFirst() ?? "") ?? updates
    case "--limit":
        let v = args.popFirst() ?? ""
        historyLimit = v == "none" ? nil : Int(v) ?? historyLimit
    case "--history": break
    case "--listen": listenOnly = true
    case "--insert-only": insertOnly = true
    case "--only": onlyWorkload = args.popFirst()
    case "-h", "--help":
        print("""
            usage: hearth-bench [--n N] [--seed S] [--json] [--repeat K] [--insert-only]   (default: N = 10000 and 100000, seed 42)
                   hearth-bench --listen [--only WORKLOAD] [--json]   (the listener workloads only, or one of them)
                   hearth-bench --rules | --rest | --triggers [PORT]
                   hearth-bench --server [--compare HOST:PORT | --compare-official] ...   (--server --help)
                   hearth-bench --history [--updates N] [--limit MIB|none]   (default: 1200000 updates, 128 MiB)
                   hearth-bench --durable [--docs N] [--seconds S] [--dir DIR]   (default: 1000000 documents, 3 s per commit run)
                   hearth-bench --scale [N] ...   (N documents as a server, default 5000000; --scale --help)
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
    let measured = listenOnly ? [] : try await EmbeddedBenchmark.run(n: n, seed: seed, repeats: repeats, insertOnly: insertOnly)
    for m in measured + (n == sizes[0] && !insertOnly ? try await listenerBench(only: onlyWorkload) : []) {
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
