// A server the benchmark drives: `hearth serve` or the official emulator started here (each
// in its own process group, stopped with it), or one already running at HOST:PORT. Its CPU
// time and memory come from /proc for the process listening on its port.
import Foundation
import HearthLock
#if canImport(Glibc)
import Glibc
#endif

final class ServerUnderTest: Sendable {
    let label: String
    let host: String
    let port: Int
    /// The process answering on the port (the JVM, not `gcloud`), when it is on this machine.
    let pid: pid_t?
    /// The process group started for it (nil: not ours to stop, or stopped).
    private let group: HearthMutex<pid_t?>
    private let log: String?
    /// Where `MallocCount` keeps the process's allocation count (nil: not counted).
    let allocationsFile: String?
    /// The floor (FloorServer): each workload has its own path, REST get is HTTP/2.
    let isFloor: Bool

    var address: String { "\(host):\(port)" }

    private init(label: String, host: String, port: Int, group: pid_t?, log: String?,
                 allocationsFile: String? = nil, isFloor: Bool = false) {
        self.label = label
        self.host = host
        self.port = port
        self.group = HearthMutex(group)
        self.log = log
        self.allocationsFile = allocationsFile
        self.isFloor = isFloor
        pid = ListeningProcess.pid(port: port)
    }

    /// A server this benchmark started on 127.0.0.1:`port` in process group `group`.
    static func started(label: String, port: Int, group: pid_t, log: String, allocations: String?, isFloor: Bool) -> ServerUnderTest {
        ServerUnderTest(label: label, host: "127.0.0.1", port: port, group: group, log: log, allocationsFile: allocations, isFloor: isFloor)
    }

    /// Where a workload's requests go on this server.
    func path(_ workload: ServerWorkload) -> String { isFloor ? FloorServer.path(workload.kind) : workload.path }

    /// The allocations counted in the process so far (nil: not counted).
    func allocations() -> UInt64? { allocationsFile.flatMap(MallocCount.read) }

    /// An already running server (not stopped by the benchmark).
    static func external(_ address: String) throws -> ServerUnderTest {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            throw BenchError("--compare wants HOST:PORT, got '\(address)'")
        }
        let host = String(address[..<colon])
        guard HTTPProbe.ok(host: host, port: port) else { throw BenchError("nothing answers GET / at \(address)") }
        return ServerUnderTest(label: "other", host: host, port: port, group: nil, log: nil)
    }

    /// `hearth serve` from the same build folder as this benchmark, on a free port.
    static func hearth(port: Int, extraArguments: [String], malloc: MallocCount?) throws -> ServerUnderTest {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hearth").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no hearth binary beside hearth-bench (\(binary)): swift build -c release")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let ready = dir.appendingPathComponent("ready").path
        let seed = dir.appendingPathComponent("empty.json").path
        try Data("{}".utf8).write(to: URL(fileURLWithPath: seed))
        try? FileManager.default.removeItem(atPath: ready)
        let log = dir.appendingPathComponent("hearth.log").path
        // An empty seed file: no documented apps loaded, the benchmark seeds its own data.
        let group = try ChildProcess.spawn([binary, "serve", "--port", String(port), "--ready-file", ready, "--seed", seed,
                                            "--project", BenchDatabase.project] + extraArguments, log: log,
                                           environment: malloc?.environment(for: "hearth") ?? [:])
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: ready, encoding: .utf8),
               let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? "") {
                return ServerUnderTest(label: "hearth", host: "127.0.0.1", port: port, group: group, log: log,
                                       allocationsFile: malloc?.counterFile(for: "hearth"))
            }
            usleep(20_000)
        }
        ChildProcess.stop(group: group)
        throw BenchError("hearth serve did not start within 30 s (log: \(log))")
    }

    /// A `hearth serve` the caller started (in process group `group`) and saw ready on `port`.
    static func started(label: String, port: Int, group: pid_t, log: String) -> ServerUnderTest {
        ServerUnderTest(label: label, host: "127.0.0.1", port: port, group: group, log: log)
    }

    /// The official emulator (`gcloud emulators firestore start`) on `port`.
    static func official(port: Int) throws -> ServerUnderTest {
        guard let gcloud = ChildProcess.which("gcloud") else { throw BenchError("gcloud is not installed") }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-official-\(getpid()).log").path
        let group = try ChildProcess.spawn([gcloud, "emulators", "firestore", "start", "--host-port=127.0.0.1:\(port)"], log: log)
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if HTTPProbe.ok(host: "127.0.0.1", port: port) {
                return ServerUnderTest(label: "official", host: "127.0.0.1", port: port, group: group, log: log)
            }
            usleep(200_000)
        }
        ChildProcess.stop(group: group)
        throw BenchError("the official emulator did not answer on 127.0.0.1:\(port) within 120 s (log: \(log))")
    }

    /// Whether the server still answers `GET /` (a crash or a hang shows here).
    /// The floor speaks HTTP/2 only: for it, a connection accepted is the sign of life.
    var isAnswering: Bool {
        guard isFloor else { return HTTPProbe.ok(host: host, port: port) }
        guard let fd = try? connectTCP(host: host, port: port) else { return false }
        close(fd)
        return true
    }

    /// The end of the server's log (where a crash report is), when the benchmark started it.
    func logTail(lines: Int = 40) -> String? {
        guard let log, let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = all.firstIndex { $0.contains("Fatal error") || $0.contains("crashed") } ?? max(0, all.count - lines)
        return all[start..<min(all.count, start + lines)].joined(separator: "\n")
    }

    /// User + system CPU seconds the server process has used so far.
    func cpuSeconds() -> Double? {
        guard let pid, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The server's resident memory in bytes.
    func residentBytes() -> Int? {
        guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Int(parts[1]) { return kb * 1024 }
        }
        return nil
    }

    /// The server's peak resident memory so far (VmHWM), in bytes.
    func peakResidentBytes() -> Int? {
        guard let pid else { return nil }
        let peak = ProcessMemory.of(pid).peak
        return peak > 0 ? peak : nil
    }

    /// Stops the server if the benchmark started it.
    func stop() {
        if let group = group.withLock({ g in defer { g = nil }; return g }) { ChildProcess.stop(group: group) }
    }

    deinit { stop() }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Child processes in their own process group, so stopping one stops what it started too
