// `hearth-bench --server`: `hearth serve` (this build) measured from outside, as clients see
// it, with h2load on fixed gRPC bodies and REST over HTTP/1.1; with `--compare HOST:PORT` or
// `--compare-official`, the same runs against the other server, interleaved (A, B, A, B…) so
// a noisy machine affects both alike, and the ratios; and the floor (FloorServer: a bare
// HTTP/2 server answering with a fixed file of each answer's size) in the same interleaving,
// with Hearth's CPU and allocations per request against it. Then the Listen fan-out: one
// commit reaching many open Listen streams.
import Foundation
import HearthLock
#if canImport(Glibc)
import Glibc
#endif

struct ServerBenchmarkOptions {
    var compare: String?
    var compareOfficial = false
    var officialPort = 8090
    var seconds = 5.0
    var warmUp = 5.0
    var rounds = 2
    var documents = 20_000
    var only: Set<ServerWorkload.Kind> = Set(ServerWorkload.Kind.allCases)
    var shapes: [(connections: Int, streams: Int)] = [(1, 1), (4, 8)]
    var listenStreams = 1_000
    var listenCommits = 20
    var listenWebChannel = 0
    var hearthArguments: [String] = []
    /// Hearth listens on this port, the floor on the next (0: ports the kernel picks).
    var ports = 0
    var floor = true
    var countAllocations = true

