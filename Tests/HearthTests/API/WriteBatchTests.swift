import Foundation
import Testing
@testable import Hearth

/// `WriteBatch`: atomic, in-order commits (docs/semantics.md#batches).
@Suite struct WriteBatchTests {
    @Test func commitAppliesEveryWrite() async throws {
        let db = apiDB()
        let a = db.document("c/a"), b = db.document("c/b"), c = db.document("c/c"), d = db.document("c/d")
        try await b.setData(["x": 1, "y": 1])
        try await c.setData(["gone": true])
        try await d.setData(["x": 1, "y": 1])
        let batch = db.batch()
        batch.setData(["new": true], forDocument: a)
        batch.updateData(["x": 2], forDocument: b)
        batch.deleteDocument(c)
        batch.setData(["y": 2, "z": 3], forDocument: d, merge: true)
        try await batch.commit()
        #expect(try await apiData(a)?["new"] as? Bool == true)
        let bData = try #require(try await apiData(b))
        #expect(bData["x"] as? Int == 2)
        #expect(bData["y"] as? Int == 1)
        #expect(try await c.getDocument().exists == false)
        let dData = try #require(try await apiData(d))
        #expect(dData.count == 3)
        #expect(dData["x"] as? Int == 1)
        #expect(dData["y"] as? Int == 2)
        #expect(dData["z"] as? Int == 3)
    }

    @Test func failedCommitAppliesNothing() async throws {
        let db = apiDB()
        let a = db.document("c/a"), b = db.document("c/b"), c = db.document("c/c")
        try await c.setData(["v": 1])
        let batch = db.batch()
            .setData(["v": 1], forDocument: a)
            .deleteDocument(c)
            .updateData(["v": 2], forDocument: b)
        let error = try #require(await apiError { try await batch.commit() })
        #expect(error.domain == FirestoreErrorDomain)
        #expect(error.code == FirestoreErrorCode.notFound.rawValue)
        #expect(error.localizedDescription == "No document to update: \(apiDocumentsPrefix)c/b")
        #expect(try await a.getDocument().exists == false)
        #expect(try await b.getDocument().exists == false)
        #expect(try await apiData(c)?["v"] as? Int == 1)
    }

    @Test func writesToOneDocumentApplyInOrder() async throws {
        let (db, clock) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["old": true])
        clock.advance(by: 3)
        try await db.batch()
            .deleteDocument(ref)
            .setData(["a": 1, "b": 1, "when": "when"], forDocument: ref)
            .updateData(["b": 2, "when": FieldValue.serverTimestamp()], forDocument: ref)
            .commit()
        let data = try #require(try await apiData(ref))
        #expect(data.count == 3)
        #expect(data["a"] as? Int == 1)
        #expect(data["b"] as? Int == 2)
        #expect(data["when"] as? Timestamp == apiTime(apiEpochSeconds + 3))
    }

    @Test func emptyBatchCommits() async throws {
        let db = apiDB()
        try await db.batch().commit()
        #expect(try await db.collection("c").getDocuments().isEmpty)
    }

    @Test func mergeFieldsInABatch() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        try await ref.setData(["a": 0, "b": 0])
        try await db.batch().setData(["a": 1, "b": 1], forDocument: ref, mergeFields: ["b"]).commit()
        let data = try #require(try await apiData(ref))
        #expect(data["a"] as? Int == 0)
        #expect(data["b"] as? Int == 1)
    }

    @Test func updateAfterDeleteInOneBatchIsInvalid() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        try await ref.setData(["a": 1])
        let error = await apiError { try await db.batch().deleteDocument(ref).updateData(["a": 2], forDocument: ref).commit() }
        #expect(error?.domain == FirestoreErrorDomain)
        #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(try await apiData(ref)?["a"] as? Int == 1)
    }

    @Test func sizeLimitIsCheckedOnTheFinalDocument() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        let big = String(repeating: "x", count: 1_000_000)
        try await db.batch()
            .setData(["big": big], forDocument: ref)
            .updateData(["big": "small"], forDocument: ref)
            .setData(["more": big], forDocument: ref, merge: true)
            .commit()
        let data = try #require(try await apiData(ref))
        #expect(data["big"] as? String == "small")
        #expect((data["more"] as? String)?.count == 1_000_000)
    }

    @Test func fireAndForgetCommitAppliesBeforeReturning() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        Self.commitWithoutWaiting(db.batch().setData(["a": 1], forDocument: ref))
        #expect(try await apiData(ref)?["a"] as? Int == 1)
    }

    private static func commitWithoutWaiting(_ batch: WriteBatch) {
        batch.commit()
    }
}
