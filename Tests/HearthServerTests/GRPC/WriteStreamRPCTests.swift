import Foundation
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// The gRPC Write stream over loopback (docs/protocol.md#the-write-stream): the handshake, atomic batches
/// answered with tokens, one WriteResult per write and the commit time, the empty teardown
/// request, a failed precondition, a rules denial and malformed requests ending the stream.
@Suite struct WriteStreamRPCTests {
    static let db = FirestoreRPCTests.db
    static func name(_ p: String) -> String { FirestoreRPCTests.name(p) }
    static func path(_ p: String) -> ResourcePath { FirestoreRPCTests.path(p) }

    /// One decoded WriteResponse.
    struct Response {
        var streamID = ""
        var token: [UInt8] = []
        var results: [WriteResult] = []
        var commitTime: Timestamp?

        static func decode(_ bytes: [UInt8]) throws -> Response {
            var r = ProtoReader(bytes)
            var out = Response()
            while let k = try r.next() {
                switch k.number {
                case 1: out.streamID = try r.readString(k)
                case 2: out.token = try r.readBytes(k)
                case 3:
                    var sub = try r.readMessage(k)
                    out.results.append(try WriteMessage.decodeWriteResult(&sub))
                case 4:
                    var sub = try r.readMessage(k)
                    out.commitTime = try WellKnownMessages.decodeTimestamp(&sub)
                default: try r.skip(k)
                }
            }
            return out
        }
    }

    func withServer(_ body: (Int, EmulatorState) throws -> Void) throws {
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        try body(server.port, state)
    }

    static let handshake = TestProto.message { $0.writeString(1, db.name) }

    static func batch(_ writes: [Write], token: [UInt8]) -> [UInt8] {
        TestProto.message { w in
            for write in writes { w.writeMessage(3, TestProto.write(write, db)) }
            w.writeBytes(4, token)
        }
    }

    func next(_ stream: GRPCTestStream) throws -> Response {
        let messages = try stream.next(1)
        try #require(messages.count == 1, "status \(String(describing: stream.status)) \(stream.statusMessage)")
        return try Response.decode(messages[0])
    }

