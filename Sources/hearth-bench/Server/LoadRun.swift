// One timed run of h2load (Debian's nghttp2-client) against one server: a fixed request,
// C connections × M concurrent streams (HTTP/1.1: M pipelined requests), for D seconds.
// h2load costs the client little, so the server is what is measured; it does not read
// gRPC trailers, which is why each request kind is checked once beforehand (ResponseCheck).
import Foundation

struct LoadResult {
    var requestsPerSecond: Double
    var p50: Double  // milliseconds
    var p99: Double
    var succeeded: Int
    var failed: Int
    /// Server CPU per request, in microseconds (nil when the server's process is unknown).
    var cpuMicroseconds: Double?
    /// Server allocations per request (nil when not counted: see MallocCount).
    var allocations: Double?
}

enum LoadRun {
    static func h2load() -> String? { ChildProcess.which("h2load") }

    static func run(_ workload: ServerWorkload, on server: ServerUnderTest, connections: Int, streams: Int,
                    seconds: Double, warmUp: Double, bodyFile: String) throws -> LoadResult {
        guard let h2load = h2load() else { throw BenchError("h2load is not installed (apt-get install -y nghttp2-client)") }
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-h2load-\(getpid()).log").path
        try? FileManager.default.removeItem(atPath: logFile)
        func argv(seconds: Double, log: String?) -> [String] {
            var argv = [h2load, "-c", String(connections), "-m", String(streams), "-t", "1", "-D", String(max(1, Int(seconds.rounded())))]
            if let log { argv += ["--log-file", log] }
            if workload.isGRPC {
                argv += ["-d", bodyFile] + ServerWorkload.grpcHeaders.flatMap { ["-H", $0] }
            } else if !server.isFloor {
                argv += ["--h1"]  // the floor speaks HTTP/2 only
            }
            return argv + ["http://\(server.address)\(server.path(workload))"]
        }
        // A run of its own warms the server up (the JVM compiles its hot paths), so the
        // measured run's CPU counters and log cover the same requests.
        if warmUp > 0 { _ = ChildProcess.run(argv(seconds: warmUp, log: nil)) }
        let cpuBefore = server.cpuSeconds(), allocationsBefore = server.allocations()
        let (status, output) = ChildProcess.run(argv(seconds: seconds, log: logFile), stderr: true)
        let cpuAfter = server.cpuSeconds(), allocationsAfter = server.allocations()
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0 else { throw BenchError("h2load failed (\(status)): \(text.suffix(500))") }
        // The log: one line a request, "start µs \t status \t duration µs".
        let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: logFile)
        var durations: [Double] = []
        var good = 0, bad = 0
        for line in log.split(separator: "\n") {
            let f = line.split(separator: "\t")
            guard f.count >= 3, let code = Int(f[1]), let micros = Double(f[2]) else { continue }
            durations.append(micros)
            if (200..<300).contains(code) { good += 1 } else { bad += 1 }
        }
        durations.sort()
        func percentile(_ p: Double) -> Double {
            durations.isEmpty ? .nan : durations[min(durations.count - 1, Int(Double(durations.count) * p))] / 1000
        }
        // h2load's figure (requests over its measured time), counting successes only.
        var rps = Double(good) / seconds
        if let range = text.range(of: #"[0-9.]+ req/s"#, options: .regularExpression),
           let v = Double(text[range].split(separator: " ")[0]) {
            rps = v * Double(good) / Double(max(1, good + bad))
        }
        // h2load counts failures it sees (resets, non-2xx); gRPC errors are in trailers, so
        // ResponseCheck verified those before.
        if let range = text.range(of: #"requests: .*"#, options: .regularExpression) {
            let line = text[range]
            if let failed = line.range(of: #"[0-9]+ failed"#, options: .regularExpression),
               let n = Int(line[failed].split(separator: " ")[0]) { bad = max(bad, n) }
            if let errored = line.range(of: #"[0-9]+ errored"#, options: .regularExpression),
               let n = Int(line[errored].split(separator: " ")[0]) { bad = max(bad, n) }
        }
        var cpu: Double?
        if let a = cpuBefore, let b = cpuAfter, good + bad > 0 { cpu = (b - a) / Double(good + bad) * 1e6 }
        var allocations: Double?
        if let a = allocationsBefore, let b = allocationsAfter, good + bad > 0 { allocations = Double(b &- a) / Double(good + bad) }
        return LoadResult(requestsPerSecond: rps, p50: percentile(0.50), p99: percentile(0.99),
                          succeeded: good, failed: bad, cpuMicroseconds: cpu, allocations: allocations)
    }
}
