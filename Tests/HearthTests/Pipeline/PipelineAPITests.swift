import Foundation
import Testing
import Hearth

/// `db.pipeline()` as the iOS SDK spells it: every stage, a representative of each function
/// family, rules, and the snippets' shapes (`&&`, `Constant`, `CountAll`, subqueries).
@Suite struct PipelineAPITests {
    static func books() async throws -> Firestore {
        let db = Firestore.inMemory()
        let books: [(String, [String: Any])] = [
            ("b1", ["title": "Dune", "author": "Frank Herbert", "genre": "Science Fiction", "published": 1965, "rating": 4.6,
                    "tags": ["politics", "desert"], "awards": ["hugo": true]]),
            ("b2", ["title": "Pride and Prejudice", "author": "Jane Austen", "genre": "Romance", "published": 1813, "rating": 4.5,
                    "tags": ["classic", "love"], "awards": ["none": true]]),
            ("b3", ["title": "1984", "author": "George Orwell", "genre": "Dystopian", "published": 1949, "rating": 4.2,
                    "tags": ["surveillance"], "awards": ["prometheus": true]]),
            ("b4", ["title": "The Handmaid's Tale", "author": "Margaret Atwood", "genre": "Dystopian", "published": 1985, "rating": 4.1,
                    "tags": ["feminism"], "awards": ["clarke": true]]),
        ]
        for (id, data) in books { try await db.collection("books").document(id).setData(data) }
        try await db.collection("books").document("b1").collection("reviews").document("r1").setData(["stars": 5])
        return db
    }

    static func titles(_ snapshot: Pipeline.Snapshot) -> [String] { snapshot.results.compactMap { $0.data["title"] as? String } }

    @Test func sourcesWhereSortLimitOffset() async throws {
        let db = try await Self.books()
        var s = try await db.pipeline().collection("books")
            .where(Field("published").greaterThan(1900) && Field("rating").lessThan(4.5))
            .sort([Field("published").descending()])
            .execute()
        #expect(Self.titles(s) == ["The Handmaid's Tale", "1984"])
        #expect(s.results[0].id == "b4")
        #expect(s.results[0].ref?.path == "books/b4")
        s = try await db.pipeline().collection(db.collection("books")).sort([Field("title").ascending()]).offset(1).limit(2).execute()
        #expect(Self.titles(s) == ["Dune", "Pride and Prejudice"])
        s = try await db.pipeline().collectionGroup("reviews").execute()
        #expect(s.results.map { $0.data["stars"] as? Int } == [5])
        s = try await db.pipeline().documents([db.collection("books").document("b2"), db.collection("books").document("nope")]).execute()
        #expect(Self.titles(s) == ["Pride and Prejudice"])
        s = try await db.pipeline().database().execute()
        #expect(s.results.count == 5)
        let query = db.collection("books").whereField("genre", isEqualTo: "Dystopian").order(by: "rating", descending: true).limit(to: 1)
        s = try await db.pipeline().create(from: query).execute()
        #expect(Self.titles(s) == ["1984"])
    }

    @Test func selectAddRemoveDistinctAggregate() async throws {
        let db = try await Self.books()
        var s = try await db.pipeline().collection("books")
            .where(Field("title").equal(Constant("Dune")))
            .select([Field("title"), Field("published").add(1).as("next")])
            .addFields([Field("title").toUpper().as("loud")])
            .removeFields(["title"])
            .execute()
        #expect(s.results.count == 1)
        #expect(s.results[0].data["next"] as? Int == 1966)
        #expect(s.results[0].data["loud"] as? String == "DUNE")
        #expect(s.results[0].data["title"] == nil)
        s = try await db.pipeline().collection("books").distinct(["genre"]).sort([Field("genre").ascending()]).execute()
        #expect(s.results.map { $0.data["genre"] as? String } == ["Dystopian", "Romance", "Science Fiction"])
        s = try await db.pipeline().collection("books")
            .aggregate([CountAll().as("n"), Field("rating").average().as("avg"), Field("published").minimum().as("oldest")],
                       groups: [Field("genre")])
            .where(Field("genre").equal("Dystopian"))
            .execute()
        #expect(s.results.first?.data["n"] as? Int == 2)
        #expect(abs((s.results.first?.data["avg"] as? Double ?? 0) - 4.15) < 1e-9)
        #expect(s.results.first?.data["oldest"] as? Int == 1949)
        s = try await db.pipeline().collection("books").aggregate([Field("rating").greaterThan(4.3).countIf().as("high")]).execute()
        #expect(s.results.first?.data["high"] as? Int == 2)
    }

