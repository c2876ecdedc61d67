import Foundation
import Testing
@testable import Hearth

/// Ordering, limits, collection groups, reads, equality and index enforcement through the
/// `Query` API (docs/semantics.md#ordering, #collection-groups, #index-requirements; docs/embedded-api.md#queries, #snapshots-and-listeners).
@Suite struct QueryTests {
    // MARK: Ordering (docs/semantics.md#ordering)

    @Test func defaultOrderIsByDocumentID() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["b": [:], "a": [:], "C": [:], "aa": [:]])
        #expect(try await qIDs(db.collection("c")) == qList("C a aa b"))
    }

    @Test func orderByExcludesMissingFieldsButKeepsNull() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "one": ["v": 1], "null": ["v": NSNull()], "missing": ["w": 1], "str": ["v": "x"], "two": ["v": 2],
        ])
        #expect(try await qIDs(db.collection("c").order(by: "v")) == qList("null one two str"))
        #expect(try await qIDs(db.collection("c").order(by: "v", descending: true)) == qList("str two one null"))
        #expect(try await qIDs(db.collection("c").order(by: FieldPath(["v"]))) == qList("null one two str"))
        #expect(try await qIDs(db.collection("c").order(by: FieldPath(["v"]), descending: true)) == qList("str two one null"))
    }

    @Test func tiesAreBrokenByDocumentIDInTheLastDirection() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["v": 1], "b": ["v": 1], "c": ["v": 0]])
        #expect(try await qIDs(db.collection("c").order(by: "v")) == qList("c a b"))
        #expect(try await qIDs(db.collection("c").order(by: "v", descending: true)) == qList("b a c"))
    }

    @Test func multipleOrderBys() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "p": ["a": 1, "b": 9], "q": ["a": 2, "b": 3], "r": ["a": 1, "b": 2], "s": ["a": 2, "b": 4],
        ])
        #expect(try await qIDs(db.collection("c").order(by: "a").order(by: "b", descending: true)) == qList("p r s q"))
        #expect(try await qIDs(db.collection("c").order(by: "b").order(by: "a")) == qList("r q s p"))
    }

    @Test func inequalityFieldsAreOrderedImplicitly() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "p": ["a": 1, "b": 9], "q": ["a": 2, "b": 3], "r": ["a": 1, "b": 2], "s": ["a": 4, "b": 2],
        ])
        // `where b > 1, a < 5` → order a, b, __name__.
        let q = db.collection("c").whereField("b", isGreaterThan: 1).whereField("a", isLessThan: 5)
        #expect(try await qIDs(q) == qList("r p q s"))
        #expect(q.definition.normalizedOrderBy.map(\.description) == ["a", "b", "__name__"])
    }

    @Test func implicitOrderTakesTheLastExplicitDirection() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "m": ["x": 40, "y": 1], "n": ["x": 50, "y": 1], "o": ["x": 35, "y": 2], "p": ["x": 10, "y": 5],
        ])
        // `where x >= 32 order y desc` → y desc, x desc, __name__ desc.
        let q = db.collection("c").whereField("x", isGreaterThanOrEqualTo: 32).order(by: "y", descending: true)
        #expect(try await qIDs(q) == qList("o n m"))
        #expect(q.definition.normalizedOrderBy.map(\.description) == ["y desc", "x desc", "__name__ desc"])
    }

    @Test func descendingOrderWithMixedIntegersAndDoubles() async throws {
        // Prod test (docs/semantics.md#ordering).
        let db = qDB()
        try await qSeed(db, collection: "c", [
            "a": ["foo": 42], "b": ["foo": 42.0], "c": ["foo": 42], "d": ["foo": 21], "e": ["foo": 21.0],
            "f": ["foo": 66], "g": ["foo": 66.0],
        ])
        let q = db.collection("c").whereField("foo", isGreaterThan: 21).order(by: "foo", descending: true)
        #expect(try await qIDs(q) == qList("g f c b a"))
    }

    @Test func stringsOrderByUTF8Bytes() async throws {
        // Prod test (docs/semantics.md#value-order).
        let db = qDB()
        let values = ["Łukasiewicz", "Sierpiński", "岩澤", "🄟", "Ｐ", "︒", "🐵"]
        var docs: [String: [String: Any]] = [:]
        for (i, v) in values.enumerated() { docs["d\(i)"] = ["value": v] }
        try await qSeed(db, collection: "c", docs)
        let snapshot = try await db.collection("c").order(by: "value").getDocuments()
        #expect(snapshot.documents.map { $0["value"] as? String } == ["Sierpiński", "Łukasiewicz", "岩澤", "︒", "Ｐ", "🄟", "🐵"])
    }

    // MARK: Limits

    @Test func limitTakesTheFirstResults() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["v": 3], "b": ["v": 1], "c": ["v": 2]])
        let c = db.collection("c")
        #expect(try await qIDs(c.limit(to: 2)) == qList("a b"))
        #expect(try await qIDs(c.order(by: "v").limit(to: 2)) == qList("b c"))
        #expect(try await qIDs(c.order(by: "v").limit(to: 10)) == qList("b c a"))
        // The last limit wins.
        #expect(try await qIDs(c.order(by: "v").limit(to: 1).limit(to: 2)) == qList("b c"))
        #expect(try await qIDs(c.order(by: "v").limit(to: Int.max)) == qList("b c a"))
    }

    @Test func limitToLastReturnsTheLastResultsInQueryOrder() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["v": 3], "b": ["v": 1], "c": ["v": 2], "d": ["v": 4]])
        let c = db.collection("c")
        #expect(try await qIDs(c.order(by: "v").limit(toLast: 2)) == qList("a d"))
        #expect(try await qIDs(c.order(by: "v", descending: true).limit(toLast: 2)) == qList("c b"))
        #expect(try await qIDs(c.order(by: "v").limit(toLast: 10)) == qList("b c a d"))
        // Cursors keep their meaning: the window [2, 4], last two of it.
        #expect(try await qIDs(c.order(by: "v").start(at: [2]).end(at: [4]).limit(toLast: 2)) == qList("a d"))
        #expect(try await qIDs(c.order(by: "v").start(after: [1]).end(before: [4]).limit(toLast: 5)) == qList("c a"))
        // With an inequality, the implicit order-bys are reversed too.
        #expect(try await qIDs(c.whereField("v", isLessThan: 4).order(by: "v").limit(toLast: 1)) == ["a"])
        // limit(to:) after limit(toLast:) is a plain limit again.
        #expect(try await qIDs(c.order(by: "v").limit(toLast: 1).limit(to: 1)) == ["b"])
    }

    @Test func limitToLastBreaksTiesLikeTheForwardQuery() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["v": 1], "b": ["v": 1], "c": ["v": 1], "d": ["v": 0]])
        let forward = try await qIDs(db.collection("c").order(by: "v"))
        #expect(forward == qList("d a b c"))
        #expect(try await qIDs(db.collection("c").order(by: "v").limit(toLast: 2)) == Array(forward.suffix(2)))
    }

    @Test func limitProgrammerErrors() {
        let c = qDB().collection("c")
        #expect(qRejection { try c.limited(to: 0, .first) } == "Invalid Query. Query limit (0) is invalid. Limit must be positive.")
        #expect(qRejection { try c.limited(to: -3, .last) } == "Invalid Query. Query limit (-3) is invalid. Limit must be positive.")
        #expect(qRejection { try c.limited(to: 1, .first) } == nil)
    }

    @Test func limitToLastNeedsAnExplicitOrderByWhenRun() {
        let c = qDB().collection("c")
        // The check runs at execution (the SDK throws then, not when building).
        let q = c.limit(toLast: 2)
        #expect(apiRejection { try q.checkRunnable() } == "limit(toLast:) queries require specifying at least one OrderBy() clause.")
        #expect(apiRejection { try c.whereField("a", isGreaterThan: 1).limit(toLast: 2).checkRunnable() }
                == "limit(toLast:) queries require specifying at least one OrderBy() clause.")
        #expect(apiRejection { try c.order(by: "a").limit(toLast: 2).checkRunnable() } == nil)
        #expect(apiRejection { try c.limit(to: 2).checkRunnable() } == nil)
    }

    // MARK: Collection groups (docs/semantics.md#collection-groups)

    private func collectionGroupDB() async throws -> Firestore {
        let db = qDB()
        let docs = [
            "abc/123/c/cg-doc1", "abc/123/c/cg-doc2", "c/cg-doc3", "c/cg-doc4", "def/456/c/cg-doc5",
            "c/virtual-doc/nested-coll/not-cg-doc", "xc/not-cg-doc", "cx/not-cg-doc",
            "abc/123/cx/not-cg-doc", "abc/123/xc/not-cg-doc", "abc/c",
        ]
        var seed: [String: [String: Any]] = [:]
        for path in docs { seed[path] = ["x": 1] }
        try await qSeed(db, seed)
        return db
    }

    @Test func collectionGroupMatchesTheCollectionIDAtAnyDepth() async throws {
        let db = try await collectionGroupDB()
        #expect(try await qIDs(db.collectionGroup("c")) == qList("cg-doc1 cg-doc2 cg-doc3 cg-doc4 cg-doc5"))
        #expect(try await qPaths(db.collectionGroup("c"))
                == ["abc/123/c/cg-doc1", "abc/123/c/cg-doc2", "c/cg-doc3", "c/cg-doc4", "def/456/c/cg-doc5"])
    }

    @Test func collectionGroupWithFiltersAndOrder() async throws {
        let db = qDB()
        try await qSeed(db, [
            "users/u1/posts/p1": ["n": 3, "tag": "a"],
            "users/u2/posts/p2": ["n": 1, "tag": "a"],
            "groups/g/users/u3/posts/p3": ["n": 2, "tag": "a"],
            "posts/p4": ["n": 4, "tag": "b"],
            "users/u1/drafts/p5": ["n": 0, "tag": "a"],
        ])
        let posts = db.collectionGroup("posts")
        #expect(try await qIDs(posts.order(by: "n")) == qList("p2 p3 p1 p4"))
        #expect(try await qIDs(posts.whereField("tag", isEqualTo: "a")) == qList("p3 p1 p2"))
        #expect(try await qIDs(posts.whereField("n", isGreaterThan: 1).limit(to: 2)) == qList("p3 p1"))
        #expect(try await qIDs(posts.order(by: "n", descending: true).limit(toLast: 2)) == qList("p3 p2"))
        // The same documents through collection queries.
        #expect(try await qIDs(db.collection("users/u1/posts")) == ["p1"])
        #expect(try await qIDs(db.collection("groups/g/users/u3/posts")) == ["p3"])
    }

    @Test func collectionGroupIDChecks() {
        #expect(apiRejection { try Firestore.validateCollectionGroupID("") } == "Collection ID cannot be empty.")
        #expect(apiRejection { try Firestore.validateCollectionGroupID("a/b") }
                == "Invalid collection ID (a/b). Collection IDs must not contain / in them.")
        #expect(apiRejection { try Firestore.validateCollectionGroupID("posts") } == nil)
    }

    // MARK: Reads and snapshots (docs/embedded-api.md#queries, #snapshots-and-listeners)

    @Test func querySnapshotProperties() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["v": 1], "b": ["v": 2]])
        let q = db.collection("c").order(by: "v", descending: true)
        let snapshot = try await q.getDocuments()
        #expect(snapshot.count == 2)
        #expect(!snapshot.isEmpty)
        #expect(snapshot.query == q)
        #expect(!snapshot.metadata.hasPendingWrites)
        #expect(!snapshot.metadata.isFromCache)
        #expect(snapshot.documents.map(\.documentID) == ["b", "a"])
        #expect(snapshot.documents[0].data()["v"] as? Int == 2)
        #expect(snapshot.documents[0].reference == db.document("c/b"))
        #expect(snapshot.documents[0].exists)

        let empty = try await db.collection("c").whereField("v", isGreaterThan: 5).getDocuments()
        #expect(empty.isEmpty)
        #expect(empty.count == 0)
        #expect(empty.documents.isEmpty)
    }

    @Test func everySourceReadsTheDatabase() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["v": 1]])
        for source in [FirestoreSource.default, .server, .cache] {
            #expect(try await db.collection("c").getDocuments(source: source).documents.map(\.documentID) == ["a"])
        }
    }

    @Test func completionFormsRunOnTheCallbackQueue() async throws {
        let queue = APICallbackQueue()
        let db = Firestore.inMemory(indexMode: .off)
        apiUseQueue(db, queue.queue)
        try await qSeed(db, collection: "c", ["a": ["v": 1], "b": ["v": 2]])
        let q = db.collection("c").whereField("v", isGreaterThan: 1)

        let first: APISent<(QuerySnapshot?, Error?, Bool)> = await apiCallback { done in
            q.getDocuments { snapshot, error in done(APISent(value: (snapshot, error, queue.isCurrent))) }
        }
        #expect(first.value.0?.documents.map(\.documentID) == ["b"])
        #expect(first.value.1 == nil)
        #expect(first.value.2)

        let second: APISent<(QuerySnapshot?, Error?, Bool)> = await apiCallback { done in
            q.getDocuments(source: .server) { snapshot, error in done(APISent(value: (snapshot, error, queue.isCurrent))) }
        }
        #expect(second.value.0?.count == 1)
        #expect(second.value.2)
    }

    @Test func engineErrorsArriveThroughTheCompletion() async throws {
        let queue = APICallbackQueue()
        let db = Firestore.inMemory(indexMode: .off)
        apiUseQueue(db, queue.queue)
        let q = db.collection("c").whereField("a", in: Array(0..<31))
        let result: APISent<(QuerySnapshot?, Error?)> = await apiCallback { done in
            q.getDocuments { snapshot, error in done(APISent(value: (snapshot, error))) }
        }
        #expect(result.value.0 == nil)
        let error = try #require(result.value.1) as NSError
        #expect(error.domain == FirestoreErrorDomain)
        #expect(error.code == FirestoreErrorCode.invalidArgument.rawValue)
    }

    @Test func engineErrorsAreThrownByTheAsyncForms() async throws {
        let q = qDB().collection("c").whereField("a", in: Array(0..<31))
        var caught = false
        do {
            _ = try await q.getDocuments(source: .default)
        } catch FirestoreErrorCode.invalidArgument {
            caught = true
        }
        #expect(caught)
    }

    // MARK: Equality (docs/embedded-api.md#queries)

    @Test func queriesCompareByInstanceAndContent() {
        let db = qDB()
        let other = qDB()
        let a = db.collection("c").whereField("x", isEqualTo: 1).order(by: "y").limit(to: 3)
        let b = db.collection("c").whereField("x", isEqualTo: 1).order(by: "y").limit(to: 3)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        #expect(a != other.collection("c").whereField("x", isEqualTo: 1).order(by: "y").limit(to: 3))
        #expect(a != db.collection("c").whereField("x", isEqualTo: 1).order(by: "y").limit(toLast: 3))
        #expect(a != db.collection("c").whereField("x", isEqualTo: 1).order(by: "y", descending: true).limit(to: 3))
        #expect(a != db.collection("d").whereField("x", isEqualTo: 1).order(by: "y").limit(to: 3))
        #expect(db.collectionGroup("c") == db.collectionGroup("c"))
        #expect(db.collectionGroup("c") != db.collection("c") as Query)
        #expect(db.collection("c").order(by: "v").start(at: [1]) != db.collection("c").order(by: "v").start(after: [1]))
        #expect(a.firestore === db)
    }

    // MARK: Index enforcement (docs/semantics.md#index-requirements; docs/embedded-api.md#hearths-additions)

    private static let compositeAB = #"""
    {"indexes": [{"collectionGroup": "c", "queryScope": "COLLECTION",
                  "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "b", "order": "ASCENDING"}]}]}
    """#

    @Test func enforcedIndexesFailQueriesThatNeedAMissingOne() async throws {
        let db = Firestore.inMemory(indexes: try IndexConfiguration(json: Data(#"{"indexes": []}"#.utf8)), indexMode: .enforce)
        try await qSeed(db, collection: "c", ["x": ["a": 1, "b": 2]])
        let error = try #require(await qError(db.collection("c").whereField("a", isEqualTo: 1).order(by: "b")))
        #expect(error.domain == FirestoreErrorDomain)
        #expect(error.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect(error.localizedDescription.hasPrefix("The query requires an index"))
        #expect(error.localizedDescription.contains("https://console.firebase.google.com/v1/r/project/\(Firestore.defaultProjectID)/firestore/indexes?create_composite="))
        // Queries single-field indexes serve still run.
        #expect(try await qIDs(db.collection("c").whereField("a", isEqualTo: 1)) == ["x"])
        #expect(try await qIDs(db.collection("c").order(by: "b")) == ["x"])
        #expect(try await qIDs(db.collection("c").whereField("a", isEqualTo: 1).whereField("b", isEqualTo: 2)) == ["x"])
    }

    @Test func enforcementIsTheDefaultWhenIndexesAreGiven() async throws {
        let db = Firestore.inMemory(indexes: try IndexConfiguration(json: Data(#"{"indexes": []}"#.utf8)))
        let error = try #require(await qError(db.collection("c").whereField("a", isEqualTo: 1).order(by: "b")))
        #expect(error.code == FirestoreErrorCode.failedPrecondition.rawValue)
    }

    @Test func declaredIndexesServeTheQuery() async throws {
        let db = Firestore.inMemory(indexes: try IndexConfiguration(json: Data(Self.compositeAB.utf8)), indexMode: .enforce)
        try await qSeed(db, collection: "c", ["x": ["a": 1, "b": 2], "y": ["a": 1, "b": 1], "z": ["a": 2, "b": 0]])
        #expect(try await qIDs(db.collection("c").whereField("a", isEqualTo: 1).order(by: "b")) == ["y", "x"])
        // The index is for collection "c" only, ascending only.
        #expect(await qError(db.collection("d").whereField("a", isEqualTo: 1).order(by: "b"))?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect(await qError(db.collection("c").whereField("a", isEqualTo: 1).order(by: "b", descending: true))?.code
                == FirestoreErrorCode.failedPrecondition.rawValue)
    }

    @Test func missingIndexErrorsReachCompletionsAndAggregations() async throws {
        let queue = APICallbackQueue()
        let db = Firestore.inMemory(indexes: try IndexConfiguration(json: Data(#"{"indexes": []}"#.utf8)), indexMode: .enforce)
        apiUseQueue(db, queue.queue)
        let q = db.collection("c").whereField("a", isEqualTo: 1).order(by: "b")
        let result: APISent<(QuerySnapshot?, Error?)> = await apiCallback { done in
            q.getDocuments { snapshot, error in done(APISent(value: (snapshot, error))) }
        }
        #expect(result.value.0 == nil)
        #expect((result.value.1 as NSError?)?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        let aggregateError = await apiError { _ = try await q.count.getAggregation(source: .server) }
        #expect(aggregateError?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect(aggregateError?.localizedDescription.hasPrefix("The query requires an index") == true)
    }

    @Test func collectionGroupFiltersNeedCollectionGroupIndexes() async throws {
        // Automatic single-field indexes are collection-scoped (docs/semantics.md#index-requirements rule 5).
        let db = Firestore.inMemory(indexes: try IndexConfiguration(json: Data(#"{"indexes": []}"#.utf8)), indexMode: .enforce)
        try await qSeed(db, ["u/1/posts/p": ["v": 1]])
        #expect(await qError(db.collectionGroup("posts").whereField("v", isEqualTo: 1))?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect(try await qIDs(db.collectionGroup("posts")) == ["p"])
        let withOverride = Firestore.inMemory(indexes: try IndexConfiguration(json: Data(#"""
        {"indexes": [], "fieldOverrides": [{"collectionGroup": "posts", "fieldPath": "v", "indexes": [
          {"order": "ASCENDING", "queryScope": "COLLECTION"}, {"order": "ASCENDING", "queryScope": "COLLECTION_GROUP"}]}]}
        """#.utf8)), indexMode: .enforce)
        try await qSeed(withOverride, ["u/1/posts/p": ["v": 1]])
        #expect(try await qIDs(withOverride.collectionGroup("posts").whereField("v", isEqualTo: 1)) == ["p"])
    }

    @Test func learnModeRecordsTheIndexesQueriesNeed() async throws {
        let db = Firestore.inMemory(indexMode: .learn)
        try await qSeed(db, collection: "c", ["x": ["a": 1, "b": 2]])
        #expect(db.learnedIndexes().indexes.isEmpty)
        // Learning never fails the query.
        #expect(try await qIDs(db.collection("c").whereField("a", isEqualTo: 1).order(by: "b")) == ["x"])
        #expect(try await qIDs(db.collection("c").whereField("a", isEqualTo: 1)) == ["x"])
        let learned = db.learnedIndexes()
        #expect(learned.indexes.count == 1)
        #expect(learned.indexes.first?.collectionGroup == "c")
        let json = String(decoding: learned.json, as: UTF8.self)
        #expect(json.contains("\"a\""))
        #expect(json.contains("\"b\""))

        // The learned file, declared, lets the same query run under enforcement.
        let enforced = Firestore.inMemory(indexes: try IndexConfiguration(json: learned.json), indexMode: .enforce)
        try await qSeed(enforced, collection: "c", ["x": ["a": 1, "b": 2]])
        #expect(try await qIDs(enforced.collection("c").whereField("a", isEqualTo: 1).order(by: "b")) == ["x"])
    }

    @Test func offModeNeverChecks() async throws {
        let db = Firestore.inMemory(indexes: try IndexConfiguration(json: Data(#"{"indexes": []}"#.utf8)), indexMode: .off)
        try await qSeed(db, collection: "c", ["x": ["a": 1, "b": 2]])
        #expect(try await qIDs(db.collection("c").whereField("a", isEqualTo: 1).order(by: "b")) == ["x"])
        #expect(db.learnedIndexes().indexes.isEmpty)
    }
}
