import Foundation
import Testing
@testable import Hearth

/// count / sum / average through `Query.count`, `aggregate(_:)` and `AggregateQuerySnapshot`
/// (docs/semantics.md#aggregations, docs/embedded-api.md#aggregations).
@Suite struct AggregateQueryTests {
    private func booksDB() async throws -> CollectionReference {
        let db = qDB()
        // The js-sdk prod/emulator vector (docs/semantics.md#aggregations).
        try await qSeed(db, collection: "books", [
            "a": ["pages": 100, "year": 1980],
            "b": ["pages": 50, "year": 2020],
            "c": ["pages": 150, "year": 2021],
            "d": ["pages": 50],
        ])
        return db.collection("books")
    }

    private func aggregate(_ query: Query, _ fields: [AggregateField]) async throws -> AggregateQuerySnapshot {
        try await query.aggregate(fields).getAggregation(source: .server)
    }

    // MARK: Values (docs/semantics.md#aggregations vectors)

    @Test func countTheTypicalWay() async throws {
        let books = try await booksDB()
        #expect(try await books.count.getAggregation(source: .server).count.intValue == 4)
        #expect(try await books.whereField("pages", isEqualTo: 50).count.getAggregation(source: .server).count.intValue == 2)
        let snapshot = try await books.count.getAggregation(source: .server)
        #expect(apiNumberKind(snapshot.count) == "integer")
        #expect(snapshot.get(.count()) as? Int == 4)
    }

    @Test func sumAverageAndCountOverDocumentsHavingEveryField() async throws {
        let books = try await booksDB()
        let snapshot = try await aggregate(books, [.sum("pages"), .average("pages"), .average("year"), .count()])
        #expect(snapshot.get(.sum("pages")) as? Int == 300)
        #expect(apiNumberKind(snapshot.get(.sum("pages"))) == "integer")
        #expect(snapshot.get(.average("pages")) as? Double == 100)
        #expect(apiNumberKind(snapshot.get(.average("pages"))) == "double")
        #expect(snapshot.get(.average("year")) as? Double == 2007)
        #expect(snapshot.count.intValue == 3)
    }

    @Test func singleFieldCountsEveryDocumentHavingIt() async throws {
        let db = qDB()
        try await qSeed(db, collection: "r", [
            "a": ["rating": 5], "b": ["rating": 3], "c": ["rating": 2], "d": ["rating": "3"], "e": ["other": 1],
        ])
        let snapshot = try await aggregate(db.collection("r"), [.count(), .sum("rating")])
        #expect(snapshot.count.intValue == 4)
        #expect(snapshot.get(.sum("rating")) as? Int == 10)
        let average = try await aggregate(db.collection("r"), [.average("rating")])
        #expect((average.get(.average("rating")) as? Double).map { abs($0 - 10.0 / 3.0) < 1e-12 } == true)
    }

    @Test func emptySet() async throws {
        let db = qDB()
        let snapshot = try await aggregate(db.collection("none"), [.count(), .sum("v"), .average("v")])
        #expect(snapshot.count.intValue == 0)
        #expect(snapshot.get(.sum("v")) as? Int == 0)
        #expect(apiNumberKind(snapshot.get(.sum("v"))) == "integer")
        #expect(snapshot.get(.average("v")) is NSNull)
    }

