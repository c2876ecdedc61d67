import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthServer

@Suite struct FirebaseConfigTests {
    private func parse(_ text: String) throws(FirestoreError) -> FirebaseConfig {
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw .invalidArgument("bad test JSON") }
        return try FirebaseConfig.parse(json, file: "/proj/firebase.json")
    }

    @Test func singleAndListForms() throws {
        let single = try parse(#"{"firestore": {"rules": "firestore.rules", "indexes": "idx.json"}, "emulators": {"firestore": {"host": "0.0.0.0", "port": 9090}, "ui": {"port": 4000}}, "hosting": {}}"#)
        #expect(single == FirebaseConfig(databases: [.init(database: "(default)", rules: "/proj/firestore.rules", indexes: "/proj/idx.json")],
                                         isListForm: false, host: "0.0.0.0", port: 9090))
        let list = try parse(#"{"firestore": [{"database": "(default)", "rules": "a.rules"}, {"database": "other", "rules": "/abs/b.rules", "location": "eur3"}]}"#)
        #expect(list.isListForm)
        #expect(list.databases.map(\.database) == ["(default)", "other"])
        #expect(list.databases.map(\.rules) == ["/proj/a.rules", "/abs/b.rules"])
    }

    @Test func errorsNameTheFileAndMember() {
        func message(_ text: String) -> String? {
            do { _ = try parse(text); return nil } catch { return error.message }
        }
        #expect(message(#"{"firestore": [{"rules": "a.rules"}]}"#) == "/proj/firebase.json: firestore[0] needs \"database\" (the list form names each database)")
        #expect(message(#"{"firestore": {"rules": 3}}"#) == "/proj/firebase.json: firestore.rules must be a string")
        #expect(message(#"{"emulators": {"firestore": {"port": 70000}}}"#) == "/proj/firebase.json: emulators.firestore.port must be 0…65535, got 70000")
        #expect(message(#"{"firestore": [{"database": "x"}, {"database": "x"}]}"#) == "/proj/firebase.json: firestore[1] repeats database x")
        #expect(throws: FirestoreError.self) { try FirebaseConfig.load("/nonexistent/firebase.json") }
    }

    @Test func perDatabaseRulesApplyToTheirDatabaseOnly() throws {
        let state = EmulatorState()
        let denyAll = try ProjectRules(.init(name: "deny.rules", content: "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /{d=**} { allow read, write: if false; } } }"))
        state.rules.set(denyAll, forDatabase: DatabaseID(project: "p", database: "locked"))
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let open = c.request("PATCH", "/v1/projects/p/databases/(default)/documents/c/d", body: "{}")
        let locked = c.request("PATCH", "/v1/projects/p/databases/locked/documents/c/d", body: "{}")
        #expect(open?.status == 200)
        #expect(locked?.status == 403)
    }
}
