import Foundation
import Testing
@testable import Hearth

/// Writes through `DocumentReference` / `CollectionReference` (docs/semantics.md#writes, #paths-and-ids, #reads).
@Suite struct DocumentReferenceTests {
    // MARK: setData(merge: true)

    @Test func mergeMergesNestedMapsLeafByLeaf() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["top": 1, "m": ["a": 1, "b": ["c": 1, "d": 1]]])
        try await ref.setData(["m": ["b": ["c": 2, "e": 3]], "new": "x"], merge: true)
        let data = try #require(try await apiData(ref))
        #expect(data["top"] as? Int == 1)
        #expect(data["new"] as? String == "x")
        let m = try #require(data["m"] as? [String: Any])
        #expect(m["a"] as? Int == 1)
        let b = try #require(m["b"] as? [String: Any])
        #expect(b.count == 3)
        #expect(b["c"] as? Int == 2)
        #expect(b["d"] as? Int == 1)
        #expect(b["e"] as? Int == 3)
    }

    @Test func mergeOfAStringMapLiteralMergesItsLeaves() async throws {
        let ref = apiDB().document("c/d")
        let address: [String: String] = ["city": "Oslo", "zip": "0150"]
        try await ref.setData(["address": address])
        try await ref.setData(["address": ["zip": "0151", "street": "Main"] as [String: String]], merge: true)
        let stored = try #require(try await apiData(ref)?["address"] as? [String: Any])
        #expect(stored.count == 3)
        #expect(stored["city"] as? String == "Oslo")
        #expect(stored["zip"] as? String == "0151")
        #expect(stored["street"] as? String == "Main")
    }

    @Test func mergeWithEmptyMapReplacesTheTarget() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["m": ["a": 1, "b": ["c": 1]]])
        try await ref.setData(["m": ["b": [String: Any]()]], merge: true)
        let m = try #require(try await apiData(ref)?["m"] as? [String: Any])
        #expect(m["a"] as? Int == 1)
        #expect((m["b"] as? [String: Any])?.isEmpty == true)
    }

    @Test func mergeDeletesAtDepth() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["top": 1, "m": ["a": 1, "b": ["c": 1, "d": 2]]])
        try await ref.setData(["top": FieldValue.delete(), "m": ["b": ["c": FieldValue.delete()]]], merge: true)
        let data = try #require(try await apiData(ref))
        #expect(data["top"] == nil)
        let m = try #require(data["m"] as? [String: Any])
        #expect(m["a"] as? Int == 1)
        let b = try #require(m["b"] as? [String: Any])
        #expect(b.count == 1)
        #expect(b["d"] as? Int == 2)
    }

    @Test func mergeReplacesNonMapIntermediatesAndCreatesMissingDocuments() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        try await ref.setData(["x": 5])
        try await ref.setData(["x": ["y": 1]], merge: true)
        #expect((try await apiData(ref)?["x"] as? [String: Any])?["y"] as? Int == 1)

        let fresh = db.document("c/new")
        try await fresh.setData(["a": ["b": 1], "gone": FieldValue.delete()], merge: true)
        let data = try #require(try await apiData(fresh))
        #expect(data.count == 1)
        #expect((data["a"] as? [String: Any])?["b"] as? Int == 1)
    }

    @Test func mergeFalseReplaces() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 1])
        try await ref.setData(["b": 2], merge: false)
        let data = try #require(try await apiData(ref))
        #expect(data.count == 1)
        #expect(data["b"] as? Int == 2)
    }

    // MARK: setData(mergeFields:)

    @Test func mergeFieldsWritesOnlyTheListedPaths() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 0, "b": 0, "m": ["x": 0, "y": 0, "z": 0]])
        try await ref.setData(["a": 1, "b": 1, "m": ["x": 1, "y": 1]], mergeFields: ["a", "m.x"])
        let data = try #require(try await apiData(ref))
        #expect(data["a"] as? Int == 1)
        #expect(data["b"] as? Int == 0)
        let m = try #require(data["m"] as? [String: Any])
        #expect(m["x"] as? Int == 1)
        #expect(m["y"] as? Int == 0)
        #expect(m["z"] as? Int == 0)
    }

    @Test func mergeFieldsAcceptsFieldPaths() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["keep": true])
        try await ref.setData(["x.y": 3, "other": 4, "m": ["k": 5]], mergeFields: [FieldPath(["x.y"]), FieldPath(["m", "k"])])
        let data = try #require(try await apiData(ref))
        #expect(data.count == 3)
        #expect(data["x.y"] as? Int == 3)
        #expect(data["keep"] as? Bool == true)
        #expect((data["m"] as? [String: Any])?["k"] as? Int == 5)
        #expect(data["other"] == nil)
    }

    @Test func mergeFieldsListedMapPathReplacesTheWholeMap() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["m": ["x": 0, "y": 0], "n": 0])
        try await ref.setData(["m": ["x": 5], "n": 9], mergeFields: ["m"])
        let data = try #require(try await apiData(ref))
        let m = try #require(data["m"] as? [String: Any])
        #expect(m.count == 1)
        #expect(m["x"] as? Int == 5)
        #expect(data["n"] as? Int == 0)
    }

    @Test func mergeFieldsDropsTransformsOutsideTheList() async throws {
        let (db, _) = apiClockedDB()
        let ref = db.document("c/d")
        try await ref.setData(["count": 1, "tags": ["a"], "m": ["old": true]])
        try await ref.setData([
            "a": 1,
            "t": FieldValue.serverTimestamp(),
            "count": FieldValue.increment(Int64(100)),
            "tags": FieldValue.arrayUnion(["b"]),
            "m": ["t": FieldValue.serverTimestamp(), "x": 1],
        ], mergeFields: ["a", "m"])
        let data = try #require(try await apiData(ref))
        #expect(data.count == 4)
        #expect(data["a"] as? Int == 1)
        #expect(data["count"] as? Int == 1)
        #expect(data["tags"] as? [String] == ["a"])
        #expect(data["t"] == nil)
        let m = try #require(data["m"] as? [String: Any])
        #expect(m.count == 2)
        #expect(m["x"] as? Int == 1)
        #expect(m["t"] as? Timestamp == apiTime(apiEpochSeconds, 1000))
    }

    @Test func mergeFieldsCanDeleteListedPaths() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 1, "b": 2])
        try await ref.setData(["a": FieldValue.delete(), "b": FieldValue.delete()], mergeFields: ["a"])
        let data = try #require(try await apiData(ref))
        #expect(data["a"] == nil)
        #expect(data["b"] as? Int == 2)
    }

    @Test func mergeFieldsCreatesMissingDocument() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 1, "b": 2], mergeFields: ["b"])
        let data = try #require(try await apiData(ref))
        #expect(data.count == 1)
        #expect(data["b"] as? Int == 2)
    }

    // MARK: updateData

    @Test func updateWithDottedPathsSetsNestedFields() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": ["c": 2], "x": 1])
        try await ref.updateData(["a.b": 1, "new.deep.field": true])
        let data = try #require(try await apiData(ref))
        let a = try #require(data["a"] as? [String: Any])
        #expect(a["b"] as? Int == 1)
        #expect(a["c"] as? Int == 2)
        #expect(data["x"] as? Int == 1)
        #expect(((data["new"] as? [String: Any])?["deep"] as? [String: Any])?["field"] as? Bool == true)
        #expect(data["a.b"] == nil)
    }

    @Test func updateWithFieldPathAddressesNamesContainingDots() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a.b": 1, "a": ["b": 2]])
        try await ref.updateData([FieldPath(["a.b"]): 10, FieldPath(["a", "c"]): 20])
        let data = try #require(try await apiData(ref))
        #expect(data["a.b"] as? Int == 10)
        let a = try #require(data["a"] as? [String: Any])
        #expect(a["b"] as? Int == 2)
        #expect(a["c"] as? Int == 20)
    }

    @Test func updateMapValueReplacesTheMap() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": ["b": 1, "c": 2]])
        try await ref.updateData(["a": ["d": 3]])
        let a = try #require(try await apiData(ref)?["a"] as? [String: Any])
        #expect(a.count == 1)
        #expect(a["d"] as? Int == 3)
    }

    @Test func updateReplacesNonMapIntermediates() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 5])
        try await ref.updateData(["a.b": 1])
        #expect((try await apiData(ref)?["a"] as? [String: Any])?["b"] as? Int == 1)
    }

    @Test func updateDeletesTopLevelAndNestedPaths() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": 1, "m": ["x": 1, "y": 2], "keep": true])
        try await ref.updateData(["a": FieldValue.delete(), "m.x": FieldValue.delete(), "missing.path": FieldValue.delete()])
        let data = try #require(try await apiData(ref))
        #expect(data["a"] == nil)
        #expect(data["missing"] == nil)
        #expect(data["keep"] as? Bool == true)
        let m = try #require(data["m"] as? [String: Any])
        #expect(m.count == 1)
        #expect(m["y"] as? Int == 2)
    }

    @Test func updateOfMissingDocumentFailsWithNotFound() async throws {
        let db = apiDB()
        let ref = db.collection("users").document("nobody")
        let error = try #require(await apiError { try await ref.updateData(["a": 1]) })
        #expect(error.domain == FirestoreErrorDomain)
        #expect(error.code == FirestoreErrorCode.notFound.rawValue)
        #expect(error.localizedDescription == "No document to update: \(apiDocumentsPrefix)users/nobody")
        #expect(try await ref.getDocument().exists == false)
    }

    @Test func emptyUpdateChecksExistence() async throws {
        let db = apiDB()
        let missing = db.document("c/missing")
        let error = await apiError { try await missing.updateData([:]) }
        #expect(error?.code == FirestoreErrorCode.notFound.rawValue)
        #expect(error?.localizedDescription == "No document to update: \(apiDocumentsPrefix)c/missing")
        #expect(try await missing.getDocument().exists == false)

        let present = db.document("c/present")
        try await present.setData(["a": 1])
        try await present.updateData([:])
        #expect(try await apiData(present)?["a"] as? Int == 1)
    }

    @Test func updateOfNestedDocumentMessageNamesFullPath() async throws {
        let ref = apiDB().collection("a").document("b/c/d")
        let error = await apiError { try await ref.updateData(["x": 1]) }
        #expect(error?.localizedDescription == "No document to update: \(apiDocumentsPrefix)a/b/c/d")
    }

    // MARK: delete

    @Test func deleteRemovesTheDocumentAndMissingIsFine() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        try await ref.setData(["a": 1])
        try await ref.delete()
        #expect(try await ref.getDocument().exists == false)
        try await ref.delete()
        try await db.document("c/never").delete()
        let never = try await db.document("c/never").getDocument()
        #expect(never.exists == false)
        // A missing document's snapshot still names it.
        #expect(never.documentID == "never" && never.reference.path == "c/never" && never.data() == nil)
    }

    @Test func deleteKeepsSubcollections() async throws {
        let db = apiDB()
        let parent = db.document("c/d")
        let child = parent.collection("sub").document("x")
        try await parent.setData(["a": 1])
        try await child.setData(["b": 2])
        try await parent.delete()
        #expect(try await parent.getDocument().exists == false)
        #expect(try await apiData(child)?["b"] as? Int == 2)
    }

    // MARK: addDocument

    @Test func addDocumentCreatesATwentyCharacterAlphanumericID() async throws {
        let db = apiDB()
        let posts = db.collection("posts")
        let ref = try await posts.addDocument(data: ["title": "Hi"])
        #expect(ref.documentID.count == 20)
        #expect(ref.documentID.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        #expect(ref.parent == posts)
        #expect(ref.path == "posts/\(ref.documentID)")
        #expect(try await apiData(ref)?["title"] as? String == "Hi")
    }

    @Test func addDocumentWithoutWaitingIsReadableAtOnce() async throws {
        let db = apiDB()
        let posts = db.collection("posts")
        let ref = Self.fireAndForgetAdd(posts, ["n": 1])
        let snap = try await ref.getDocument()
        #expect(snap.exists)
        #expect(snap.data()?["n"] as? Int == 1)
    }

    private static func fireAndForgetAdd(_ collection: CollectionReference, _ data: [String: Any]) -> DocumentReference {
        collection.addDocument(data: data)
    }

    @Test func autoIDsAreDistinct() {
        let collection = apiDB().collection("c")
        let ids = (0..<500).map { _ in collection.document().documentID }
        #expect(Set(ids).count == 500)
        #expect(ids.allSatisfy { $0.count == 20 && $0.utf8.allSatisfy { b in (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) } })
    }

    // MARK: Fire-and-forget forms

    @Test func fireAndForgetWritesApplyBeforeReturning() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        Self.syncWrites(ref)
        let data = try #require(try await apiData(ref))
        #expect(data["a"] as? Int == 1)
        #expect(data["b"] as? Int == 2)
        #expect(data["c"] as? Int == 3)
        #expect((data["m"] as? [String: Any])?["k"] as? Int == 4)
        #expect(data["dropped"] == nil)
        Self.syncDelete(ref)
        #expect(try await ref.getDocument().exists == false)
    }

    private static func syncWrites(_ ref: DocumentReference) {
        ref.setData(["a": 1])
        ref.setData(["b": 2], merge: true)
        ref.setData(["c": 3, "dropped": 0], mergeFields: ["c"])
        ref.updateData(["m.k": 4])
    }

    private static func syncDelete(_ ref: DocumentReference) {
        ref.delete()
    }
}
