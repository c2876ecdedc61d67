import Foundation
import HearthCore
import HearthTestSupport
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// Every fault effect on every front end of the server (docs/faults.md): gRPC (status
/// trailers, the connection closed), REST (production's HTTP codes, the connection closed),
/// WebChannel (error messages, the back channel cut), the endpoint that sets them, and the
/// start-up configuration. Each checks the data too: an injected error or reset means
/// the commit did not happen, a dropped answer that it did, once.
@Suite struct FaultFrontEndTests {
    static let db = FirestoreRPCTests.db
    static func name(_ p: String) -> String { FirestoreRPCTests.name(p) }
    static func path(_ p: String) -> ResourcePath { FirestoreRPCTests.path(p) }

    func withServer(_ body: (Int, EmulatorState) throws -> Void) throws {
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        try body(server.port, state)
    }

    static func commitRequest(_ writes: [Write]) -> [UInt8] {
        TestProto.message { w in
            w.writeString(1, db.name)
            for write in writes { w.writeMessage(2, TestProto.write(write, db)) }
        }
    }

    static func set(_ p: String, _ n: Int64) -> Write { .set(path(p), MapValue([("n", .integer(n))])) }

    func rule(_ spec: String) throws -> FaultRule { try FaultRule.parse(spec: spec) }

    // MARK: gRPC

