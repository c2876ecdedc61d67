import Foundation
import HearthTestSupport
import HearthCore
import HearthLock
import Synchronization
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// A stand-in Functions emulator: an HTTP server that keeps every request and answers with
/// `status` (or waits `delay` first).
private final class Receiver: Sendable {
    struct Received: Sendable {
        let path: String
        let headers: [(name: String, value: String)]
        let body: [UInt8]
        var json: JSON? { try? JSON.parse(body) }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
    }

    final class State: Sendable {
        let received = HearthMutex<[Received]>([])
        let status: Atomic<Int>
        let delayMilliseconds = Atomic<Int>(0)
        init(status: Int) { self.status = Atomic(status) }
    }

    let server: HTTPServer
    let state: State

    init(status: Int = 200) throws {
        let state = State(status: status)
        server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
            let d = state.delayMilliseconds.load(ordering: .relaxed)
            if d > 0 { usleep(UInt32(d) * 1000) }
            state.received.withLock { $0.append(Received(path: String(request.path), headers: request.headers, body: request.body)) }
            return HTTPResponse(status: state.status.load(ordering: .relaxed))
        }
        self.state = state
    }

    var address: String { "127.0.0.1:\(server.port)" }
    var all: [Received] { state.received.withLock { $0 } }

    /// Waits until `count` requests have come (at most 10 s).
    func wait(for count: Int) -> [Received] {
        for _ in 0..<1000 where all.count < count { usleep(10_000) }
        return all
    }

    deinit { server.stop() }
}


private func path(_ text: String) -> ResourcePath { ResourcePath(segments: text.split(separator: "/").map(String.init)) }

private func v1Registration(_ type: String, _ resource: String) -> String {
    #"{"eventTrigger": {"eventType": "providers/cloud.firestore/eventTypes/document.\#(type)", "resource": "projects/p/databases/(default)/documents/\#(resource)", "service": "firestore.googleapis.com"}}"#
}

private func v2Registration(_ type: String, _ document: String, match: String = "PATH_PATTERN") -> String {
    #"{"eventType": "google.cloud.firestore.document.v1.\#(type)", "database": "(default)", "namespace": "(default)", "document": {"value": "\#(document)", "matchType": "\#(match)"}}"#
}

@Suite struct TriggerMatchingTests {
    @Test func patterns() {
        let p = TriggerPattern("users/{uid}")
        #expect(p.matches(path("users/alice")))
        #expect(!p.matches(path("users/alice/posts/p")))
        #expect(!p.matches(path("rooms/alice")))
        let nested = TriggerPattern("a/{x}/c/{y}")
        #expect(nested.matches(path("a/b/c/d")))
        #expect(!nested.matches(path("a/b")))
        #expect(!nested.matches(path("x/b/c/d")))
        let rest = TriggerPattern("users/{rest=**}")
        #expect(rest.matches(path("users/a")))
        #expect(rest.matches(path("users/a/b/c")))
        #expect(!rest.matches(path("rooms/a")))
        let exact = TriggerPattern("users/{uid}", exact: true)
        #expect(!exact.matches(path("users/alice")))
        #expect(exact.matches(path("users/{uid}")))
        #expect(!TriggerPattern.none.matches(path("users/alice")))
        #expect(!TriggerPattern("users//{x}").matches(path("users/a")))
    }

    /// The official emulator's rules (recorded): 1st gen fires on changes of content only;
    /// 2nd gen on every document a write names (an unchanged write is an update, the delete
    /// of a missing document a create).
    @Test func whatFires() throws {
        let db = DatabaseID(project: "p")
        let doc = Document(path: path("users/a"), fields: MapValue([("n", .integer(1))]),
                           createTime: Timestamp(seconds: 1, nanos: 0), updateTime: Timestamp(seconds: 1, nanos: 0))
        let created = CommittedDocuments.Entry(key: DocumentKey(doc.path), before: nil, after: doc, changed: true)
        let unchanged = CommittedDocuments.Entry(key: DocumentKey(doc.path), before: doc, after: doc, changed: false)
        let deletedMissing = CommittedDocuments.Entry(key: DocumentKey(doc.path), before: nil, after: nil, changed: false)
        let deleted = CommittedDocuments.Entry(key: DocumentKey(doc.path), before: doc, after: nil, changed: true)
        func v1(_ t: String) throws -> Trigger {
            try TriggerRegistration.v1(project: "p", key: "k", body: Array(v1Registration(t, "users/{uid}").utf8))
        }
        func v2(_ t: String) throws -> Trigger {
            try TriggerRegistration.v2(project: "p", key: "k", body: Array(v2Registration(t, "users/{uid}").utf8)).0
        }
        #expect(try v1("write").fires(on: created, in: db))
        #expect(try !v1("write").fires(on: unchanged, in: db))
        #expect(try !v1("delete").fires(on: deletedMissing, in: db))
        #expect(try v1("delete").fires(on: deleted, in: db))
        #expect(try !v1("create").fires(on: deleted, in: db))
        #expect(try v2("written").fires(on: unchanged, in: db))
        #expect(try v2("updated").fires(on: unchanged, in: db))
        // The official emulator calls the delete of a missing document a create (recorded).
        #expect(try !v2("deleted").fires(on: deletedMissing, in: db))
        #expect(try v2("created").fires(on: deletedMissing, in: db))
        #expect(try v2("deleted").fires(on: deleted, in: db))
        #expect(try !v2("written").fires(on: created, in: DatabaseID(project: "p", database: "other")))
    }

