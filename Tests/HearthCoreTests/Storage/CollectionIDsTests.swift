import Foundation
import Testing
@testable import HearthCore

@Suite("DatabaseState.collectionIDs: the collections under a parent, by skipping from one to the next")
struct CollectionIDsTests {
    /// What ListCollectionIds answered before the skip-scan: every live document's segment
    /// below `parent`, sorted by Firestore's id order.
    static func reference(_ state: DatabaseState, under parent: ResourcePath, at time: Timestamp? = nil) -> [String] {
        var ids = Set<String>()
        for d in state.allDocuments(at: time) where d.path.count > parent.count && parent.isPrefix(of: d.path) {
            ids.insert(d.path.segments[parent.count])
        }
        return ids.sorted { ResourcePath.compareSegments($0, $1) < 0 }
    }

    @Test("root and nested parents, deep-only collections, numeric ids, deleted documents and past read times")
    func matchesAFullScan() throws {
        let (db, clock) = makeTestDatabase()
        var writes: [Write] = []
        for i in 0..<300 { writes.append(.set(testPath("users/u\(i)"), testFields(["n": .integer(Int64(i))]))) }
        for p in ["users/u1/posts/p1", "users/u1/likes/l1", "users/u1/posts/p1/comments/c1", "ghost/g/sub/s",
                  "__id7__/a", "__id-3__/b", "b/x", "a\u{0}z/y", "users/u2/deep/d/deeper/e", "zeta/z"] {
            writes.append(.set(testPath(p), testFields([:])))
        }
        try db.commit(writes)
        let before = db.state()
        clock.advance(by: 1)
        try db.commit([.delete(testPath("b/x")), .delete(testPath("users/u1/likes/l1")), .delete(testPath("zeta/z"))])
        let now = db.state()

        #expect(now.collectionIDs(under: .root) == ["__id-3__", "__id7__", "a\u{0}z", "ghost", "users"])
        #expect(now.collectionIDs(under: testPath("users/u1")) == ["posts"])
        #expect(now.collectionIDs(under: testPath("users/u2")) == ["deep"])
        #expect(now.collectionIDs(under: testPath("ghost/g")) == ["sub"])
        #expect(now.collectionIDs(under: testPath("users/u3")) == [])
        #expect(before.collectionIDs(under: .root).contains("b"))
        #expect(now.collectionIDs(under: .root, at: before.readTime) == Self.reference(now, under: .root, at: before.readTime))
        #expect(now.collectionIDs(under: testPath("users/u1"), at: before.readTime) == ["likes", "posts"])
        for parent in [ResourcePath.root, testPath("users/u1"), testPath("users/u2/deep/d"), testPath("ghost/g"), testPath("users/u1/posts/p1")] {
            #expect(now.collectionIDs(under: parent) == Self.reference(now, under: parent), "under \(parent)")
        }
    }
}