    /// A request larger than the stream's window (a 1 MB batch against 256 KiB) is answered:
    /// the server widens the window for the message in progress.
    @Test func requestsLargerThanTheStreamWindowAreAnswered() throws {
        var limits = HTTPLimits()
        limits.maxStreamBuffer = 256 * 1024
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state, limits: limits)
        defer { server.stop() }
        let stream = try GRPCTestStream(port: server.port, method: "Write")
        stream.send(Self.handshake)
        let hello = try next(stream)
        let blob = String(repeating: "w", count: 1_000_000)
        let batch = Self.batch([Write.set(Self.path("c/big"), MapValue([("blob", .string(blob))]))], token: hello.token)
        try #require(try stream.client.sendHonouringWindow(stream.id, GRPCMessageWriter.frame(batch), endStream: false),
                     "the server gave no window for the rest of the message")
        #expect(try next(stream).results.count == 1)
        #expect(state.database(Self.db).document(Self.path("c/big"))?.fields["blob"] == .string(blob))
    }

    @Test func handshakeThenAtomicBatches() throws {
        try withServer { port, state in
            let stream = try GRPCTestStream(port: port, method: "Write")
            stream.send(Self.handshake)
            let hello = try next(stream)
            #expect(!hello.streamID.isEmpty && !hello.token.isEmpty && hello.results.isEmpty)

            // Two writes, one with a server timestamp and an increment: one result each.
            let transforms = [FieldTransform(path: FieldPath(["at"]), kind: .serverTimestamp),
                              FieldTransform(path: FieldPath(["n"]), kind: .increment(.integer(2)))]
            stream.send(Self.batch([Write.set(Self.path("c/a"), MapValue([("x", .integer(1))]), transforms: transforms),
                                    Write.set(Self.path("c/b"), MapValue([("y", .string("hi"))]))], token: hello.token))
            let first = try next(stream)
            let commit1 = try #require(first.commitTime)
            // The stream id goes with the handshake's answer only.
            #expect(first.streamID.isEmpty && !first.token.isEmpty && first.token != hello.token)
            #expect(first.results.count == 2)
            #expect(first.results.map(\.updateTime) == [commit1, commit1])
            #expect(first.results[0].transformResults == [.timestamp(commit1), .integer(2)])
            #expect(first.results[1].transformResults.isEmpty)
            let a = try #require(state.database(Self.db).document(Self.path("c/a")))
            #expect(a.fields["x"] == .integer(1) && a.fields["at"] == .timestamp(commit1) && a.fields["n"] == .integer(2))

            // A second batch: an update and a delete, later commit time, a new token.
            stream.send(Self.batch([Write.update(Self.path("c/a"), MapValue([("x", .integer(5))]), mask: [FieldPath(["x"])]),
                                    Write.delete(Self.path("c/b"))], token: first.token))
            let second = try next(stream)
            let commit2 = try #require(second.commitTime)
            #expect(commit2 > commit1 && second.results.count == 2 && second.token != first.token)
            #expect(second.results[0].updateTime == commit2)
            #expect(state.database(Self.db).document(Self.path("c/a"))?.fields["x"] == .integer(5))
            #expect(state.database(Self.db).document(Self.path("c/b")) == nil)

            // The teardown request commits nothing; it gets a token, then the call ends OK.
            stream.send(Self.batch([], token: second.token))
            let last = try next(stream)
            #expect(last.results.isEmpty && last.commitTime == nil && !last.token.isEmpty)
            #expect(try stream.finalStatus() == 0)
        }
    }

    @Test func failedBatchEndsTheStreamAtomically() throws {
        try withServer { port, state in
            // Update of a missing document: NOT_FOUND; nothing of the batch is applied.
            let stream = try GRPCTestStream(port: port, method: "Write")
            stream.send(Self.handshake)
            let hello = try next(stream)
            stream.send(Self.batch([Write.set(Self.path("c/ok"), MapValue()),
                                    Write.update(Self.path("c/missing"), MapValue([("x", .integer(1))]), mask: [FieldPath(["x"])])],
                                   token: hello.token))
            #expect(try stream.finalStatus() == 5)
            #expect(state.database(Self.db).document(Self.path("c/ok")) == nil)

            // exists=false on an existing document: ALREADY_EXISTS; an update-time mismatch:
            // FAILED_PRECONDITION. Each on a fresh stream (a client reopens after an error).
            let setup = try GRPCTestStream(port: port, method: "Write")
            setup.send(Self.handshake)
            let h = try next(setup)
            setup.send(Self.batch([Write.set(Self.path("c/there"), MapValue())], token: h.token))
            let created = try next(setup)
            #expect(created.results.count == 1)
            setup.send(Self.batch([Write(path: Self.path("c/there"), operation: .set(MapValue()), precondition: .exists(false))], token: created.token))
            #expect(try setup.finalStatus() == 6)

            let stale = try GRPCTestStream(port: port, method: "Write")
            stale.send(Self.handshake)
            let s = try next(stale)
            stale.send(Self.batch([Write(path: Self.path("c/there"), operation: .set(MapValue()),
                                         precondition: .updateTime(Timestamp(seconds: 1, nanos: 0)))], token: s.token))
            #expect(try stale.finalStatus() == 9)
        }
    }

    @Test func rulesAndMalformedRequests() throws {
        try withServer { port, state in
            // Rules apply to a signed-in user (PERMISSION_DENIED); the owner bypasses them.
            let rules = try ProjectRules(ProjectRules.File(name: "t.rules", content: """
                rules_version = '2';
                service cloud.firestore { match /databases/{db}/documents { match /open/{id} { allow write: if true; } } }
                """))
            state.rules.set(rules, forProject: Self.db.project)
            let user = try GRPCTestStream(port: port, method: "Write", authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1MSJ9.")
            user.send(Self.handshake)
            let u = try next(user)
            user.send(Self.batch([Write.set(Self.path("open/x"), MapValue())], token: u.token))
            let allowed = try next(user)
            #expect(allowed.results.count == 1)
            user.send(Self.batch([Write.set(Self.path("closed/x"), MapValue())], token: allowed.token))
            #expect(try user.finalStatus() == 7)

            // Malformed protobuf; a bad database; writes in the handshake; a later request
            // naming another database: INVALID_ARGUMENT.
            let garbage = try GRPCTestStream(port: port, method: "Write")
            garbage.send([0x0a, 0x05, 0x61])
            #expect(try garbage.finalStatus() == 3)

            let badName = try GRPCTestStream(port: port, method: "Write")
            badName.send(TestProto.message { $0.writeString(1, "nonsense") })
            #expect(try badName.finalStatus() == 3)

            let eager = try GRPCTestStream(port: port, method: "Write")
            eager.send(TestProto.message { w in
                w.writeString(1, Self.db.name); w.writeMessage(3, TestProto.write(Write.set(Self.path("c/d"), MapValue()), Self.db))
            })
            #expect(try eager.finalStatus() == 3)
            #expect(state.database(Self.db).document(Self.path("c/d")) == nil)

            let switching = try GRPCTestStream(port: port, method: "Write")
            switching.send(Self.handshake)
            let sw = try next(switching)
            switching.send(TestProto.message { w in
                w.writeString(1, "projects/other/databases/(default)"); w.writeBytes(4, sw.token)
            })
            #expect(try switching.finalStatus() == 3)
            #expect(switching.statusMessage.contains("same database"))
        }
    }
}
