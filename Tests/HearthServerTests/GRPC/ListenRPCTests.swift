import Foundation
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// The gRPC Listen stream over loopback (docs/protocol.md#listen): the initial sequence of a
/// query and of a document target, changes after commits, remove_target, resume tokens,
/// bad targets, rules denials and malformed requests, and the engine listeners released
/// when the stream ends.
@Suite struct ListenRPCTests {
    static let db = FirestoreRPCTests.db
    static let root = FirestoreRPCTests.root
    static func name(_ p: String) -> String { FirestoreRPCTests.name(p) }
    static func path(_ p: String) -> ResourcePath { FirestoreRPCTests.path(p) }

    /// One decoded ListenResponse.
    enum Response: Hashable {
        case target(type: UInt64, ids: [Int32], cause: Int?, token: [UInt8], readTime: Timestamp?)
        case change(name: String, ids: [Int32], removed: [Int32], updateTime: Timestamp?)
        case delete(name: String, removed: [Int32])
        case remove(name: String, removed: [Int32])
        case filter(target: Int32, count: Int32)

        static func decode(_ bytes: [UInt8]) throws -> Response {
            var r = ProtoReader(bytes)
            guard let key = try r.next() else { throw FirestoreError(.internal, "empty ListenResponse") }
            var sub = try r.readMessage(key)
            var ids: [Int32] = [], removed: [Int32] = [], name = "", type: UInt64 = 0, cause: Int?, token: [UInt8] = []
            var readTime: Timestamp?, updateTime: Timestamp?
            var filterTarget: Int32 = 0, filterCount: Int32 = 0
            while let k = try sub.next() {
                switch (key.number, k.number) {
                case (5, 1): filterTarget = try sub.readInt32(k)
                case (5, 2): filterCount = try sub.readInt32(k)
                case (2, 1): type = try sub.readUInt64(k)
                case (2, 2), (3, 5): try sub.readRepeatedInt32(k, into: &ids)
                case (2, 3):
                    var status = try sub.readMessage(k)
                    cause = 0
                    while let s = try status.next() { if s.number == 1 { cause = Int(try status.readInt32(s)) } else { try status.skip(s) } }
                case (2, 4): token = try sub.readBytes(k)
                case (2, 6):
                    var t = try sub.readMessage(k)
                    readTime = try WellKnownMessages.decodeTimestamp(&t)
                case (3, 1):
                    var d = try sub.readMessage(k)
                    let doc = try DocumentMessage.decode(&d)
                    name = doc.name
                    updateTime = doc.updateTime
                case (3, 6), (4, 6), (6, 2): try sub.readRepeatedInt32(k, into: &removed)
                case (4, 1), (6, 1): name = try sub.readString(k)
                default: try sub.skip(k)
                }
            }
            switch key.number {
            case 2: return .target(type: type, ids: ids, cause: cause, token: token, readTime: readTime)
            case 3: return .change(name: name, ids: ids, removed: removed, updateTime: updateTime)
            case 4: return .delete(name: name, removed: removed)
            case 5: return .filter(target: filterTarget, count: filterCount)
            default: return .remove(name: name, removed: removed)
            }
        }

        /// A NO_CHANGE with empty target ids (the global consistent snapshot marker).
        var globalReadTime: Timestamp? {
            if case .target(0, [], nil, let token, let t?) = self, !token.isEmpty { return t }
            return nil
        }
    }

    func next(_ stream: GRPCTestStream, _ count: Int) throws -> [Response] {
        let messages = try stream.next(count)
        #expect(messages.count == count, "status \(String(describing: stream.status)) \(stream.statusMessage)")
        return try messages.map(Response.decode)
    }

    /// A server with the gRPC front end and a client for unary calls.
    func withServer(_ body: (Int, GRPCTestClient, EmulatorState) throws -> Void) throws {
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        try body(server.port, try GRPCTestClient(port: server.port), state)
    }

