import Foundation
import HearthLock
import Testing
@testable import HearthCore

/// Set once by one task, read by others.
private final class StopFlag: Sendable {
    private let flag = HearthMutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

/// The snapshots each short-lived target received.
private final class Chains: Sendable {
    private let chains = HearthMutex<[[ViewSnapshot]]>([])
    var all: [[ViewSnapshot]] { chains.withLock { $0 } }
    func add(_ chain: [ViewSnapshot]) { chains.withLock { $0.append(chain) } }
}

/// Targets of no client on the same `ListenTarget` share one view (`ListenerHub`): each must
/// still see exactly what a view of its own would show.
@Suite("ListenerHub shared views")
struct SharedViewTests {
    /// (path, update time) of each document of a result, in order.
    private func versions(_ list: RankedDocumentList) -> [String] {
        list.map { "\($0.id)@\($0.updateTime.microseconds)" }
    }

    @Test("two targets on one query share a view and see the same snapshots; a client's target keeps its own")
    func sameChanges() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)]))])
        let query = ListenTarget.query(testQuery("c", where: field("n", .greaterThan, .integer(0))))
        let (a, _) = try listenRecording(db, query)
        let (b, _) = try listenRecording(db, query)
        let (other, _) = try listenRecording(db, .query(testQuery("c")))
        let client = db.registerListenClient()
        let mine = ListenRecorder()
        _ = try db.listen(query, client: client, sink: mine.sink)
        #expect(db.hub.sharedViewCount == 2)
        #expect(db.listenTargetCount == 4)
        try listenSet(db, "b", ["n": .integer(2)])
        try listenSet(db, "a", ["n": .integer(0)])
        let sa = a.take(), sb = b.take()
        #expect(sa.map(listenIDs) == [["a"], ["a", "b"], ["b"]])
        #expect(sa.map { listenChanges($0) } == sb.map { listenChanges($0) })
        #expect(sa.map(\.readTime) == sb.map(\.readTime))
        #expect(other.take().map(listenIDs) == [["a"], ["a", "b"], ["a", "b"]])
        #expect(mine.take().map(listenIDs) == [["a"], ["a", "b"], ["b"]])
        // The client's pending write shows in its own view only.
        _ = db.applyLocally([.set(testPath("c/c"), testFields(["n": .integer(3)]))], client: client)
        #expect(mine.take().map(listenIDs) == [["b", "c"]])
        #expect(a.take().isEmpty && b.take().isEmpty)
    }

    @Test("one target removed, the other goes on; the last one removed takes the view away")
    func removal() throws {
        let db = try makeQueryDatabase([])
        let target = ListenTarget.documents([testPath("c/a")])
        let (a, idA) = try listenRecording(db, target)
        let (b, idB) = try listenRecording(db, target)
        try listenSet(db, "a", ["n": .integer(1)])
        db.stopListening(idA)
        try listenSet(db, "a", ["n": .integer(2)])
        #expect(a.take().count == 2)
        #expect(b.take().map { $0.documents.first?.fields.value(at: testFieldPath("n")) } == [nil, .integer(1), .integer(2)])
        #expect(db.hub.sharedViewCount == 1)
        db.stopListening(idB)
        db.stopListening(idB)  // harmless
        #expect(db.hub.sharedViewCount == 0 && db.listenTargetCount == 0 && !db.hub.isActive)
        try listenSet(db, "a", ["n": .integer(3)])
        #expect(b.take().isEmpty)
        // A new target after that starts a view of its own from the current state.
        let (c, _) = try listenRecording(db, target)
        #expect(c.take().map { $0.documents.first?.fields.value(at: testFieldPath("n")) } == [.integer(3)])
    }

    @Test("a target added after changes starts from the current result, and its later snapshots build on it")
    func lateJoiner() throws {
        let db = try makeQueryDatabase([])
        let query = ListenTarget.query(testQuery("c", orderBy: [asc("n")]))
        let (early, _) = try listenRecording(db, query)
        for k in 0..<5 { try listenSet(db, "d\(k)", ["n": .integer(Int64(k))]) }
        try db.commit([.delete(testPath("c/d1"))])
        let (late, _) = try listenRecording(db, query)
        let first = late.take()
        #expect(first.count == 1 && first[0].isInitial)
        #expect(listenIDs(first[0]) == ["d0", "d2", "d3", "d4"])
        #expect(first[0].readTime == db.state().readTime)
        try listenSet(db, "d1", ["n": .integer(10)])
        let next = late.take()
        #expect(next.map { listenChanges($0) } == [["added d1 -→4"]])
        #expect(versions(next[0].previous) == versions(first[0].documents))
        #expect(early.take().last.map(listenIDs) == ["d0", "d2", "d3", "d4", "d1"])
    }

    @Test("limit queries share a window: pushed out, refilled from the index, and a late target gets the window as it is")
    func limitWindow() throws {
        let db = try makeQueryDatabase((0..<6).map { ("c/d\($0)", testFields(["n": .integer(Int64($0))])) })
        let query = ListenTarget.query(testQuery("c", orderBy: [asc("n")], limit: 3))
        let (a, _) = try listenRecording(db, query)
        let (b, _) = try listenRecording(db, query)
        // A new first document pushes d2 out of the window.
        try listenSet(db, "x", ["n": .integer(-1)])
        // Removing two from a full window refills it from the index.
        try db.commit([.delete(testPath("c/x")), .delete(testPath("c/d0"))])
        let (late, _) = try listenRecording(db, query)
        #expect(late.take().map(listenIDs) == [["d1", "d2", "d3"]])
        try listenSet(db, "d1", ["n": .integer(100)])
        let sa = a.take()
        #expect(sa.map(listenIDs) == [["d0", "d1", "d2"], ["x", "d0", "d1"], ["d1", "d2", "d3"], ["d2", "d3", "d4"]])
        #expect(sa.map { listenChanges($0) } == b.take().map { listenChanges($0) })
        #expect(late.take().map { listenChanges($0) } == [["removed d1 0→-", "added d4 -→2"]])
        // A different limit is a different view.
        _ = try listenRecording(db, .query(testQuery("c", orderBy: [asc("n")], limit: 2)))
        #expect(db.hub.sharedViewCount == 2)
    }

    @Test("targets added and removed while commits go on: each sees an unbroken chain of results")
    func concurrentMembership() throws {
        let db = try makeQueryDatabase([])
        let target = ListenTarget.query(testQuery("c", where: field("n", .greaterThanOrEqual, .integer(0))))
        let (steady, _) = try listenRecording(db, target)
        let stop = StopFlag()
        let chains = Chains()
        let done = DispatchGroup()
        // Three threads add and remove targets on the same view while a fourth commits.
        for _ in 0..<3 {
            done.enter()
            Thread {
                var rounds = 0
                while !stop.isSet || rounds < 3 {
                    guard let (rec, id) = try? listenRecording(db, target) else { break }
                    usleep(200)
                    db.stopListening(id)
                    let seen = rec.take()
                    chains.add(seen)
                    rounds += 1
                }
                done.leave()
            }.start()
        }
        for k in 0..<300 {
            try listenSet(db, "d\(k % 17)", ["n": .integer(Int64(k))])
            usleep(100)
        }
        stop.set()
        done.wait()
        let whole = steady.take()
        #expect(whole.count == 301)  // the initial result, then one a commit
        var checked = 0
        for chain in chains.all + [whole] where !chain.isEmpty {
            #expect(chain[0].isInitial)
            #expect(chain.dropFirst().allSatisfy { !$0.isInitial })
            for (before, after) in zip(chain, chain.dropFirst()) {
                #expect(versions(after.previous) == versions(before.documents))
                #expect(after.readTime > before.readTime)
            }
            if chain.count > 1 { checked += 1 }
        }
        #expect(checked > 3)  // targets that saw commits besides the steady one
        #expect(db.listenTargetCount == 1 && db.hub.sharedViewCount == 1)
    }
}
