import Foundation
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// Every Firestore RPC over loopback gRPC (HTTP/2 + HPACK + framing + protobuf) against
/// `EmulatorServer`, checking decoded answers and statuses.
@Suite struct FirestoreRPCTests {
    static let db = DatabaseID(project: "grpc-test")
    static let root = "projects/grpc-test/databases/(default)/documents"
    static func name(_ path: String) -> String { "\(root)/\(path)" }
    static func path(_ p: String) -> ResourcePath { ResourcePath(segments: p.split(separator: "/").map(String.init)) }

    /// A server with the gRPC front end and a connected client.
    func withClient(_ body: (GRPCTestClient, EmulatorState) throws -> Void) throws {
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        try body(try GRPCTestClient(port: server.port), state)
    }

    func commit(_ client: GRPCTestClient, _ writes: [Write], transaction: [UInt8]? = nil) throws -> GRPCTestClient.Response {
        try client.call("Commit", TestProto.message { w in
            w.writeString(1, Self.db.name)
            for write in writes { w.writeMessage(2, TestProto.write(write, Self.db)) }
            if let transaction { w.writeBytes(3, transaction) }
        })
    }

    func seedUsers(_ client: GRPCTestClient) throws {
        let writes = [("ada", 36), ("bob", 25), ("cy", 41)].map { (id, age) in
            Write.set(Self.path("users/\(id)"), MapValue([("name", .string(id)), ("age", .integer(Int64(age)))]))
        }
        let r = try commit(client, writes + [Write.set(Self.path("users/bob/posts/p1"), MapValue([("t", .string("hi"))]))])
        #expect(r.status == 0)
    }