    static let usage = """
        usage: hearth-bench --server [--compare HOST:PORT | --compare-official [--official-port P]]
                                     [--seconds D] [--warm-up W] [--rounds R] [--documents N]
                                     [--only get,batchget,query-eq,query-range,commit-incr,commit-set,rest-get,listen]
                                     [--shapes 1x1,4x8] [--listen-streams S] [--listen-commits K]
                                     [--listen-webchannel W]
                                     [--hearth-arg ARG]... [--ports P] [--no-floor] [--no-malloc-count]
          Starts `hearth serve` from this build (use a release build), seeds N workload documents
          (default 20000: ~200 match the equality query), checks every request kind's answer and
          grpc-status once, then runs h2load (nghttp2-client) on each for D seconds (default 5,
          after W seconds of warm-up, default 5: the JVM compiles its hot paths) at each connections x streams shape, R rounds
          (default 2). --compare / --compare-official run the same against the other server
          (the official emulator on 127.0.0.1:P, default 8090), interleaved, and print ratios.
          The Listen fan-out opens S Listen streams (default 1000) on one document and times
          K commits (default 20) reaching every stream; with W WebChannel Listen sessions
          (default 0) on the same document too. With 1,000 receivers or more it also reports
          the server's memory per stream and session and its CPU over 10 s of idling.
          The floor (unless --no-floor; needs nghttpd, nghttp2-server) is `nghttpd --no-tls`
          answering every workload with a fixed file of the size of Hearth's answer, timed in
          the same interleaving: CPU per request of a bare HTTP/2 server, and Hearth ÷ floor.
          Allocations per request (unless --no-malloc-count; needs cc) are counted in Hearth
          and the floor by a preloaded counter. --ports P: Hearth on P, the floor on P+1
          (default: free ports).
          Ten thousand listeners: --only listen --listen-streams 10000 --listen-webchannel 1000
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
        while let flag = rest.popFirst() {
            switch flag {
            case "--server": break
            case "--compare": compare = try value(flag)
            case "--compare-official": compareOfficial = true
            case "--official-port": officialPort = Int(try number(flag))
            case "--seconds": seconds = try number(flag)
            case "--warm-up": warmUp = Double(try value(flag)) ?? warmUp
            case "--rounds": rounds = Int(try number(flag))
            case "--documents": documents = Int(try number(flag))
            case "--listen-streams": listenStreams = Int(try number(flag))
            case "--listen-commits": listenCommits = Int(try number(flag))
            case "--listen-webchannel": listenWebChannel = Int(try number(flag))
            case "--hearth-arg": hearthArguments.append(try value(flag))
            case "--ports": ports = Int(try number(flag))
            case "--no-floor": floor = false
            case "--no-malloc-count": countAllocations = false
            case "--only":
                let names = try value(flag).split(separator: ",").map(String.init)
                only = []
                listenStreams = 0
                for name in names {
                    if name == "listen" { listenStreams = max(listenStreams, 1_000); continue }
                    guard let kind = ServerWorkload.Kind.allCases.first(where: { $0.flag == name }) else {
                        throw BenchError("--only: unknown workload '\(name)'")
                    }
                    only.insert(kind)
                }
            case "--shapes":
                shapes = try value(flag).split(separator: ",").map { shape in
                    let parts = shape.split(separator: "x")
                    guard parts.count == 2, let c = Int(parts[0]), let m = Int(parts[1]), c > 0, m > 0 else {
                        throw BenchError("--shapes wants CONNECTIONSxSTREAMS, e.g. 4x8; got '\(shape)'")
                    }
                    return (c, m)
                }
            case "-h", "--help": print(Self.usage); exit(0)
            default: throw BenchError("unknown argument '\(flag)'\n\n\(Self.usage)")
            }
        }
        if compare != nil && compareOfficial { throw BenchError("--compare and --compare-official are exclusive") }
    }
}

enum ServerBenchmark {
    /// The servers being measured, stopped on SIGINT/SIGTERM too.
    private static let running = HearthMutex<[ServerUnderTest]>([])

    static func main(_ args: [String]) -> Int32 {
        do {
            let options = try ServerBenchmarkOptions(args)
            try run(options)
            return 0
        } catch {
            FileHandle.standardError.write(Data("hearth-bench --server: \(error)\n".utf8))
            stopAll()
            return 1
        }
    }

    private static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    private static func stopAll() {
        for server in running.withLock({ $0 }) { server.stop() }
    }

    /// Starts the servers, seeds them alike, checks each request kind's answer once, runs the
    /// timed load interleaved, then the Listen fan-out, and prints the table.
    private static func run(_ options: ServerBenchmarkOptions) throws {
        guard LoadRun.h2load() != nil, ChildProcess.which("nghttp") != nil else {
            throw BenchError("h2load and nghttp are needed: apt-get install -y nghttp2-client")
        }
        #if DEBUG
        progress("note: debug build; measure with `swift build -c release` and .build/release/hearth-bench --server")
        #endif
        let signals = stopServersOnSignals()
        defer { signals.forEach { $0.cancel() } }
        let loadBefore = loadAverage()
        let fixture = ServerFixture(n: options.documents)
        let malloc = options.countAllocations ? MallocCount.build(progress: progress) : nil
        defer { malloc?.remove() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-bodies-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let htdocs = dir.appendingPathComponent("floor").path
        try FileManager.default.createDirectory(atPath: htdocs, withIntermediateDirectories: true)
        let servers = try startServers(options, malloc: malloc, htdocs: htdocs)
        defer { stopAll() }
        try seed(servers.filter { !$0.isFloor }, fixture)
        let workloads = fixture.workloads.filter { options.only.contains($0.kind) }
        let bodyFiles = try writeBodies(workloads, to: dir)
        var broken = checkAnswers(workloads, servers.filter { !$0.isFloor }, bodyFiles)
        if let floor = servers.first(where: \.isFloor) {
            broken.merge(prepareFloor(floor, hearth: servers[0], workloads, bodyFiles, htdocs: htdocs)) { a, _ in a }
        }
        let (results, dead) = try timedRuns(options, workloads, servers, bodyFiles, broken: broken)
        var (fanouts, fanoutErrors) = listenFanout(options, servers.filter { dead[$0.label] == nil && !$0.isFloor })
        let memory = servers.filter { !$0.isFloor }.map { s in "\(s.label) RSS \(s.residentBytes().map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "?")" }
        for (label, run) in dead {
            broken["died/\(label)"] = run
            fanoutErrors[label] = "not run: the server stopped answering during \(run)"
        }
        printTable(options: options, servers: servers, workloads: workloads, results: results, broken: broken,
                   fanouts: fanouts, fanoutErrors: fanoutErrors, memory: memory, load: (loadBefore, loadAverage()))
    }

    /// SIGINT and SIGTERM stop every server started, then exit (no orphaned JVM).
    private static func stopServersOnSignals() -> [DispatchSourceSignal] {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        return [SIGINT, SIGTERM].map { sig in
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                progress("interrupted: stopping the servers")
                stopAll()
                exit(130)
            }
            source.resume()
            return source
        }
    }

    private static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }

    /// `hearth serve`, and the server compared with it (one given, or the official emulator).
    private static func startServers(_ options: ServerBenchmarkOptions, malloc: MallocCount?, htdocs: String) throws -> [ServerUnderTest] {
        progress("starting hearth serve")
        var servers = [try ServerUnderTest.hearth(port: options.ports, extraArguments: options.hearthArguments, malloc: malloc)]
        running.withLock { $0 = servers }
        do {
            if let other = options.compare {
                servers.append(try ServerUnderTest.external(other))
            } else if options.compareOfficial {
                progress("starting the official emulator on 127.0.0.1:\(options.officialPort) (gcloud emulators firestore start)")
                servers.append(try ServerUnderTest.official(port: options.officialPort))
                running.withLock { $0 = servers }
            }
            if options.floor {
                if FloorServer.nghttpd() == nil {
                    progress("note: nghttpd is not installed (apt-get install -y nghttp2-server): no floor")
                } else {
                    progress("starting the floor (nghttpd --no-tls)")
                    servers.append(try FloorServer.start(port: options.ports > 0 ? options.ports + 1 : 0, htdocs: htdocs, malloc: malloc))
                    running.withLock { $0 = servers }
                }
            }
        } catch {
            stopAll()  // hearth serve is running already
            throw error
        }
        for server in servers {
            let idle = server.residentBytes().map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "?"
            progress("\(server.label) at \(server.address), pid \(server.pid.map(String.init) ?? "unknown"), RSS \(idle)")
        }
        return servers
    }

    /// Seeds every server the same way, through REST commits.
    private static func seed(_ servers: [ServerUnderTest], _ fixture: ServerFixture) throws {
        let commits = fixture.seedCommits()
        for server in servers {
            let start = Date()
            for (i, body) in commits.enumerated() {
                let (status, answer) = try HTTPProbe.request(host: server.host, port: server.port, method: "POST",
                                                             path: "/v1/\(BenchDatabase.documents):commit", body: body, timeout: 120)
                guard status == 200 else {
                    throw BenchError("seeding \(server.label): HTTP \(status) \(String(decoding: answer.prefix(300), as: UTF8.self))")
                }
                if (i + 1) % 10 == 0 || i + 1 == commits.count {
                    progress("seeding \(server.label): \(min((i + 1) * 500, fixture.n + 3)) of \(fixture.n + 3) documents")
                }
            }
            progress(String(format: "seeded \(server.label) in %.1f s", Date().timeIntervalSince(start)))
        }
    }

    /// The floor's answers: for each workload, a file of the size of Hearth's answer, checked
    /// once through the floor. What failed, as "kind/floor" → why, is not timed.
    private static func prepareFloor(_ floor: ServerUnderTest, hearth: ServerUnderTest, _ workloads: [ServerWorkload],
                                     _ bodyFiles: [ServerWorkload.Kind: String], htdocs: String) -> [String: String] {
        var broken: [String: String] = [:]
        for w in workloads {
            guard let answer = ResponseCheck.answer(w, on: hearth, bodyFile: bodyFiles[w.kind]!) else {
                broken["\(w.kind.rawValue)/\(floor.label)"] = "no answer from hearth to copy the size of"
                continue
            }
            do {
                try FloorServer.writeAnswer(w.kind, size: answer.count, htdocs: htdocs)
            } catch {
                broken["\(w.kind.rawValue)/\(floor.label)"] = "cannot write its answer: \(error)"
                continue
            }
            let got = ResponseCheck.answer(w, on: floor, bodyFile: bodyFiles[w.kind]!)
            if got?.count == answer.count {
                progress("floor \(w.kind.rawValue): ok (\(answer.count) bytes, the size of hearth's answer)")
            } else {
                broken["\(w.kind.rawValue)/\(floor.label)"] = "answered \(got.map { "\($0.count) bytes" } ?? "nothing"), not \(answer.count)"
                progress("floor \(w.kind.rawValue): FAILED — \(broken["\(w.kind.rawValue)/\(floor.label)"]!)")
            }
        }
        return broken
    }

    /// Each workload's request body in a file, for h2load.
    private static func writeBodies(_ workloads: [ServerWorkload], to dir: URL) throws -> [ServerWorkload.Kind: String] {
        var bodyFiles: [ServerWorkload.Kind: String] = [:]
        for w in workloads {
            let path = dir.appendingPathComponent(w.kind.flag + ".bin").path
            try Data(w.body).write(to: URL(fileURLWithPath: path))
            bodyFiles[w.kind] = path
        }
        return bodyFiles
    }

    /// Checks each request kind once per server (status, trailers, the answer); what failed,
    /// as "kind/server" → why, is not timed.
    private static func checkAnswers(_ workloads: [ServerWorkload], _ servers: [ServerUnderTest],
                                     _ bodyFiles: [ServerWorkload.Kind: String]) -> [String: String] {
        var broken: [String: String] = [:]
        for w in workloads {
            for server in servers {
                if let problem = ResponseCheck.verify(w, on: server, bodyFile: bodyFiles[w.kind]!) {
                    broken["\(w.kind.rawValue)/\(server.label)"] = problem
                    progress("check \(w.kind.rawValue) on \(server.label): FAILED — \(problem)")
                } else {
                    progress("check \(w.kind.rawValue) on \(server.label): ok (\(w.isGRPC ? "grpc-status 0, " : "")\(w.expectation))")
                }
            }
        }
        return broken
    }

    /// The timed runs, interleaved: results by "kind/shape/server", and each server that
    /// died with the run it died in (not measured further).
    private static func timedRuns(_ options: ServerBenchmarkOptions, _ workloads: [ServerWorkload], _ servers: [ServerUnderTest],
                                  _ bodyFiles: [ServerWorkload.Kind: String], broken: [String: String])
        throws -> (results: [String: [LoadResult]], dead: [String: String]) {
        var results: [String: [LoadResult]] = [:]
        var dead: [String: String] = [:]
        let total = workloads.count * options.shapes.count * options.rounds * servers.count
        var done = 0
        for w in workloads {
            for shape in options.shapes {
                for round in 1...options.rounds {
                    for server in servers where broken["\(w.kind.rawValue)/\(server.label)"] == nil && dead[server.label] == nil {
                        done += 1
                        // A server may still be working off the last run's backlog (h2load
                        // left, the queued calls did not): that would be charged to the next.
                        settle(servers)
                        let r = try LoadRun.run(w, on: server, connections: shape.connections, streams: shape.streams,
                                                seconds: options.seconds, warmUp: round == 1 ? options.warmUp : 0,
                                                bodyFile: bodyFiles[w.kind]!)
                        guard server.isAnswering else {
                            // A server that died (or hangs) is not measured further; the table says where.
                            dead[server.label] = "\(w.kind.rawValue) \(shape.connections)x\(shape.streams) round \(round)"
                            progress("\(server.label) stopped answering during \(dead[server.label]!)" + (server.logTail().map { ":\n\($0)" } ?? ""))
                            continue
                        }
                        results["\(w.kind.rawValue)/\(shape.connections)x\(shape.streams)/\(server.label)", default: []].append(r)
                        progress(String(format: "[%d/%d] %@ %dx%d %@ round %d: %.0f req/s, p50 %.2f ms, p99 %.2f ms%@%@%@",
                                        done, total, w.kind.rawValue, shape.connections, shape.streams, server.label, round,
                                        r.requestsPerSecond, r.p50, r.p99,
                                        r.cpuMicroseconds.map { String(format: ", CPU %.1f µs/req", $0) } ?? "",
                                        r.allocations.map { String(format: ", %.1f allocations/req", $0) } ?? "",
                                        r.failed > 0 ? ", \(r.failed) FAILED" : ""))
                    }
                }
            }
        }
        return (results, dead)
    }

    /// The Listen fan-out, one server after the other.
    private static func listenFanout(_ options: ServerBenchmarkOptions, _ servers: [ServerUnderTest])
        -> (fanouts: [String: FanoutResult], errors: [String: String]) {
        var fanouts: [String: FanoutResult] = [:]
        var errors: [String: String] = [:]
        guard options.listenStreams > 0 else { return (fanouts, errors) }
        for server in servers {
            progress("Listen fan-out on \(server.label): \(options.listenStreams) streams, \(options.listenWebChannel) WebChannel sessions, \(options.listenCommits) commits")
            do {
                let r = try ListenFanout.run(on: server, streams: options.listenStreams, webChannel: options.listenWebChannel,
                                             commits: options.listenCommits, progress: progress)
                fanouts[server.label] = r
                progress(String(format: "  p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d missing, CPU %@ a commit", r.p50, r.p99, r.max, r.missing,
                                Self.milliseconds(r.cpuPerCommit) as NSString))
            } catch {
                errors[server.label] = "\(error)"
                progress("  FAILED: \(error)")
            }
        }
        return (fanouts, errors)
    }

    /// Waits (up to a minute) until no server uses more than 5% of a core.
    private static func settle(_ servers: [ServerUnderTest]) {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let before = servers.map { $0.cpuSeconds() ?? 0 }
            usleep(250_000)
            let busy = zip(servers, before).contains { server, cpu in (server.cpuSeconds() ?? 0) - cpu > 0.0125 }
            if !busy { return }
        }
        progress("note: a server was still busy after a minute; measuring anyway")
    }

    /// "12.3 ms", or "?" when unknown.
    static func milliseconds(_ value: Double?) -> String {
        value.map { String(format: "%.1f ms", $0) } ?? "?"
    }

    private static func median(_ values: [Double]) -> Double {
        let v = values.filter { !$0.isNaN }.sorted()
        guard !v.isEmpty else { return .nan }
        return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
    }

    private static func printTable(options: ServerBenchmarkOptions, servers: [ServerUnderTest], workloads: [ServerWorkload],
                                   results: [String: [LoadResult]], broken: [String: String],
                                   fanouts: [String: FanoutResult], fanoutErrors: [String: String], memory: [String],
                                   load: (before: String, after: String)) {
        print("")
        print("hearth-bench --server: \(options.documents) documents, h2load \(Int(options.seconds)) s runs, \(options.rounds) rounds\(servers.count > 1 ? " interleaved" : ""); medians over rounds")
        // Columns: each server's figures; then Hearth against the server compared (req/s and
        // p99) and against the floor (CPU and allocations per request).
        let compared = servers.dropFirst().first { !$0.isFloor }
        let floor = servers.first { $0.isFloor }
        var header = "workload            shape"
        for s in servers { header += " | " + s.label.padding(toLength: 11, withPad: " ", startingAt: 0) + "req/s  p50 ms  p99 ms  CPU µs/req  allocs/req" }
        if compared != nil { header += " | req/s ratio  p99 ratio" }
        if floor != nil { header += " | CPU ÷ floor  allocs ÷ floor" }
        print(header)
        print(String(repeating: "-", count: header.count))
        for w in workloads {
            for shape in options.shapes {
                let shapeName = "\(shape.connections)x\(shape.streams)"
                var line = w.kind.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + shapeName.padding(toLength: 5, withPad: " ", startingAt: 0)
                var figures: [String: (rps: Double, p99: Double, cpu: Double, allocations: Double)] = [:]
                for s in servers {
                    if let why = broken["\(w.kind.rawValue)/\(s.label)"] {
                        line += " | " + ("check failed: " + why).padding(toLength: 56, withPad: " ", startingAt: 0)
                        continue
                    }
                    let runs = results["\(w.kind.rawValue)/\(shapeName)/\(s.label)"] ?? []
                    let r = median(runs.map(\.requestsPerSecond)), p50 = median(runs.map(\.p50)), p99 = median(runs.map(\.p99))
                    let cpu = median(runs.compactMap(\.cpuMicroseconds)), allocations = median(runs.compactMap(\.allocations))
                    let failed = runs.reduce(0) { $0 + $1.failed }
                    let cpuText = cpu.isNaN ? "?" : String(format: "%.1f", cpu)
                    let allocationsText = allocations.isNaN ? "-" : String(format: "%.1f", allocations)
                    line += " | " + String(format: "%16.0f %7.2f %7.2f", r, p50, p99)
                        + String(repeating: " ", count: max(1, 12 - cpuText.count)) + cpuText
                        + String(repeating: " ", count: max(1, 12 - allocationsText.count)) + allocationsText
                    if failed > 0 { line += " (\(failed) failed)" }
                    figures[s.label] = (r, p99, cpu, allocations)
                }
                let hearth = figures[servers[0].label]
                if let compared {
                    let other = figures[compared.label]
                    line += String(format: " | %10.2fx %9.2fx", (hearth?.rps ?? .nan) / (other?.rps ?? .nan), (other?.p99 ?? .nan) / (hearth?.p99 ?? .nan))
                }
                if let floor {
                    let bare = figures[floor.label]
                    line += String(format: " | %10.2fx %14.2fx", (hearth?.cpu ?? .nan) / (bare?.cpu ?? .nan),
                                   (hearth?.allocations ?? .nan) / (bare?.allocations ?? .nan))
                }
                print(line)
            }
        }
        for s in servers { if let run = broken["died/\(s.label)"] { print("\(s.label) stopped answering during \(run); later rows have no figures for it") } }
        if let compared {
            print("req/s ratio: \(servers[0].label) ÷ \(compared.label) (above 1: \(servers[0].label) is faster); p99 ratio: \(compared.label) ÷ \(servers[0].label) (above 1: \(servers[0].label)'s p99 is lower)")
        }
        if floor != nil {
            print("CPU ÷ floor, allocs ÷ floor: \(servers[0].label)'s per request ÷ the floor's (nghttpd --no-tls answering a fixed file of the size of \(servers[0].label)'s answer; REST get over HTTP/2 there)")
        }
        if servers.contains(where: { $0.allocationsFile == nil && !$0.isFloor && $0.label != servers[0].label }) {
            print("allocs/req: malloc-family calls counted by a preloaded library, in \(servers[0].label) and the floor only ('-': not counted; a JVM's objects are not malloc'd)")
        }
        if options.listenStreams > 0 {
            print("")
            print("Listen fan-out: \(options.listenStreams) open Listen streams" + (options.listenWebChannel > 0 ? " and \(options.listenWebChannel) WebChannel sessions" : "")
                  + " on one document, \(options.listenCommits) commits; time from sending a commit to each stream's DocumentChange")
            for s in servers {
                if let r = fanouts[s.label] {
                    print(String(format: "  %-8@ p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms  %d of %d deliveries missing; server CPU %@ a commit",
                                 s.label as NSString, r.p50, r.p99, r.max, r.missing, (r.streams + r.webChannelSessions) * r.commits,
                                 Self.milliseconds(r.cpuPerCommit) as NSString))
                    var memory: [String] = []
                    if let b = r.bytesPerStream { memory.append(String(format: "%.1f KiB per gRPC stream", b / 1024)) }
                    if let b = r.bytesPerSession { memory.append(String(format: "%.1f KiB per WebChannel session", b / 1024)) }
                    if let idle = r.idleCPU { memory.append(String(format: "idle CPU over 10 s %.2f%% of a core", idle * 100)) }
                    if !memory.isEmpty { print("           server: " + memory.joined(separator: ", ")) }
                } else {
                    print("  \(s.label.padding(toLength: 8, withPad: " ", startingAt: 0)) failed: \(fanoutErrors[s.label] ?? "?")")
                }
            }
        }
        print("")
        print("after the runs: " + memory.joined(separator: ", "))
        // Other work on the machine slows both servers, a JVM with many threads more.
        print("load average (1, 5, 15 min) before: \(load.before); after: \(load.after); \(ProcessInfo.processInfo.activeProcessorCount) cores")
    }
}