    @Test func registrationErrors() {
        func v1(_ body: String) -> FirestoreError? {
            do throws(FirestoreError) { _ = try TriggerRegistration.v1(project: "p", key: "k", body: Array(body.utf8)); return nil } catch { return error }
        }
        func v2(_ body: String) -> FirestoreError? {
            do throws(FirestoreError) { _ = try TriggerRegistration.v2(project: "p", key: "k", body: Array(body.utf8)); return nil } catch { return error }
        }
        #expect(v1("{nope")?.code == .invalidArgument)
        #expect(v1("{}")?.code == .unknown)
        #expect(v1(#"{"eventTrigger": {}, "nope": 1}"#)?.code == .invalidArgument)
        #expect(v1(v1Registration("nope", "users/{uid}"))?.code == .unknown)
        #expect(v1(v1Registration("write", "users/{uid}").replacingOccurrences(of: "firestore.googleapis", with: "pubsub.googleapis"))?.code == .unknown)
        #expect(v1(#"{"eventTrigger": {"eventType": "providers/cloud.firestore/eventTypes/document.write", "service": "firestore.googleapis.com"}}"#) == nil)
        #expect(v2(v2Registration("written", "users/{uid}", match: "NOPE"))?.code == .invalidArgument)
        #expect(v2(v2Registration("nope", "users/{uid}"))?.code == .unknown)
        #expect(v2(#"{"eventType": "google.cloud.firestore.document.v1.written", "document": {"value": "users/{uid}"}}"#)?.code == .unknown)
        let echo = try? TriggerRegistration.v2(project: "p", key: "k", body: Array(#"{"document": {"matchType": "EXACT", "value": "a/b"}, "eventType": "google.cloud.firestore.document.v1.deleted"}"#.utf8)).1
        #expect(echo == .object([("eventType", .string("google.cloud.firestore.document.v1.deleted")),
                                 ("document", .object([("value", .string("a/b")), ("matchType", .string("EXACT"))]))]))
    }
}

@Suite struct TriggerPayloadTests {
    let db = DatabaseID(project: "p")
    let before = Document(path: path("users/a"), fields: MapValue([("n", .integer(1))]),
                          createTime: Timestamp(seconds: 1_700_000_000, nanos: 5000), updateTime: Timestamp(seconds: 1_700_000_000, nanos: 5000))
    var after: Document {
        Document(path: path("users/a"), fields: MapValue([("n", .integer(2)), ("s", .string("é"))]),
                 createTime: before.createTime, updateTime: Timestamp(seconds: 1_700_000_001, nanos: 0))
    }