/// (`gcloud` runs the emulator's JVM as its child).
enum ChildProcess {
    /// `environment` is added to this process's own.
    static func spawn(_ argv: [String], log: String, environment: [String: String] = [:]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in cEnv { free(p) } }
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, cEnv)
        guard rc == 0 else { throw BenchError("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// SIGTERM to the group, SIGKILL after 10 s, and the leader reaped.
    static func stop(group: pid_t) {
        kill(-group, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 {
            if waitpid(group, &status, WNOHANG) == group {
                // The leader is gone; the rest of the group (a JVM) may linger a moment.
                usleep(200_000)
                kill(-group, SIGKILL)
                return
            }
            usleep(50_000)
        }
        kill(-group, SIGKILL)
        waitpid(group, &status, 0)
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs a command to completion; its standard output (and, with `stderr`, its errors).
    static func run(_ argv: [String], stderr: Bool = false) -> (status: Int32, output: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = stderr ? pipe : FileHandle.nullDevice
        do { try process.run() } catch { return (-1, []) }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](data))
    }
}

/// Which process listens on a loopback TCP port: the socket's inode from /proc/net/tcp(6),
/// then the process holding a descriptor for it.
enum ListeningProcess {
    static func pid(port: Int) -> pid_t? {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ", omittingEmptySubsequences: true)
                guard f.count > 9, f[3] == "0A", let colon = f[1].lastIndex(of: ":"),
                      Int(f[1][f[1].index(after: colon)...], radix: 16) == port else { continue }
                inodes.insert(String(f[9]))
            }
        }
        guard !inodes.isEmpty, let procs = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for p in procs {
            guard let pid = pid_t(p), let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p)/fd") else { continue }
            for fd in fds {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(p)/fd/\(fd)"),
                      target.hasPrefix("socket:[") else { continue }
                if inodes.contains(String(target.dropFirst(8).dropLast())) { return pid }
            }
        }
        return nil
    }
}

/// Blocking HTTP/1.1 requests for set-up and checks (not for the timed load).
enum HTTPProbe {
    static func ok(host: String, port: Int) -> Bool {
        (try? request(host: host, port: port, method: "GET", path: "/"))?.status == 200
    }

    /// One request on a fresh connection (`Connection: close`): status and body.
    static func request(host: String, port: Int, method: String, path: String, body: String? = nil,
                        contentType: String = "application/json", timeout: Int = 30) throws -> (status: Int, body: [UInt8]) {
        let fd = try connectTCP(host: host, port: port)
        defer { close(fd) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let payload = Array((body ?? "").utf8)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        head += "Authorization: Bearer owner\r\n"
        if body != nil { head += "Content-Type: \(contentType)\r\nContent-Length: \(payload.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + payload
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, sendNoSignal) }
            guard n > 0 else { throw BenchError("send to \(host):\(port) failed") }
            sent += n
        }
        // Read to the end of the answer: its Content-Length, the last chunk, or the close
        // (some servers keep the connection open despite `Connection: close`).
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = response.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: response[..<end.lowerBound], as: UTF8.self).lowercased()
                let body = response.count - end.upperBound
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                   let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)), body >= length { break }
                if head.contains("transfer-encoding: chunked"), response.suffix(5) == [48, 13, 10, 13, 10] { break }
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            response.append(contentsOf: chunk[0..<n])
        }
        guard let end = response.firstRange(of: [13, 10, 13, 10]) else { throw BenchError("no HTTP response from \(host):\(port)") }
        let head0 = String(decoding: response[..<end.lowerBound], as: UTF8.self)
        let status = Int(head0.split(separator: " ").dropFirst().first ?? "") ?? 0
        var payloadOut = Array(response[end.upperBound...])
        if head0.lowercased().contains("transfer-encoding: chunked") { payloadOut = dechunk(payloadOut) }
        return (status, payloadOut)
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], i = 0
        while let lineEnd = bytes[i...].firstRange(of: [13, 10]) {
            guard let size = Int(String(decoding: bytes[i..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16),
                  size > 0 else { break }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { break }
            out.append(contentsOf: bytes[start..<(start + size)])
            i = start + size + 2
            guard i < bytes.count else { break }
        }
        return out
    }
}