    func commit(_ client: GRPCTestClient, _ writes: [Write]) throws -> Timestamp {
        let r = try FirestoreRPCTests().commit(client, writes)
        #expect(r.status == 0, "\(r.message)")
        var reader = ProtoReader(r.messages[0])
        while let k = try reader.next() {
            if k.number == 2 { var t = try reader.readMessage(k); return try WellKnownMessages.decodeTimestamp(&t) }
            try reader.skip(k)
        }
        throw FirestoreError(.internal, "no commit_time")
    }

    static func user(_ id: String, _ age: Int) -> Write {
        .set(path("users/\(id)"), MapValue([("name", .string(id)), ("age", .integer(Int64(age)))]))
    }

    /// ListenRequest{database, add_target{query: users where age > 30, target_id}}.
    static func addQuery(_ id: Int32, resumeToken: [UInt8]? = nil, expectedCount: Int32? = nil, parent: String = root) -> [UInt8] {
        TestProto.message { w in
            w.writeString(1, db.name)
            w.writeMessage(2) { t in
                t.writeMessage(2) { q in
                    q.writeString(1, parent)
                    q.writeMessage(2) { s in
                        s.writeMessage(2) { $0.writeString(2, "users") }
                        s.writeMessage(3) { f in
                            f.writeMessage(2) { ff in
                                ff.writeMessage(1) { $0.writeString(2, "age") }
                                ff.writeUInt64(2, 3)  // GREATER_THAN
                                ff.writeMessage(3) { $0.writeInt64(2, 30) }
                            }
                        }
                    }
                }
                if let resumeToken { t.writeBytes(4, resumeToken) }
                t.writeInt32(5, id)
                if let expectedCount { t.writeMessage(12) { $0.writeInt32(1, expectedCount) } }
            }
        }
    }

    static func addDocuments(_ id: Int32, _ names: [String]) -> [UInt8] {
        TestProto.message { w in
            w.writeString(1, db.name)
            w.writeMessage(2) { t in
                t.writeMessage(3) { d in for n in names { d.writeString(2, n) } }
                t.writeInt32(5, id)
            }
        }
    }

    static func removeTarget(_ id: Int32) -> [UInt8] {
        TestProto.message { w in w.writeString(1, db.name); w.writeInt32(3, id) }
    }