    @Test func sumTypes() async throws {
        let db = qDB()
        try await qSeed(db, collection: "ints", ["a": ["v": 1], "b": ["v": 2], "c": ["v": NSNull()], "d": ["v": "x"]])
        try await qSeed(db, collection: "mixed", ["a": ["v": 10], "b": ["v": 9.5], "c": ["v": 10.5]])
        try await qSeed(db, collection: "big", ["a": ["v": Int64.max], "b": ["v": Int64.max]])
        try await qSeed(db, collection: "back", ["a": ["v": Int64.max], "b": ["v": 1], "c": ["v": -101]])
        try await qSeed(db, collection: "nan", ["a": ["v": 1], "b": ["v": Double.nan]])
        try await qSeed(db, collection: "inf", ["a": ["v": Double.greatestFiniteMagnitude], "b": ["v": Double.greatestFiniteMagnitude]])

        let ints = try await aggregate(db.collection("ints"), [.sum("v"), .average("v")])
        #expect(ints.get(.sum("v")) as? Int == 3)
        #expect(apiNumberKind(ints.get(.sum("v"))) == "integer")
        #expect(ints.get(.average("v")) as? Double == 1.5)

        let mixed = try await aggregate(db.collection("mixed"), [.sum("v"), .average("v")])
        #expect(mixed.get(.sum("v")) as? Double == 30)
        #expect(apiNumberKind(mixed.get(.sum("v"))) == "double")
        #expect(mixed.get(.average("v")) as? Double == 10)

        // Int64 overflow turns the sum into a double; overflow is judged on the final result.
        let big = try await aggregate(db.collection("big"), [.sum("v")])
        #expect(big.get(.sum("v")) as? Double == 1.8446744073709552e19)
        #expect(apiNumberKind(big.get(.sum("v"))) == "double")
        let back = try await aggregate(db.collection("back"), [.sum("v")])
        #expect((back.get(.sum("v")) as? NSNumber)?.int64Value == Int64.max - 100)
        #expect(apiNumberKind(back.get(.sum("v"))) == "integer")

        let nan = try await aggregate(db.collection("nan"), [.sum("v"), .average("v")])
        #expect((nan.get(.sum("v")) as? Double)?.isNaN == true)
        #expect((nan.get(.average("v")) as? Double)?.isNaN == true)

        let inf = try await aggregate(db.collection("inf"), [.sum("v")])
        #expect(inf.get(.sum("v")) as? Double == .infinity)
    }

    @Test func nestedAndFieldPathFields() async throws {
        let db = qDB()
        try await qSeed(db, collection: "c", ["a": ["metadata": ["pages": 10, "x.y": 1]], "b": ["metadata": ["pages": 5, "x.y": 2]]])
        let c = db.collection("c")
        let snapshot = try await aggregate(c, [.sum("metadata.pages"), .average(FieldPath(["metadata", "x.y"])), .sum(FieldPath(["metadata", "pages"]))])
        #expect(snapshot.get(.sum("metadata.pages")) as? Int == 15)
        #expect(snapshot.get(.sum(FieldPath(["metadata", "pages"]))) as? Int == 15)
        #expect(snapshot.get(.average(FieldPath(["metadata", "x.y"]))) as? Double == 1.5)
    }

    // MARK: The query's results

    @Test func filtersCursorsAndLimitsApply() async throws {
        let db = qDB()
        try await qSeed(db, collection: "n", ["a": ["v": 1], "b": ["v": 2], "c": ["v": 3], "d": ["v": 4], "e": ["v": 5]])
        let n = db.collection("n")
        func count(_ q: Query) async throws -> Int { try await q.count.getAggregation(source: .server).count.intValue }
        #expect(try await count(n.whereField("v", isGreaterThan: 2)) == 3)
        #expect(try await count(n.limit(to: 2)) == 2)
        #expect(try await count(n.limit(to: 10)) == 5)
        #expect(try await count(n.order(by: "v").start(after: [1]).end(at: [4])) == 3)
        #expect(try await count(n.whereFilter(.orFilter([.whereField("v", isEqualTo: 1), .whereField("v", isEqualTo: 5)]))) == 2)
        // limit applies before sum: the first two by v, or the last two.
        let firstTwo = try await aggregate(n.order(by: "v").limit(to: 2), [.sum("v")])
        #expect(firstTwo.get(.sum("v")) as? Int == 3)
        let lastTwo = try await aggregate(n.order(by: "v").limit(toLast: 2), [.sum("v")])
        #expect(lastTwo.get(.sum("v")) as? Int == 9)
        let lastByID = try await aggregate(n.limit(toLast: 2), [.sum("v")])
        #expect(lastByID.get(.sum("v")) as? Int == 9)
    }

    @Test func collectionGroupAggregation() async throws {
        let db = qDB()
        try await qSeed(db, ["u/1/posts/a": ["likes": 3], "u/2/posts/b": ["likes": 4], "posts/c": ["likes": 5], "u/1/drafts/d": ["likes": 100]])
        let snapshot = try await aggregate(db.collectionGroup("posts"), [.count(), .sum("likes")])
        #expect(snapshot.count.intValue == 3)
        #expect(snapshot.get(.sum("likes")) as? Int == 12)
    }

    @Test func repeatedAggregationIsComputedOnce() async throws {
        let books = try await booksDB()
        let snapshot = try await aggregate(books, [.sum("pages"), .sum("pages"), .count(), .count()])
        #expect(snapshot.get(.sum("pages")) as? Int == 350)
        #expect(snapshot.count.intValue == 4)
    }

