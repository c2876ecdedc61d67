// Listen fan-out: S open Listen streams watching one document (spread over as many HTTP/2
// connections as the server's stream limit needs, 100 a connection at most), then commits
// to that document one at a time through REST; for each commit, the time from sending it to
// each stream receiving its DocumentChange. Arrival is stamped when the bytes are read, so
// the client's own parsing is not counted.
//
// The HTTP/2 client here is the least that works with any server: header blocks are sent
// as literals (no Huffman, no table) and the server's are skipped unread (they carry no
// data this measurement needs), DATA is acknowledged with WINDOW_UPDATE, SETTINGS and PING
// are answered.
import Foundation
import HearthGRPC
import HearthLock
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct FanoutResult {
    var streams: Int
    var commits: Int
    var p50: Double  // milliseconds, over every (commit, stream)
    var p99: Double
    var max: Double
    /// Deliveries that did not arrive within the timeout.
    var missing: Int
    /// The server's CPU time per commit over the commits (its own work plus delivering
    /// it to every stream), in milliseconds; nil when its process is not known.
    var cpuPerCommit: Double?
    /// WebChannel sessions among the receivers (after the gRPC streams).
    var webChannelSessions = 0
    /// The server's resident memory per open gRPC stream / WebChannel session (bytes, from
    /// its VmRSS before and after opening them); nil when unknown.
    var bytesPerStream: Double?
    var bytesPerSession: Double?
    /// The server's CPU over 10 s with every stream open and nothing changing, as a share
    /// of one core.
    var idleCPU: Double?
}

enum ListenFanout {
    /// `streams` gRPC Listen streams (100 a connection) and `webChannel` WebChannel Listen
    /// sessions (one streaming back channel each), all watching the listened document.
    static func run(on server: ServerUnderTest, streams: Int, webChannel: Int = 0, commits: Int,
                    progress: (String) -> Void) throws -> FanoutResult {
        raiseDescriptorLimit(to: streams / 50 + 2 * webChannel + 256)
        let receivers = streams + webChannel
        let tally = FanoutTally(streams: receivers)
        var connections: [ListenConnection] = []
        var sessions: WebChannelListeners?
        defer {
            for c in connections { c.close() }
            sessions?.close()
        }
        let residentBefore = server.residentBytes()
        var opened = 0
        while opened < streams {
            let c = try ListenConnection(host: server.host, port: server.port, tally: tally)
            connections.append(c)
            let limit = min(100, c.maxConcurrentStreams ?? 100, streams - opened)
            guard limit > 0 else { throw BenchError("the server allows no concurrent streams") }
            for _ in 0..<limit {
                try c.openListen(index: opened, document: BenchDatabase.name(BenchDatabase.listened))
                opened += 1
            }
        }
        progress("  \(streams) Listen streams open on \(connections.count) connections; waiting for their first snapshot")
        guard tally.waitUntil(everyStreamHas: 1, among: streams, timeout: 120) else {
            throw BenchError("only \(tally.streamsWith(atLeast: 1, among: streams)) of \(streams) Listen streams got their initial document")
        }
        let residentStreams = server.residentBytes()
        if webChannel > 0 {
            sessions = try WebChannelListeners(host: server.host, port: server.port, sessions: webChannel, firstIndex: streams,
                                               tally: tally, document: BenchDatabase.name(BenchDatabase.listened))
            progress("  \(webChannel) WebChannel sessions open; waiting for their first snapshot")
            guard tally.waitUntil(everyStreamHas: 1, timeout: 120) else {
                throw BenchError("only \(tally.streamsWith(atLeast: 1)) of \(receivers) receivers got their initial document")
            }
        }
        let residentAll = server.residentBytes()
        // Nothing changes for 10 s: what the server spends keeping the streams open.
        var idleCPU: Double?
        if receivers >= 1_000, let before = server.cpuSeconds() {
            let t0 = DispatchTime.now().uptimeNanoseconds
            sleep(10)
            if let after = server.cpuSeconds() { idleCPU = (after - before) / (Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9) }
        }
        var latencies: [Double] = []
        var missing = 0
        let cpuBefore = server.cpuSeconds()
        for k in 1...commits {
            let body = #"{"writes": [{"update": {"name": "\#(BenchDatabase.name(BenchDatabase.listened))", "fields": {"v": {"integerValue": "\#(k)"}}}}]}"#
            let t0 = DispatchTime.now().uptimeNanoseconds
            let (status, answer) = try HTTPProbe.request(host: server.host, port: server.port, method: "POST",
                                                         path: "/v1/\(BenchDatabase.documents):commit", body: body)
            guard status == 200 else { throw BenchError("commit: HTTP \(status) \(String(decoding: answer.prefix(200), as: UTF8.self))") }
            let complete = tally.waitUntil(everyStreamHas: 1 + k, timeout: 10)
            let arrivals = tally.arrivals(number: k)
            missing += receivers - arrivals.count
            latencies += arrivals.map { Double($0 &- t0) / 1e6 }
            if !complete { progress("  commit \(k): \(receivers - arrivals.count) receivers did not receive it within 10 s") }
        }
        let cpuAfter = server.cpuSeconds()
        let cpu = cpuBefore.flatMap { before in cpuAfter.map { ($0 - before) * 1000 / Double(commits) } }
        latencies.sort()
        func p(_ q: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] }
        if let failure = tally.failure { throw BenchError(failure) }
        var result = FanoutResult(streams: streams, commits: commits, p50: p(0.5), p99: p(0.99), max: latencies.last ?? .nan,
                                  missing: missing, cpuPerCommit: cpu, webChannelSessions: webChannel, idleCPU: idleCPU)
        if let a = residentBefore, let b = residentStreams, streams > 0 { result.bytesPerStream = Double(b - a) / Double(streams) }
        if let b = residentStreams, let c = residentAll, webChannel > 0 { result.bytesPerSession = Double(c - b) / Double(webChannel) }
        return result
    }

    /// Raises this process's soft descriptor limit to at least `needed` (up to the hard
    /// limit): 10,000 streams take 100 sockets, 1,000 WebChannel sessions 1,000 more.
    static func raiseDescriptorLimit(to needed: Int) {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(needed) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(needed))
        _ = setrlimit(resource, &limit)
    }
}

