import Foundation
import Testing
@testable import HearthCore

/// Latency compensation in the engine: a client's local batch reaches its own targets before
/// the commit, and the commit (or the rejection) takes it away again; other targets see
/// only commits.
@Suite("Local overlays")
struct LocalOverlayTests {
    /// `id:n` per document, `*` marking those with pending writes.
    func shown(_ s: ViewSnapshot) -> [String] {
        s.documents.map { d in
            let n = d.fields.value(at: testFieldPath("n")).map { "\($0)" } ?? "-"
            return "\(d.id):\(n)\(s.mutatedKeys.contains(d.path) ? "*" : "")"
        }
    }

    @Test("local batch, then its commit: pending first, then acknowledged; other clients see only the commit")
    func localThenCommit() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)]))])
        let client = db.registerListenClient()
        let mine = ListenRecorder(), other = ListenRecorder()
        _ = try db.listen(.query(testQuery("c", orderBy: [Ordering(testFieldPath("n"))])), client: client, sink: mine.sink)
        _ = try db.listen(.query(testQuery("c", orderBy: [Ordering(testFieldPath("n"))])), sink: other.sink)
        #expect(mine.take().map(shown) == [["a:1"]])
        _ = other.take()

        let writes = [Write.set(testPath("c/b"), testFields(["n": .integer(0)]))]
        let batch = db.applyLocally(writes, client: client)
        #expect(mine.take().map(shown) == [["b:0*", "a:1"]])
        #expect(other.take().isEmpty)
        try db.commit(writes, acknowledging: (client, batch))
        let acked = mine.take()
        #expect(acked.map(shown) == [["b:0", "a:1"]])
        // Same fields, pending state gone: reported as a modification of equal contents.
        #expect(acked.first?.changes.map(\.kind) == [.modified])
        #expect(acked.first.map { $0.changes[0].oldDocument?.fields == $0.changes[0].document.fields } == true)
        #expect(other.take().map(shown) == [["b:0", "a:1"]])
    }

    @Test("a rejected batch rolls the client's views back")
    func rejection() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)]))])
        let client = db.registerListenClient()
        let rec = ListenRecorder()
        _ = try db.listen(.documents([testPath("c/a")]), client: client, sink: rec.sink)
        _ = rec.take()
        let batch = db.applyLocally([Write.delete(testPath("c/a"))], client: client)
        db.removeLocalBatch(batch, client: client)
        #expect(rec.take().map(shown) == [[], ["a:1"]])
        #expect(db.localDocument(DocumentKey(testPath("c/a")), client: client).pending == false)
    }

    @Test("a limit window the local write shrinks refills from the database's documents seen through the overlay")
    func limitRefillSeesTheOverlay() throws {
        let db = try makeQueryDatabase((1...4).map { ("c/d\($0)", testFields(["n": .integer(Int64($0))])) })
        let client = db.registerListenClient()
        let rec = ListenRecorder()
        _ = try db.listen(.query(testQuery("c", where: field("n", .lessThan, .integer(10)),
                                           orderBy: [Ordering(testFieldPath("n"))], limit: 2)), client: client, sink: rec.sink)
        #expect(rec.take().map(shown) == [["d1:1", "d2:2"]])
        // d1 leaves the window locally and d3 must come in; d1 itself must not come back
        // from the database's (not yet changed) copy.
        let writes = [Write.set(testPath("c/d1"), testFields(["n": .integer(50)]))]
        let batch = db.applyLocally(writes, client: client)
        #expect(rec.take().map(shown) == [["d2:2", "d3:3"]])
        try db.commit(writes, acknowledging: (client, batch))
        #expect(rec.take().isEmpty)
    }

    @Test("a document a re-run brings into a limit window shows its own pending write")
    func limitRefillMarksPendingDocuments() throws {
        let db = try makeQueryDatabase((1...4).map { ("c/d\($0)", testFields(["n": .integer(Int64($0))])) })
        let client = db.registerListenClient()
        let rec = ListenRecorder()
        _ = try db.listen(.query(testQuery("c", where: field("n", .lessThan, .integer(10)),
                                           orderBy: [Ordering(testFieldPath("n"))], limit: 2)), client: client, sink: rec.sink)
        _ = rec.take()
        // d3 is written while outside the window: nothing to show yet.
        _ = db.applyLocally([Write.set(testPath("c/d3"), testFields(["n": .integer(3), "x": .integer(1)]))], client: client)
        #expect(rec.take().isEmpty)
        _ = db.applyLocally([Write.set(testPath("c/d1"), testFields(["n": .integer(50)]))], client: client)
        #expect(rec.take().map(shown) == [["d2:2", "d3:3*"]])
    }

    @Test("a pending write that changes an equality-filtered field reaches the target of its new value, and its rollback too")
    func pendingWriteRoutesByItsOwnValue() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)]))])
        let client = db.registerListenClient()
        let rec = ListenRecorder()
        _ = try db.listen(.query(testQuery("c", where: field("n", .equal, .integer(7)))), client: client, sink: rec.sink)
        #expect(rec.take().map(shown) == [[]])
        let batch = db.applyLocally([Write.set(testPath("c/a"), testFields(["n": .integer(7)]))], client: client)
        #expect(rec.take().map(shown) == [["a:7*"]])
        db.removeLocalBatch(batch, client: client)
        #expect(rec.take().map(shown) == [[]])
    }

    @Test("a commit by someone else while a batch is pending supersedes it for the documents it changed")
    func remoteCommitUnderPendingBatch() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1), "m": .integer(1)]))])
        let client = db.registerListenClient()
        let rec = ListenRecorder()
        _ = try db.listen(.documents([testPath("c/a")]), client: client, sink: rec.sink)
        _ = rec.take()
        let local = [Write.update(testPath("c/a"), testFields(["n": .integer(2)]), mask: [testFieldPath("n")])]
        let batch = db.applyLocally(local, client: client)
        try db.commit([Write.update(testPath("c/a"), testFields(["m": .integer(9)]), mask: [testFieldPath("m")])])
        try db.commit(local, acknowledging: (client, batch))
        let s = rec.take()
        // The newer commit replaces the pending document (applying the batch again over it
        // could apply it twice: it may be committed already); the acknowledgement then
        // brings the batch's own commit.
        #expect(s.map(shown) == [["a:2*"], ["a:1"], ["a:2"]])
        #expect(s[1].documents.first?.fields.value(at: testFieldPath("m")) == .integer(9))
        #expect(s[2].documents.first?.fields.value(at: testFieldPath("m")) == .integer(9))
    }

    @Test("a batch committed plainly and acknowledged later: pending until then, an increment applied once; a later batch's commit acknowledges the earlier ones")
    func deferredAcknowledgement() throws {
        let db = try makeQueryDatabase([("c/a", testFields(["n": .integer(1)]))])
        let client = db.registerListenClient()
        let rec = ListenRecorder()
        _ = try db.listen(.documents([testPath("c/a")]), client: client, sink: rec.sink)
        _ = rec.take()
        let increment = [Write(path: testPath("c/a"), operation: .transformOnly,
                               transforms: [FieldTransform(path: testFieldPath("n"), kind: .increment(.integer(1)))])]
        let first = db.applyLocally(increment, client: client)
        try db.commit(increment, acknowledging: (client, first), keepingPending: true)
        let second = db.applyLocally(increment, client: client)
        try db.commit(increment, acknowledging: (client, second))
        db.removeLocalBatch(first, client: client)   // already acknowledged by the second
        #expect(rec.take().map(shown) == [["a:2*"], ["a:3*"], ["a:3"]])
        #expect(db.localDocument(DocumentKey(testPath("c/a")), client: client).pending == false)
    }

    @Test("a target started while a batch is pending starts from the overlay")
    func initialSnapshotUnderPendingBatch() throws {
        let db = try makeQueryDatabase([])
        let client = db.registerListenClient()
        _ = db.applyLocally([Write.set(testPath("c/a"), testFields(["n": .integer(1)]))], client: client)
        let rec = ListenRecorder()
        _ = try db.listen(.query(testQuery("c")), client: client, sink: rec.sink)
        #expect(rec.take().map(shown) == [["a:1*"]])
        #expect(db.localDocument(DocumentKey(testPath("c/a")), client: client).pending)
        #expect(db.document(testPath("c/a")) == nil)
    }
}