    /// Polls until the database has `count` listen targets (the stream's end releases them).
    func waitForTargets(_ state: EmulatorState, _ count: Int) -> Bool {
        for _ in 0..<200 {
            if state.database(Self.db).listenTargetCount == count { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func queryTargetInitialSnapshotChangesAndRemove() throws {
        try withServer { port, client, state in
            let seeded = try commit(client, [Self.user("ada", 36), Self.user("bob", 25), Self.user("cy", 41)])
            let stream = try GRPCTestStream(port: port, method: "Listen")
            stream.send(Self.addQuery(7))
            let initial = try next(stream, 5)
            #expect(initial[0] == .target(type: 1, ids: [7], cause: nil, token: [], readTime: nil))
            #expect(initial[1] == .change(name: Self.name("users/ada"), ids: [7], removed: [], updateTime: seeded))
            #expect(initial[2] == .change(name: Self.name("users/cy"), ids: [7], removed: [], updateTime: seeded))
            guard case .target(3, [7], nil, let token, seeded?) = initial[3] else { Issue.record("not CURRENT: \(initial[3])"); return }
            #expect(!token.isEmpty)
            #expect(initial[4].globalReadTime == seeded)
            #expect(state.database(Self.db).listenTargetCount == 1)

            // bob enters, ada leaves (still exists), cy is deleted: one commit each.
            let t1 = try commit(client, [Self.user("bob", 50)])
            let c1 = try next(stream, 2)
            #expect(c1[0] == .change(name: Self.name("users/bob"), ids: [7], removed: [], updateTime: t1))
            #expect(c1[1].globalReadTime == t1)
            let t2 = try commit(client, [Self.user("ada", 20)])
            let c2 = try next(stream, 2)
            #expect(c2[0] == .remove(name: Self.name("users/ada"), removed: [7]))
            #expect(c2[1].globalReadTime == t2)
            let t3 = try commit(client, [.delete(Self.path("users/cy"))])
            let c3 = try next(stream, 2)
            #expect(c3[0] == .delete(name: Self.name("users/cy"), removed: [7]))
            #expect(c3[1].globalReadTime == t3)
            // A commit that does not touch the result sends nothing: the next message is
            // the answer to remove_target, a REMOVE without a cause.
            _ = try commit(client, [Self.user("dee", 10)])
            stream.send(Self.removeTarget(7))
            #expect(try next(stream, 1) == [.target(type: 2, ids: [7], cause: nil, token: [], readTime: nil)])
            #expect(waitForTargets(state, 0))
            // The stream stays usable: the same id again, now with bob only.
            stream.send(Self.addQuery(7))
            let again = try next(stream, 4)
            #expect(again[0] == .target(type: 1, ids: [7], cause: nil, token: [], readTime: nil))
            #expect(again[1] == .change(name: Self.name("users/bob"), ids: [7], removed: [], updateTime: t1))
            // Half-close ends the call OK and releases the target.
            stream.halfClose()
            #expect(try stream.finalStatus() == 0)
            #expect(waitForTargets(state, 0))
        }
    }

    /// A remove (or a second add with the same id) that arrives with its add, in one
    /// batch, overtakes the target's initial result in the session's queue; the result still
    /// goes out first, whole — ADD, documents, CURRENT, NO_CHANGE — then the REMOVE, as the
    /// official emulator answers each request before the next (and as clients expect: one
    /// response for each add and each remove they sent).
    @Test func aRemoveSentWithItsAddFollowsTheWholeInitialResult() throws {
        try withServer { port, client, state in
            let seeded = try commit(client, [Self.user("ada", 36), Self.user("cy", 41)])
            let stream = try GRPCTestStream(port: port, method: "Listen")
            stream.sendRaw(GRPCMessageWriter.frame(Self.addQuery(7)) + GRPCMessageWriter.frame(Self.removeTarget(7)))
            let answers = try next(stream, 6)
            #expect(answers[0] == .target(type: 1, ids: [7], cause: nil, token: [], readTime: nil))
            #expect(answers[1] == .change(name: Self.name("users/ada"), ids: [7], removed: [], updateTime: seeded))
            #expect(answers[2] == .change(name: Self.name("users/cy"), ids: [7], removed: [], updateTime: seeded))
            guard case .target(3, [7], nil, _, seeded?) = answers[3] else { Issue.record("not CURRENT: \(answers[3])"); return }
            #expect(answers[4].globalReadTime == seeded)
            #expect(answers[5] == .target(type: 2, ids: [7], cause: nil, token: [], readTime: nil))
            #expect(waitForTargets(state, 0))

            // The same for an id added twice at once: the first target's result, then its
            // removal with ALREADY_EXISTS (6); the stream goes on.
            stream.sendRaw(GRPCMessageWriter.frame(Self.addDocuments(1, [Self.name("users/ada")]))
                           + GRPCMessageWriter.frame(Self.addDocuments(1, [Self.name("users/cy")])))
            let twice = try next(stream, 5)
            #expect(twice[0] == .target(type: 1, ids: [1], cause: nil, token: [], readTime: nil))
            #expect(twice[1] == .change(name: Self.name("users/ada"), ids: [1], removed: [], updateTime: seeded))
            guard case .target(3, [1], nil, _, _) = twice[2] else { Issue.record("not CURRENT: \(twice[2])"); return }
            #expect(twice[3].globalReadTime != nil)
            #expect(twice[4] == .target(type: 2, ids: [1], cause: 6, token: [], readTime: nil))
            #expect(waitForTargets(state, 0))

            // A once-target leaves with its result, so an add of its id right behind it
            // starts a new target rather than meeting ALREADY_EXISTS.
            let once = TestProto.message { w in
                w.writeString(1, Self.db.name)
                w.writeMessage(2) { t in
                    t.writeMessage(3) { d in d.writeString(2, Self.name("users/ada")) }
                    t.writeInt32(5, 3)
                    t.writeBool(6, true)
                }
            }
            stream.sendRaw(GRPCMessageWriter.frame(once) + GRPCMessageWriter.frame(Self.addDocuments(3, [Self.name("users/cy")])))
            let onceThenNew = try next(stream, 9)
            #expect(onceThenNew[0] == .target(type: 1, ids: [3], cause: nil, token: [], readTime: nil))
            #expect(onceThenNew[1] == .change(name: Self.name("users/ada"), ids: [3], removed: [], updateTime: seeded))
            #expect(onceThenNew[3] == .target(type: 2, ids: [3], cause: nil, token: [], readTime: nil))
            #expect(onceThenNew[4].globalReadTime != nil)
            #expect(onceThenNew[5] == .target(type: 1, ids: [3], cause: nil, token: [], readTime: nil))
            #expect(onceThenNew[6] == .change(name: Self.name("users/cy"), ids: [3], removed: [], updateTime: seeded))
            #expect(onceThenNew[8].globalReadTime != nil)
            #expect(waitForTargets(state, 1))
            stream.send(Self.removeTarget(3))
            #expect(try next(stream, 1) == [.target(type: 2, ids: [3], cause: nil, token: [], readTime: nil)])
            #expect(waitForTargets(state, 0))

            // Nothing of the removed targets follows: a change to their documents sends nothing,
            // and the next answer is for a new target.
            _ = try commit(client, [Self.user("ada", 37)])
            stream.send(Self.addDocuments(2, [Self.name("users/nobody")]))
            #expect(try next(stream, 1) == [.target(type: 1, ids: [2], cause: nil, token: [], readTime: nil)])
        }
    }

    /// Open Listen streams are subscriptions, not threads: 200 of them (each on its own
    /// connection), once their first snapshots are out, keep no worker thread busy, and
    /// one commit reaches every one.
    @Test func openListenStreamsHoldNoThreadsAndOneCommitReachesAll() throws {
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        let port = server.port
        let client = try GRPCTestClient(port: port)
        do {
            var streams: [GRPCTestStream] = []
            for _ in 0..<200 {
                let stream = try GRPCTestStream(port: port, method: "Listen")
                stream.send(Self.addDocuments(1, [Self.name("fanout/doc")]))
                streams.append(stream)
            }
            for stream in streams { #expect(try next(stream, 3).count == 3) }  // ADD, CURRENT, NO_CHANGE
            #expect(state.database(Self.db).listenTargetCount == 200)
            let deadline = Date(timeIntervalSinceNow: 10)
            while (server.http.workers.busyCount > 0 || server.http.workers.queuedCount > 0) && Date() < deadline { usleep(10_000) }
            #expect(server.http.workers.busyCount == 0 && server.http.workers.queuedCount == 0)
            let t = try commit(client, [.set(Self.path("fanout/doc"), MapValue([("n", .integer(1))]))])
            for stream in streams {
                let changes = try next(stream, 2)
                #expect(changes.first == .change(name: Self.name("fanout/doc"), ids: [1], removed: [], updateTime: t))
            }
        }
    }

    /// A commit's changes go out from each stream's event loop, not a worker each: they
    /// reach a Listen stream while every worker is busy (with long queries, say), where they
    /// used to wait behind that work.
    @Test func changesArriveWhileEveryWorkerIsBusy() throws {
        let state = EmulatorState()
        var limits = HTTPLimits()
        limits.workerThreads = 1
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state, limits: limits)
        defer { server.stop() }
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let stream = try GRPCTestStream(port: server.port, method: "Listen")
        stream.send(Self.addDocuments(1, [Self.name("busy/doc")]))
        #expect(try next(stream, 3).count == 3)  // ADD, CURRENT, NO_CHANGE
        let workers = server.http.workers
        let deadline = Date(timeIntervalSinceNow: 10)
        while workers.busyCount > 0 && Date() < deadline { usleep(1_000) }
        #expect(workers.submit { release.wait() })
        while workers.busyCount == 0 && Date() < deadline { usleep(1_000) }
        #expect(workers.busyCount == 1)
        let t = try state.database(Self.db).commit([.set(Self.path("busy/doc"), MapValue([("n", .integer(1))]))]).commitTime
        let changes = try next(stream, 2)
        #expect(changes.first == .change(name: Self.name("busy/doc"), ids: [1], removed: [], updateTime: t))
        #expect(changes.last?.globalReadTime == t)
    }

    /// Opening more Listen streams at once than the worker pool queues requests is not
    /// refused: each stream's first batch waits for a worker (a session queues at most one
    /// batch at a time, so such waits are bounded by the open streams), while a unary call
    /// past the bound is still answered busy.
    @Test func listenStreamsPastTheWorkerQueuesBoundWaitRatherThanFail() throws {
        let state = EmulatorState()
        var limits = HTTPLimits()
        limits.workerThreads = 1
        limits.maxQueuedJobs = 2
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state, limits: limits)
        defer { server.stop() }
        let release = DispatchSemaphore(value: 0)
        let workers = server.http.workers
        let deadline = Date(timeIntervalSinceNow: 10)
        // The server's own start-up work done first, the only worker is held.
        while (workers.busyCount > 0 || workers.queuedCount > 0) && Date() < deadline { usleep(1_000) }
        #expect(workers.submit { release.wait() })
        while (workers.busyCount == 0 || workers.queuedCount > 0) && Date() < deadline { usleep(1_000) }
        #expect(workers.submit {})
        #expect(workers.submit {})  // the queue's bound is reached
        var streams: [GRPCTestStream] = []
        for _ in 0..<50 {
            let stream = try GRPCTestStream(port: server.port, method: "Listen")
            stream.send(Self.addDocuments(1, [Self.name("queued/doc")]))
            streams.append(stream)
        }
        while workers.queuedCount < 52 && Date() < deadline { usleep(1_000) }
        #expect(workers.queuedCount == 52)
        #expect(!workers.submit {})
        release.signal()
        for stream in streams {
            let initial = try next(stream, 3)  // ADD, CURRENT, NO_CHANGE
            #expect(initial.first == .target(type: 1, ids: [1], cause: nil, token: [], readTime: nil))
        }
        #expect(state.database(Self.db).listenTargetCount == 50)
    }

    @Test func documentTargetForAMissingDocumentAndMultipleTargets() throws {
        try withServer { port, client, state in
            let stream = try GRPCTestStream(port: port, method: "Listen")
            stream.send(Self.addDocuments(2, [Self.name("users/nobody")]))
            let initial = try next(stream, 3)
            #expect(initial[0] == .target(type: 1, ids: [2], cause: nil, token: [], readTime: nil))
            guard case .target(3, [2], nil, _, _) = initial[1] else { Issue.record("not CURRENT: \(initial[1])"); return }
            #expect(initial[2].globalReadTime != nil)

            // A second target on the same stream.
            stream.send(Self.addQuery(4))
            let second = try next(stream, 3)
            #expect(second[0] == .target(type: 1, ids: [4], cause: nil, token: [], readTime: nil))

            // Creating the document: both targets see it, then one NO_CHANGE for the commit.
            let created = try commit(client, [.set(Self.path("users/nobody"), MapValue([("age", .integer(99))]))])
            let c1 = try next(stream, 3)
            let changes = Set(c1.prefix(2).compactMap { r -> Int32? in
                if case .change(Self.name("users/nobody"), let ids, [], created) = r, ids.count == 1 { return ids[0] }
                return nil
            })
            #expect(changes == [2, 4])
            #expect(c1[2].globalReadTime == created)
            let deleted = try commit(client, [.delete(Self.path("users/nobody"))])
            let c2 = try next(stream, 3)
            #expect(Set(c2.prefix(2)) == [.delete(name: Self.name("users/nobody"), removed: [2]), .delete(name: Self.name("users/nobody"), removed: [4])])
            #expect(c2[2].globalReadTime == deleted)
            #expect(state.database(Self.db).listenTargetCount == 2)
            // A reset (the Python client's unsubscribe) releases both targets.
            stream.cancel()
            #expect(waitForTargets(state, 0))
        }
    }

    @Test func resumeTokenSendsOnlyChangesAndAnUnknownTokenResets() throws {
        try withServer { port, client, _ in
            _ = try commit(client, [Self.user("ada", 36), Self.user("cy", 41)])
            let first = try GRPCTestStream(port: port, method: "Listen")
            first.send(Self.addQuery(1))
            let initial = try next(first, 5)
            guard case .target(3, _, _, let token, _) = initial[3] else { Issue.record("not CURRENT"); return }
            first.cancel()
            let changed = try commit(client, [Self.user("cy", 42), .delete(Self.path("users/ada"))])

            let resumed = try GRPCTestStream(port: port, method: "Listen")
            resumed.send(Self.addQuery(1, resumeToken: token))
            let delta = try next(resumed, 5)
            #expect(delta[0] == .target(type: 1, ids: [1], cause: nil, token: [], readTime: nil))
            #expect(delta[1] == .change(name: Self.name("users/cy"), ids: [1], removed: [], updateTime: changed))
            #expect(delta[2] == .delete(name: Self.name("users/ada"), removed: [1]))
            guard case .target(3, [1], nil, _, _) = delta[3] else { Issue.record("not CURRENT: \(delta[3])"); return }
            #expect(delta[4].globalReadTime == changed)

            // With expected_count (what mobile SDKs send), the delta is followed by an
            // ExistenceFilter with the target's count after it.
            let counted = try GRPCTestStream(port: port, method: "Listen")
            counted.send(Self.addQuery(1, resumeToken: token, expectedCount: 2))
            let withFilter = try next(counted, 6)
            #expect(withFilter[3] == .filter(target: 1, count: 1))
            guard case .target(3, [1], nil, _, _) = withFilter[4] else { Issue.record("not CURRENT: \(withFilter[4])"); return }

            let reset = try GRPCTestStream(port: port, method: "Listen")
            reset.send(Self.addQuery(1, resumeToken: Array("dDE=".utf8)))
            let full = try next(reset, 5)
            #expect(full[1] == .target(type: 4, ids: [1], cause: nil, token: [], readTime: nil))
            #expect(full[2] == .change(name: Self.name("users/cy"), ids: [1], removed: [], updateTime: changed))
            #expect(full[4].globalReadTime == changed)
        }
    }

    /// A client that stops reading: the server's answers wait for flow control, the worker
    /// waits in `send`, commits go on. Past ListenSession.maxQueuedEvents the queued changes
    /// collapse into a RESET and the target's full result, and the client that reads again
    /// ends with exactly the current documents.
    @Test func aClientThatStopsReadingGetsAResetNotAnUnboundedBacklog() throws {
        try withServer { port, client, _ in
            let stream = try GRPCTestStream(port: port, method: "Listen", initialWindow: 16_384)
            stream.send(Self.addQuery(1))
            #expect(try next(stream, 3).last?.globalReadTime != nil)
            let bio = String(repeating: "x", count: 12_000)  // a request fits one 16 KiB frame
            var last: [String: Timestamp] = [:]
            var lastCommit: Timestamp?
            for i in 0..<(ListenSession.maxQueuedEvents + 400) {
                let id = "u\(i % 40)"
                let t = try commit(client, [.set(Self.path("users/\(id)"), MapValue([("age", .integer(40)), ("bio", .string(bio)), ("i", .integer(Int64(i)))]))])
                last[Self.name("users/\(id)")] = t
                lastCommit = t
            }
            stream.openWindows()
            var held: [String: Timestamp] = [:]
            var resets = 0
            var messages = 0
            reading: while true {
                for response in try next(stream, 1) {
                    messages += 1
                    switch response {
                    case .target(4, _, _, _, _): resets += 1; held = [:]
                    case .change(let name, _, _, let updateTime): held[name] = updateTime
                    default: if response.globalReadTime == lastCommit { break reading }
                    }
                }
            }
            #expect(resets >= 1)
            #expect(messages < 2 * (ListenSession.maxQueuedEvents + 400))
            #expect(held == last)
        }
    }

    @Test func badTargetsDenialsAndMalformedRequests() throws {
        try withServer { port, _, state in
            // A target in another database, and a query without structured_query: ADD, then
            // REMOVE with an INVALID_ARGUMENT cause (the emulator's order); the stream goes on.
            let stream = try GRPCTestStream(port: port, method: "Listen")
            stream.send(Self.addDocuments(3, ["projects/other/databases/(default)/documents/users/a"]))
            #expect(try next(stream, 2) == [.target(type: 1, ids: [3], cause: nil, token: [], readTime: nil),
                                            .target(type: 2, ids: [3], cause: 3, token: [], readTime: nil)])
            stream.send(TestProto.message { w in
                w.writeString(1, Self.db.name)
                w.writeMessage(2) { t in t.writeMessage(2) { $0.writeString(1, Self.root) }; t.writeInt32(5, 5) }
            })
            #expect(try next(stream, 2) == [.target(type: 1, ids: [5], cause: nil, token: [], readTime: nil),
                                            .target(type: 2, ids: [5], cause: 3, token: [], readTime: nil)])
            // Removing a target that is not there is answered with nothing; the next answer
            // is the next target's.
            stream.send(Self.removeTarget(9))