/// When each stream received each DocumentChange (the first is the initial snapshot).
final class FanoutTally: Sendable {
    private let state: HearthMutex<(arrivals: [[UInt64]], failure: String?)>
    private let count: Int

    init(streams: Int) {
        count = streams
        state = HearthMutex((Array(repeating: [], count: streams), nil))
    }

    func record(stream: Int, at time: UInt64) { state.withLock { $0.arrivals[stream].append(time) } }
    func fail(_ why: String) { state.withLock { if $0.failure == nil { $0.failure = why } } }
    var failure: String? { state.withLock { $0.failure } }

    func streamsWith(atLeast n: Int, among first: Int? = nil) -> Int {
        state.withLock { $0.arrivals.prefix(first ?? count).filter { $0.count >= n }.count }
    }

    /// The arrival times of the `number`-th change after the initial one, where it came.
    func arrivals(number: Int) -> [UInt64] {
        state.withLock { s in s.arrivals.compactMap { $0.count > number ? $0[number] : nil } }
    }

    /// Waits until each of the first `among` streams (default: all) has `n` arrivals.
    func waitUntil(everyStreamHas n: Int, among first: Int? = nil, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if streamsWith(atLeast: n, among: first) == (first ?? count) { return true }
            if failure != nil { return false }
            usleep(200)
        }
        return false
    }
}

/// One HTTP/2 connection carrying Listen streams, read by a thread of its own.
final class ListenConnection: @unchecked Sendable {
    private let fd: Int32
    private let tally: FanoutTally
    private let sendLock = NSLock()
    /// Guarded by `streamsLock`: stream id → (tally index, bytes of a partial gRPC message).
    private var streams: [UInt32: (index: Int, pending: [UInt8])] = [:]
    private let streamsLock = NSLock()
    private var nextStreamID: UInt32 = 1
    private let settingsReceived = DispatchSemaphore(value: 0)
    private(set) var maxConcurrentStreams: Int?
    private let closed = Atomic<Bool>(false)

    init(host: String, port: Int, tally: FanoutTally) throws {
        self.tally = tally
        fd = try connectTCP(host: host, port: port)
        // Preface, our SETTINGS (no push, 16 MiB stream windows), a 1 GiB connection window.
        var hello = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        hello += Self.frame(type: 4, flags: 0, stream: 0, payload: [0, 2, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0])
        hello += Self.frame(type: 8, flags: 0, stream: 0, payload: Self.uint32(1 << 30))
        try sendAll(hello)
        let thread = Thread { [self] in readLoop() }
        thread.stackSize = 1 << 20
        thread.start()
        _ = settingsReceived.wait(timeout: .now() + 10)
    }

    /// Opens a Listen stream with one document target; its changes count for `index`.
    func openListen(index: Int, document: String) throws {
        let id: UInt32 = streamsLock.withLock {
            let id = nextStreamID
            nextStreamID += 2
            streams[id] = (index, [])
            return id
        }
        var block: [UInt8] = []
        for (name, value) in [(":method", "POST"), (":scheme", "http"), (":path", "/google.firestore.v1.Firestore/Listen"),
                              (":authority", "bench"), ("content-type", "application/grpc"), ("te", "trailers"),
                              ("google-cloud-resource-prefix", BenchDatabase.database)] {
            block.append(0x00)  // literal without indexing, new name
            Self.appendString(name, to: &block)
            Self.appendString(value, to: &block)
        }
        let request = GRPCFrame.wrap { w in
            w.writeString(1, BenchDatabase.database)
            w.writeMessage(2) { target in
                target.writeMessage(3) { $0.writeString(2, document) }
                target.writeInt32(5, 1)
            }
        }
        try sendAll(Self.frame(type: 1, flags: 0x4, stream: id, payload: block) + Self.frame(type: 0, flags: 0, stream: id, payload: request))
    }