    @Test func documentCrud() throws {
        try withClient { client, _ in
            // CreateDocument with an id, then again: ALREADY_EXISTS, trailers-only.
            let create = TestProto.message { w in
                w.writeString(1, Self.root); w.writeString(2, "users"); w.writeString(3, "ada")
                w.writeMessage(4, TestProto.document("", [("age", .integer(36))]))
            }
            let created = try client.call("CreateDocument", create)
            #expect(created.status == 0 && created.messages.count == 1)
            let doc = try TestProto.decodeDocument(created.messages[0])
            #expect(doc.name == Self.name("users/ada"))
            #expect(doc.fields["age"] == .integer(36))
            #expect(doc.createTime != nil && doc.createTime == doc.updateTime)
            let again = try client.call("CreateDocument", create)
            #expect(again.status == 6 && again.trailersOnly)

            // GetDocument with a mask.
            let got = try client.call("GetDocument", TestProto.message { w in
                w.writeString(1, Self.name("users/ada")); w.writeMessage(2) { $0.writeString(1, "missing") }
            })
            #expect(try TestProto.decodeDocument(got.messages[0]).fields.isEmpty)

            // UpdateDocument with an update mask: sets `name`, keeps `age`.
            let updated = try client.call("UpdateDocument", TestProto.message { w in
                w.writeMessage(1, TestProto.document(Self.name("users/ada"), [("name", .string("Ada"))]))
                w.writeMessage(2) { $0.writeString(1, "name") }
            })
            let u = try TestProto.decodeDocument(updated.messages[0])
            #expect(u.fields["name"] == .string("Ada") && u.fields["age"] == .integer(36))

            // UpdateDocument with exists=true on a missing document: NOT_FOUND.
            let missingUpdate = try client.call("UpdateDocument", TestProto.message { w in
                w.writeMessage(1, TestProto.document(Self.name("users/nobody"), [("x", .integer(1))]))
                w.writeMessage(4) { $0.writeBool(1, true) }
            })
            #expect(missingUpdate.status == 5)

            // DeleteDocument answers Empty; the document is gone.
            let deleted = try client.call("DeleteDocument", TestProto.message { $0.writeString(1, Self.name("users/ada")) })
            #expect(deleted.status == 0 && deleted.messages == [[]])
            let gone = try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("users/ada")) })
            #expect(gone.status == 5 && gone.trailersOnly)
            #expect(gone.message == "Document (\(Self.name("users/ada"))) not found.")
        }
    }

    @Test func commitAndBatchGetStreamFoundAndMissing() throws {
        try withClient { client, _ in
            try seedUsers(client)
            let r = try client.call("BatchGetDocuments", TestProto.message { w in
                w.writeString(1, Self.db.name)
                w.writeString(2, Self.name("users/zed")); w.writeString(2, Self.name("users/ada"))
            })
            // Found documents stream before missing ones, whatever the request order.
            #expect(r.status == 0 && r.messages.count == 2)
            let first = try TestProto.fields(r.messages[0])
            #expect(first.contains { $0.0 == 1 } && first.contains { $0.0 == 4 })
            let second = try TestProto.fields(r.messages[1])
            #expect(second.first { $0.0 == 2 }.map { String(decoding: $0.1, as: UTF8.self) } == Self.name("users/zed"))
            #expect(second.contains { $0.0 == 4 }, "missing carries read_time")
        }
    }

    @Test func transactionsCommitConflictAndRollback() throws {
        try withClient { client, _ in
            try seedUsers(client)
            func begin() throws -> [UInt8] {
                let r = try client.call("BeginTransaction", TestProto.message { w in
                    w.writeString(1, Self.db.name); w.writeMessage(2) { $0.writeMessage(3) { _ in } }
                })
                let message = try #require(r.messages.first)
                return try #require(try TestProto.fields(message).first { $0.0 == 1 }?.1)
            }
            // Read in a transaction, write the document outside it: the commit is ABORTED.
            let t1 = try begin()
            let read = try client.call("BatchGetDocuments", TestProto.message { w in
                w.writeString(1, Self.db.name); w.writeString(2, Self.name("users/ada")); w.writeBytes(4, t1)
            })
            #expect(read.status == 0 && read.messages.count == 1)
            #expect(try commit(client, [Write.set(Self.path("users/ada"), MapValue([("age", .integer(1))]))]).status == 0)
            let conflict = try commit(client, [Write.set(Self.path("users/ada"), MapValue([("age", .integer(2))]))], transaction: t1)
            #expect(conflict.status == 10)

            // A retry succeeds.
            let t2 = try begin()
            _ = try client.call("BatchGetDocuments", TestProto.message { w in
                w.writeString(1, Self.db.name); w.writeString(2, Self.name("users/ada")); w.writeBytes(4, t2)
            })
            let ok = try commit(client, [Write.set(Self.path("users/ada"), MapValue([("age", .integer(2))]))], transaction: t2)
            #expect(ok.status == 0)
            let results = try TestProto.fields(ok.messages[0])
            #expect(results.filter { $0.0 == 1 }.count == 1 && results.contains { $0.0 == 2 })

            // Rollback answers Empty; committing it afterwards fails.
            let t3 = try begin()
            let rb = try client.call("Rollback", TestProto.message { w in w.writeString(1, Self.db.name); w.writeBytes(2, t3) })
            #expect(rb.status == 0 && rb.messages == [[]])
            #expect(try commit(client, [], transaction: t3).status != 0)
        }
    }

    @Test func runQueryStreamsDocumentsAndNewTransaction() throws {
        try withClient { client, _ in
            try seedUsers(client)
            let query = StructuredQuery(collectionID: "users", filter: .field(FieldPath(["age"]), .greaterThan, .integer(30)),
                                        orderBy: [Ordering(FieldPath(["age"]), descending: true)], limit: 5)
            let r = try client.call("RunQuery", TestProto.message { w in
                w.writeString(1, Self.root)
                w.writeMessage(2) { StructuredQueryMessage.encode(query, into: &$0) }
                w.writeMessage(6) { $0.writeMessage(2) { _ in } }
            })
            // The new transaction's id alone first, then the documents, `done` on the last.
            #expect(r.status == 0 && r.messages.count == 3)
            let names = try r.messages.map { m in
                try TestProto.fields(m).first { $0.0 == 1 }.map { try TestProto.decodeDocument($0.1).name }
            }
            #expect(names == [nil, Self.name("users/cy"), Self.name("users/ada")])
            #expect(try TestProto.fields(r.messages[0]).map(\.0) == [2], "the new transaction id, alone")
            #expect(try !TestProto.fields(r.messages[1]).contains { $0.0 == 2 || $0.0 == 6 })
            #expect(try TestProto.fields(r.messages[2]).contains { $0.0 == 6 && $0.2 == 1 }, "done on the last")

            // Nothing matches: one response with only read_time. Offset: skipped_results.
            let none = StructuredQuery(collectionID: "users", filter: .field(FieldPath(["age"]), .greaterThan, .integer(99)))
            let empty = try client.call("RunQuery", TestProto.message { w in
                w.writeString(1, Self.root); w.writeMessage(2) { StructuredQueryMessage.encode(none, into: &$0) }
            })
            let emptyFields = try TestProto.fields(empty.messages[0]).map(\.0)
            #expect(empty.messages.count == 1 && emptyFields == [3, 6])
            let offset = StructuredQuery(collectionID: "users", orderBy: [Ordering(FieldPath(["age"]))], offset: 2)
            let skipped = try client.call("RunQuery", TestProto.message { w in
                w.writeString(1, Self.root); w.writeMessage(2) { StructuredQueryMessage.encode(offset, into: &$0) }
            })
            #expect(skipped.messages.count == 1)
            #expect(try TestProto.fields(skipped.messages[0]).first { $0.0 == 4 }?.2 == 2)

            // Collection group over the subcollection.
            let group = StructuredQuery(collectionID: "posts", allDescendants: true)
            let g = try client.call("RunQuery", TestProto.message { w in
                w.writeString(1, Self.root); w.writeMessage(2) { StructuredQueryMessage.encode(group, into: &$0) }
            })
            let groupFields = try TestProto.fields(g.messages[0])
            #expect(g.messages.count == 1 && groupFields.contains { $0.0 == 1 })
        }
    }

    @Test func runAggregationQuerySendsExactlyOneResult() throws {
        try withClient { client, _ in
            try seedUsers(client)
            let r = try client.call("RunAggregationQuery", TestProto.message { w in
                w.writeString(1, Self.root)
                w.writeMessage(2) {
                    StructuredQueryMessage.encodeAggregationQuery(StructuredQuery(collectionID: "users"),
                                                                 [Aggregation(.count(upTo: nil), alias: "n"), Aggregation(.sum(FieldPath(["age"])), alias: "s")],
                                                                 into: &$0)
                }
            })
            #expect(r.status == 0 && r.messages.count == 1)
            let result = try #require(try TestProto.fields(r.messages[0]).first { $0.0 == 1 }?.1)
            var reader = ProtoReader(result)
            var values: [String: Value] = [:]
            while let key = try reader.next() {
                let (k, v) = try ValueMessage.decodeMapEntry(&reader, key)
                values[k] = v
            }
            #expect(values == ["n": .integer(3), "s": .integer(102)])
        }
    }

    @Test func listingsBatchWriteAndPartitions() throws {
        try withClient { client, _ in
            try seedUsers(client)
            #expect(try commit(client, [Write.set(Self.path("ghosts/g1/sub/s"), MapValue([("x", .integer(1))]))]).status == 0)
            // ListDocuments, paged, then show_missing with an empty mask.
            let page = try client.call("ListDocuments", TestProto.message { w in
                w.writeString(1, Self.root); w.writeString(2, "users"); w.writeInt32(3, 2)
            })
            let fields = try TestProto.fields(page.messages[0])
            #expect(fields.filter { $0.0 == 1 }.count == 2)
            let token = try #require(fields.first { $0.0 == 2 }.map { String(decoding: $0.1, as: UTF8.self) })
            let page2 = try client.call("ListDocuments", TestProto.message { w in
                w.writeString(1, Self.root); w.writeString(2, "users"); w.writeInt32(3, 2); w.writeString(4, token)
            })
            #expect(try TestProto.fields(page2.messages[0]).filter { $0.0 == 1 }.count == 1)
            let ghosts = try client.call("ListDocuments", TestProto.message { w in
                w.writeString(1, Self.root); w.writeString(2, "ghosts"); w.writeMessage(7) { _ in }; w.writeBool(12, true)
            })
            let ghostBytes = try #require(try TestProto.fields(ghosts.messages[0]).first { $0.0 == 1 }?.1)
            let ghost = try TestProto.decodeDocument(ghostBytes)
            #expect(ghost.name == Self.name("ghosts/g1") && ghost.fields.isEmpty && ghost.updateTime == nil)

            // ListCollectionIds at the root and under a document.
            let ids = try client.call("ListCollectionIds", TestProto.message { $0.writeString(1, Self.root) })
            #expect(try TestProto.fields(ids.messages[0]).map { String(decoding: $0.1, as: UTF8.self) } == ["ghosts", "users"])
            let sub = try client.call("ListCollectionIds", TestProto.message { $0.writeString(1, Self.name("users/bob")) })
            #expect(try TestProto.fields(sub.messages[0]).map { String(decoding: $0.1, as: UTF8.self) } == ["posts"])

            // BatchWrite: one status per write; the failed precondition fails only its write.
            let bw = try client.call("BatchWrite", TestProto.message { w in
                w.writeString(1, Self.db.name)
                w.writeMessage(2, TestProto.write(Write(path: Self.path("users/new"), operation: .set(MapValue()), precondition: .exists(false)), Self.db))
                w.writeMessage(2, TestProto.write(Write(path: Self.path("users/ada"), operation: .set(MapValue()), precondition: .exists(false)), Self.db))
            })
            let bwFields = try TestProto.fields(bw.messages[0])
            #expect(bwFields.filter { $0.0 == 1 }.count == 2)
            var statuses: [[UInt8]] = []
            for f in bwFields where f.0 == 2 { statuses.append(f.1) }
            #expect(statuses.count == 2 && statuses[0].isEmpty)
            #expect(try TestProto.fields(statuses[1]).first { $0.0 == 1 }?.2 == 6)

            // PartitionQuery: zero partitions; partition_count 0 is INVALID_ARGUMENT.
            let pq = try client.call("PartitionQuery", TestProto.message { w in
                w.writeString(1, Self.root); w.writeInt64(3, 3)
            })
            #expect(pq.status == 0 && pq.messages == [[]])
            #expect(try client.call("PartitionQuery", TestProto.message { w in w.writeString(1, Self.root) ; w.writeInt64(3, 0) }).status == 3)
        }
    }

    /// A 6 KB malformed name is answered INVALID_ARGUMENT with trailers grpc-java accepts
    /// (it refuses header blocks past 8 KiB, and past 10 KiB drops the whole connection):
    /// the message names the problem and is cut, and the connection keeps serving.
    @Test func longErrorMessagesFitTheClientsHeaderLimit() throws {
        try withClient { client, _ in
            let name = Self.root + "/" + String(repeating: "a/", count: 3_000) + "b"
            let r = try client.call("GetDocument", TestProto.message { $0.writeString(1, name) })
            #expect(r.status == 3 && r.trailersOnly)
            #expect(r.message.hasPrefix("Document name \"\(Self.root)/a/a/") && r.message.hasSuffix("…"))
            #expect(GRPCStatus.percentEncode(r.message).utf8.count <= 4096)
            #expect(try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("c/d")) }).status == 5)
        }
    }

    /// A request message larger than a stream's window (a 4.5 MB Commit against the 4 MiB
    /// default) completes: the server widens the window for the message it holds. Before,
    /// the window came back only as whole messages were consumed, so the client, honouring
    /// flow control as every gRPC client does, stalled until its deadline.
    @Test func requestMessagesLargerThanTheStreamWindowComplete() throws {
        var limits = HTTPLimits()
        limits.maxStreamBuffer = 256 * 1024
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, limits: limits)
        defer { server.stop() }
        let client = try GRPCTestClient(port: server.port)
        let blob = String(repeating: "x", count: 1_000_000)
        let body = GRPCMessageWriter.frame(TestProto.message { w in
            w.writeString(1, Self.db.name)
            w.writeMessage(2, TestProto.write(Write.set(Self.path("blobs/big"), MapValue([("blob", .string(blob))])), Self.db))
        })
        let id = client.open(client.requestHeaders("Commit"))
        try #require(try client.sendHonouringWindow(id, body, endStream: true), "the server gave no window for the rest of the message")
        let r = try client.response(id)
        #expect(r.status == 0)
        let got = try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("blobs/big")) })
        #expect(try TestProto.decodeDocument(got.messages.first ?? []).fields["blob"] == .string(blob))
    }

    @Test func errorsAuthRulesUnknownMethodsAndDeadlines() throws {
        try withClient { client, state in
            // Methods that are not served: UNIMPLEMENTED, trailers-only.
            for method in ["WriteStream", "Nope"] {
                let r = try client.call(method, [])
                #expect(r.status == 12 && r.trailersOnly)
            }
            // Malformed protobuf, and a bad resource name: INVALID_ARGUMENT.
            #expect(try client.call("GetDocument", [0x0a, 0x05, 0x61]).status == 3)
            #expect(try client.call("GetDocument", TestProto.message { $0.writeString(1, "nonsense") }).status == 3)
            // A request ending inside a message, and two messages for a unary call.
            #expect(try client.call("GetDocument", [], body: [0, 0, 0, 0, 9, 1]).status == 3)
            #expect(try client.call("Commit", [], body: GRPCMessageWriter.frame([]) + GRPCMessageWriter.frame([])).status == 3)
            // Admin-only operations without `Bearer owner`; a bad authorization header.
            let signedOut = try client.call("BatchWrite", TestProto.message { $0.writeString(1, Self.db.name) }, authorization: nil)
            #expect(signedOut.status == 7 && signedOut.message == "Batch writes require admin authentication.")
            #expect(try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("c/d")) }, authorization: "Bearer x.y").status == 3)

            // Rules: reads of `open` allowed, everything else denied (the owner bypasses).
            let rules = try ProjectRules(ProjectRules.File(name: "t.rules", content: """
                rules_version = '2';
                service cloud.firestore { match /databases/{db}/documents { match /open/{id} { allow read: if true; } } }
                """))
            state.rules.set(rules, forProject: Self.db.project)
            let user = "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1MSJ9."
            let denied = try commit(client, [Write.set(Self.path("closed/x"), MapValue())])
            #expect(denied.status == 0, "owner bypasses the rules")
            let asUser = try client.call("Commit", TestProto.message { w in
                w.writeString(1, Self.db.name); w.writeMessage(2, TestProto.write(Write.set(Self.path("closed/y"), MapValue()), Self.db))
            }, authorization: user)
            #expect(asUser.status == 7)
            #expect(try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("closed/x")) }, authorization: user).status == 7)
            #expect(try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("open/x")) }, authorization: user).status == 5)

            // Deadline: the request body never ends, so the 50 ms timeout answers.
            let id = client.open(client.requestHeaders("GetDocument", timeout: "50m"))
            let late = try client.response(id)
            #expect(late.status == 4 && late.trailersOnly)
            // A reset stream is dropped; the connection keeps serving.
            let cancelled = client.open(client.requestHeaders("GetDocument"))
            client.raw.send([HTTP2Frame(streamID: cancelled, flags: [], payload: .rstStream(.cancel))])
            #expect(try client.call("GetDocument", TestProto.message { $0.writeString(1, Self.name("closed/x")) }).status == 0)
            // Not gRPC: HTTP 415.
            let plain = client.open(client.requestHeaders("GetDocument", contentType: "application/json"), endStream: true)
            let answer = try client.response(plain)
            #expect(answer.headers.contains(HTTP2Header(":status", "415")))
        }
    }
    /// Production's limits over gRPC (docs/fidelity.md#limits): a field name or a nested
    /// field's path over 1,500 bytes, a document name over 6 KiB and a request over 10 MiB
    /// are INVALID_ARGUMENT; nothing is written.
    @Test func productionsLimitsAreInvalidArgument() throws {
        try withClient { client, state in
            let longName = String(repeating: "f", count: 1501)
            let nested = MapValue([("m", .map(MapValue([(String(repeating: "g", count: 1000), .map(MapValue([(String(repeating: "h", count: 500), .integer(1))])))])))])
            let longPath = (0..<5).map { "c/" + String(repeating: "\($0)", count: 1400) }.joined(separator: "/")
            for (write, text) in [
                (Write.set(Self.path("c/a"), MapValue([(longName, .integer(1))])), "Field name is longer than 1500 bytes"),
                (Write.set(Self.path("c/a"), nested), "Field path is longer than 1500 bytes"),
                (Write.set(Self.path(longPath), MapValue()), "is longer than 6144 bytes"),
            ] {
                let r = try commit(client, [write])
                #expect(r.status == 3 && r.message.contains(text), "\(r.message)")
            }
            let query = try client.call("RunQuery", TestProto.message { w in
                w.writeString(1, Self.root)
                w.writeMessage(2) { q in
                    q.writeMessage(2) { $0.writeString(2, "c") }
                    q.writeMessage(4) { $0.writeMessage(1) { $0.writeString(2, longName) } }
                }
            })
            #expect(query.status == 3 && query.message == "property path is longer than 1500 bytes.")
            // 11 documents just under 1 MiB each: every one within its own limit, the request over 10 MiB.
            let big = (0..<11).map { Write.set(Self.path("c/\($0)"), MapValue([("s", .string(String(repeating: "x", count: (1 << 20) - 200)))])) }
            // Sent as its flow-control window allows, as a real client does.
            func commitLarge(_ writes: [Write]) throws -> GRPCTestClient.Response {
                let body = GRPCMessageWriter.frame(TestProto.message { w in
                    w.writeString(1, Self.db.name)
                    for write in writes { w.writeMessage(2, TestProto.write(write, Self.db)) }
                })
                let id = client.open(client.requestHeaders("Commit"))
                try #require(try client.sendHonouringWindow(id, body, endStream: true), "the server gave no window for the rest of the message")
                return try client.response(id)
            }
            let tooLarge = try commitLarge(big)
            #expect(tooLarge.status == 3 && tooLarge.message == "Request payload size exceeds the limit: 10485760 bytes.")
            #expect(state.database(Self.db).state().document(Self.path("c/0")) == nil)
            #expect(try commitLarge(Array(big.prefix(5))).status == 0)
        }
    }
}
