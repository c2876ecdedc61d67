import HearthCore
import Testing
@testable import HearthRules

/// List queries are proved from their constraints (docs/rules-language.md#list-queries worked examples,
/// docs/rules-language.md#list-queries for what the emulator proves).
@Suite struct QueryProverTests {
    let alice = RulesAuth.mockUser(uid: "alice")

    func query(_ collection: String, _ filters: [QueryFilter] = [], limit: Int? = nil, group: Bool = false) -> StructuredQuery {
        let p = path(collection)
        return StructuredQuery(parent: group ? .root : p.parent, collectionID: p.lastSegment, allDescendants: group,
                               filter: filters.isEmpty ? nil : (filters.count == 1 ? filters[0] : .composite(.and, filters)), limit: limit)
    }

    func eq(_ f: String, _ v: Value) -> QueryFilter { .field(FieldPath([f]), .equal, v) }

    func allows(_ rules: String, _ q: StructuredQuery, auth: RulesAuth? = .mockUser(uid: "alice"), docs: [String: MapValue] = [:]) throws -> Bool {
        try program(rules).allowsQuery(q, auth: auth, time: testTime, data: store(docs)).allowed
    }

    @Test func authorEqualsCaller() throws {
        let r = "match /stories/{id} { allow read: if request.auth.uid == resource.data.author; }"
        #expect(try !allows(r, query("stories")))
        #expect(try allows(r, query("stories", [eq("author", .string("alice"))])))
        #expect(try !allows(r, query("stories", [eq("author", .string("someone-else"))])))
        #expect(try allows(r, query("stories", [.field(FieldPath(["author"]), .in, .array([.string("alice")]))])))
        #expect(try !allows(r, query("stories", [.field(FieldPath(["author"]), .in, .array([.string("alice"), .string("bob")]))])))
    }

    @Test func publishedOrAuthor() throws {
        let r = "match /stories/{id} { allow read: if resource.data.published == true || (request.auth != null && request.auth.uid == resource.data.author); }"
        #expect(try allows(r, query("stories", [eq("published", .boolean(true))])))
        #expect(try allows(r, query("stories", [eq("author", .string("alice"))])))
        #expect(try !allows(r, query("stories")))
        #expect(try !allows(r, query("stories", [eq("author", .string("alice"))]), auth: nil))
    }

    @Test func everyDisjunctMustPass() throws {
        let r = "match /n/{id} { allow read: if resource.data.x > 5; }"
        func inList(_ xs: [Int64]) -> QueryFilter { .field(FieldPath(["x"]), .in, .array(xs.map { .integer($0) })) }
        #expect(try !allows(r, query("n", [.composite(.or, [eq("x", .integer(1)), eq("x", .integer(6))])])))
        #expect(try !allows(r, query("n", [inList([1, 3, 6, 42, 99])])))
        #expect(try allows(r, query("n", [.composite(.or, [eq("x", .integer(6)), eq("x", .integer(42))])])))
        #expect(try allows(r, query("n", [inList([6, 42, 99, 105, 200])])))
    }

    @Test func limit() throws {
        let r = "match /s/{id} { allow list: if request.query.limit <= 10 && (resource.data.published == true || request.auth.uid == resource.data.author); }"
        let published = eq("published", .boolean(true))
        #expect(try !allows(r, query("s", [published])))
        #expect(try allows(r, query("s", [published], limit: 10)))
        #expect(try !allows(r, query("s", [published], limit: 11)))
    }

    @Test func ranges() throws {
        let r = "match /p/{id} { allow list: if resource.data.price >= 10 && resource.data.price < 100; }"
        func range(_ lo: FieldOperator, _ a: Int64, _ hi: FieldOperator, _ b: Int64) -> [QueryFilter] {
            [.field(FieldPath(["price"]), lo, .integer(a)), .field(FieldPath(["price"]), hi, .integer(b))]
        }
        #expect(try allows(r, query("p", range(.greaterThanOrEqual, 10, .lessThan, 100))))
        #expect(try allows(r, query("p", range(.greaterThanOrEqual, 20, .lessThan, 50))))
        #expect(try allows(r, query("p", range(.greaterThan, 10, .lessThanOrEqual, 99))))
        #expect(try !allows(r, query("p", range(.greaterThanOrEqual, 5, .lessThan, 100))))
        #expect(try !allows(r, query("p", [.field(FieldPath(["price"]), .greaterThanOrEqual, .integer(10))])))
        #expect(try allows(r, query("p", [eq("price", .integer(50))])))
    }

