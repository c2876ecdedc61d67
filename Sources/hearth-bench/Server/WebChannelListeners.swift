// WebChannel Listen sessions for the fan-out, opened as the Firebase JS SDK opens them
// (docs/webchannel.md): a handshake POST carrying the ListenRequest that adds a document
// target, then a streaming back channel (`CI=0`), one HTTP/1.1 connection each. One thread
// polls every back channel and stamps each DocumentChange when its bytes are read, as the
// gRPC connections' readers do.
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

final class WebChannelListeners: @unchecked Sendable {
    private let sockets: [Int32]
    private let closed = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    static let path = "/google.firestore.v1.Firestore/Listen/channel"

    /// Opens `sessions` sessions; their changes count for tally indexes `firstIndex...`.
    init(host: String, port: Int, sessions: Int, firstIndex: Int, tally: FanoutTally, document: String) throws {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        func encoded(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: allowed)! }
        let database = encoded(BenchDatabase.database)
        let first = #"{"database":"\#(BenchDatabase.database)","addTarget":{"documents":{"documents":["\#(document)"]},"targetId":2}}"#
        let form = "headers=" + encoded("X-Goog-Api-Client:gl-js/ fire/12.3.0\r\nContent-Type:text/plain\r\n")
            + "&count=1&ofs=0&req0___data__=" + encoded(first)
        var sockets: [Int32] = []
        do {
            for k in 0..<sessions {
                let (status, answer) = try HTTPProbe.request(
                    host: host, port: port, method: "POST",
                    path: "\(Self.path)?VER=8&database=\(database)&RID=\(1000 + k)&CVER=22&X-HTTP-Session-Id=gsessionid&zx=a1&t=1",
                    body: form, contentType: "application/x-www-form-urlencoded")
                let text = String(decoding: answer, as: UTF8.self)
                guard status == 200, let r = text.range(of: #"\["c","[^"]+""#, options: .regularExpression) else {
                    throw BenchError("WebChannel handshake \(k): HTTP \(status) \(text.prefix(200))")
                }
                let sid = text[r].dropFirst(6).dropLast()  // `["c","` SID `"`
                let fd = try connectTCP(host: host, port: port)
                sockets.append(fd)
                let head = "GET \(Self.path)?VER=8&database=\(database)&RID=rpc&SID=\(sid)&AID=0&CI=0&TYPE=xmlhttp&zx=c3&t=1 HTTP/1.1\r\nHost: \(host):\(port)\r\n\r\n"
                let bytes = Array(head.utf8)
                guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, sendNoSignal) }) == bytes.count else {
                    throw BenchError("WebChannel back channel \(k): send failed")
                }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } catch {
            for fd in sockets { closeDescriptor(fd) }
            throw error
        }
        self.sockets = sockets
        let thread = Thread { [self] in readLoop(tally: tally, firstIndex: firstIndex) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Reads every back channel until closed; counts `documentChange` keys in what arrives
    /// (the head, chunk sizes and other messages carry none; a key split across two reads
    /// is found through the carried tail).
    private func readLoop(tally: FanoutTally, firstIndex: Int) {
        defer { finished.signal() }
        var polled = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var tails = [[UInt8]](repeating: [], count: sockets.count)
        let key = Array("documentChange".utf8)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !closed.load(ordering: .relaxed) {
            let ready = poll(&polled, nfds_t(polled.count), 200)
            guard ready > 0 else { continue }
            let now = DispatchTime.now().uptimeNanoseconds
            for i in polled.indices where polled[i].revents != 0 {
                polled[i].revents = 0
                while true {
                    let n = recv(polled[i].fd, &chunk, chunk.count, 0)
                    if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                        if !closed.load(ordering: .relaxed) { tally.fail("a WebChannel back channel was closed by the server") }
                        polled[i].fd = -1
                        break
                    }
                    if n < 0 { break }
                    let data = tails[i] + chunk[0..<n]
                    var at = 0, found = 0
                    while let r = data[at...].firstRange(of: key) { found += 1; at = r.upperBound }
                    tails[i] = Array(data.suffix(min(key.count - 1, data.count - at)))
                    for _ in 0..<found { tally.record(stream: firstIndex + i, at: now) }
                }
            }
        }
    }

    func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        finished.wait()
        for fd in sockets { closeDescriptor(fd) }
    }
}