    func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    deinit { closeDescriptor(fd) }

    private func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var unacknowledged = 0
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 {
                if !closed.load(ordering: .relaxed) { tally.fail("a Listen connection was closed by the server") }
                settingsReceived.signal()
                return
            }
            let now = DispatchTime.now().uptimeNanoseconds
            buffer.append(contentsOf: chunk[0..<n])
            var at = 0
            while buffer.count - at >= 9 {
                let length = Int(buffer[at]) << 16 | Int(buffer[at + 1]) << 8 | Int(buffer[at + 2])
                guard buffer.count - at >= 9 + length else { break }
                let type = buffer[at + 3], flags = buffer[at + 4]
                let stream = UInt32(buffer[at + 5] & 0x7F) << 24 | UInt32(buffer[at + 6]) << 16 | UInt32(buffer[at + 7]) << 8 | UInt32(buffer[at + 8])
                let payload = Array(buffer[(at + 9)..<(at + 9 + length)])
                at += 9 + length
                switch type {
                case 0:  // DATA
                    var data = payload[...]
                    if flags & 0x8 != 0, let pad = data.first { data = data.dropFirst().dropLast(Int(pad)) }
                    received(Array(data), on: stream, at: now)
                    unacknowledged += length
                    if unacknowledged > 1 << 20 {
                        try? sendAll(Self.frame(type: 8, flags: 0, stream: 0, payload: Self.uint32(UInt32(unacknowledged))))
                        unacknowledged = 0
                    }
                case 3:  // RST_STREAM
                    tally.fail("the server reset a Listen stream (error \(payload.count >= 4 ? Int(payload[3]) : -1))")
                case 4 where flags & 0x1 == 0:  // SETTINGS
                    var i = 0
                    while i + 6 <= payload.count {
                        let id = Int(payload[i]) << 8 | Int(payload[i + 1])
                        let value = Int(payload[i + 2]) << 24 | Int(payload[i + 3]) << 16 | Int(payload[i + 4]) << 8 | Int(payload[i + 5])
                        if id == 3 { maxConcurrentStreams = value }
                        i += 6
                    }
                    try? sendAll(Self.frame(type: 4, flags: 0x1, stream: 0, payload: []))
                    settingsReceived.signal()
                case 6 where flags & 0x1 == 0:  // PING
                    try? sendAll(Self.frame(type: 6, flags: 0x1, stream: 0, payload: payload))
                case 7:  // GOAWAY
                    tally.fail("the server sent GOAWAY")
                default:
                    break  // HEADERS, CONTINUATION, WINDOW_UPDATE, acks: nothing to do
                }
            }
            buffer.removeFirst(at)
        }
    }

    /// Counts the DocumentChanges in a stream's DATA (gRPC messages may span frames).
    private func received(_ data: [UInt8], on stream: UInt32, at time: UInt64) {
        var changes = 0
        let index: Int? = streamsLock.withLock {
            guard var s = streams[stream] else { return nil }
            s.pending += data
            var i = 0
            while s.pending.count - i >= 5 {
                let n = Int(s.pending[i + 1]) << 24 | Int(s.pending[i + 2]) << 16 | Int(s.pending[i + 3]) << 8 | Int(s.pending[i + 4])
                guard s.pending.count - i >= 5 + n else { break }
                if ProtoFields.has(Array(s.pending[(i + 5)..<(i + 5 + n)]), 3) { changes += 1 }
                i += 5 + n
            }
            s.pending.removeFirst(i)
            streams[stream] = s
            return s.index
        }
        if let index { for _ in 0..<changes { tally.record(stream: index, at: time) } }
    }

    private func sendAll(_ bytes: [UInt8]) throws {
        try sendLock.withLock {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, sendNoSignal) }
                guard n > 0 else { throw BenchError("send failed on a Listen connection") }
                sent += n
            }
        }
    }

    static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), type, flags] + uint32(stream) + payload
    }

    static func uint32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// An HPACK string literal, not Huffman-coded (7-bit prefix length).
    static func appendString(_ s: String, to block: inout [UInt8]) {
        let bytes = Array(s.utf8)
        var n = bytes.count
        if n < 127 {
            block.append(UInt8(n))
        } else {
            block.append(127)
            n -= 127
            while n >= 128 { block.append(UInt8(n & 0x7F) | 0x80); n >>= 7 }
            block.append(UInt8(n))
        }
        block += bytes
    }
}
