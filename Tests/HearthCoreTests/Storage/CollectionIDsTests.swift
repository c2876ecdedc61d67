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

@Suite("DatabaseState.documents(in:start:limit:): keyset pages of a collection in ID order")
struct DocumentPageTests {
    @Test("pages forwards and backwards match the ID order, skipping deleted documents and other collections")
    func pagesMatchTheIDOrder() throws {
        let (db, clock) = makeTestDatabase()
        var writes: [Write] = []
        for i in 0..<120 { writes.append(.set(testPath(String(format: "c/d%03d", i)), testFields(["n": .integer(Int64(i))]))) }
        // Neighbours in storage order: a collection before, one after, subcollections, numeric ids.
        for p in ["b/z", "ca/a", "c/d005/sub/x", "c/__id3__", "c/__id-9__"] { writes.append(.set(testPath(p), testFields([:]))) }
        try db.commit(writes)
        clock.advance(by: 1)
        try db.commit([.delete(testPath("c/d010")), .delete(testPath("c/d011"))])
        let s = db.state()
        let all = s.documents(in: testPath("c")).map(\.path.lastSegment)
        #expect(all.first == "__id-9__" && all[1] == "__id3__" && all.count == 120)

        func ids(_ start: DocumentPageStart, _ limit: Int) -> [String] {
            s.documents(in: testPath("c"), start: start, limit: limit).map(\.path.lastSegment)
        }
        #expect(ids(.first, 5) == Array(all[0..<5]))
        #expect(ids(.after("d008"), 3) == ["d009", "d012", "d013"])
        #expect(ids(.from("d012"), 2) == ["d012", "d013"])
        #expect(ids(.from("d010"), 2) == ["d012", "d013"])
        #expect(ids(.before("d012"), 3) == ["d007", "d008", "d009"])
        #expect(ids(.before("d001"), 10) == ["__id-9__", "__id3__", "d000"])
        #expect(ids(.after("d118"), 10) == ["d119"])
        #expect(ids(.after("zzz"), 10) == [])
        #expect(ids(.before("__id-9__"), 10) == [])
        #expect(ids(.first, 0) == [])
        // Walking every page forwards, then backwards, visits the whole collection in order.
        var forward: [String] = [], cursor = DocumentPageStart.first
        while case let page = ids(cursor, 7), !page.isEmpty { forward += page; cursor = .after(page.last!) }
        #expect(forward == all)
        var backward: [String] = [], back = DocumentPageStart.before("zzzz")
        while case let page = ids(back, 7), !page.isEmpty { backward = page + backward; back = .before(page.first!) }
        #expect(backward == all)
    }
}
