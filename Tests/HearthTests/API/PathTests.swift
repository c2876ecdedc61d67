import Foundation
import Testing
@testable import Hearth

/// References and their paths (docs/embedded-api.md#references-and-paths; docs/semantics.md#paths-and-ids).
@Suite struct PathTests {
    @Test func collectionAndDocumentProperties() {
        let db = apiDB()
        let users = db.collection("users")
        #expect(users.path == "users")
        #expect(users.collectionID == "users")
        #expect(users.parent == nil)

        let user = users.document("u1")
        #expect(user.path == "users/u1")
        #expect(user.documentID == "u1")
        #expect(user.parent == users)
        #expect(user.parent.path == "users")
        #expect(user.firestore === db)

        let posts = user.collection("posts")
        #expect(posts.path == "users/u1/posts")
        #expect(posts.collectionID == "posts")
        #expect(posts.parent == user)
        #expect(posts.parent?.parent == users)
    }

    @Test func nestedRelativePaths() {
        let db = apiDB()
        let doc = db.collection("a").document("b/c/d")
        #expect(doc.path == "a/b/c/d")
        #expect(doc.documentID == "d")
        #expect(doc.parent.path == "a/b/c")
        #expect(doc.parent.collectionID == "c")
        #expect(doc.parent.parent?.path == "a/b")
        #expect(doc.parent.parent?.documentID == "b")
        #expect(doc == db.document("a/b/c/d"))

        let deep = db.document("a/b").collection("c/d/e")
        #expect(deep.path == "a/b/c/d/e")
        #expect(deep.collectionID == "e")
        #expect(deep.parent?.path == "a/b/c/d")
        #expect(db.collection("a/b/c").parent == db.document("a/b"))
    }

    @Test func leadingAndTrailingSlashesAreIgnored() {
        let db = apiDB()
        #expect(db.document("/users/u1/").path == "users/u1")
        #expect(db.collection("/users/").path == "users")
        #expect(db.collection("users").document("/u1").path == "users/u1")
    }

    @Test func referencesWriteToTheirPaths() async throws {
        let db = apiDB()
        try await db.collection("a").document("b/c/d").setData(["x": 1])
        #expect(try await apiData(db.document("a/b/c/d"))?["x"] as? Int == 1)
        #expect(try await db.document("a/b").getDocument().exists == false)
        let inC = try await db.collection("a/b/c").getDocuments()
        #expect(inC.documents.map(\.documentID) == ["d"])
        #expect(inC.documents.first?.reference.path == "a/b/c/d")
        #expect(try await db.collection("a").getDocuments().isEmpty)
    }

    @Test func referenceEqualityAndHashing() {
        let db = apiDB()
        let a = db.document("c/d")
        let b = db.collection("c").document("d")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != db.document("c/e"))
        #expect(Set([a, b, db.document("c/e")]).count == 2)
        // Same path in another instance is another reference.
        let other = apiDB().document("c/d")
        #expect(a != other)
        #expect(Set([a, other]).count == 2)

        let c1 = db.collection("c"), c2 = db.document("x/y").parent.parent
        #expect(c1 == db.collection("c"))
        #expect(c2 == nil)
        #expect(c1.hashValue == db.collection("c").hashValue)
        #expect(c1 != db.collection("d"))
    }

    @Test func unicodeIDsCompareByBytes() {
        let db = apiDB()
        let precomposed = db.document("c/\u{E9}")
        let decomposed = db.document("c/e\u{301}")
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
    }

    @Test func documentIDFieldPathAndEquality() {
        #expect(FieldPath(["a", "b"]) == FieldPath(["a", "b"]))
        #expect(FieldPath(["a", "b"]).hashValue == FieldPath(["a", "b"]).hashValue)
        #expect(FieldPath(["a.b"]) != FieldPath(["a", "b"]))
        #expect(FieldPath.documentID() == FieldPath(["__name__"]))
        #expect(FieldPath(["a"]).copy() as? FieldPath == FieldPath(["a"]))
    }

    @Test func descriptions() {
        let db = apiDB()
        #expect(db.document("c/d").description == "<FIRDocumentReference: c/d>")
        #expect(FieldPath(["a", "b"]).description == "a.b")
    }
}
