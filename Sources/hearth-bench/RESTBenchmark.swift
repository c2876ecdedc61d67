// `hearth-bench --rest`: the emulator server over loopback: start-up time to the
// first answered connection, and REST point gets with 8 keep-alive connections.
import Foundation
import HearthLock
import HearthCore
import HearthServer
#if canImport(Glibc)
import Glibc
#endif

enum RESTBenchmark {
    static func printResults(seconds: Double = 3, connections: Int = 8) {
        let t0 = DispatchTime.now().uptimeNanoseconds
        guard let server = try? EmulatorServer(host: "127.0.0.1", port: 0) else {
            FileHandle.standardError.write(Data("cannot start the server\n".utf8))
            exit(1)
        }
        guard let probe = LoopbackClient(port: server.port), probe.get("/") == 200 else { exit(1) }
        let startup = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
        print(String(format: "rest_startup_to_first_answer_ms  %.2f", startup))

        let db = server.state.database(DatabaseID(project: "bench"))
        let ids = (0..<1000).map { String(format: "d%04d", $0) }
        _ = try? db.commit(ids.enumerated().map { i, id in
            Write.set(ResourcePath(segments: ["bench", id]), MapValue([("n", .integer(Int64(i))), ("name", .string("doc \(i)"))]))
        })
        let tally = HearthMutex<(requests: Int, failures: Int)>((0, 0))
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: connections) { c in
            guard let client = LoopbackClient(port: port) else { tally.withLock { $0.failures += 1 }; return }
            var i = c, done = 0, failed = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                if client.get("/v1/projects/bench/databases/(default)/documents/bench/\(ids[i % ids.count])") != 200 { failed += 1; break }
                done += 1
                i += connections
            }
            tally.withLock { $0.requests += done; $0.failures += failed }
        }
        let (total, failures) = tally.withLock { $0 }
        print(String(format: "rest_point_get_req_per_s          %.0f  (%d connections, %.0f s, %d failures)",
                     Double(total) / seconds, connections, seconds, failures))
        server.stop()
    }
}

/// A blocking keep-alive HTTP/1.1 client for GETs over loopback.
final class LoopbackClient {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init?(port: Int) {
        guard let fd = try? connectTCP(host: "127.0.0.1", port: port) else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends a GET and reads the whole response; returns its status (0 on failure).
    func get(_ path: String) -> Int { request("GET", path) }

    /// Sends a request (a JSON body when given) and reads the whole response; returns its
    /// status (0 on failure).
    func request(_ method: String, _ path: String, body: String? = nil) -> Int {
        let head = body.map { "\(method) \(path) HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: \($0.utf8.count)\r\n\r\n\($0)" }
            ?? "\(method) \(path) HTTP/1.1\r\nHost: bench\r\n\r\n"
        let request = Array(head.utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, sendNoSignal) }) == request.count else { return 0 }
        var have = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + have, $0.count - have, 0) }
            if n <= 0 { return 0 }
            have += n
            guard let headEnd = find(have) else { continue }
            let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
            let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
            var length = 0
            for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            while have < headEnd + 4 + length {
                let m = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + have, $0.count - have, 0) }
                if m <= 0 { return 0 }
                have += m
            }
            return status
        }
    }

    private func find(_ count: Int) -> Int? {
        guard count >= 4 else { return nil }
        for i in 0...(count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 { return i }
        return nil
    }
}