    @Test func notEqualAndArrayContains() throws {
        let ne = "match /s/{id} { allow list: if resource.data.status != 'deleted'; }"
        #expect(try allows(ne, query("s", [.field(FieldPath(["status"]), .notEqual, .string("deleted"))])))
        #expect(try allows(ne, query("s", [.field(FieldPath(["status"]), .notIn, .array([.string("deleted"), .string("x")]))])))
        #expect(try !allows(ne, query("s", [.field(FieldPath(["status"]), .notEqual, .string("other"))])))
        let members = "match /b/{id} { allow list: if request.auth.uid in resource.data.members; }"
        #expect(try allows(members, query("b", [.field(FieldPath(["members"]), .arrayContains, .string("alice"))])))
        #expect(try !allows(members, query("b", [.field(FieldPath(["members"]), .arrayContains, .string("bob"))])))
        #expect(try allows(members, query("b", [eq("members", .array([.string("alice"), .string("bob")]))])))
        let size = "match /b/{id} { allow list: if resource.data.tags.size() == 2; }"
        #expect(try allows(size, query("b", [eq("tags", .array([.string("a"), .string("b")]))])))
        #expect(try !allows(size, query("b", [.field(FieldPath(["tags"]), .arrayContains, .string("a"))])))
    }

    @Test func getOnAConstrainedValueAndTheDocumentWildcard() throws {
        let r = "match /v/{id} { allow list: if get(/databases/$(database)/documents/meta/$(resource.data.board)).data.open == true; }"
        let docs = ["meta/b1": fields(("open", .boolean(true))), "meta/b2": fields(("open", .boolean(false)))]
        #expect(try allows(r, query("v", [eq("board", .string("b1"))]), docs: docs))
        #expect(try !allows(r, query("v", [eq("board", .string("b2"))]), docs: docs))
        #expect(try !allows(r, query("v"), docs: docs))
        let wildcard = try program("match /d/{id} { allow list: if id == null; }")
        let d = wildcard.allowsQuery(query("d"), auth: alice, time: testTime, data: store([:]))
        #expect(!d.allowed)
        #expect(d.outcomes.first?.result == .error("Null value error."))
    }

    @Test func collectionGroups() throws {
        let r = "match /{path=**}/posts/{post} { allow list: if resource.data.author == request.auth.uid; }\nmatch /teams/{t}/members/{m} { allow list: if true; }"
        #expect(try allows(r, query("posts", [eq("author", .string("alice"))], group: true)))
        #expect(try !allows(r, query("posts", group: true)))
        #expect(try allows(r, query("users/alice/posts", [eq("author", .string("alice"))])))
        #expect(try !allows(r, query("members", group: true)))
        #expect(try allows(r, query("teams/red/members")))
    }

    @Test func acceptsANormalizedQuery() throws {
        let p = try program("match /stories/{id} { allow list: if resource.data.author == request.auth.uid; }")
        let normalized = try NormalizedQuery(query("stories", [eq("author", .string("alice"))]), database: DatabaseID(project: "p"))
        #expect(p.allowsQuery(normalized, auth: alice, time: testTime, data: store([:])).allowed)
        let other = try NormalizedQuery(query("stories", [eq("author", .string("bob"))]), database: DatabaseID(project: "p"))
        #expect(!p.allowsQuery(other, auth: alice, time: testTime, data: store([:])).allowed)
    }

    @Test func invalidQueryIsDeniedWithTheValidationMessage() throws {
        let p = try program("match /s/{id} { allow list: if true; }")
        let bad = query("s", [.field(FieldPath(["a"]), .in, .array([]))])
        let d = p.allowsQuery(bad, auth: alice, time: testTime, data: store([:]))
        #expect(!d.allowed)
        #expect(d.explanation.contains("non-empty"))   // HearthCore's validation message
    }

    @Test func listRequestRoutesThroughTheProver() throws {
        let p = try program("match /s/{id} { allow list: if resource.data.a == 1; }")
        let q = query("s", [eq("a", .integer(1))])
        #expect(p.evaluate(RulesRequest.list(q, auth: nil, time: testTime), data: store([:])).allowed)
    }
}