    @Test func unnestReplaceSampleUnionFindNearestDefineSubqueries() async throws {
        let db = try await Self.books()
        var s = try await db.pipeline().collection("books").where(Field("title").equal("Dune"))
            .unnest(Field("tags").as("tag"), indexField: "i").select(["tag", "i"]).execute()
        #expect(s.results.map { $0.data["tag"] as? String } == ["politics", "desert"])
        #expect(s.results.map { $0.data["i"] as? Int } == [0, 1])
        s = try await db.pipeline().collection("books").where(Field("title").equal("Dune")).replace(with: "awards").execute()
        #expect(s.results.first?.data["hugo"] as? Bool == true)
        s = try await db.pipeline().collection("books").sample(count: 2).execute()
        #expect(s.results.count == 2)
        s = try await db.pipeline().collection("books").union(with: db.pipeline().collection("books")).execute()
        #expect(s.results.count == 8)
        try await db.collection("vectors").document("v1").setData(["e": VectorValue([1, 2, 3])])
        try await db.collection("vectors").document("v2").setData(["e": VectorValue([4, 5, 6])])
        s = try await db.pipeline().collection("vectors")
            .findNearest(field: Field("e"), vectorValue: VectorValue([4, 5, 6]), distanceMeasure: .euclidean, limit: 1, distanceField: "d")
            .execute()
        #expect(s.results.map(\.id) == ["v2"])
        #expect(s.results.first?.data["d"] as? Double == 0)
        s = try await db.pipeline().collection("books").where(Field("title").equal("1984"))
            .define([Field("genre").as("g")])
            .select([Field("title"),
                     db.pipeline().collection("books").where(Field("genre").equal(Variable("g"))).select(["title"])
                        .sort([Field("title").ascending()]).toArrayExpression().as("same"),
                     Subcollection("reviews").select(["stars"]).toArrayExpression().as("reviews")])
            .execute()
        #expect(s.results.first?.data["same"] as? [String] == ["1984", "The Handmaid's Tale"])
        #expect((s.results.first?.data["reviews"] as? [Any])?.isEmpty == true)
    }

    @Test func functionFamilies() async throws {
        let db = try await Self.books()
        let s = try await db.pipeline().collection("books").where(Field("title").equal("Dune"))
            .select([
                Field("rating").multiply(10).round().as("arith"),
                Field("title").charLength().as("string"),
                Field("tags").arrayContains("desert").as("array"),
                Field("awards").mapGet("hugo").as("map"),
                Field("published").greaterThanOrEqual(1965).as("comparison"),
                (Field("published").lessThan(1900) || Field("genre").equal("Science Fiction")).as("logic"),
                Constant(Timestamp(seconds: 86_400 * 3 + 3600, nanoseconds: 0)).timestampTruncate(granularity: .day).as("time"),
                Constant(VectorValue([1, 2])).dotProduct([3, 4]).as("vector"),
                Field("rating").type().as("type"),
                Field("__name__").documentId().as("reference"),
                Field("missing").ifAbsent("none").as("absent"),
                Field("title").divide(2).isError().as("error"),
                ConditionalExpression(Field("rating").greaterThan(4.5), then: Constant("great"), else: Constant("good")).as("cond"),
            ])
            .execute()
        let d = try #require(s.results.first?.data)
        #expect(d["arith"] as? Double == 46)
        #expect(d["string"] as? Int == 4)
        #expect(d["array"] as? Bool == true)
        #expect(d["map"] as? Bool == true)
        #expect(d["comparison"] as? Bool == true)
        #expect(d["logic"] as? Bool == true)
        #expect((d["time"] as? Timestamp).map { Int($0.seconds) } == 259_200)
        #expect(d["vector"] as? Double == 11)
        #expect(d["type"] as? String == "float64")
        #expect(d["reference"] as? String == "b1")
        #expect(d["absent"] as? String == "none")
        #expect(d["error"] as? Bool == true)
        #expect(d["cond"] as? String == "great")
    }

    @Test func errorsAndRules() async throws {
        let db = try await Self.books()
        await #expect(throws: FirestoreErrorCode.self) {
            _ = try await db.pipeline().collection("books").select([Field("title").add(1).as("bad")]).execute()
        }
        await #expect(throws: FirestoreErrorCode.self) { _ = try await Subcollection("x").execute() }
        try db.setRules("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /books/{id} { allow read: if resource.data.genre == 'Dystopian'; }
          }
        }
        """)
        let user = db.authenticated(uid: "u")
        let s = try await user.pipeline().collection("books").where(Field("genre").equal("Dystopian")).execute()
        #expect(s.results.count == 2)
        await #expect(throws: FirestoreErrorCode.self) { _ = try await user.pipeline().collection("books").execute() }
        await #expect(throws: FirestoreErrorCode.self) { _ = try await user.pipeline().database().execute() }
    }
}