    @Test func grpcErrorBeforeTheCommitMeansItDidNotHappen() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=Commit,error=UNAVAILABLE,message=try later,once"))
            let client = try GRPCTestClient(port: port)
            let failed = try client.call("Commit", Self.commitRequest([Self.set("c/a", 1)]))
            #expect(failed.status == 14 && failed.message == "try later")
            #expect(state.database(Self.db).document(Self.path("c/a")) == nil)
            // Once: the retry goes through, on the same connection.
            #expect(try client.call("Commit", Self.commitRequest([Self.set("c/a", 1)])).status == 0)
            #expect(state.database(Self.db).document(Self.path("c/a")) != nil)
            #expect(!state.faults.isArmed)
        }
    }

    @Test func grpcAbortedAndOtherCodesOnReads() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=GetDocument,error=ABORTED,times=2"))
            let client = try GRPCTestClient(port: port)
            let get = TestProto.message { $0.writeString(1, Self.name("c/none")) }
            #expect(try client.call("GetDocument", get).status == 10)
            #expect(try client.call("GetDocument", get).status == 10)
            #expect(try client.call("GetDocument", get).status == 5)  // NOT_FOUND: the fault is used up
        }
    }

    @Test func grpcDelay() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=GetDocument,delay=300"))
            let client = try GRPCTestClient(port: port)
            let start = ContinuousClock.now
            #expect(try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("c/none")) }).status == 5)
            #expect(ContinuousClock.now - start >= .milliseconds(300))
        }
    }

    @Test func grpcResetClosesTheConnectionBeforeTheWork() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=Commit,reset,once"))
            let client = try GRPCTestClient(port: port)
            #expect(throws: FirestoreError.self) { try client.call("Commit", Self.commitRequest([Self.set("c/a", 1)])) }
            #expect(state.database(Self.db).document(Self.path("c/a")) == nil)
            // A new connection works (the rule fired once).
            #expect(try GRPCTestClient(port: port).call("Commit", Self.commitRequest([Self.set("c/a", 1)])).status == 0)
        }
    }

    @Test func grpcDroppedAnswerCommitsExactlyOnce() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=Commit,dropAnswer,once"))
            let client = try GRPCTestClient(port: port)
            let increment = Write(path: Self.path("c/n"), operation: .transformOnly,
                                  transforms: [FieldTransform(path: FieldPath(["n"]), kind: .increment(.integer(1)))])
            #expect(throws: FirestoreError.self) { try client.call("Commit", Self.commitRequest([increment])) }
            #expect(state.database(Self.db).document(Self.path("c/n"))?.fields["n"] == .integer(1))
        }
    }

    @Test func grpcPathPrefixAndDatabaseSelectTheRequests() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=Commit,path=locked,error=INTERNAL"))
            try state.faults.add(rule("database=other,error=UNAVAILABLE"))
            let client = try GRPCTestClient(port: port)
            #expect(try client.call("Commit", Self.commitRequest([Self.set("lockedX/a", 1)])).status == 0)
            #expect(try client.call("Commit", Self.commitRequest([Self.set("open/a", 1), Self.set("locked/b", 1)])).status == 13)
            #expect(state.database(Self.db).document(Self.path("open/a")) == nil)
        }
    }

    @Test func grpcListenDroppedAfterMessages() throws {
        try withServer { port, state in
            let client = try GRPCTestClient(port: port)
            #expect(try client.call("Commit", Self.commitRequest([ListenRPCTests.user("ada", 40), ListenRPCTests.user("bo", 50)])).status == 0)
            try state.faults.add(rule("method=Listen,dropAfter=2,once"))
            let stream = try GRPCTestStream(port: port, method: "Listen")
            stream.send(ListenRPCTests.addQuery(1))
            // ADD, then one document: two messages, then UNAVAILABLE instead of the rest.
            #expect(try stream.next(5).count == 2)
            #expect(stream.status == 14)
            #expect(stream.statusMessage.contains("dropped"))
            // The next stream (the client's retry) is whole: ADD, 2 documents, CURRENT, NO_CHANGE.
            let again = try GRPCTestStream(port: port, method: "Listen")
            again.send(ListenRPCTests.addQuery(1))
            #expect(try again.next(5).count == 5)
        }
    }

    /// A path prefix meets Listen through its targets: a query whose collection, or a
    /// document target whose documents, lie under the prefix (as RunQuery and
    /// BatchGetDocuments are matched); a target elsewhere is not touched.
    @Test func grpcListenFaultWithAPathPrefix() throws {
        try withServer { port, state in
            let client = try GRPCTestClient(port: port)
            #expect(try client.call("Commit", Self.commitRequest([ListenRPCTests.user("ada", 40)])).status == 0)
            try state.faults.add(rule("method=Listen,path=users,error=UNAVAILABLE"))
            let query = try GRPCTestStream(port: port, method: "Listen")
            query.send(ListenRPCTests.addQuery(1))
            #expect(try query.finalStatus() == 14)
            let document = try GRPCTestStream(port: port, method: "Listen")
            document.send(ListenRPCTests.addDocuments(1, [Self.name("users/ada")]))
            #expect(try document.finalStatus() == 14)
            // usersX is not under users: ADD, the document, CURRENT, NO_CHANGE.
            let elsewhere = try GRPCTestStream(port: port, method: "Listen")
            elsewhere.send(ListenRPCTests.addDocuments(1, [Self.name("usersX/a")]))
            #expect(try elsewhere.next(3).count == 3)
            #expect(elsewhere.status == nil)
            #expect(state.faults.list().map(\.fired) == [2])
        }
    }

    /// `dropAfter` on the server streams: RunQuery and BatchGetDocuments send that many
    /// messages, then end UNAVAILABLE (even when the answer had no more: the client never
    /// sees it complete); over REST, whose answer is one body, the connection is closed.
    @Test func serverStreamsDroppedAfterMessages() throws {
        try withServer { port, state in
            let client = try GRPCTestClient(port: port)
            #expect(try client.call("Commit", Self.commitRequest([ListenRPCTests.user("ada", 40), ListenRPCTests.user("bo", 50)])).status == 0)
            let query = TestProto.message { w in
                w.writeString(1, FirestoreRPCTests.root)
                w.writeMessage(2) { StructuredQueryMessage.encode(StructuredQuery(collectionID: "users"), into: &$0) }
            }
            try state.faults.add(rule("method=RunQuery,dropAfter=1,once"))
            let cut = try client.call("RunQuery", query)
            #expect(cut.status == 14 && cut.messages.count == 1 && cut.message.contains("dropped"))
            #expect(try client.call("RunQuery", query).messages.count == 2)  // once: whole again
            try state.faults.add(rule("method=RunQuery,dropAfter=2,once"))
            let whole = try client.call("RunQuery", query)
            #expect(whole.status == 14 && whole.messages.count == 2)  // all sent, never completed

            let batch = TestProto.message { w in
                w.writeString(1, Self.db.name)
                w.writeString(2, Self.name("users/ada")); w.writeString(2, Self.name("users/bo"))
            }
            try state.faults.add(rule("method=BatchGetDocuments,dropAfter=0,once"))
            let none = try client.call("BatchGetDocuments", batch)
            #expect(none.status == 14 && none.messages.isEmpty)
            #expect(try client.call("BatchGetDocuments", batch).messages.count == 2)

            try state.faults.add(rule("method=RunQuery,dropAfter=1,once"))
            let body = #"{"structuredQuery":{"from":[{"collectionId":"users"}]}}"#
            #expect(try RawHTTPClient(port: port).request("POST", "\(Self.rest):runQuery", body: body) == nil)
            #expect(try RawHTTPClient(port: port).request("POST", "\(Self.rest):runQuery", body: body)?.status == 200)
        }
    }

    @Test func grpcWriteStreamErrorAndDroppedAnswer() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=Write,error=UNAVAILABLE,once"))
            let refused = try GRPCTestStream(port: port, method: "Write")
            refused.send(WriteStreamRPCTests.handshake)
            #expect(try refused.finalStatus() == 14)

            let stream = try GRPCTestStream(port: port, method: "Write")
            stream.send(WriteStreamRPCTests.handshake)
            let hello = try WriteStreamRPCTests.Response.decode(try stream.next(1)[0])
            try state.faults.add(rule("method=Write,dropAnswer,once"))
            stream.send(WriteStreamRPCTests.batch([Self.set("c/w", 7)], token: hello.token))
            #expect(throws: FirestoreError.self) { try stream.next(1) }
            #expect(state.database(Self.db).document(Self.path("c/w"))?.fields["n"] == .integer(7))
        }
    }

    // MARK: REST

    static let rest = "/v1/projects/grpc-test/databases/%28default%29/documents"

    @Test func restErrorsCarryProductionsHTTPCodes() throws {
        try withServer { port, state in
            let client = try RawHTTPClient(port: port)
            for (code, http) in [("UNAVAILABLE", 503), ("ABORTED", 409), ("DEADLINE_EXCEEDED", 504), ("RESOURCE_EXHAUSTED", 429), ("INTERNAL", 500)] {
                try state.faults.add(rule("method=UpdateDocument,error=\(code),once"))
                let r = try #require(client.request("PATCH", "\(Self.rest)/c/a", body: #"{"fields":{"n":{"integerValue":"1"}}}"#))
                #expect(r.status == http)
                #expect(r.json?["error"]?["status"] == .string(code))
                #expect(r.json?["error"]?["code"] == .number(String(http)))
                #expect(state.database(Self.db).document(Self.path("c/a")) == nil)
            }
            #expect(client.request("PATCH", "\(Self.rest)/c/a", body: #"{"fields":{"n":{"integerValue":"1"}}}"#)?.status == 200)
        }
    }

    @Test func restResetAndDroppedAnswerCloseTheConnection() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=Commit,reset,once"))
            let commit = #"{"writes":[{"update":{"name":"\#(Self.name("c/a"))","fields":{"n":{"integerValue":"1"}}}}]}"#
            #expect(try RawHTTPClient(port: port).request("POST", "\(Self.rest):commit", body: commit) == nil)
            #expect(state.database(Self.db).document(Self.path("c/a")) == nil)

            try state.faults.add(rule("method=Commit,dropAnswer,once"))
            #expect(try RawHTTPClient(port: port).request("POST", "\(Self.rest):commit", body: commit) == nil)
            #expect(state.database(Self.db).document(Self.path("c/a")) != nil)

            try state.faults.add(rule("method=GetDocument,delay=200,once"))
            let start = ContinuousClock.now
            #expect(try RawHTTPClient(port: port).request("GET", "\(Self.rest)/c/a")?.status == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(200))
        }
    }

    // MARK: WebChannel

    @Test func webChannelWriteErrorAndDroppedAnswer() throws {
        try withServer { port, state in
            let documents = WebChannelTests.documents
            try state.faults.add(rule("method=Write,error=RESOURCE_EXHAUSTED,once"))
            let refused = WebChannelTestClient(port: port, stream: "Write")
            try refused.open(WebChannelTests.json(#"{"database":"\#(WebChannelTests.database)"}"#))
            try refused.openBackChannel(longPoll: false)
            #expect(try refused.receive(1)[0]["error"]?["status"] == .string("RESOURCE_EXHAUSTED"))

            let c = WebChannelTestClient(port: port, stream: "Write")
            try c.open(WebChannelTests.json(#"{"database":"\#(WebChannelTests.database)"}"#))
            try c.openBackChannel(longPoll: false)
            let token = try #require(try c.receive(1)[0]["streamToken"]?.stringValue)
            try state.faults.add(rule("method=Write,dropAnswer,once"))
            try c.post([WebChannelTests.write("w/a", #"{"n":{"integerValue":"1"}}"#, token: token)])
            // The back channel is cut (no clean end), the session is gone: the SDK's next
            // request is told "Unknown SID" and it opens a new channel.
            #expect(throws: TestFailure.self) { try c.receive(1) }
            #expect(throws: TestFailure.self) { try c.post([WebChannelTests.write("w/b", "{}", token: token)]) }
            let doc = state.database(DatabaseID(project: "demo-test")).document(Self.path("w/a"))
            #expect(doc?.fields["n"] == .integer(1))
            _ = documents
        }
    }

    @Test func webChannelListenDroppedAfterMessagesAndReset() throws {
        try withServer { port, state in
            try state.faults.add(rule("method=Listen,dropAfter=1,once"))
            let c = WebChannelTestClient(port: port, stream: "Listen")
            try c.open(WebChannelTests.documentTarget(2, "l/a"))
            try c.openBackChannel(longPoll: false)
            let got = try c.receive(2)
            #expect(got[0]["targetChange"] != nil)
            #expect(got[1]["error"]?["status"] == .string("UNAVAILABLE"))

            try state.faults.add(rule("method=Listen,reset,once"))
            let r = WebChannelTestClient(port: port, stream: "Listen")
            try r.open(WebChannelTests.documentTarget(2, "l/a"))
            // The handshake's message is handled on a worker: the back channel is refused
            // (the session is gone) or, attached first, cut — never answered.
            #expect(throws: TestFailure.self) {
                try r.openBackChannel(longPoll: false)
                _ = try r.receive(1)
            }
        }
    }

    // MARK: The endpoint and start-up

    @Test func endpointAddsListsAndClears() throws {
        try withServer { port, state in
            let client = try RawHTTPClient(port: port)
            let base = "/emulator/v1/projects/grpc-test/faults"
            let added = try #require(client.request("POST", base, body: #"{"method":"Commit","error":"UNAVAILABLE","times":2}"#))
            #expect(added.status == 200)
            let listed = try #require(added.json?["faults"]?.arrayValue?.first)
            #expect(listed["method"] == .string("Commit") && listed["remaining"] == .number("2") && listed["project"] == .string("grpc-test"))
            // The fault applies to that project only.
            let commit = #"{"writes":[{"update":{"name":"\#(Self.name("c/a"))","fields":{}}}]}"#
            #expect(client.request("POST", "\(Self.rest):commit", body: commit)?.status == 503)
            #expect(client.request("POST", "/v1/projects/elsewhere/databases/(default)/documents:commit",
                                   body: commit.replacingOccurrences(of: "grpc-test", with: "elsewhere"))?.status == 200)
            let after = try #require(client.request("GET", base)?.json?["faults"]?.arrayValue)
            #expect(after.first?["fired"] == .number("1") && after.first?["remaining"] == .number("1"))
            // Several at once, then one removed by id, then all cleared.
            let two = try #require(client.request("POST", base, body: #"{"faults":[{"method":"Listen","dropAfter":1},{"delay":5,"probability":0.5,"seed":3}]}"#))
            #expect(two.json?["faults"]?.arrayValue?.count == 2)
            let id = try #require(two.json?["faults"]?[0]?["id"].flatMap { if case .number(let n) = $0 { Int(n) } else { nil } })
            #expect(client.request("DELETE", "\(base)/\(id)")?.json?["faults"]?.arrayValue?.count == 2)
            #expect(client.request("DELETE", "\(base)/\(id)")?.status == 404)
            #expect(client.request("DELETE", base)?.json?["faults"]?.arrayValue?.isEmpty == true)
            #expect(!state.faults.isArmed)
            // Bad rules are refused, naming what is wrong.
            let bad = try #require(client.request("POST", base, body: #"{"method":"Commit","dropAfter":2}"#))
            #expect(bad.status == 400 && bad.text.contains("Listen or Write"))
            #expect(client.request("POST", base, body: #"{"method":"Nope","error":"UNAVAILABLE"}"#)?.text.contains("unknown method") == true)
            #expect(client.request("POST", base, body: #"{"project":"other","reset":true}"#)?.status == 400)
            // In a list, the refusal says which rule, and none of the list is added.
            let second = try #require(client.request("POST", base, body: #"{"faults":[{"error":"ABORTED"},{"error":"ABORTED","times":0}]}"#))
            #expect(second.status == 400 && second.text.contains("In the fault 2 of 2: times must be at least 1"))
            #expect(client.request("GET", base)?.json?["faults"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test func startUpConfigurationArmsFaults() throws {
        var c = EmulatorConfiguration()
        c.port = 0
        c.console = false
        c.output = .silent
        c.faults = [try rule("method=Commit,error=UNAVAILABLE,once")]
        let instance = try EmulatorInstance(c)
        let server = try instance.start()
        defer { instance.stop() }
        let client = try GRPCTestClient(port: server.port)
        #expect(try client.call("Commit", Self.commitRequest([Self.set("c/a", 1)])).status == 14)
        #expect(try client.call("Commit", Self.commitRequest([Self.set("c/a", 1)])).status == 0)
    }
}
