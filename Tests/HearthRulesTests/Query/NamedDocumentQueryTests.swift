import HearthCore
import Testing
@testable import HearthRules

/// A list query whose disjuncts name their documents (`__name__ ==` or `in`, `documentId()`
/// in the SDKs) is checked per named document, in the official emulator's two passes
/// (docs/rules-language.md#list-queries; recorded in Tests/Differential/cases/rules_by_name.py).
@Suite struct NamedDocumentQueryTests {
    let alice = RulesAuth.mockUser(uid: "alice")
    let owned = "match /priv/{uid} { allow read: if request.auth.uid == uid; }"
    let visible = "match /priv/{uid} { allow read: if request.auth.uid == uid && resource.data.visible == true; }"
    let docs: [String: MapValue] = [
        "priv/alice": fields(("visible", .boolean(true))),
        "priv/carol": fields(("visible", .boolean(false))),
    ]

    let database = DatabaseID(project: "p", database: "(default)")

    func named(_ paths: String...) -> StructuredQuery {
        let values = paths.map { Value.reference(DocumentName(database: database, path: path($0))) }
        let filter: QueryFilter = values.count == 1
            ? .field(FieldPath(["__name__"]), .equal, values[0])
            : .field(FieldPath(["__name__"]), .in, .array(values))
        return StructuredQuery(parent: .root, collectionID: "priv", filter: filter)
    }

    func decide(_ rules: String, _ q: StructuredQuery, auth: RulesAuth?) throws -> RulesDecision {
        // The query's names are checked against the request's own database, project included.
        try program(rules).allowsQuery(q, in: database, auth: auth, time: testTime, data: store(docs))
    }

    @Test func theNameBindsTheWildcard() throws {
        #expect(try decide(owned, named("priv/alice"), auth: alice).allowed)
        #expect(try decide(owned, named("priv/zed"), auth: .mockUser(uid: "zed")).allowed)  // nothing to return: still allowed
        let other = try decide(owned, named("priv/bob"), auth: alice)
        #expect(!other.allowed)
        #expect(other.explanation == "false for 'list' @ L4")
    }

    @Test func everyNamedDocumentMustBeAllowed() throws {
        #expect(try decide(owned, named("priv/alice", "priv/alice"), auth: alice).allowed)
        let mixed = try decide(owned, named("priv/alice", "priv/bob"), auth: alice)
        #expect(!mixed.allowed)
        // The granted first disjunct is listed too, as `false`, as the emulator lists it.
        #expect(mixed.explanation == "false for 'list' @ L4, false for 'list' @ L4")
    }

    @Test func resourceIsReadInTheSecondPass() throws {
        #expect(try decide(visible, named("priv/alice"), auth: alice).allowed)
        let hidden = try decide(visible, named("priv/carol"), auth: .mockUser(uid: "carol"))
        #expect(!hidden.allowed)
        #expect(hidden.explanation == "evaluation error at L4:36 for 'list' @ L4, false for 'list' @ L4")
        let missing = try decide(visible, named("priv/zed"), auth: .mockUser(uid: "zed"))
        #expect(missing.explanation == "evaluation error at L4:36 for 'list' @ L4, Variable read error. Variable: [resource]. for 'list' @ L4")
    }

    @Test func aRangeOnTheNameLeavesTheWildcardUnbound() throws {
        let range = StructuredQuery(parent: .root, collectionID: "priv", filter: .field(
            FieldPath(["__name__"]), .greaterThanOrEqual,
            .reference(DocumentName(database: database, path: path("priv/alice")))))
        let d = try decide(owned, range, auth: alice)
        #expect(!d.allowed)
        #expect(d.explanation == "Null value error. for 'list' @ L4")
    }
}