    // MARK: Server-side errors

    @Test func tooManyAndNoAggregations() async throws {
        let books = try await booksDB()
        let six: [AggregateField] = [.count(), .sum("a"), .sum("b"), .average("a"), .average("b"), .sum("c")]
        let tooMany = try #require(await apiError { _ = try await books.aggregate(six).getAggregation(source: .server) })
        #expect(tooMany.domain == FirestoreErrorDomain)
        #expect(tooMany.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(tooMany.localizedDescription.contains("maximum number of aggregations"))
        let five = Array(six.prefix(5))
        #expect(await apiError { _ = try await books.aggregate(five).getAggregation(source: .server) } == nil)

        let empty = try #require(await apiError { _ = try await books.aggregate([]).getAggregation(source: .server) })
        #expect(empty.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(empty.localizedDescription.contains("Aggregations can not be empty"))
    }

    @Test func completionForm() async throws {
        let queue = APICallbackQueue()
        let db = Firestore.inMemory(indexMode: .off)
        apiUseQueue(db, queue.queue)
        try await qSeed(db, collection: "c", ["a": ["v": 1], "b": ["v": 2]])
        let result: APISent<(AggregateQuerySnapshot?, Error?, Bool)> = await apiCallback { done in
            db.collection("c").aggregate([.count(), .sum("v")]).getAggregation(source: .server) { snapshot, error in
                done(APISent(value: (snapshot, error, queue.isCurrent)))
            }
        }
        #expect(result.value.0?.count.intValue == 2)
        #expect(result.value.0?.get(.sum("v")) as? Int == 3)
        #expect(result.value.1 == nil)
        #expect(result.value.2)

        let failure: APISent<(AggregateQuerySnapshot?, Error?)> = await apiCallback { done in
            db.collection("c").aggregate([]).getAggregation(source: .server) { snapshot, error in
                done(APISent(value: (snapshot, error)))
            }
        }
        #expect(failure.value.0 == nil)
        #expect((failure.value.1 as NSError?)?.code == FirestoreErrorCode.invalidArgument.rawValue)
    }

    // MARK: Identity and equality

    @Test func aggregateFieldsCompareByValue() {
        #expect(AggregateField.count() == .count())
        #expect(AggregateField.sum("pages") == .sum("pages"))
        #expect(AggregateField.sum("a.b") == .sum(FieldPath(["a", "b"])))
        #expect(AggregateField.sum("pages") != .average("pages"))
        #expect(AggregateField.sum("pages") != .sum("year"))
        #expect(Set<AggregateField>([.sum("pages"), .sum("pages"), .count()]).count == 2)
        #expect(AggregateField.average(FieldPath(["a.b"])).alias == "avg_`a.b`")
        #expect(AggregateField.count().alias == "count")
    }

    @Test func aggregateQueryKeepsItsQuery() async throws {
        let books = try await booksDB()
        let q = books.whereField("pages", isGreaterThan: 60)
        let aggregateQuery = q.aggregate([.count()])
        #expect(aggregateQuery.query == q)
        #expect(aggregateQuery == q.count)
        #expect(aggregateQuery != books.count)
        let snapshot = try await aggregateQuery.getAggregation(source: .server)
        #expect(snapshot.query === aggregateQuery)
        #expect(snapshot.count.intValue == 2)
    }

    // MARK: Programmer errors (docs/embedded-api.md#aggregations)

    @Test func askingForAnAggregationNotRequested() async throws {
        let books = try await booksDB()
        let snapshot = try await aggregate(books, [.sum("pages")])
        #expect(apiRejection { _ = try snapshot.value(for: .count()) } == "'count()' was not requested in the aggregation query.")
        #expect(apiRejection { _ = try snapshot.value(for: .sum("foo")) } == "'sum(foo)' was not requested in the aggregation query.")
        #expect(apiRejection { _ = try snapshot.value(for: .average("pages")) } == "'avg(pages)' was not requested in the aggregation query.")
        #expect(apiRejection { _ = try snapshot.value(for: .sum(FieldPath(["a-b", "c"]))) } == "'sum(`a-b`.c)' was not requested in the aggregation query.")
        #expect(apiRejection { _ = try snapshot.value(for: .sum("pages")) } == nil)
    }
}
