import AppCore
import FirebaseFirestore  // firebase-ios-sdk's module: the app's own
import Foundation
import HearthServer
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's tests with Hearth's server in their own process. The real SDK cannot run on
/// Linux, so these talk to the emulator over loopback with URLSession (REST), as the SDK
/// would over gRPC on a Mac once `settings.host` points at it.
final class EmulatorInProcessTests: XCTestCase {
    static let project = "demo-app"
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /goals/{id} {
              allow read: if true;
              allow write: if request.auth != null && request.resource.data.owner == request.auth.uid;
            }
          }
        }
        """
    static let seed = #"{"goals/seeded": {"title": "Seeded", "owner": "alice"}}"#

    /// One emulator for the whole test process, started once (in milliseconds).
    nonisolated(unsafe) static var emulator: EmbeddedEmulator!
    nonisolated(unsafe) static var startFailure: String?

    override class func setUp() {
        super.setUp()
        do {
            emulator = try EmbeddedEmulator(.init(projects: [.init(project, rules: .contents(rules), seed: .contents(seed))]))
        } catch {
            startFailure = error.message  // each test reports it
        }
    }

    override class func tearDown() {
        emulator?.stop()
        super.tearDown()
    }

    /// Every test starts from the seed: O(1), whatever the previous test wrote.
    override func setUp() async throws {
        let emulator = try XCTUnwrap(Self.emulator, "the emulator did not start: \(Self.startFailure ?? "?")")
        emulator.reset()
    }

    var documents: String { "http://\(Self.emulator.address)/v1/projects/\(Self.project)/databases/(default)/documents" }

    /// An unsigned emulator ID token for `uid` (the emulator takes `alg: none`, as the SDK's
    /// emulator mode sends it).
    func token(_ uid: String) -> String {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        return b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(#"{"sub":"\#(uid)","user_id":"\#(uid)","aud":"\#(Self.project)","iss":"https://securetoken.google.com/\#(Self.project)","iat":0,"exp":9999999999,"auth_time":0}"#) + "."
    }

    func send(_ method: String, _ path: String, json: String? = nil, as uid: String? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: "\(documents)/\(path)")!)
        request.httpMethod = method
        if let json { request.httpBody = Data(json.utf8); request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let uid { request.setValue("Bearer \(token(uid))", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as! HTTPURLResponse).statusCode, body)
    }

    func testTheSDKIsPointedAtTheInProcessEmulator() {
        let db = Firestore.firestore()
        FirestoreSetup.useEmulator(db, at: Self.emulator.address)
        XCTAssertEqual(db.settings.host, "127.0.0.1:\(Self.emulator.port)")
        XCTAssertFalse(db.settings.isSSLEnabled)
    }

    func testSignedInOwnerWritesAndEveryoneReads() async throws {
        let goal = #"{"fields": {"title": {"stringValue": "Run"}, "owner": {"stringValue": "alice"}}}"#
        let (written, _) = try await send("PATCH", "goals/run", json: goal, as: "alice")
        XCTAssertEqual(written, 200)
        let (read, body) = try await send("GET", "goals/run")
        XCTAssertEqual(read, 200)
        XCTAssertEqual(((body["fields"] as? [String: Any])?["title"] as? [String: Any])?["stringValue"] as? String, "Run")
    }

    func testTheRulesDenyAWriteForSomeoneElse() async throws {
        let goal = #"{"fields": {"title": {"stringValue": "Run"}, "owner": {"stringValue": "alice"}}}"#
        let (asBob, body) = try await send("PATCH", "goals/run", json: goal, as: "bob")
        XCTAssertEqual(asBob, 403)
        XCTAssertEqual((body["error"] as? [String: Any])?["status"] as? String, "PERMISSION_DENIED")
        let (signedOut, _) = try await send("PATCH", "goals/run", json: goal)
        XCTAssertEqual(signedOut, 403)
    }

    func testResetBringsBackTheSeed() async throws {
        let (deleted, _) = try await send("DELETE", "goals/seeded", as: "alice")
        XCTAssertEqual(deleted, 403)  // a delete has no request.resource: the rule refuses it
        let goal = #"{"fields": {"title": {"stringValue": "Temp"}, "owner": {"stringValue": "alice"}}}"#
        _ = try await send("PATCH", "goals/temp", json: goal, as: "alice")
        Self.emulator.reset()
        let (gone, _) = try await send("GET", "goals/temp")
        XCTAssertEqual(gone, 404)
        let (seeded, _) = try await send("GET", "goals/seeded")
        XCTAssertEqual(seeded, 200)
    }
}
