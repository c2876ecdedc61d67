import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

@Suite struct EmulatorEndpointTests {
    @Test func clearDatabaseAndSubtree() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            for p in ["a/1", "a/1/s/x", "a/2", "b/1"] { _ = c.request("PATCH", "\(docs)/\(p)", body: "{}") }
            _ = c.request("PATCH", "/v1/projects/p/databases/other/documents/a/1", body: "{}")
            #expect(c.request("DELETE", "/emulator/v1/projects/p/databases/(default)/documents/a/1")?.status == 200)
            #expect(c.request("GET", "\(docs)/a/1")?.status == 404)
            #expect(c.request("GET", "\(docs)/a/1/s/x")?.status == 404)
            #expect(c.request("GET", "\(docs)/a/2")?.status == 200)
            #expect(c.request("DELETE", "/emulator/v1/projects/p/databases/%28default%29/documents")?.json == .object([]))
            #expect(c.request("GET", "\(docs)/b/1")?.status == 404)
            #expect(c.request("GET", "/v1/projects/p/databases/other/documents/a/1")?.status == 200)
        }
    }

    @Test func snapshotAndRestore() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            _ = c.request("PATCH", "\(docs)/s/1", body: #"{"fields": {"v": {"integerValue": "1"}}}"#)
            guard let id = c.request("POST", "/emulator/v1/projects/p/databases/(default):snapshot")?.json?["id"]?.stringValue else {
                Issue.record("no snapshot id"); return
            }
            _ = c.request("PATCH", "\(docs)/s/1", body: #"{"fields": {"v": {"integerValue": "2"}}}"#)
            _ = c.request("PATCH", "\(docs)/s/2", body: "{}")
            #expect(c.request("POST", "/emulator/v1/projects/p/databases/(default):restore", body: #"{"id": "\#(id)"}"#)?.status == 200)
            #expect(c.request("GET", "\(docs)/s/1")?.json?["fields"]?["v"] == .object([("integerValue", .string("1"))]))
            #expect(c.request("GET", "\(docs)/s/2")?.status == 404)
            #expect(c.request("POST", "/emulator/v1/projects/p/databases/(default):restore", body: #"{"id": "nope"}"#)?.status == 404)
        }
    }

    @Test func clockDrivesCommitTimesAndServerTimestamps() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let set = c.request("PUT", "/emulator/v1/clock", body: #"{"time": "2030-01-01T00:00:00Z"}"#)
            #expect(set?.json?["now"] == .string("2030-01-01T00:00:00Z"))
            #expect(set?.json?["manual"] == .bool(true))
            #expect(c.request("PUT", "/emulator/v1/clock", body: #"{"advanceSeconds": 60}"#)?.json?["now"] == .string("2030-01-01T00:01:00Z"))
            let commit = c.request("POST", "\(docs):commit", body: """
                {"writes": [{"update": {"name": "projects/p/databases/(default)/documents/t/1"}, "updateTransforms": [{"fieldPath": "at", "setToServerValue": 1}]}]}
                """)
            #expect(commit?.json?["commitTime"] == .string("2030-01-01T00:01:00Z"))
            #expect(c.request("GET", "/emulator/v1/clock")?.json?["now"] == .string("2030-01-01T00:01:00Z"))
            #expect(c.request("PUT", "/emulator/v1/clock", body: #"{"system": true}"#)?.json?["manual"] == .bool(false))
            #expect(c.request("PUT", "/emulator/v1/clock", body: #"{"time": "yesterday"}"#)?.status == 400)
        }
    }

    @Test func learnedIndexes() throws {
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: EmulatorState(indexMode: .learn))
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        _ = c.request("POST", "\(docs):runQuery", body: """
            {"structuredQuery": {"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "a"}, "op": "EQUAL", "value": {"integerValue": "1"}}},
             "orderBy": [{"field": {"fieldPath": "b"}}]}}
            """)
        let learned = c.request("GET", "/emulator/v1/indexes:learned")
        #expect(learned?.status == 200)
        #expect(learned?.json?["indexes"]?.arrayValue?.count == 1)
    }

    @Test func shutdownStopsTheServer() throws {
        let server = try EmulatorServer(host: "127.0.0.1", port: 0)
        let c = try RawHTTPClient(port: server.port)
        #expect(c.request("POST", "/shutdown")?.status == 200)
        for _ in 0..<100 where server.state.registry.all.isEmpty && server.connectionCount > 0 { usleep(10_000) }
        #expect(throws: (any Error).self) { _ = try RawHTTPClient(port: server.port).request("GET", "/") ?? { throw Socket.SystemError(call: "closed", code: 0) }() }
    }
}
