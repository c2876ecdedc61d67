import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthServer

/// The WebChannel transport as the browser SDK uses it, over real sockets: Listen and Write
/// through the same scenarios as the gRPC tests, in streaming and long-polling mode, with
/// the protocol's own duties (acknowledgements, retried POSTs, re-opened back channels,
/// terminate, idle expiry, UTF-16 framing) and CORS.
@Suite struct WebChannelTests {
    static let database = "projects/demo-test/databases/(default)"
    static let documents = database + "/documents"
    static let rest = "/v1/projects/demo-test/databases/%28default%29/documents"

    static func json(_ text: String) -> JSON { try! JSON.parse(text) }

    static func queryTarget(_ id: Int, collection: String, extra: String = "") -> JSON {
        json(#"{"database":"\#(database)","addTarget":{"query":{"parent":"\#(documents)","structuredQuery":{"from":[{"collectionId":"\#(collection)"}]\#(extra)}},"targetId":\#(id)}}"#)
    }

    static func documentTarget(_ id: Int, _ path: String) -> JSON {
        json(#"{"database":"\#(database)","addTarget":{"documents":{"documents":["\#(documents)/\#(path)"]},"targetId":\#(id)}}"#)
    }

    static func write(_ path: String, _ fields: String, token: String = "") -> JSON {
        json(#"{"streamToken":"\#(token)","writes":[{"update":{"name":"\#(documents)/\#(path)","fields":\#(fields)}}]}"#)
    }

    /// A REST write by "another client".
    static func patch(_ server: EmulatorServer, _ path: String, _ fields: String) throws {
        let c = try RawHTTPClient(port: server.port)
        let r = c.request("PATCH", "\(rest)/\(path)", body: #"{"fields":\#(fields)}"#)
        #expect(r?.status == 200, "\(r?.text ?? "")")
    }

    static func delete(_ server: EmulatorServer, _ path: String) throws {
        let c = try RawHTTPClient(port: server.port)
        #expect(c.request("DELETE", "\(rest)/\(path)")?.status == 200)
    }

    static func changeType(_ m: JSON) -> String? { m["targetChange"].map { $0["targetChangeType"]?.stringValue ?? "NO_CHANGE" } }
    static func docName(_ m: JSON) -> String? { m["documentChange"]?["document"]?["name"]?.stringValue }
    static func kinds(_ ms: [JSON]) -> [String] {
        ms.map { m in
            if let t = changeType(m) { return t }
            if let n = docName(m) { return "doc:" + n.split(separator: "/").last! }
            if m["documentDelete"] != nil { return "delete" }
            if m["documentRemove"] != nil { return "remove" }
            return m.text
        }
    }

    // MARK: Listen

    @Test(arguments: [false, true])
    func aQueryTargetSeesItsResultAndChangesFromAnotherClient(longPoll: Bool) throws {
        try withServer { server in
            try Self.patch(server, "cities/a", #"{"pop":{"integerValue":"5"}}"#)
            try Self.patch(server, "cities/b", #"{"pop":{"integerValue":"1"}}"#)
            let c = WebChannelTestClient(port: server.port, stream: "Listen")
            try c.open(Self.queryTarget(2, collection: "cities", extra: #","where":{"fieldFilter":{"field":{"fieldPath":"pop"},"op":"GREATER_THAN_OR_EQUAL","value":{"integerValue":"0"}}},"orderBy":[{"field":{"fieldPath":"pop"},"direction":"ASCENDING"}]"#))
            try c.openBackChannel(longPoll: longPoll)
            let initial = try c.receive(5)
            #expect(Self.kinds(initial) == ["ADD", "doc:b", "doc:a", "CURRENT", "NO_CHANGE"])
            #expect(initial[3]["targetChange"]?["resumeToken"] != nil && initial[3]["targetChange"]?["readTime"] != nil)
            #expect(initial[1]["documentChange"]?["document"]?["fields"]?["pop"]?["integerValue"] == .string("1"))

            try Self.patch(server, "cities/c", #"{"pop":{"integerValue":"3"}}"#)
            #expect(Self.kinds(try c.receive(2)) == ["doc:c", "NO_CHANGE"])
            try Self.patch(server, "cities/a", #"{"pop":{"integerValue":"-1"}}"#)
            let removed = try c.receive(2)
            #expect(Self.kinds(removed) == ["remove", "NO_CHANGE"])
            #expect(removed[0]["documentRemove"]?["removedTargetIds"] == .array([.number("2")]))
            try Self.delete(server, "cities/c")
            #expect(Self.kinds(try c.receive(2)) == ["delete", "NO_CHANGE"])

            let answer = try c.post([Self.json(#"{"database":"\#(Self.database)","removeTarget":2}"#)])
            #expect(answer.count == 3)
            #expect(Self.kinds(try c.receive(1)) == ["REMOVE"])
            #expect(try c.terminate() == 200)
        }
    }

    @Test(arguments: [false, true])
    func aDocumentTargetSeesCreationChangeAndDeletion(longPoll: Bool) throws {
        try withServer { server in
            let c = WebChannelTestClient(port: server.port, stream: "Listen")
            try c.open(Self.documentTarget(4, "rooms/solo"))
            try c.openBackChannel(longPoll: longPoll)
            // A missing document: CURRENT with nothing, so the SDK can answer "does not exist".
            let initial = try c.receive(3)
            #expect(Self.kinds(initial) == ["ADD", "CURRENT", "NO_CHANGE"])
            // Nothing was committed yet: still a read time the SDK takes for a version.
            for m in initial.dropFirst() {
                let readTime = try #require(m["targetChange"]?["readTime"]?.stringValue.flatMap { Timestamp(rfc3339: $0) })
                #expect(readTime > Timestamp(seconds: 0, nanos: 0))
            }
            try Self.patch(server, "rooms/solo", #"{"v":{"stringValue":"hello é☃😀"}}"#)
            let created = try c.receive(2)
            #expect(created[0]["documentChange"]?["document"]?["fields"]?["v"]?["stringValue"] == .string("hello é☃😀"))
            try Self.delete(server, "rooms/solo")
            #expect(Self.kinds(try c.receive(2)) == ["delete", "NO_CHANGE"])
        }
    }

    @Test func aResumedTargetGetsOnlyWhatChanged() throws {
        try withServer { server in
            try Self.patch(server, "r/a", #"{"n":{"integerValue":"1"}}"#)
            try Self.patch(server, "r/b", #"{"n":{"integerValue":"2"}}"#)
            let first = WebChannelTestClient(port: server.port, stream: "Listen")
            try first.open(Self.queryTarget(2, collection: "r"))
            try first.openBackChannel(longPoll: false)
            let current = try first.receive(5)[3]
            let token = try #require(current["targetChange"]?["resumeToken"]?.stringValue)
            _ = try first.terminate()

            try Self.patch(server, "r/b", #"{"n":{"integerValue":"20"}}"#)
            let again = WebChannelTestClient(port: server.port, stream: "Listen")
            try again.open(Self.json(#"{"database":"\#(Self.database)","addTarget":{"query":{"parent":"\#(Self.documents)","structuredQuery":{"from":[{"collectionId":"r"}]}},"targetId":2,"resumeToken":"\#(token)"}}"#))
            try again.openBackChannel(longPoll: true)
            #expect(Self.kinds(try again.receive(4)) == ["ADD", "doc:b", "CURRENT", "NO_CHANGE"])
        }
    }

    @Test func aBadTargetIsRemovedWithItsCauseAndAMalformedRequestEndsTheStream() throws {
        try withServer { server in
            let c = WebChannelTestClient(port: server.port, stream: "Listen")
            try c.open(Self.json(#"{"database":"\#(Self.database)","addTarget":{"documents":{"documents":["projects/other/databases/(default)/documents/a/b"]},"targetId":2}}"#))
            try c.openBackChannel(longPoll: false)
            // ADD, then REMOVE with the cause (the official emulator's order).
            let changes = try c.receive(2)
            #expect(Self.changeType(changes[0]) == "ADD")
            let removed = changes[1]
            #expect(Self.changeType(removed) == "REMOVE")
            #expect(removed["targetChange"]?["cause"]?["code"] == .number("3"))
            try c.post([Self.json(#"{"database":"\#(Self.database)","addTarget":{"targetId":4,"bogus":1}}"#)])
            let error = try c.receive(1)[0]
            #expect(error["error"]?["status"] == .string("INVALID_ARGUMENT"))
            #expect(error["error"]?["message"]?.stringValue?.contains("bogus") == true)
            #expect(c.backChannelEnds())
        }
    }

    @Test func theSessionResumesFromTheClientsAcknowledgementOnANewBackChannel() throws {
        try withServer { server in
            try Self.patch(server, "k/a", #"{"n":{"integerValue":"1"}}"#)
            let c = WebChannelTestClient(port: server.port, stream: "Listen")
            try c.open(Self.queryTarget(2, collection: "k"))
            try c.openBackChannel(longPoll: false)
            #expect(Self.kinds(try c.receive(4)) == ["ADD", "doc:a", "CURRENT", "NO_CHANGE"])
            // The client says it lacks the last two arrays: they come again, once.
            try c.openBackChannel(longPoll: false, aid: c.lastArrayID - 2)
            #expect(Self.kinds(try c.receive(2)) == ["CURRENT", "NO_CHANGE"])
            try Self.patch(server, "k/b", #"{"n":{"integerValue":"2"}}"#)
            #expect(Self.kinds(try c.receive(2)) == ["doc:b", "NO_CHANGE"])
        }
    }

    @Test func aRetriedForwardPOSTIsNotDeliveredTwice() throws {
        try withServer { server in
            let c = WebChannelTestClient(port: server.port, stream: "Listen")
            try c.open(Self.queryTarget(2, collection: "x"))
            try c.openBackChannel(longPoll: false)
            #expect(Self.kinds(try c.receive(3)) == ["ADD", "CURRENT", "NO_CHANGE"])
            let add = Self.documentTarget(4, "x/y")
            try c.post([add])
            try c.post([add], offset: 1)  // the same map id again: a retry
            #expect(Self.kinds(try c.receive(3)) == ["ADD", "CURRENT", "NO_CHANGE"])
            // Without the duplicate check the second add would have removed target 4
            // ("Target ID already exists") instead.
            try c.post([Self.json(#"{"database":"\#(Self.database)","removeTarget":4}"#)])
            #expect(Self.kinds(try c.receive(1)) == ["REMOVE"])
        }
    }

    @Test(arguments: [false, true])
    func tenThousandDocumentsArriveWhole(longPoll: Bool) throws {
        try withServer { server in
            let rest = try RawHTTPClient(port: server.port)
            for batch in 0..<20 {
                let writes = (0..<500).map { i -> String in
                    #"{"update":{"name":"\#(Self.documents)/big/d\#(batch * 500 + i)","fields":{"i":{"integerValue":"\#(batch * 500 + i)"},"s":{"stringValue":"some text é"}}}}"#
                }
                #expect(rest.request("POST", "\(Self.rest):commit", body: #"{"writes":[\#(writes.joined(separator: ","))]}"#)?.status == 200)
            }
            let c = WebChannelTestClient(port: server.port, stream: "Listen")
            try c.open(Self.queryTarget(2, collection: "big"))
            try c.openBackChannel(longPoll: longPoll)
            let all = try c.receive(10_003)
            #expect(all.filter { Self.docName($0) != nil }.count == 10_000)
            #expect(Self.changeType(all[10_001]) == "CURRENT")
        }
    }

    @Test func aClientThatDoesNotReadCostsBoundedMemoryAndThenCatchesUp() throws {
        var limits = WebChannelLimits()
        limits.maxRetainedBytes = 16 * 1024
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, webChannelLimits: limits)
        defer { server.stop() }
        let c = try Self.listenerBehind(on: server)
        let session = try #require(server.webChannel.session(c.sid))
        // Held to the bound (plus the one message that crossed it), not 200 KB of changes.
        #expect(session.retained <= limits.maxRetainedBytes + 2 * 1024)
        // The client reads, acknowledging as the SDK does when its back channel re-opens,
        // and ends with every document at its last value.
        var latest: [String: String] = [:]
        var done = false
        for _ in 0..<100 where !done {
            try c.openBackChannel(longPoll: true)
            let got: [JSON]
            do { got = try c.receive(1) } catch { Issue.record("\(error)"); break }
            done = Self.caughtUp(got, &latest)
        }
        #expect(done, "\(latest.sorted { $0.key < $1.key }.map { "\($0.key.split(separator: "/").last!)=\($0.value)" })")
    }

    /// The same backlog read on one streaming back channel, acknowledged by forward POSTs
    /// (`AID`): each acknowledgement lets the session's pending changes through, and they go
    /// out at once. They used to be queued without a flush when no later event followed, so
    /// the client waited for a commit that never came (seen under load as the last writes
    /// missing: which of the back channel's push and the session's drain ran first decided).
    @Test func aBacklogLetThroughByAnAcknowledgementGoesOutAtOnce() throws {
        var limits = WebChannelLimits()
        limits.maxRetainedBytes = 16 * 1024
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, webChannelLimits: limits)
        defer { server.stop() }
        let c = try Self.listenerBehind(on: server)
        try c.openBackChannel(longPoll: false)
        var latest: [String: String] = [:]
        var done = false
        for _ in 0..<400 where !done {
            let got: [JSON]
            do { got = try c.receive(1) } catch { Issue.record("\(error)"); break }
            done = Self.caughtUp(got, &latest)
            if !done { _ = try c.post([]) }
        }
        #expect(done, "\(latest.sorted { $0.key < $1.key }.map { "\($0.key.split(separator: "/").last!)=\($0.value)" })")
    }

    /// A Listen session on `slow` with no back channel yet, while 200 writes of ~1 KB go to
    /// its 50 documents: every change waits in the session, past its retained-bytes bound.
    static func listenerBehind(on server: EmulatorServer) throws -> WebChannelTestClient {
        let c = WebChannelTestClient(port: server.port, stream: "Listen")
        try c.open(queryTarget(2, collection: "slow"))
        let padding = String(repeating: "x", count: 1000)
        let rest = try RawHTTPClient(port: server.port)
        for i in 0..<200 {
            #expect(rest.request("PATCH", "\(Self.rest)/slow/d\(i % 50)", body: #"{"fields":{"i":{"integerValue":"\#(i)"},"p":{"stringValue":"\#(padding)"}}}"#)?.status == 200)
        }
        return c
    }

    /// Records each document change of `got` in `latest`; whether every `slow` document now
    /// shows its last write.
    static func caughtUp(_ got: [JSON], _ latest: inout [String: String]) -> Bool {
        for m in got {
            if let d = m["documentChange"]?["document"], let name = d["name"]?.stringValue {
                latest[name] = d["fields"]?["i"]?["integerValue"]?.stringValue
            }
        }
        return (150..<200).allSatisfy { latest["\(documents)/slow/d\($0 % 50)"] == "\($0)" }
    }

    // MARK: Write

    @Test(arguments: [false, true])
    func theWriteStreamHandshakesCommitsAndReportsErrors(longPoll: Bool) throws {
        try withServer { server in
            let c = WebChannelTestClient(port: server.port, stream: "Write")
            try c.open(Self.json(#"{"database":"\#(Self.database)"}"#))
            try c.openBackChannel(longPoll: longPoll)
            let handshake = try c.receive(1)[0]
            let token = try #require(handshake["streamToken"]?.stringValue)
            #expect(handshake["streamId"] != nil && handshake["writeResults"] == nil)

            try c.post([Self.json(#"{"streamToken":"\#(token)","writes":[{"update":{"name":"\#(Self.documents)/w/a","fields":{"n":{"integerValue":"1"}}},"updateTransforms":[{"fieldPath":"at","setToServerValue":"REQUEST_TIME"},{"fieldPath":"n","increment":{"integerValue":"2"}}]},{"delete":"\#(Self.documents)/w/gone"}]}"#)])
            let committed = try c.receive(1)[0]
            #expect(committed["writeResults"]?.arrayValue?.count == 2)
            #expect(committed["writeResults"]?[0]?["transformResults"]?[1] == .object([("integerValue", .string("3"))]))
            #expect(committed["commitTime"] != nil)
            let rest = try RawHTTPClient(port: server.port)
            #expect(rest.request("GET", "\(Self.rest)/w/a")?.json?["fields"]?["n"] == .object([("integerValue", .string("3"))]))

            try c.post([Self.json(#"{"streamToken":"\#(token)","writes":[{"update":{"name":"\#(Self.documents)/w/missing","fields":{}},"currentDocument":{"exists":true}}]}"#)])
            let error = try c.receive(1)[0]
            #expect(error["error"]?["status"] == .string("NOT_FOUND"))
            #expect(c.backChannelEnds())
            #expect(try c.terminate() == 200)
        }
    }

    /// Production's limits on the Write stream over the WebChannel (docs/fidelity.md#limits):
    /// a field name over 1,500 bytes, a document name over 6 KiB and a message over 10 MiB
    /// end the stream with INVALID_ARGUMENT, as over gRPC.
    @Test func theWriteStreamRefusesWhatProductionsLimitsRefuse() throws {
        try withServer { server in
            let longPath = (0..<5).map { "c/" + String(repeating: "\($0)", count: 1400) }.joined(separator: "/")
            let huge = String(repeating: "x", count: 10 << 20)
            for (write, text) in [
                (Self.write("w/a", #"{"\#(String(repeating: "f", count: 1501))":{"integerValue":"1"}}"#, token: "TOKEN"), "Field name is longer than 1500 bytes"),
                (Self.write(longPath, "{}", token: "TOKEN"), "is longer than 6144 bytes"),
                (Self.write("w/a", #"{"s":{"stringValue":"\#(huge)"}}"#, token: "TOKEN"), "Request payload size exceeds the limit: 10485760 bytes."),
            ] {
                let c = WebChannelTestClient(port: server.port, stream: "Write")
                try c.open(Self.json(#"{"database":"\#(Self.database)"}"#))
                try c.openBackChannel(longPoll: false)
                let token = try #require(try c.receive(1)[0]["streamToken"]?.stringValue)
                let message = try JSON.parse(Array(write.text.replacingOccurrences(of: "TOKEN", with: token).utf8))
                try c.post([message])
                let error = try c.receive(1)[0]
                #expect(error["error"]?["status"] == .string("INVALID_ARGUMENT"))
                #expect(error["error"]?["message"]?.stringValue?.contains(text) == true, "\(error.text.prefix(300))")
            }
        }
    }

    @Test func authTokensInTheHeadersFieldReachTheRules() throws {
        try withServer { server in
            let admin = try RawHTTPClient(port: server.port)
            let rules = "rules_version = '2'; service cloud.firestore { match /databases/{db}/documents { match /mine/{id} { allow read, write: if request.auth.uid == id; } } }"
            #expect(admin.request("PUT", "/emulator/v1/projects/demo-test:securityRules", body: SecurityRulesTests.rulesBody(rules))?.status == 200)

            let anonymous = WebChannelTestClient(port: server.port, stream: "Write")
            try anonymous.open(Self.json(#"{"database":"\#(Self.database)"}"#))
            try anonymous.openBackChannel(longPoll: false)
            let token = try #require(try anonymous.receive(1)[0]["streamToken"]?.stringValue)
            try anonymous.post([Self.write("mine/alice", "{}", token: token)])
            #expect(try anonymous.receive(1)[0]["error"]?["status"] == .string("PERMISSION_DENIED"))

            let alice = WebChannelTestClient(port: server.port, stream: "Write")
            try alice.open(Self.json(#"{"database":"\#(Self.database)"}"#), headers: SecurityRulesTests.alice)
            try alice.openBackChannel(longPoll: false)
            let aliceToken = try #require(try alice.receive(1)[0]["streamToken"]?.stringValue)
            try alice.post([Self.write("mine/alice", "{}", token: aliceToken)])
            #expect(try alice.receive(1)[0]["writeResults"] != nil)

            let listen = WebChannelTestClient(port: server.port, stream: "Listen")
            try listen.open(Self.documentTarget(2, "mine/bob"), headers: SecurityRulesTests.alice)
            try listen.openBackChannel(longPoll: false)
            let refused = try listen.receive(2)[1]
            #expect(refused["targetChange"]?["cause"]?["code"] == .number("7"))
        }
    }

    // MARK: The channel itself

    @Test func lengthPrefixesCountUTF16CodeUnits() {
        #expect(WebChannelWire.utf16Length(Array("hello é☃😀".utf8)) == "hello é☃😀".utf16.count)
        #expect(WebChannelWire.frame(Array("😀".utf8)) == Array("2\n😀".utf8))
        #expect(WebChannelWire.headers("X-Goog-Api-Client:gl-js/ fire/12.3.0\r\nAuthorization:Bearer abc\r\n")["authorization"] == "Bearer abc")
    }

    @Test func unknownSessionsTerminateAndIdleExpiry() throws {
        var limits = WebChannelLimits()
        limits.idleTimeout = .milliseconds(300)
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, webChannelLimits: limits)
        defer { server.stop() }
        let c = WebChannelTestClient(port: server.port, stream: "Listen")
        try c.open(Self.queryTarget(2, collection: "z"))
        #expect(server.webChannel.sessionCount == 1)
        #expect(try c.terminate() == 200)
        #expect(server.webChannel.sessionCount == 0)
        // A request for the ended session: the wording the SDK maps to UNKNOWN_SESSION_ID.
        let raw = try RawHTTPClient(port: server.port)
        let r = raw.request("POST", "/google.firestore.v1.Firestore/Listen/channel?VER=8&SID=\(c.sid)&RID=5&AID=0", body: "count=0")
        #expect(r?.status == 400 && r?.text == "Unknown SID")

        // A session whose client went away without a word ends by itself.
        let gone = WebChannelTestClient(port: server.port, stream: "Listen")
        try gone.open(Self.queryTarget(2, collection: "z"))
        #expect(server.webChannel.sessionCount == 1)
        var waited = 0
        while server.webChannel.sessionCount > 0 && waited < 100 { usleep(100_000); waited += 1 }
        #expect(server.webChannel.sessionCount == 0)
    }

    @Test func corsForTheChannelAndThePreflightsOfTheRESTCallsTheSDKMakes() throws {
        try withServer { server in
            let origin = "http://127.0.0.1:5173"
            let c = WebChannelTestClient(port: server.port, stream: "Listen", origin: origin)
            let handshake = try c.open(Self.queryTarget(2, collection: "z"))
            #expect(handshake.headers["access-control-allow-origin"] == origin)
            #expect(handshake.headers["access-control-allow-credentials"] == "true")
            #expect(handshake.headers["access-control-expose-headers"]?.contains("x-http-session-id") == true)
            #expect(handshake.headers["content-type"] == "text/plain; charset=utf-8")
            let raw = try RawHTTPClient(port: server.port)
            for call in ["batchGet", "commit", "runAggregationQuery"] {
                let requested = "google-cloud-resource-prefix,x-firebase-gmpid,x-goog-api-client,x-goog-request-params"
                let r = raw.request("OPTIONS", "/v1/projects/demo-test/databases/(default)/documents:\(call)",
                                    headers: ["Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": requested])
                #expect(r?.status == 200)
                #expect(r?.headers["access-control-allow-origin"] == origin)
                #expect(r?.headers["access-control-allow-headers"] == requested)
                #expect(r?.headers["access-control-allow-methods"]?.contains("POST") == true)
                #expect(r?.headers["access-control-allow-credentials"] == "true")
                // A browser refuses a preflight that names the origin twice.
                #expect(r?.headerLines.filter { $0.name == "access-control-allow-origin" }.count == 1)
            }
            let count = raw.request("POST", "/v1/projects/demo-test/databases/(default)/documents:runAggregationQuery",
                                    body: #"{"structuredAggregationQuery":{"aggregations":[{"alias":"aggregate_0","count":{}}],"structuredQuery":{"from":[{"collectionId":"z"}]}}}"#,
                                    headers: ["Origin": origin, "Content-Type": "text/plain"])
            #expect(count?.status == 200)
            #expect(count?.headers["access-control-allow-origin"] == origin)
            #expect(count?.json?.arrayValue?.first?["result"]?["aggregateFields"]?["aggregate_0"] == .object([("integerValue", .string("0"))]))
        }
    }
}
