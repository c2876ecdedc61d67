import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthServer
@testable import HearthTransport

/// `:export` / `:import` with the official request bodies, and a server on a data directory.
@Suite struct DataEndpointTests {
    private func scratch() throws -> String {
        let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-endpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func exportThenImportIntoAnotherProject() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            _ = c.request("PATCH", "\(docs)/users/alice", body: #"{"fields": {"age": {"integerValue": "30"}, "tags": {"arrayValue": {}}}}"#)
            _ = c.request("PATCH", "\(docs)/users/alice/pets/rex", body: #"{"fields": {"at": {"timestampValue": "2026-01-01T00:00:00.123456Z"}}}"#)
            let headers = ["Content-Type": "application/json"]
            let export = c.request("POST", "/emulator/v1/projects/p:export", body: """
                {"database": "projects/p/databases/(default)", "export_directory": "\(dir)", "export_name": "firestore_export"}
                """, headers: headers)
            #expect(export?.status == 200)
            #expect(export?.json == .object([]))
            let overall = dir + "/firestore_export/firestore_export.overall_export_metadata"
            #expect(FileManager.default.fileExists(atPath: overall))
            let imported = c.request("POST", "/emulator/v1/projects/q:import", body: """
                {"database": "projects/q/databases/(default)", "export_directory": "\(overall)"}
                """, headers: headers)
            #expect(imported?.status == 200)
            let alice = c.request("GET", "/v1/projects/q/databases/(default)/documents/users/alice")
            #expect(alice?.json?["fields"]?["age"] == .object([("integerValue", .string("30"))]))
            #expect(alice?.json?["fields"]?["tags"] == .object([("arrayValue", .object([]))]))
            let rex = c.request("GET", "/v1/projects/q/databases/(default)/documents/users/alice/pets/rex")
            #expect(rex?.json?["fields"]?["at"] == .object([("timestampValue", .string("2026-01-01T00:00:00.123456Z"))]))
        }
    }

    @Test func errorsNameTheProblem() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let missing = c.request("POST", "/emulator/v1/projects/p:export", body: #"{"database": "projects/p/databases/(default)", "export_directory": "/nonexistent/x"}"#)
            #expect(missing?.status == 400)
            #expect(missing?.json?["error"]?["message"]?.stringValue == "export_directory must be a directory")
            #expect(missing?.json?["error"]?["status"]?.stringValue == "FAILED_PRECONDITION")
            _ = c.request("PATCH", "\(docs)/c/d", body: "{}")
            #expect(c.request("POST", "/emulator/v1/projects/p:export", body: #"{"export_directory": "\#(dir)", "export_name": "e"}"#)?.status == 200)
            // A flipped bit in the data file: refused, nothing imported.
            let data = dir + "/e/all_namespaces/all_kinds/output-0"
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: data)))
            bytes[8] ^= 1
            try Data(bytes).write(to: URL(fileURLWithPath: data))
            let bad = c.request("POST", "/emulator/v1/projects/other:import", body: #"{"export_directory": "\#(dir)/e/e.overall_export_metadata"}"#)
            #expect(bad?.status == 400)
            #expect(bad?.json?["error"]?["message"]?.stringValue == "Checksum doesn't validate: \(data), byte 0.")
            #expect(c.request("GET", "/v1/projects/other/databases/(default)/documents/c/d")?.status == 404)
            let wrong = c.request("POST", "/emulator/v1/projects/p:import", body: #"{"database": "projects/x/databases/(default)", "export_directory": "\#(dir)"}"#)
            #expect(wrong?.status == 400)
        }
    }

    @Test func serverOnADataDirectoryKeepsWhatItAcknowledged() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for round in 0..<2 {
            let store = try DurableStore.open(directory: dir)
            let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: EmulatorState(store: store))
            let c = try RawHTTPClient(port: server.port)
            if round == 0 {
                #expect(c.request("PATCH", "\(docs)/keep/me", body: #"{"fields": {"v": {"stringValue": "kept"}}}"#)?.status == 200)
                #expect(c.request("PATCH", "/v1/projects/p/databases/named/documents/a/b", body: "{}")?.status == 200)
            } else {
                #expect(c.request("GET", "\(docs)/keep/me")?.json?["fields"]?["v"] == .object([("stringValue", .string("kept"))]))
                #expect(c.request("GET", "/v1/projects/p/databases/named/documents/a/b")?.status == 200)
            }
            server.stop()
            store.close()
        }
    }
}