    @Test func v1Body() throws {
        let trigger = try TriggerRegistration.v1(project: "p", key: "us-central1-f-0", body: Array(v1Registration("write", "users/{uid}").utf8))
        let event = TriggerEvent(trigger: trigger, database: db, entry: .init(key: DocumentKey(before.path), before: before, after: after, changed: true),
                                 commitTime: after.updateTime, eventID: EventID("id-1"))
        let (headers, body) = event.request()
        #expect(headers.map(\.0) == ["Content-Type"])
        #expect(event.path == "/functions/projects/p/triggers/us-central1-f-0")
        #expect(String(decoding: body, as: UTF8.self) == """
            {"data":{"value":{"name":"projects/p/databases/(default)/documents/users/a","fields":{"n":{"integerValue":"2"},"s":{"stringValue":"é"}},"createTime":"2023-11-14T22:13:20.000005Z","updateTime":"2023-11-14T22:13:21Z"},\
            "oldValue":{"name":"projects/p/databases/(default)/documents/users/a","fields":{"n":{"integerValue":"1"}},"createTime":"2023-11-14T22:13:20.000005Z","updateTime":"2023-11-14T22:13:20.000005Z"},"updateMask":{}},\
            "context":{"eventId":"id-1","timestamp":"2023-11-14T22:13:21Z","eventType":"providers/cloud.firestore/eventTypes/document.write",\
            "resource":{"name":"projects/p/databases/(default)/documents/users/a","service":"firestore.googleapis.com"}}}
            """)
    }

    @Test func v2CloudEvent() throws {
        let trigger = try TriggerRegistration.v2(project: "p", key: "k", body: Array(v2Registration("deleted.withAuthContext", "users/{uid}").utf8)).0
        let event = TriggerEvent(trigger: trigger, database: db, entry: .init(key: DocumentKey(before.path), before: before, after: nil, changed: true),
                                 commitTime: after.updateTime, eventID: EventID("id-2"))
        let (headers, body) = event.request(now: Date(timeIntervalSince1970: 1_700_000_001.9))
        #expect(headers.map(\.0) == ["ce-specversion", "ce-type", "ce-source", "ce-id", "ce-subject", "ce-time", "ce-datacontenttype",
                                     "ce-dataschema", "ce-location", "ce-project", "ce-database", "ce-namespace", "ce-document",
                                     "ce-authtype", "ce-authid", "Content-Type"])
        let h = Dictionary(uniqueKeysWithValues: headers)
        #expect(h["ce-source"] == "//firestore.googleapis.com/projects/projects/p/databases/(default)")
        #expect(h["ce-time"] == "2023-11-14T22:13:21Z")
        #expect(h["ce-subject"] == "documents/users/a")
        #expect(h["ce-type"] == "google.cloud.firestore.document.v1.deleted.withAuthContext")
        // Base64 of DocumentEventData: old_value (2) only, then the empty update mask (3).
        let data = try #require(Data(base64Encoded: String(decoding: body, as: UTF8.self)))
        var reader = ProtoReader(Array(data))
        var fields: [Int] = []
        while let key = try reader.next() {
            fields.append(key.number)
            if key.number == 2 {
                var sub = try reader.readMessage(key)
                let doc = try DocumentMessage.decode(&sub)
                #expect(doc.name == "projects/p/databases/(default)/documents/users/a")
                #expect(doc.fields == before.fields)
                #expect(doc.updateTime == before.updateTime)
            } else {
                try reader.skip(key)
            }
        }
        #expect(fields == [2, 3])
        #expect(Array(data.suffix(2)) == [0x1A, 0x00])
    }
}

@Suite(.serialized) struct TriggerDeliveryTests {
    /// Registration over HTTP, then writes through REST, a batch and gRPC-free paths:
    /// every event once, per document in commit order, with the request log showing them.
    @Test func deliversOverHTTP() throws {
        let receiver = try Receiver()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: EmulatorState(functionsEmulator: receiver.address))
        defer { server.stop() }
        let watched = Collected()
        let token = server.state.requestLog.subscribe { e in watched.entries.withLock { $0.append(e) } }
        defer { server.state.requestLog.unsubscribe(token) }
        let c = try RawHTTPClient(port: server.port)
        #expect(c.request("PUT", "/emulator/v1/projects/p/triggers/us-central1-w-0", body: v1Registration("write", "users/{uid}"))?.json == .object([]))
        let v2 = c.request("POST", "/emulator/v1/projects/p/eventarcTrigger?eventarcTriggerId=us-central1-e-0", body: v2Registration("written", "users/{uid}"))
        #expect(v2?.json?["document"]?["matchType"] == .string("PATH_PATTERN"))
        #expect(c.request("POST", "/emulator/v1/projects/p/triggers/x", body: "{}")?.status == 404)
        _ = c.request("PATCH", "\(docs)/users/a", body: #"{"fields": {"n": {"integerValue": "1"}}}"#)
        _ = c.request("PATCH", "\(docs)/users/a", body: #"{"fields": {"n": {"integerValue": "1"}}}"#)  // unchanged: v2 only
        _ = c.request("PATCH", "\(docs)/rooms/a", body: "{}")  // no trigger
        _ = c.request("POST", "\(docs):commit", body: """
            {"writes": [{"update": {"name": "projects/p/databases/(default)/documents/users/a", "fields": {"n": {"integerValue": "2"}}}},
                        {"delete": "projects/p/databases/(default)/documents/users/missing"}]}
            """)
        _ = c.request("DELETE", "\(docs)/users/a")
        #expect(server.state.triggers.waitUntilIdle())
        let got = receiver.wait(for: 8)
        #expect(got.count == 8)
        let v1 = got.filter { $0.path.hasSuffix("/us-central1-w-0") }
        #expect(v1.count == 3)
        #expect(v1.map { $0.json?["data"]?["value"]?["fields"]?["n"]?["integerValue"]?.stringValue } == ["1", "2", nil])
        let e2 = got.filter { $0.path.hasSuffix("/us-central1-e-0") }
        #expect(e2.count == 5)
        #expect(e2.allSatisfy { $0.header("content-type") == "application/protobuf" })
        #expect(e2.map { $0.header("ce-document") } == ["users/a", "users/a", "users/a", "users/missing", "users/a"].sortedLike(e2.map { $0.header("ce-document") }))
        let perDocument = e2.filter { $0.header("ce-document") == "users/a" }
        #expect(perDocument.count == 4)
        let stats = server.state.triggers.statistics
        #expect(stats.delivered == 8 && stats.failed == 0 && stats.dropped == 0 && stats.registered == 2)
        let logged = watched.entries.withLock { $0.filter { $0.transport == .trigger } }
        #expect(logged.count == 8)
        #expect(logged.allSatisfy { $0.httpStatus == 200 && $0.code == .ok && $0.resources.count == 1 })
        #expect(logged.contains { $0.path == "/functions/projects/p/triggers/us-central1-w-0" && $0.method == "POST providers/cloud.firestore/eventTypes/document.write" })
    }

    /// A gRPC Commit (another front end, a batch of two documents) fires through the same
    /// engine hook.
    @Test func grpcCommitFires() throws {
        let receiver = try Receiver()
        let state = EmulatorState(functionsEmulator: receiver.address)
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        try state.triggers.register(key: "k", project: "grpc-test", eventType: "google.cloud.firestore.document.v1.written", document: "users/{uid}")
        let client = try GRPCTestClient(port: server.port)
        let db = DatabaseID(project: "grpc-test")
        let r = try client.call("Commit", TestProto.message { w in
            w.writeString(1, db.name)
            for id in ["a", "b"] { w.writeMessage(2, TestProto.write(.set(path("users/\(id)"), MapValue([("n", .integer(1))])), db)) }
        })
        #expect(r.status == 0)
        #expect(state.triggers.waitUntilIdle())
        let got = receiver.wait(for: 2)
        #expect(Set(got.compactMap { $0.header("ce-document") }) == ["users/a", "users/b"])
        #expect(got.allSatisfy { $0.header("ce-project") == "grpc-test" && $0.path == "/functions/projects/grpc-test/triggers/k" })
    }

    /// Pause through the endpoint: events wait; resume delivers them in order.
    @Test func pauseAndResume() throws {
        let receiver = try Receiver()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        _ = c.request("PUT", "/emulator/v1/projects/p/triggers/k", body: v1Registration("write", "users/{uid}"))
        // No address yet: commits make no events.
        _ = c.request("PATCH", "\(docs)/users/a", body: #"{"fields": {"n": {"integerValue": "0"}}}"#)
        let config = c.request("PUT", "/emulator/v1/triggers:config", body: #"{"functionsEmulator": "\#(receiver.address)", "paused": true}"#)
        #expect(config?.json?["paused"] == .bool(true))
        #expect(config?.json?["functionsEmulator"] == .string(receiver.address))
        for n in 1...5 { _ = c.request("PATCH", "\(docs)/users/a", body: #"{"fields": {"n": {"integerValue": "\#(n)"}}}"#) }
        usleep(200_000)
        #expect(receiver.all.isEmpty)
        #expect(c.request("GET", "/emulator/v1/triggers:config")?.json?["queued"] == .int(5))
        #expect(c.request("PUT", "/emulator/v1/triggers:config", body: #"{"paused": false}"#)?.json?["paused"] == .bool(false))
        let got = receiver.wait(for: 5)
        #expect(got.map { $0.json?["data"]?["value"]?["fields"]?["n"]?["integerValue"]?.stringValue } == ["1", "2", "3", "4", "5"])
        #expect(c.request("PUT", "/emulator/v1/triggers:config", body: #"{"functionsEmulator": "nohost"}"#)?.status == 400)
        #expect(c.request("PUT", "/emulator/v1/triggers:config", body: #"{"nope": 1}"#)?.status == 400)
    }

    /// A Functions emulator that is down: each event is tried a bounded number of times,
    /// commits do not wait for it, failures are counted and logged, and once it is back
    /// events flow again.
    @Test func downFunctionsEmulatorIsRetriedBoundedly() throws {
        // A port nobody listens on: bind, note, close.
        let (fd, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        close(fd)
        let policy = TriggerDeliveryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(20), timeout: 2)
        let triggers = CloudFunctionsTriggers(functionsEmulator: "127.0.0.1:\(port)", policy: policy)
        let registry = DatabaseRegistry(commitObserver: triggers)
        triggers.register(try TriggerRegistration.v1(project: "p", key: "k", body: Array(v1Registration("write", "users/{uid}").utf8)))
        let db = registry.database(DatabaseID(project: "p"))
        let start = ContinuousClock.now
        for n in 0..<20 { try db.commit([.set(path("users/u\(n % 3)"), MapValue([("n", .integer(Int64(n)))]))]) }
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(triggers.waitUntilIdle(timeout: .seconds(20)))
        let s = triggers.statistics
        #expect(s.failed == 20 && s.delivered == 0)
        // At most maxAttempts for the first failure of each lane; one try each after that.
        #expect(s.retried <= policy.lanes * (policy.maxAttempts - 1))
        let receiver = try Receiver()
        triggers.configure(functionsEmulator: .some(receiver.address))
        try db.commit([.set(path("users/u0"), MapValue([("n", .integer(99))]))])
        #expect(triggers.waitUntilIdle())
        #expect(receiver.wait(for: 1).count == 1)
        #expect(triggers.statistics.delivered == 1)
    }

    /// 503 is retried, 500 is not (the function ran and failed), and the queue is bounded.
    @Test func statusesAndOverflow() throws {
        let receiver = try Receiver(status: 503)
        let policy = TriggerDeliveryPolicy(capacity: 5, lanes: 1, maxAttempts: 2, initialBackoff: .milliseconds(10))
        let triggers = CloudFunctionsTriggers(functionsEmulator: receiver.address, paused: true, policy: policy)
        let registry = DatabaseRegistry(commitObserver: triggers)
        triggers.register(try TriggerRegistration.v1(project: "p", key: "k", body: Array(v1Registration("write", "users/{uid}").utf8)))
        let db = registry.database(DatabaseID(project: "p"))
        for n in 0..<8 { try db.commit([.set(path("users/a"), MapValue([("n", .integer(Int64(n)))]))]) }
        #expect(triggers.statistics.queued == 5)
        #expect(triggers.statistics.dropped == 3)
        triggers.configure(paused: false)
        #expect(triggers.waitUntilIdle())
        // The first event: two attempts (503 twice); the lane then gives one try each.
        #expect(receiver.all.count == 6)
        receiver.state.status.store(500, ordering: .relaxed)
        try db.commit([.set(path("users/a"), MapValue([("n", .integer(100))]))])
        #expect(triggers.waitUntilIdle())
        #expect(receiver.all.count == 7)
        #expect(triggers.statistics.failed == 6)
    }

    /// A slow Functions emulator does not slow commits.
    @Test func slowFunctionsEmulatorDoesNotSlowCommits() throws {
        let receiver = try Receiver()
        receiver.state.delayMilliseconds.store(200, ordering: .relaxed)
        let triggers = CloudFunctionsTriggers(functionsEmulator: receiver.address)
        let registry = DatabaseRegistry(commitObserver: triggers)
        triggers.register(try TriggerRegistration.v2(project: "p", key: "k", body: Array(v2Registration("written", "users/{uid}").utf8)).0)
        let db = registry.database(DatabaseID(project: "p"))
        let start = ContinuousClock.now
        for n in 0..<10 { try db.commit([.set(path("users/a"), MapValue([("n", .integer(Int64(n)))]))]) }
        #expect(ContinuousClock.now - start < .milliseconds(500))
        #expect(triggers.waitUntilIdle(timeout: .seconds(10)))
        #expect(receiver.all.count == 10)
    }
}

private final class Collected: Sendable {
    let entries = HearthMutex<[RequestLogEntry]>([])
}

private extension Array where Element == String? {
    /// This multiset in the order of `other` (the comparison ignores order across documents).
    func sortedLike(_ other: [String?]) -> [String?] {
        var pool = self
        return other.map { o in
            if let i = pool.firstIndex(where: { $0 == o }) { return pool.remove(at: i) }
            return "<missing>"
        }
    }
}
