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

@Suite("DatabaseState.listing(in:after:limit:): ListDocuments with showMissing, a page at a time")
struct ShowMissingListingTests {
    /// What the listing answered before it paged: the collection's live documents, plus the
    /// path of every ID without a document that has a live document beneath it, in ID order.
    static func reference(_ s: DatabaseState, in collection: ResourcePath, at time: Timestamp? = nil) -> [String] {
        var rows: [String: Bool] = [:]
        for d in s.allDocuments(at: time) where d.path.count > collection.count && collection.isPrefix(of: d.path) {
            let id = d.path.segments[collection.count]
            rows[id] = (rows[id] ?? false) || d.path.count == collection.count + 1
        }
        return rows.keys.sorted { ResourcePath.compareSegments($0, $1) < 0 }.map { rows[$0]! ? $0 : "missing:" + $0 }
    }

    static func render(_ rows: [(path: ResourcePath, document: Document?)]) -> [String] {
        rows.map { $0.document == nil ? "missing:" + $0.path.lastSegment : $0.path.lastSegment }
    }

    @Test("every page size, across documents, missing parents, numeric ids, deletions and a past read time")
    func pagesMatchAFullScan() throws {
        let (db, clock) = makeTestDatabase()
        var writes: [Write] = []
        for i in stride(from: 0, to: 40, by: 2) { writes.append(.set(testPath(String(format: "c/d%02d", i)), testFields([:]))) }
        // Missing parents between, before and after the documents; one with a document too.
        for p in ["c/d01/s/x", "c/d03/s/x/t/y", "c/d02/s/x", "c/a/s/x", "c/zz/s/x", "c/__id5__/s/x", "c/__id-2__",
                  "c/d07/s/x", "c/d09/s/x", "b/x", "ca/x", "c/d05/s/x/t/y", "other/d01/s/x"] {
            writes.append(.set(testPath(p), testFields([:])))
        }
        try db.commit(writes)
        let before = db.state()
        clock.advance(by: 1)
        // d07's only descendant deleted: it is no longer listed; d09's descendant deleted and
        // d09 itself written: listed as a document.
        try db.commit([.delete(testPath("c/d07/s/x")), .delete(testPath("c/d09/s/x")), .set(testPath("c/d09"), testFields([:])),
                       .delete(testPath("c/d04"))])
        let s = db.state()
        let c = testPath("c")
        let expected = Self.reference(s, in: c)
        #expect(expected.contains("missing:d01") && expected.contains("d09") && !expected.contains("missing:d07") && !expected.contains("d04"))
        #expect(Self.render(s.listing(in: c, after: nil, limit: .max)) == expected)
        for size in 1...7 {
            var got: [String] = [], after: String? = nil
            while true {
                let page = s.listing(in: c, after: after, limit: size)
                got += Self.render(page)
                guard page.count == size, let last = page.last else { break }
                after = last.path.lastSegment
            }
            #expect(got == expected, "page size \(size)")
        }
        // After an ID that is neither a document nor a parent.
        #expect(Self.render(s.listing(in: c, after: "d15", limit: 2)) == ["d16", "d18"])
        #expect(Self.render(s.listing(in: c, after: "d015", limit: 2)) == ["d02", "missing:d03"])
        // As of the earlier read time.
        #expect(Self.render(s.listing(in: c, after: nil, limit: .max, at: before.readTime)) == Self.reference(s, in: c, at: before.readTime))
        #expect(Self.render(s.listing(in: testPath("c/d01/s"), after: nil, limit: .max)) == ["x"])
        #expect(s.listing(in: testPath("empty"), after: nil, limit: 5).isEmpty)
    }
}
