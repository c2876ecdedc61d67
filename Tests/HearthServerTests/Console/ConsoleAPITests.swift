import Foundation
import HearthTestSupport
import HearthCore
import HearthRules
import Testing
@testable import HearthServer
@testable import HearthTransport

/// The console's server over loopback: its files, its JSON API (browsing by cursor,
/// editing, queries with their index analysis, the request log, open streams), the
/// emulator endpoints on its origin, the cross-site guard and the live event stream.
@Suite struct ConsoleAPITests {
    static let db = "projects/p/databases/(default)"
    static let dbParam = "projects%2Fp%2Fdatabases%2F%28default%29"
    static let write = ["X-Hearth-Console": "1"]

    /// A console and an emulator over one state.
    func withConsole(_ state: EmulatorState = EmulatorState(), _ body: (RawHTTPClient, EmulatorServer, EmulatorState) throws -> Void) throws {
        let emulator = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { emulator.stop() }
        let console = try ConsoleServer(host: "127.0.0.1", port: 0, state: state, info: .init(emulatorAddress: emulator.address))
        defer { console.stop() }
        #expect(console.url == "http://127.0.0.1:\(console.port)/ui/")
        try body(try RawHTTPClient(port: console.port), emulator, state)
    }

    static func seed(_ state: EmulatorState, count: Int) throws {
        let db = state.database(DatabaseID(project: "p"))
        var writes: [Write] = []
        for i in 0..<count {
            writes.append(.set(ResourcePath(segments: ["items", String(format: "i%03d", i)]),
                               MapValue([("n", .integer(Int64(i))), ("tag", .string(i % 2 == 0 ? "even" : "odd"))])))
        }
        writes.append(.set(ResourcePath(segments: ["items", "i001", "notes", "a"]), MapValue([("t", .string("x"))])))
        writes.append(.set(ResourcePath(segments: ["zoo", "z"]), MapValue()))
        try db.commit(writes)
    }

