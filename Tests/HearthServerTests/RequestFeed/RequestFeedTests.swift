#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthServer
@testable import HearthTransport

/// The Emulator UI's Requests feed over a real WebSocket: the array first, then one object
/// per rules evaluation in the official shape; nothing subscribed while no client is
/// connected; kept evaluations for a client that comes later.
@Suite struct RequestFeedTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /c/{id} {
              allow read, write: if request.auth.uid == 'alice';
            }
          }
        }
        """

    /// A feed client on a raw socket: handshake, then the server's text messages.
    final class FeedClient {
        let fd: Int32
        var buffer: [UInt8] = []

        init(port: Int) throws {
            fd = socket(AF_INET, Socket.streamType, 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = UInt16(port).bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 else { throw Socket.SystemError(call: "connect", code: errno) }
            let head = "GET /requests HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            _ = Array(head.utf8).withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, 0) }
        }

        deinit { close(fd) }

        private func fill(timeout: Double) -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return false }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
            return true
        }

        /// The next text message (the 101's head is skipped first), or nil after `timeout`.
        func message(timeout: Double = 5) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                if buffer.starts(with: Array("HTTP/1.1".utf8)) {
                    if let end = (0..<max(0, buffer.count - 3)).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) {
                        buffer.removeFirst(end + 4)
                        continue
                    }
                } else if buffer.count >= 2 {
                    var n = Int(buffer[1] & 0x7F), at = 2
                    if n == 126, buffer.count >= 4 { n = Int(buffer[2]) << 8 | Int(buffer[3]); at = 4 }
                    else if n == 127, buffer.count >= 10 { n = 0; for k in 0..<8 { n = n << 8 | Int(buffer[2 + k]) }; at = 10 }
                    if buffer.count >= at + n, !(buffer[1] & 0x7F >= 126 && at == 2) {
                        let payload = Array(buffer[at..<(at + n)])
                        let opcode = buffer[0] & 0x0F
                        buffer.removeFirst(at + n)
                        if opcode == 1 { return String(decoding: payload, as: UTF8.self) }
                        continue
                    }
                }
                let left = deadline.timeIntervalSinceNow
                guard left > 0, fill(timeout: left) else { return nil }
            }
        }
    }

    static func object(_ text: String?) -> [String: Any]? {
        text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func evaluationsReachTheFeedInTheOfficialShape() throws {
        let state = EmulatorState()
        state.rules.set(try ProjectRules(ProjectRules.File(name: "firestore.rules", content: Self.rules)), forProject: "p")
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        let feedServer = try RequestFeedServer(port: 0, state: state)
        defer { feedServer.stop() }
        #expect(!state.requestLog.isObserved, "nothing watches before a client connects")

        let client = try FeedClient(port: feedServer.port)
        #expect(client.message() == "[]")
        #expect(state.requestLog.isObserved)
        let http = try RawHTTPClient(port: server.port)
        #expect(http.request("GET", "\(docs)/c/a", headers: ["Authorization": RequestLogTests.jwt("alice")])?.status == 404)
        #expect(http.request("GET", "\(docs)/c/a", headers: ["Authorization": RequestLogTests.jwt("bob")])?.status == 403)
        #expect(http.request("GET", "\(docs)/c/a")?.status == 403)
        #expect(http.request("GET", "\(docs)/c/a", headers: ["Authorization": "Bearer owner"])?.status == 404)

        let allowed = try #require(Self.object(client.message()))
        #expect(allowed["outcome"] as? String == "allow")
        #expect((allowed["rulesReleaseKey"] as? String)?.hasPrefix("projects/p/releases/cloud.firestore") == true)
        #expect(allowed["rules"] as? String == Self.rules)
        let context = try #require(allowed["rulesContext"] as? [String: Any])
        #expect(context["path"] as? String == "/databases/(default)/documents/c/a")
        #expect(context["method"] as? String == "get")
        let request = try #require((context["request"] as? [String: Any])?["mapValue"] as? [String: Any])
        let fields = try #require(request["fields"] as? [String: Any])
        let auth = try #require(((fields["auth"] as? [String: Any])?["mapValue"] as? [String: Any])?["fields"] as? [String: Any])
        #expect((auth["uid"] as? [String: Any])?["stringValue"] as? String == "alice")
        let granular = try #require(allowed["granularAllowOutcomes"] as? [[String: Any]])
        #expect(granular.count == 1 && granular[0]["line"] as? Int == 5 && granular[0]["outcome"] as? Bool == true)
        #expect(Self.object(client.message())?["outcome"] as? String == "deny")
        let error = try #require(Self.object(client.message()))
        #expect(error["outcome"] as? String == "error")
        #expect((((error["rulesContext"] as? [String: Any])?["request"] as? [String: Any])?["mapValue"] as? [String: Any])
            .flatMap { ($0["fields"] as? [String: Any])?["auth"] as? [String: Any] }?["nullValue"] != nil)
        #expect(client.message(timeout: 0.5) == nil, "the owner's request evaluates no rules")

        // A second client gets the three kept evaluations first.
        let later = try FeedClient(port: feedServer.port)
        let initial = try #require(later.message().flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [[String: Any]] })
        #expect(initial.map { $0["outcome"] as? String } == ["allow", "deny", "error"])
    }

    @Test func theFeedStopsWatchingWhenTheLastClientLeaves() throws {
        let state = EmulatorState()
        let feedServer = try RequestFeedServer(port: 0, state: state)
        defer { feedServer.stop() }
        do {
            let client = try FeedClient(port: feedServer.port)
            #expect(client.message() == "[]")
            #expect(state.requestLog.isObserved)
        }
        var gone = false
        for _ in 0..<200 where !gone { usleep(10_000); gone = !state.requestLog.isObserved }
        #expect(gone)
        let http = try RawHTTPClient(port: feedServer.port)
        #expect(http.request("GET", "/nope")?.status == 404)
    }

    @Test func valuesAreRulesExpressionValues() {
        let name = DocumentName(database: DatabaseID(project: "p"), path: ResourcePath(segments: ["c", "a"]))
        let v: Value = .map(MapValue([("i", .integer(3)), ("d", .double(1.5)), ("r", .reference(name)), ("l", .array([.boolean(true)])),
                                      ("g", .geoPoint(GeoPoint(latitude: 1, longitude: -2))), ("n", .null)]))
        let json = String(decoding: RequestFeedJSON.value(v, database: "(default)").bytes, as: UTF8.self)
        #expect(json.contains(#""i":{"intValue":"3"}"#))
        #expect(json.contains(#""d":{"floatValue":1.5}"#))
        #expect(json.contains(#""r":{"pathValue":{"segments":[{"simple":"databases"},{"simple":"(default)"},{"simple":"documents"},{"simple":"c"},{"simple":"a"}]}}"#))
        #expect(json.contains(#""l":{"listValue":{"values":[{"boolValue":true}]}}"#))
        #expect(json.contains(#""latlngValue""#))
        #expect(json.contains(#""n":{"nullValue":null}"#))
        #expect(RequestFeedJSON.millisecondTime(Timestamp(seconds: 0, nanos: 5_000_000)) == "1970-01-01T00:00:00.005Z")
    }
}