            // Rules deny the query for a signed-in user: REMOVE with PERMISSION_DENIED.
            let rules = try ProjectRules(ProjectRules.File(name: "t.rules", content: """
                rules_version = '2';
                service cloud.firestore { match /databases/{db}/documents { match /open/{id} { allow read: if true; } } }
                """))
            state.rules.set(rules, forProject: Self.db.project)
            let user = try GRPCTestStream(port: port, method: "Listen", authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1MSJ9.")
            user.send(Self.addQuery(20601))
            #expect(try next(user, 2) == [.target(type: 1, ids: [20601], cause: nil, token: [], readTime: nil),
                                          .target(type: 2, ids: [20601], cause: 7, token: [], readTime: nil)])
            user.send(Self.addDocuments(2, [Self.name("open/x")]))
            #expect(try next(user, 3)[0] == .target(type: 1, ids: [2], cause: nil, token: [], readTime: nil))

            // Malformed protobuf ends the stream with INVALID_ARGUMENT, as does a request
            // without a target change.
            stream.sendRaw(GRPCMessageWriter.frame([0x0a, 0x05, 0x61]))
            #expect(try stream.finalStatus() == 3)
            let empty = try GRPCTestStream(port: port, method: "Listen")
            empty.send(TestProto.message { $0.writeString(1, Self.db.name) })
            #expect(try empty.finalStatus() == 3)
            // A target id already in use: that target is removed with ALREADY_EXISTS (as
            // production answers), and the stream goes on.
            let duplicate = try GRPCTestStream(port: port, method: "Listen", authorization: "Bearer owner")
            duplicate.send(Self.addDocuments(1, [Self.name("a/b")]))
            #expect(try next(duplicate, 3)[0] == .target(type: 1, ids: [1], cause: nil, token: [], readTime: nil))
            duplicate.send(Self.addDocuments(1, [Self.name("a/c")]))
            #expect(try next(duplicate, 1) == [.target(type: 2, ids: [1], cause: 6, token: [], readTime: nil)])
            #expect(waitForTargets(state, 1))  // the user's open/x target; target 1 is gone
            duplicate.send(Self.addDocuments(4, [Self.name("a/c")]))
            #expect(try next(duplicate, 3)[0] == .target(type: 1, ids: [4], cause: nil, token: [], readTime: nil))
        }
    }
}