    static func ids(_ json: JSON?) -> [String] {
        (json?["documents"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue?.split(separator: "/").last.map(String.init) }
    }

    @Test func servesEveryFileOfTheUIFolder() throws {
        try withConsole { c, _, _ in
            let page = try #require(c.request("GET", "/ui/"))
            #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.text.contains(#"<script type="module" src="console.js">"#))
            #expect(c.request("GET", "/")?.headers["location"] == "/ui/")
            #expect(c.request("GET", "/ui/nope.js")?.status == 404)
            // Every file in Console/UI is served, and nothing else: the table and the folder agree.
            let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Sources/HearthServer/Console/UI")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(files == ConsoleAssets.names.sorted())
            for name in files {
                let r = try #require(c.request("GET", "/ui/\(name)"))
                let onDisk = try Data(contentsOf: folder.appendingPathComponent(name))
                #expect(r.status == 200 && Data(r.body) == onDisk, "\(name)")
                let type = r.headers["content-type"] ?? ""
                #expect(name.hasSuffix(".js") ? type.hasPrefix("text/javascript") : name.hasSuffix(".css") ? type.hasPrefix("text/css") : type.hasPrefix("text/html"))
            }
        }
    }

    @Test func browsesDatabasesCollectionsAndPagesByCursor() throws {
        let state = EmulatorState()
        try Self.seed(state, count: 120)
        try withConsole(state) { c, emulator, _ in
            let dbs = try #require(c.request("GET", "/api/databases")?.json)
            #expect(dbs["projects"]?.arrayValue?.first?["project"] == .string("p"))
            #expect(dbs["projects"]?.arrayValue?.first?["databases"]?.arrayValue?.first?["documents"] == .int(122))
            #expect(c.request("GET", "/api/collections?database=\(Self.dbParam)")?.json?["collections"] == .array([.string("items"), .string("zoo")]))
            #expect(c.request("GET", "/api/collections?database=\(Self.dbParam)&parent=items/i001")?.json?["collections"] == .array([.string("notes")]))
            let info = try #require(c.request("GET", "/api/info")?.json)
            #expect(info["emulator"] == .string(emulator.address))
            #expect(info["history"]?["limitBytes"] == .int(VersionHistoryBudget.defaultLimit) && info["openStreams"] == .int(0))

            let first = try #require(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items&pageSize=50&count=true")?.json)
            #expect(Self.ids(first) == (0..<50).map { String(format: "i%03d", $0) })
            #expect(first["count"] == .int(120) && first["hasPrevious"] == .bool(false) && first["hasNext"] == .bool(true))
            #expect(first["documents"]?.arrayValue?.first?["fields"]?["n"] == .object([("integerValue", .string("0"))]))
            let second = try #require(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items&pageSize=50&after=i049")?.json)
            #expect(Self.ids(second).first == "i050" && second["hasPrevious"] == .bool(true) && second["count"] == nil)
            let last = try #require(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items&pageSize=50&after=i099")?.json)
            #expect(Self.ids(last).count == 20 && last["hasNext"] == .bool(false))
            let back = try #require(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items&pageSize=50&before=i050")?.json)
            #expect(Self.ids(back) == Self.ids(first) && back["hasPrevious"] == .bool(false) && back["hasNext"] == .bool(true))
            let middle = try #require(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items&pageSize=3&before=i060")?.json)
            #expect(Self.ids(middle) == ["i057", "i058", "i059"] && middle["hasPrevious"] == .bool(true))
            let jump = try #require(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items&pageSize=2&from=i118")?.json)
            #expect(Self.ids(jump) == ["i118", "i119"] && jump["hasNext"] == .bool(false) && jump["hasPrevious"] == .bool(true))

            let doc = try #require(c.request("GET", "/api/document?database=\(Self.dbParam)&path=items/i001")?.json)
            #expect(doc["document"]?["path"] == .string("items/i001"))
            #expect(doc["collections"] == .array([.string("notes")]))
            #expect(c.request("GET", "/api/document?database=\(Self.dbParam)&path=items/missing")?.json?["document"] == .null)

            // Bad input names what is wrong.
            let bad = try #require(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items/i001"))
            #expect(bad.status == 400 && bad.json?["error"]?["message"]?.stringValue?.contains("collection must be a collection path") == true)
            #expect(c.request("GET", "/api/documents?collection=items")?.json?["error"]?["message"]?.stringValue?.contains("database parameter") == true)
            #expect(c.request("GET", "/api/documents?database=nope&collection=items")?.status == 400)
            #expect(c.request("GET", "/api/documents?database=\(Self.dbParam)&collection=items&after=a&before=b")?.status == 400)
        }
    }

    @Test func editsDocumentsAndFieldsThroughTheService() throws {
        try withConsole { c, _, state in
            let db = state.database(DatabaseID(project: "p"))
            // Without the console's header, nothing changes (no cross-site writes).
            let refused = c.request("PUT", "/api/document?database=\(Self.dbParam)&path=a/1", body: #"{"fields": {}}"#)
            #expect(refused?.status == 403 && db.state().documentCount == 0)

            let set = c.request("PUT", "/api/document?database=\(Self.dbParam)&path=a/1", body: """
                {"fields": {"big": {"integerValue": "9007199254740993"}, "d": {"doubleValue": 1},
                            "m": {"mapValue": {"fields": {"x": {"booleanValue": true}, "y": {"nullValue": null}}}}}}
                """, headers: Self.write)
            #expect(set?.status == 200)
            let stored = try #require(db.document(ResourcePath(segments: ["a", "1"])))
            #expect(stored.fields.value(at: FieldPath(["big"])) == .integer(9_007_199_254_740_993))
            #expect(stored.fields.value(at: FieldPath(["d"])) == .double(1))

            // PATCH with a mask: m.x is replaced, m.y (masked, absent) deleted, the rest kept.
            let patch = c.request("PATCH", "/api/document?database=\(Self.dbParam)&path=a/1", body: """
                {"fields": {"m": {"mapValue": {"fields": {"x": {"stringValue": "now a string"}}}}}, "mask": [["m", "x"], ["m", "y"]]}
                """, headers: Self.write)
            #expect(patch?.status == 200)
            let patched = try #require(db.document(ResourcePath(segments: ["a", "1"])))
            #expect(patched.fields.value(at: FieldPath(["m", "x"])) == .string("now a string"))
            #expect(patched.fields.value(at: FieldPath(["m", "y"])) == nil)
            #expect(patched.fields.value(at: FieldPath(["big"])) == .integer(9_007_199_254_740_993))
            // A field path with a dot in a segment is one segment.
            #expect(c.request("PATCH", "/api/document?database=\(Self.dbParam)&path=a/1", body: #"{"fields": {"a.b": {"integerValue": "1"}}, "mask": [["a.b"]]}"#,
                              headers: Self.write)?.status == 200)
            #expect(db.document(ResourcePath(segments: ["a", "1"]))?.fields.value(at: FieldPath(["a.b"])) == .integer(1))
            // PATCH of a missing document: NOT_FOUND, as an update is.
            #expect(c.request("PATCH", "/api/document?database=\(Self.dbParam)&path=a/2", body: #"{"fields": {}, "mask": [["x"]]}"#, headers: Self.write)?.status == 404)
            #expect(c.request("PATCH", "/api/document?database=\(Self.dbParam)&path=a/1", body: #"{"fields": {}, "mask": []}"#, headers: Self.write)?.status == 400)

            // POST adds with a random id; DELETE removes one document.
            let added = try #require(c.request("POST", "/api/document?database=\(Self.dbParam)&collection=a", body: #"{"fields": {"k": {"stringValue": "v"}}}"#, headers: Self.write)?.json)
            let newPath = try #require(added["document"]?["path"]?.stringValue)
            #expect(newPath.hasPrefix("a/") && newPath.count == 22)
            #expect(c.request("DELETE", "/api/document?database=\(Self.dbParam)&path=\(newPath)", headers: Self.write)?.status == 200)
            #expect(db.state().documentCount == 1)
            // A value the engine refuses comes back with its message.
            let invalid = c.request("PUT", "/api/document?database=\(Self.dbParam)&path=a/3", body: #"{"fields": {"t": {"timestampValue": "yesterday"}}}"#, headers: Self.write)
            #expect(invalid?.status == 400)

            // The emulator endpoints on the console's origin: clear a subtree, the clock.
            #expect(c.request("DELETE", "/emulator/v1/projects/p/databases/(default)/documents/a", headers: Self.write)?.status == 200)
            #expect(db.state().documentCount == 0)
            #expect(c.request("GET", "/emulator/v1/clock")?.json?["manual"] == .bool(false))
        }
    }

    @Test func queriesReportTheCompositeIndexProductionWouldNeed() throws {
        let state = EmulatorState(indexMode: .enforce)
        try Self.seed(state, count: 10)
        try withConsole(state) { c, _, _ in
            let needsIndex = """
                {"parent": "", "structuredQuery": {"from": [{"collectionId": "items"}],
                 "where": {"fieldFilter": {"field": {"fieldPath": "tag"}, "op": "EQUAL", "value": {"stringValue": "even"}}},
                 "orderBy": [{"field": {"fieldPath": "n"}, "direction": "DESCENDING"}]}}
                """
            let r = try #require(c.request("POST", "/api/query?database=\(Self.dbParam)", body: needsIndex, headers: Self.write)?.json)
            let missing = try #require(r["missingIndexes"]?.arrayValue)
            #expect(missing.count == 1)
            #expect(missing.first?["description"]?.stringValue?.contains("tag ASC, n DESC") == true)
            let file = try #require(r["indexesJSON"]?.stringValue)
            let parsed = try IndexConfiguration(json: Data(file.utf8))
            #expect(parsed.indexes.count == 1 && parsed.indexes.first?.collectionGroup == "items")
            #expect(missing.first?["productionError"]?.stringValue?.contains("The query requires an index") == true)
            // Enforce mode refuses the query itself; the analysis still comes back.
            #expect(r["error"]?["status"] == .string("FAILED_PRECONDITION") && r["documents"] == nil)

            let served = """
                {"structuredQuery": {"from": [{"collectionId": "items"}],
                 "where": {"fieldFilter": {"field": {"fieldPath": "tag"}, "op": "EQUAL", "value": {"stringValue": "odd"}}}, "limit": 3}}
                """
            let ok = try #require(c.request("POST", "/api/query?database=\(Self.dbParam)", body: served, headers: Self.write)?.json)
            #expect(ok["missingIndexes"] == .array([]) && ok["error"] == nil)
            #expect(Self.ids(ok) == ["i001", "i003", "i005"])
            #expect(ok["query"]?.stringValue == #"items, where tag == "odd", limit 3"#)
            // A subcollection under a document parent.
            let sub = try #require(c.request("POST", "/api/query?database=\(Self.dbParam)", body: #"{"parent": "items/i001", "structuredQuery": {"from": [{"collectionId": "notes"}]}}"#,
                                             headers: Self.write)?.json)
            #expect(Self.ids(sub) == ["a"])
            #expect(c.request("POST", "/api/query?database=\(Self.dbParam)", body: #"{"structuredQuery": {"from": [{"collectionId": "items"}], "limit": -1}}"#,
                              headers: Self.write)?.status == 400)
        }
    }

    @Test func requestLogAndStreamsThroughTheAPI() throws {
        try withConsole { c, emulator, state in
            let token = state.requestLog.subscribe { _ in }
            defer { state.requestLog.unsubscribe(token) }
            let e = try RawHTTPClient(port: emulator.port)
            #expect(e.request("PATCH", "\(docs)/a/1", body: "{}")?.status == 200)
            let entries = try #require(c.request("GET", "/api/requests")?.json?["requests"]?.arrayValue)
            #expect(entries.count == 1)
            let entry = entries[0]
            #expect(entry["transport"] == .string("REST") && entry["method"] == .string("PATCH"))
            #expect(entry["caller"] == .object([("kind", .string("unauthenticated"))]))
            #expect(entry["database"] == .string(Self.db) && entry["resources"] == .array([.string("a/1")]))
            #expect(entry["status"] == .string("OK") && entry["httpStatus"] == .int(200) && entry["verdict"] == nil)
            #expect(c.request("GET", "/api/requests?after=\(entry["id"]!.stringValue ?? "1")")?.json?["requests"]?.arrayValue?.isEmpty == true)
            #expect(c.request("GET", "/api/streams")?.json?["streams"] == .array([]))
        }
    }

    /// The Faults panel's calls: every active fault with its counts, and clear-all; the
    /// console's own reads and writes are never faulted, so it works while faults are set.
    @Test func faultsAreListedAndClearedAndNeverHitTheConsole() throws {
        try withConsole { c, emulator, state in
            try state.faults.add(try FaultRule.parse(spec: "error=UNAVAILABLE,always"))
            try state.faults.add(try FaultRule.parse(spec: "project=p,method=Listen,dropAfter=2,times=3"))
            let listed = try #require(c.request("GET", "/api/faults")?.json?["faults"]?.arrayValue)
            #expect(listed.count == 2)
            #expect(listed[1]["method"] == .string("Listen") && listed[1]["remaining"] == .int(3) && listed[1]["fired"] == .int(0))
            #expect(c.request("PUT", "/api/document?database=\(Self.dbParam)&path=f/1", body: #"{"fields":{}}"#, headers: Self.write)?.status == 200)
            #expect(c.request("GET", "/api/document?database=\(Self.dbParam)&path=f/1")?.status == 200)
            #expect(try RawHTTPClient(port: emulator.port).request("GET", "\(docs)/f/1")?.status == 503)
            #expect(c.request("DELETE", "/api/faults")?.status != 200)  // changes need the console's header
            #expect(c.request("DELETE", "/api/faults", headers: Self.write)?.json?["faults"] == .array([]))
            #expect(!state.faults.isArmed)
        }
    }

    @Test func eventsStreamRequestsAndChangesWhileAConsoleListens() throws {
        try withConsole { c, emulator, state in
            #expect(!state.requestLog.isObserved)
            c.send("GET /api/events HTTP/1.1\r\nHost: test\r\n\r\n")
            let head = try #require(c.readHead())
            #expect(head.status == 200 && head.headers["content-type"] == "text/event-stream; charset=utf-8")
            var text = ""
            func read(until needle: String) -> Bool {
                while !text.contains(needle) {
                    guard let chunk = c.readChunk(), !chunk.isEmpty else { return false }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                return true
            }
            #expect(read(until: "event: hello"))
            #expect(state.requestLog.isObserved)
            let e = try RawHTTPClient(port: emulator.port)
            #expect(e.request("PATCH", "\(docs)/live/1", body: #"{"fields": {"v": {"integerValue": "1"}}}"#)?.status == 200)
            #expect(read(until: "event: request"))
            #expect(read(until: #""resources":["live/1"]"#))
            #expect(read(until: "event: databases") || read(until: "event: changes"))
            #expect(e.request("PATCH", "\(docs)/live/2", body: "{}")?.status == 200)
            #expect(read(until: #"{"path":"live/2","kind":"added"}"#))
            #expect(e.request("DELETE", "\(docs)/live/1")?.status == 200)
            #expect(read(until: #"{"path":"live/1","kind":"removed"}"#))
        }
    }

    @Test func theFeedStopsWatchingWhenTheLastConsoleLeaves() throws {
        let state = EmulatorState()
        let feed = ConsoleFeed(state: state)
        let id = try #require(feed.subscribe { _ in true })
        #expect(state.requestLog.isObserved && feed.subscriberCount == 1)
        feed.unsubscribe(id)
        for _ in 0..<200 where state.requestLog.isObserved { usleep(5_000) }
        #expect(!state.requestLog.isObserved)
        // A sink whose client is gone is dropped on the next event.
        let db = state.database(DatabaseID(project: "p"))
        _ = try #require(feed.subscribe { bytes in !String(decoding: bytes, as: UTF8.self).contains("event: changes") })
        try db.commit([.set(ResourcePath(segments: ["a", "1"]), MapValue())])
        for _ in 0..<200 where feed.subscriberCount > 0 { usleep(5_000) }
        #expect(feed.subscriberCount == 0)
        feed.stop()
        #expect(feed.subscribe { _ in true } == nil)
    }

    @Test func changesEventsCollapseToAResetPastTheirLimit() throws {
        let state = EmulatorState()
        let db = state.database(DatabaseID(project: "p"))
        let before = db.state()
        try db.commit((0..<(ConsoleFeed.maxChanges + 1)).map { .set(ResourcePath(segments: ["c", "d\($0)"]), MapValue()) })
        let event = ConsoleFeed.changes(from: before, to: db.state())
        #expect(event["reset"] == .bool(true) && event["changes"] == nil && event["count"] == .int(ConsoleFeed.maxChanges + 1))
        let small = ConsoleFeed.changes(from: db.state(), to: { try! db.commit([.delete(ResourcePath(segments: ["c", "d0"]))]); return db.state() }())
        #expect(small["changes"] == .array([.object([("path", .string("c/d0")), ("kind", .string("removed"))])]))
    }
}
