import Foundation
import Testing
@testable import Hearth

/// Security rules through the embedded API: `setRules`, `authenticated`, `unauthenticated`.
@Suite struct SecurityRulesTests {
    static let rules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /goals/{goalId} {
          allow read: if request.auth != null && resource.data.userId == request.auth.uid;
          allow create: if request.auth != null && request.resource.data.userId == request.auth.uid
                        && request.resource.data.title is string && request.resource.data.title.size() > 0;
          allow update: if request.auth != null && resource.data.userId == request.auth.uid
                        && request.resource.data.userId == resource.data.userId;
          allow delete: if request.auth != null && resource.data.userId == request.auth.uid;
        }
        match /progress/{id} {
          allow read: if true;
          // A progress update must point at a goal that exists once the batch is applied.
          allow create: if request.auth != null && existsAfter(/databases/$(database)/documents/goals/$(request.resource.data.goalId));
        }
        match /admins/{uid} {
          allow read: if request.auth.token.admin == true;
        }
      }
    }
    """

    /// An admin database with the rules set and two goals: alice's and bob's.
    func seeded() async throws -> Firestore {
        let db = Firestore.inMemory()
        try db.setRules(Self.rules)
        try await db.collection("goals").document("a1").setData(["userId": "alice", "title": "Run"])
        try await db.collection("goals").document("b1").setData(["userId": "bob", "title": "Swim"])
        try await db.collection("admins").document("x").setData(["v": 1])
        return db
    }

    func permissionDenied(_ body: () async throws -> Void) async -> NSError? {
        do {
            try await body()
            Issue.record("expected PERMISSION_DENIED")
            return nil
        } catch let error as NSError {
            #expect(error.domain == FirestoreErrorDomain)
            #expect(error.code == FirestoreErrorCode.permissionDenied.rawValue, "\(error)")
            return error
        }
    }

    @Test func readsFollowTheRulesAndTheAdminBypassesThem() async throws {
        let db = try await seeded()
        let alice = db.authenticated(uid: "alice")
        #expect(try await alice.collection("goals").document("a1").getDocument().data()?["title"] as? String == "Run")
        let denied = await permissionDenied { _ = try await alice.collection("goals").document("b1").getDocument() }
        // The message names the request and the allow that was evaluated, with its line.
        #expect(denied?.localizedDescription.contains("get") == true)
        #expect(denied?.localizedDescription.contains("goals/b1") == true)
        #expect(denied?.localizedDescription.contains("5") == true)
        _ = await permissionDenied { _ = try await db.unauthenticated().collection("goals").document("a1").getDocument() }
        #expect(try await db.collection("goals").document("b1").getDocument().exists)
        // Custom claims reach request.auth.token.
        #expect(try await db.authenticated(uid: "carol", token: ["admin": true]).collection("admins").document("x").getDocument().exists)
        _ = await permissionDenied { _ = try await db.authenticated(uid: "carol").collection("admins").document("x").getDocument() }
    }

    @Test func queriesAreProvedNotFiltered() async throws {
        let db = try await seeded()
        let alice = db.authenticated(uid: "alice")
        let mine = try await alice.collection("goals").whereField("userId", isEqualTo: "alice").getDocuments()
        #expect(mine.documents.map(\.documentID) == ["a1"])
        // Rules are not filters: a query that could return bob's goal is refused outright.
        _ = await permissionDenied { _ = try await alice.collection("goals").getDocuments() }
        _ = await permissionDenied { _ = try await alice.collection("goals").whereField("userId", isEqualTo: "bob").getDocuments() }
        #expect(try await alice.collection("goals").whereField("userId", isEqualTo: "alice").count.getAggregation(source: .server).count == 1)
        _ = await permissionDenied { _ = try await alice.collection("goals").count.getAggregation(source: .server) }
    }

    @Test func writesAreCheckedWithTheResultingDocument() async throws {
        let db = try await seeded()
        let alice = db.authenticated(uid: "alice")
        try await alice.collection("goals").document("a2").setData(["userId": "alice", "title": "Read"])
        _ = await permissionDenied { try await alice.collection("goals").document("a3").setData(["userId": "bob", "title": "Read"]) }
        _ = await permissionDenied { try await alice.collection("goals").document("a3").setData(["userId": "alice", "title": ""]) }
        try await alice.collection("goals").document("a1").updateData(["title": "Run far"])
        _ = await permissionDenied { try await alice.collection("goals").document("a1").updateData(["userId": "bob"]) }
        _ = await permissionDenied { try await alice.collection("goals").document("b1").delete() }
        try await alice.collection("goals").document("a2").delete()
        // Nothing denied was written.
        #expect(try await db.collection("goals").document("a3").getDocument().exists == false)
        #expect(try await db.collection("goals").document("a1").getDocument().data()?["userId"] as? String == "alice")
        #expect(try await db.collection("goals").document("b1").getDocument().exists)
    }

    @Test func batchesAreAuthorizedAsAWholeWithGetAfter() async throws {
        let db = try await seeded()
        let alice = db.authenticated(uid: "alice")
        // The progress update is allowed because the goal exists after the batch.
        let ok = alice.batch()
        ok.setData(["userId": "alice", "title": "Cook"], forDocument: alice.collection("goals").document("a4"))
        ok.setData(["goalId": "a4"], forDocument: alice.collection("progress").document("p1"))
        try await ok.commit()
        #expect(try await db.collection("progress").document("p1").getDocument().exists)

        let bad = alice.batch()
        bad.setData(["goalId": "nope"], forDocument: alice.collection("progress").document("p2"))
        bad.setData(["userId": "alice", "title": "Bake"], forDocument: alice.collection("goals").document("a5"))
        _ = await permissionDenied { try await bad.commit() }
        // One denied write refuses the whole batch.
        #expect(try await db.collection("goals").document("a5").getDocument().exists == false)
    }

    @Test func transactionsCheckReadsAndWrites() async throws {
        let db = try await seeded()
        let alice = db.authenticated(uid: "alice")
        let a1 = alice.collection("goals").document("a1")
        _ = try await alice.runTransaction { txn, _ in
            let title = (try? txn.getDocument(a1))?.data()?["title"] as? String ?? ""
            txn.updateData(["title": title + "!"], forDocument: a1)
            return nil
        }
        #expect(try await db.collection("goals").document("a1").getDocument().data()?["title"] as? String == "Run!")
        let b1 = alice.collection("goals").document("b1")
        _ = await permissionDenied {
            _ = try await alice.runTransaction { txn, errorPointer in
                do { _ = try txn.getDocument(b1) } catch let e as NSError { errorPointer?.pointee = e }
                return nil
            }
        }
    }

    @Test func listenersReportADenialOnceAndEnd() async throws {
        let db = try await seeded()
        let alice = db.authenticated(uid: "alice")
        var iterator = alice.collection("goals").document("b1").snapshots.makeAsyncIterator()
        _ = await permissionDenied { _ = try await iterator.next() }
        var allowed = alice.collection("goals").whereField("userId", isEqualTo: "alice").snapshots.makeAsyncIterator()
        #expect(try await allowed.next()?.documents.map(\.documentID) == ["a1"])
    }

    @Test func invalidRulesKeepThePreviousOnesAndSayWhere() async throws {
        let db = try await seeded()
        #expect(throws: RulesCompileError.self) { try db.setRules("service cloud.firestore { match /x { allow read: if } }") }
        do {
            try db.setRules("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{d}/documents {\n    allow read: if 1 +;\n  }\n}")
            Issue.record("expected a compile error")
        } catch let error as RulesCompileError {
            #expect(error.description.contains(":4:"), "\(error)")
        }
        // The earlier rules still apply.
        _ = await permissionDenied { _ = try await db.authenticated(uid: "alice").collection("goals").document("b1").getDocument() }
    }
}
