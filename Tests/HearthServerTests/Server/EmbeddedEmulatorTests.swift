import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthServer
@testable import HearthTransport

/// The embedding API a test process uses (docs/ios-app-tests.md): options applied at
/// start, two emulators side by side, reset / snapshot / restore under a connected client
/// and an open Listen stream, and start-up errors that name what is wrong. Threads and
/// descriptors after stop: EmbeddedEmulatorLeakTests.
@Suite struct EmbeddedEmulatorTests {
    static let project = "grpc-test"  // ListenRPCTests' helpers address this project
    static let docs = "/v1/projects/\(project)/databases/(default)/documents"
    static let seed = #"{"users/ada": {"name": "Ada", "age": 36}, "users/bob": {"name": "Bob", "age": 25}}"#

    static func start(_ more: (inout EmbeddedEmulatorOptions) -> Void = { _ in }) throws -> EmbeddedEmulator {
        var options = EmbeddedEmulatorOptions(projects: [.init(project, seed: .contents(seed))])
        more(&options)
        return try EmbeddedEmulator(options)
    }

    static func patch(_ c: RawHTTPClient, _ path: String, _ value: Int) -> Int? {
        c.request("PATCH", "\(docs)/\(path)", body: #"{"fields": {"n": {"integerValue": "\#(value)"}}}"#)?.status
    }

    @Test func startsOnAFreeLoopbackPortWithTheOptionsApplied() throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{db}/documents {
                match /users/{id} { allow read: if true; allow write: if request.auth != null; }
              }
            }
            """
        let indexes = #"{"indexes": [{"collectionGroup": "users", "queryScope": "COLLECTION", "fields": [{"fieldPath": "age", "order": "ASCENDING"}, {"fieldPath": "name", "order": "DESCENDING"}]}]}"#
        let emulator = try Self.start { $0.projects = [.init(Self.project, rules: .contents(rules), indexes: .contents(indexes), seed: .contents(Self.seed)), .init("other")] }
        defer { emulator.stop() }
        #expect(emulator.port > 0 && emulator.host == "127.0.0.1")
        #expect(emulator.address == "127.0.0.1:\(emulator.port)")
        #expect(emulator.projectID == Self.project)
        let c = try RawHTTPClient(port: emulator.port)
        // The seed is there; an unauthenticated write is denied by the rules; the owner's is not.
        #expect(c.request("GET", "\(Self.docs)/users/ada")?.json?["fields"]?["name"] == .object([("stringValue", .string("Ada"))]))
        let body = #"{"fields": {"n": {"integerValue": "1"}}}"#
        #expect(c.request("PATCH", "\(Self.docs)/users/eve", body: body)?.status == 403)
        #expect(c.request("PATCH", "\(Self.docs)/users/eve", body: body, headers: ["Authorization": "Bearer owner"])?.status == 200)
        // Declared indexes are enforced for their project: a query needing another composite
        // index fails there, and runs in the project that declared none.
        let query = #"{"structuredQuery": {"from": [{"collectionId": "users"}], "where": {"compositeFilter": {"op": "AND", "filters": [{"fieldFilter": {"field": {"fieldPath": "name"}, "op": "EQUAL", "value": {"stringValue": "Ada"}}}, {"fieldFilter": {"field": {"fieldPath": "age"}, "op": "GREATER_THAN", "value": {"integerValue": "0"}}}]}}}}"#
        #expect(c.request("POST", "\(Self.docs):runQuery", body: query)?.status == 400)
        #expect(c.request("POST", "/v1/projects/other/databases/(default)/documents:runQuery", body: query)?.status == 200)
    }

    @Test func twoEmulatorsAtOnceKeepTheirOwnData() throws {
        let a = try Self.start(), b = try Self.start()
        defer { a.stop(); b.stop() }
        #expect(a.port != b.port)
        let ca = try RawHTTPClient(port: a.port), cb = try RawHTTPClient(port: b.port)
        #expect(Self.patch(ca, "notes/only-in-a", 1) == 200)
        #expect(ca.request("GET", "\(Self.docs)/notes/only-in-a")?.status == 200)
        #expect(cb.request("GET", "\(Self.docs)/notes/only-in-a")?.status == 404)
        a.stop()
        // The other one serves on after the first stopped.
        #expect(cb.request("GET", "\(Self.docs)/users/ada")?.status == 200)
    }

    @Test func resetWhileAClientIsConnectedAndListening() throws {
        let emulator = try Self.start()
        defer { emulator.stop() }
        let c = try RawHTTPClient(port: emulator.port)
        let listen = try GRPCTestStream(port: emulator.port, method: "Listen")
        listen.send(ListenRPCTests.addDocuments(3, [ListenRPCTests.name("users/ada"), ListenRPCTests.name("users/new")]))
        // TARGET_CHANGE ADD, ada's DOCUMENT_CHANGE, CURRENT, the global NO_CHANGE.
        let initial = try listen.next(4).map(ListenRPCTests.Response.decode)
        #expect(initial.contains { if case .change(ListenRPCTests.name("users/ada"), _, _, _) = $0 { true } else { false } })
        #expect(Self.patch(c, "users/new", 7) == 200)
        let added = try listen.next(2).map(ListenRPCTests.Response.decode)
        #expect(added.contains { if case .change(ListenRPCTests.name("users/new"), _, _, _) = $0 { true } else { false } })

        emulator.reset()
        // The listener is told the document went; the same keep-alive connection reads the
        // start-up data.
        let removed = try listen.next(2).map(ListenRPCTests.Response.decode)
        #expect(removed.contains { if case .delete(ListenRPCTests.name("users/new"), _) = $0 { true } else { false } })
        #expect(c.request("GET", "\(Self.docs)/users/new")?.status == 404)
        #expect(c.request("GET", "\(Self.docs)/users/ada")?.status == 200)
        #expect(emulator.server.connectionCount == 2)
        listen.cancel()
    }

    @Test func snapshotAndRestoreCoverEveryDatabase() throws {
        let emulator = try Self.start()
        defer { emulator.stop() }
        let c = try RawHTTPClient(port: emulator.port)
        #expect(Self.patch(c, "notes/kept", 1) == 200)
        let saved = emulator.snapshot()
        #expect(Self.patch(c, "notes/kept", 2) == 200)
        #expect(Self.patch(c, "notes/dropped", 3) == 200)
        // A database first used after the snapshot is emptied by the restore.
        let other = "/v1/projects/later/databases/(default)/documents/x/y"
        #expect(c.request("PATCH", other, body: #"{"fields": {}}"#)?.status == 200)
        emulator.restore(saved)
        #expect(c.request("GET", "\(Self.docs)/notes/kept")?.json?["fields"]?["n"] == .object([("integerValue", .string("1"))]))
        #expect(c.request("GET", "\(Self.docs)/notes/dropped")?.status == 404)
        #expect(c.request("GET", other)?.status == 404)
        // Restoring twice is allowed: the snapshot is a value.
        #expect(Self.patch(c, "notes/dropped", 4) == 200)
        emulator.restore(saved)
        #expect(c.request("GET", "\(Self.docs)/notes/dropped")?.status == 404)
    }

    @Test func resetAfterAnImportAndAFileSeedGoesBackToThem() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let seedFile = dir.appendingPathComponent("documents.json").path
        let importFile = dir.appendingPathComponent("import.json").path
        try Data(Self.seed.utf8).write(to: URL(fileURLWithPath: seedFile))
        try Data(#"{"imported/one": {"n": 1}}"#.utf8).write(to: URL(fileURLWithPath: importFile))
        let emulator = try Self.start { $0.projects = [.init(Self.project, seed: .file(seedFile))]; $0.importPath = importFile }
        defer { emulator.stop() }
        let c = try RawHTTPClient(port: emulator.port)
        _ = c.request("DELETE", "\(Self.docs)/imported/one")
        _ = c.request("DELETE", "\(Self.docs)/users/bob")
        #expect(c.request("GET", "\(Self.docs)/imported/one")?.status == 404)
        emulator.reset()
        #expect(c.request("GET", "\(Self.docs)/imported/one")?.status == 200)
        #expect(c.request("GET", "\(Self.docs)/users/bob")?.status == 200)
    }

    @Test func aDataDirectoryOutlivesTheEmulator() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let first = try Self.start { $0.projects = [.init(Self.project)]; $0.dataDirectory = dir }
            let c = try RawHTTPClient(port: first.port)
            #expect(Self.patch(c, "notes/lasting", 5) == 200)
            first.stop()
        }
        let second = try Self.start { $0.projects = [.init(Self.project)]; $0.dataDirectory = dir }
        defer { second.stop() }
        let c = try RawHTTPClient(port: second.port)
        #expect(c.request("GET", "\(Self.docs)/notes/lasting")?.json?["fields"]?["n"] == .object([("integerValue", .string("5"))]))
    }

    @Test func startUpErrorsNameWhatIsWrong() throws {
        func failure(_ options: EmbeddedEmulatorOptions) -> String {
            do { let e = try EmbeddedEmulator(options); e.stop(); return "started" } catch { return error.message }
        }
        #expect(failure(.init(projects: [])) == "no project configured")
        #expect(failure(.init(projects: [.init("p", rules: .file("/nonexistent/firestore.rules"))])) == "cannot read /nonexistent/firestore.rules")
        let bad = failure(.init(projects: [.init("p", rules: .contents("service cloud.firestore { match"))]))
        #expect(bad.hasPrefix("firestore.rules does not compile:\n"), "\(bad)")
        #expect(failure(.init(projects: [.init("p", seed: .contents(#"{"odd": {}}"#))])).hasPrefix("seed: "))
        #expect(failure(.init(projects: [.init("p", indexes: .contents("[]"))])).hasPrefix("firestore.indexes.json: "))
        let taken = try Self.start()
        defer { taken.stop() }
        #expect(failure(.init(port: taken.port)).hasPrefix("cannot listen on 127.0.0.1:\(taken.port): "))
    }
}
