import Foundation
import SeededRandom
import Testing
@testable import HearthCore

@Suite("QueryView")
struct QueryViewTests {
    @Test("initial snapshot: the whole result as added, positions 0, 1, 2…")
    func initial() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(3)])), ("c/b", testFields(["n": .integer(1)])), ("c/x", testFields(["m": .integer(1)]))])
        let (rec, _) = try listenRecording(db, .query(testQuery("c", orderBy: [asc("n")])))
        let first = try #require(rec.snapshots.first)
        #expect(first.isInitial)
        #expect(listenIDs(first) == ["b", "a"])
        #expect(listenChanges(first) == ["added b -→0", "added a -→1"])
    }

    @Test("add, modify (moving), remove: SDK positions (docs/semantics.md#listeners)")
    func addModifyRemove() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)])), ("c/b", testFields(["n": .integer(2)])), ("c/c", testFields(["n": .integer(3)]))])
        let (rec, _) = try listenRecording(db, .query(testQuery("c", orderBy: [asc("n")])))
        _ = rec.take()
        try listenSet(db, "d", ["n": .integer(0)])
        try listenSet(db, "a", ["n": .integer(9)])
        try db.commit([.delete(testPath("c/b"))])
        try db.commit([.delete(testPath("c/zz"))]) // deleting a missing document: no snapshot
        let s = rec.take()
        #expect(s.count == 3)
        #expect(listenChanges(s[0]) == ["added d -→0"])
        #expect(listenChanges(s[1]) == ["modified a 1→3"])
        #expect(listenIDs(s[1]) == ["d", "b", "c", "a"])
        #expect(listenChanges(s[2]) == ["removed b 1→-"])
    }

    @Test("one commit: removed first, then added, then modified, each in query order")
    func groupedChanges() throws {
        let db = try makeQueryDatabase((0..<5).map { ("c/d\($0)", testFields(["n": .integer(Int64($0 * 10))])) })
        let (rec, _) = try listenRecording(db, .query(testQuery("c", orderBy: [asc("n")])))
        _ = rec.take()
        try db.commit([
            .set(testPath("c/d3"), testFields(["n": .integer(5)])),     // modified, moves up
            .delete(testPath("c/d4")),                        // removed
            .set(testPath("c/e"), testFields(["n": .integer(25)])),     // added
            .delete(testPath("c/d0")),                        // removed
            .set(testPath("c/f"), testFields(["n": .integer(-1)])),     // added
        ])
        let s = try #require(rec.take().first)
        // Old list d0 d1 d2 d3 d4 → removed d0 (0), d4 (3); added f (0), e (3);
        // modified d3: at 4 in [f d1 d2 e d3] → [f d3 d1 d2 e] at 1.
        #expect(listenChanges(s) == ["removed d0 0→-", "removed d4 3→-", "added f -→0", "added e -→3", "modified d3 4→1"])
        #expect(listenIDs(s) == ["f", "d3", "d1", "d2", "e"])
    }

    @Test("a document crossing the filter boundary is added, then removed")
    func filterBoundary() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)]))])
        let (rec, _) = try listenRecording(db, .query(testQuery("c", where: field("n", .greaterThan, .integer(5)))))
        #expect(listenIDs(rec.take()[0]) == [])
        try listenSet(db, "a", ["n": .integer(6)])
        try listenSet(db, "a", ["n": .integer(7)])
        try listenSet(db, "a", ["n": .integer(2)])
        let s = rec.take()
        #expect(s.map { listenChanges($0) } == [["added a -→0"], ["modified a 0→0"], ["removed a 0→-"]])
    }

    @Test("limit window: a new first document pushes the last out; a removal pulls the next in")
    func limitWindow() throws {
        let db = try makeQueryDatabase((1...5).map { ("c/d\($0)", testFields(["n": .integer(Int64($0))])) })
        let (rec, _) = try listenRecording(db, .query(testQuery("c", orderBy: [asc("n")], limit: 3)))
        #expect(listenIDs(rec.take()[0]) == ["d1", "d2", "d3"])
        try listenSet(db, "d0", ["n": .integer(0)])
        var s = try #require(rec.take().first)
        #expect(listenChanges(s) == ["removed d3 2→-", "added d0 -→0"])
        #expect(listenIDs(s) == ["d0", "d1", "d2"])
        try listenSet(db, "d9", ["n": .integer(9)])              // beyond the window: nothing
        #expect(rec.take().isEmpty)
        try db.commit([.delete(testPath("c/d1"))])    // refill from the index
        s = try #require(rec.take().first)
        #expect(listenChanges(s) == ["removed d1 1→-", "added d3 -→2"])
        try listenSet(db, "d0", ["n": .integer(100)])           // leaves the window by moving past it
        s = try #require(rec.take().first)
        #expect(listenChanges(s) == ["removed d0 0→-", "added d4 -→2"])
        #expect(listenIDs(s) == ["d2", "d3", "d4"])
    }

    @Test("limitToLast runs reversed; positions count in the shown order")
    func limitToLast() throws {
        let db = try makeQueryDatabase((1...5).map { ("c/d\($0)", testFields(["n": .integer(Int64($0))])) })
        let (rec, _) = try listenRecording(db, .query(testQuery("c", orderBy: [asc("n"), asc("__name__")], limit: 2).reversed()))
        let first = rec.take()[0]
        #expect(listenIDs(first).reversed() == ["d4", "d5"])
        #expect(listenChanges(first, reversed: true) == ["added d4 -→0", "added d5 -→1"])
        try listenSet(db, "d6", ["n": .integer(6)])
        let s = try #require(rec.take().first)
        #expect(listenChanges(s, reversed: true) == ["removed d4 0→-", "added d6 -→1"])
    }

    @Test("restore publishes the differences to live views")
    func restore() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)]))])
        let saved = db.snapshot()
        try listenSet(db, "b", ["n": .integer(2)])
        let (rec, _) = try listenRecording(db, .query(testQuery("c", orderBy: [asc("n")])))
        _ = rec.take()
        db.restore(saved)
        #expect(rec.take().map { listenChanges($0) } == [["removed b 1→-"]])
    }

    /// Replays a snapshot's positions onto what a client showed before, as an app would.
    private func replay(_ shown: inout [Document], _ snapshot: ViewSnapshot, reversed: Bool) {
        for c in snapshot.indexedChanges(presentedReversed: reversed) {
            if let old = c.oldIndex {
                #expect(shown[old].path == c.change.document.path)
                shown.remove(at: old)
            }
            if let new = c.newIndex { shown.insert(c.change.document, at: new) }
        }
    }

    @Test("differential: random commits keep every view equal to a fresh query, one snapshot per changing commit",
          arguments: 0..<3)
    func differential(seed: Int) throws {
        let db = Database(id: testDatabaseID, clock: ManualClock(now: testEpoch), indexMode: .off)
        let queries: [(StructuredQuery, reversed: Bool)] = [
            (testQuery("c"), false),
            (testQuery("c", where: field("a", .equal, .integer(3))), false),
            (testQuery("c", where: field("a", .in, .array([.integer(1), .integer(2)]))), false),
            (testQuery("c", where: field("a", .greaterThanOrEqual, .integer(4)), orderBy: [desc("a")]), false),
            (testQuery("c", orderBy: [asc("a")], limit: 3), false),
            (testQuery("c", orderBy: [desc("b"), asc("a")], limit: 4), false),
            (testQuery("c", orderBy: [asc("a"), asc("__name__")], limit: 3).reversed(), true),
            (testQuery("c", orderBy: [asc("a")], offset: 2, limit: 3), false),
            (testQuery("c", orderBy: [asc("a")], startAt: Cursor(values: [.integer(3)], before: true), endAt: Cursor(values: [.integer(7)], before: false)), false),
            (testGroupQuery("c", where: field("b", .lessThan, .integer(5))), false),
            (testQuery("c", where: or(field("a", .equal, .integer(1)), field("b", .equal, .integer(1)))), false),
        ]
        var recorders: [ListenRecorder] = []
        var shown: [[Document]] = []
        var results: [[Document]] = []
        for (q, reversed) in queries {
            let (rec, _) = try listenRecording(db, .query(q))
            var docs = Array(try #require(rec.take().first).documents)
            if reversed { docs.reverse() }
            recorders.append(rec)
            shown.append(docs)
            results.append(docs)
        }
        var rng = SplitMix64(seed: UInt64(seed))
        let collections = ["c", "c", "c", "p/x/c"]
        for _ in 0..<300 {
            var writes: [Write] = []
            for _ in 0..<(1 + rng.below(4)) {
                let path = testPath("\(collections[rng.below(collections.count)])/d\(rng.below(25))")
                switch rng.below(5) {
                case 0: writes.append(.delete(path))
                case 1: writes.append(.set(path, testFields(["b": .integer(Int64(rng.below(10)))])))
                default: writes.append(.set(path, testFields(["a": .integer(Int64(rng.below(10))), "b": .integer(Int64(rng.below(10)))])))
                }
            }
            try db.commit(writes)
            for (i, (q, reversed)) in queries.enumerated() {
                var expected = try db.runQuery(q).documents
                if reversed { expected.reverse() }
                let snapshots = recorders[i].take()
                #expect(snapshots.count == (expected == results[i] ? 0 : 1), "query \(i)")
                results[i] = expected
                guard let s = snapshots.first else { continue }
                replay(&shown[i], s, reversed: reversed)
                var docs = Array(s.documents)
                if reversed { docs.reverse() }
                #expect(docs == expected, "query \(i)")
                #expect(shown[i] == expected, "query \(i) replay")
            }
        }
    }
}

