import Foundation
import HearthTestSupport
import HearthCore
import HearthRules
import HearthLock
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// The request log over real front ends: what each REST and gRPC request (Listen stream
/// messages included) records — caller, status, documents, every rules verdict with its
/// allow lines and debug() output — and that nothing is recorded while nobody subscribes.
@Suite struct RequestLogTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /notes/{id} {
              allow read: if debug(request.auth) != null;
              allow create: if request.auth.uid == request.resource.data.owner;
              allow update: if false;
            }
          }
        }
        """

    /// A server whose project `p` enforces `rules`, and the entries recorded while `body` runs.
    func withLoggedServer(_ body: (EmulatorServer, () -> [RequestLogEntry]) throws -> Void) throws {
        let state = EmulatorState()
        state.rules.set(try ProjectRules(ProjectRules.File(name: "notes.rules", content: Self.rules)), forProject: "p")
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        let entries = HearthMutex<[RequestLogEntry]>([])
        let token = state.requestLog.subscribe { e in entries.withLock { $0.append(e) } }
        defer { state.requestLog.unsubscribe(token) }
        try body(server, { entries.withLock { $0 } })
    }

    static func jwt(_ uid: String) -> String {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        return "Bearer \(b64(#"{"alg":"none"}"#)).\(b64(#"{"sub":"\#(uid)"}"#))."
    }

    @Test func nothingIsRecordedWhileNobodySubscribes() throws {
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        #expect(!state.requestLog.isObserved)
        #expect(c.request("PATCH", "\(docs)/a/1", body: "{}")?.status == 200)
        #expect(state.requestLog.recent().isEmpty)
        let token = state.requestLog.subscribe { _ in }
        #expect(state.requestLog.isObserved)
        #expect(c.request("GET", "\(docs)/a/1")?.status == 200)
        state.requestLog.unsubscribe(token)
        state.requestLog.unsubscribe(token)  // idempotent
        #expect(!state.requestLog.isObserved)
        #expect(c.request("GET", "\(docs)/a/1")?.status == 200)
        #expect(state.requestLog.recent().map(\.method) == ["GET"])
    }

    @Test func restRequestsRecordCallerStatusDocumentsAndVerdicts() throws {
        try withLoggedServer { server, entries in
            let c = try RawHTTPClient(port: server.port)
            // A signed-out read: denied, with the allow evaluated and debug() output.
            #expect(c.request("GET", "\(docs)/notes/n1")?.status == 403)
            // A user's create: allowed by the create rule.
            let create = c.request("PATCH", "\(docs)/notes/n1?currentDocument.exists=false", body: #"{"fields": {"owner": {"stringValue": "ann"}}}"#,
                                   headers: ["Authorization": Self.jwt("ann")])
            #expect(create?.status == 200)
            // The owner bypasses the rules.
            #expect(c.request("GET", "\(docs)/notes/n1", headers: ["Authorization": "Bearer owner"])?.status == 200)
            // Not Firestore: not logged.
            #expect(c.request("GET", "/")?.status == 200)

            let log = entries()
            try #require(log.count == 3)
            let denied = log[0]
            #expect(denied.transport == .rest && denied.method == "GET")
            #expect(denied.path == "/v1/projects/p/databases/(default)/documents/notes/n1")
            #expect(denied.caller == .unauthenticated)
            #expect(denied.code == .permissionDenied && denied.httpStatus == 403)
            #expect(denied.message?.contains("false for 'get' @ L5") == true)
            #expect(denied.database == DatabaseID(project: "p"))
            #expect(denied.resources == [ResourcePath(segments: ["notes", "n1"])])
            #expect(denied.allowed == false)
            let verdict = try #require(denied.rules.first)
            #expect(verdict.method == .get && !verdict.allowed)
            #expect(verdict.outcomes.map(\.location.line) == [5])
            #expect(verdict.outcomes.first?.result == .notGranted)
            #expect(verdict.debugOutput == ["null_value: NULL_VALUE"])

            let created = log[1]
            #expect(created.caller == .user(uid: "ann") && created.code == .ok && created.httpStatus == 200)
            #expect(created.allowed == true)
            #expect(created.rules.map(\.method) == [.create])
            #expect(created.rules.first?.decidingAllow?.location.line == 6)
            #expect(created.duration > .zero && created.id == denied.id + 1)

            #expect(log[2].caller == .owner && log[2].rules.isEmpty && log[2].allowed == nil)
            #expect(server.state.requestLog.recent(after: log[1].id).map(\.id) == [log[2].id])
        }
    }

    @Test func grpcCallsAndListenStreamsAreRecorded() throws {
        try withLoggedServer { server, entries in
            let db = DatabaseID(project: "p")
            let client = try GRPCTestClient(port: server.port)
            let name = "projects/p/databases/(default)/documents/notes/n2"
            let denied = try client.call("GetDocument", TestProto.message { $0.writeString(1, name) }, authorization: nil)
            #expect(denied.status == 7)
            // Two writes in one commit: one verdict each; the second is refused.
            let commit = try client.call("Commit", TestProto.message { w in
                w.writeString(1, db.name)
                w.writeMessage(2, TestProto.write(.set(ResourcePath(segments: ["notes", "n3"]), MapValue([("owner", .string("bo"))])), db))
                w.writeMessage(2, TestProto.write(.set(ResourcePath(segments: ["notes", "n4"]), MapValue([("owner", .string("cy"))])), db))
            }, authorization: Self.jwt("bo"))
            #expect(commit.status == 7)

            // A Listen stream: the request that adds a target is recorded, and the stream is
            // listed with its target while it is open.
            let stream = try GRPCTestStream(port: server.port, method: "Listen", authorization: Self.jwt("bo"))
            stream.send(TestProto.message { w in
                w.writeString(1, db.name)
                w.writeMessage(2) { t in t.writeMessage(3) { $0.writeString(2, name) }; t.writeInt32(5, 3) }
            })
            _ = try stream.next(1)
            var open: [OpenStreams.Stream] = []
            for _ in 0..<200 where open.first?.targets.isEmpty ?? true {
                open = server.state.streams.all.filter { $0.kind == .listen }
                usleep(5_000)
            }
            #expect(open.count == 1)
            #expect(open.first?.caller == .user(uid: "bo") && open.first?.database == db && open.first?.transport == .grpc)
            #expect(open.first?.targets[3] == .documents([ResourcePath(segments: ["notes", "n2"])]))
            stream.halfClose()
            for _ in 0..<200 where !server.state.streams.all.isEmpty { usleep(5_000) }
            #expect(server.state.streams.all.isEmpty)

            let log = entries()
            try #require(log.count == 3)
            #expect(log[0].transport == .grpc && log[0].method == "GetDocument")
            #expect(log[0].path == "/google.firestore.v1.Firestore/GetDocument")
            #expect(log[0].caller == .unauthenticated && log[0].code == .permissionDenied && log[0].httpStatus == nil)
            #expect(log[0].rules.first?.debugOutput == ["null_value: NULL_VALUE"])
            #expect(log[1].method == "Commit" && log[1].caller == .user(uid: "bo"))
            #expect(log[1].rules.map(\.allowed) == [true, false])
            #expect(log[1].resources.map(\.description) == ["notes/n3", "notes/n4"])
            #expect(log[2].method == "Listen" && log[2].caller == .user(uid: "bo"))
            #expect(log[2].resources.map(\.description) == ["notes/n2"])
            #expect(log[2].rules.first?.allowed == true)
        }
    }

    @Test func webChannelStreamsAreRecordedAsWebChannel() throws {
        try withLoggedServer { server, entries in
            let c = WebChannelTestClient(port: server.port, stream: "Listen")
            let target = #"{"database":"projects/p/databases/(default)","addTarget":{"documents":{"documents":["projects/p/databases/(default)/documents/notes/n5"]},"targetId":2}}"#
            _ = try c.open(try JSON.parse(target), headers: ["X-Goog-Api-Client": "gl-js/ fire/12", "Authorization": Self.jwt("di")])
            try c.openBackChannel(longPoll: false)
            _ = try c.receive(1)
            var open: [OpenStreams.Stream] = []
            for _ in 0..<200 where open.first?.targets.isEmpty ?? true {
                open = server.state.streams.all
                usleep(5_000)
            }
            #expect(open.first?.transport == .webChannel && open.first?.kind == .listen)
            #expect(open.first?.caller == .user(uid: "di"))
            let listen = try #require(entries().first { $0.method == "Listen" })
            #expect(listen.transport == .webChannel && listen.caller == .user(uid: "di"))
            #expect(listen.resources.map(\.description) == ["notes/n5"] && listen.rules.first?.allowed == true)
            #expect(try c.terminate() == 200)
        }
    }

    @Test func theRingKeepsTheLatestEntries() {
        let log = RequestLog(capacity: 3)
        let token = log.subscribe { _ in }
        for m in ["a", "b", "c", "d", "e"] {
            log.record(RequestLogEntry(time: Date(), transport: .rest, method: m, path: "/", caller: .owner))
        }
        log.unsubscribe(token)
        #expect(log.recent().map(\.method) == ["c", "d", "e"])
        #expect(log.recent().map(\.id) == [3, 4, 5])
        #expect(log.recent(after: 3).map(\.method) == ["d", "e"])
        #expect(log.recent(limit: 1).map(\.method) == ["e"])
    }

    @Test func callersFromAuthorizationHeaders() {
        #expect(RequestLogEntry.Caller(authorization: nil) == .unauthenticated)
        #expect(RequestLogEntry.Caller(authorization: "Bearer owner") == .owner)
        #expect(RequestLogEntry.Caller(authorization: Self.jwt("zoe")) == .user(uid: "zoe"))
        #expect(RequestLogEntry.Caller(authorization: "Basic abc") == .invalid)
        #expect(RequestLogEntry.Caller(authorization: "Bearer not-a-jwt") == .invalid)
    }
}
