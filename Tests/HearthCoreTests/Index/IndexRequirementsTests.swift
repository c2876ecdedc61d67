import Foundation
import Testing
@testable import HearthCore

/// The index model of docs/semantics.md#index-requirements (rule numbers refer to it).
@Suite struct IndexRequirementsTests {
    typealias Field = IndexDefinition.Field
    typealias Entry = IndexConfiguration.FieldOverride.Entry

    // Builders are members so they shadow, not clash with, other files' global helpers.
    func path(_ p: String) -> FieldPath { p == "__name__" ? .documentName : FieldPath(p.split(separator: ".").map(String.init)) }
    func eq(_ p: String, _ v: Value = .integer(1)) -> QueryFilter { .field(path(p), .equal, v) }
    func cmp(_ p: String, _ op: FieldOperator, _ v: Value = .integer(1)) -> QueryFilter { .field(path(p), op, v) }
    func all(_ f: QueryFilter...) -> QueryFilter { .composite(.and, f) }
    func any(_ f: QueryFilter...) -> QueryFilter { .composite(.or, f) }
    func up(_ p: String) -> Ordering { Ordering(path(p)) }
    func down(_ p: String) -> Ordering { Ordering(path(p), descending: true) }
    func asc(_ p: String) -> Field { Field(path(p), .ascending) }
    func desc(_ p: String) -> Field { Field(path(p), .descending) }

    func query(_ filter: QueryFilter? = nil, order: [Ordering] = [], group: Bool = false,
               nearest: FindNearest? = nil) throws -> NormalizedQuery {
        try NormalizedQuery(StructuredQuery(collectionID: "c", allDescendants: group, filter: filter, orderBy: order,
                                            findNearest: nearest), database: DatabaseID(project: "p"))
    }

    func missing(_ filter: QueryFilter? = nil, order: [Ordering] = [], group: Bool = false,
                 aggregations: [Aggregation] = [], config: IndexConfiguration = IndexConfiguration()) throws -> IndexDefinition? {
        IndexRequirements.missingIndex(for: try query(filter, order: order, group: group), aggregations: aggregations,
                                       configuration: config)
    }

    func composite(_ fields: Field..., group: Bool = false) -> IndexDefinition {
        IndexDefinition(collectionGroup: "c", scope: group ? .collectionGroup : .collection, fields: fields)
    }

    // MARK: Rules 1–3: served without a composite index

    @Test func equalitiesOnManyFieldsNeedNoComposite() throws {
        #expect(try missing(all(eq("a"), eq("b"), eq("c.d"), .unary(path("e"), .isNull))) == nil)
        #expect(try missing(all(eq("a"), cmp("tags", .arrayContains))) == nil)
        #expect(try missing(all(cmp("a", .in, .array([.integer(1), .integer(2)])), eq("b"))) == nil)
        #expect(try missing(all(eq("a"), eq("b")), order: [down("__name__")]) == nil)
    }

    @Test func oneOrderedFieldInEitherDirectionNeedsNoComposite() throws {
        #expect(try missing(cmp("a", .greaterThan)) == nil)
        #expect(try missing(all(cmp("a", .greaterThan), cmp("a", .lessThan, .integer(9)))) == nil)
        #expect(try missing(cmp("a", .greaterThan), order: [down("a")]) == nil)
        #expect(try missing(order: [down("a")]) == nil)
        #expect(try missing(cmp("a", .notEqual)) == nil)
        #expect(try missing(cmp("a", .in, .array([.integer(1), .integer(2)])), order: [up("a")]) == nil)
    }

    @Test func documentNameOnlyQueriesAreAlwaysServed() throws {
        let ref = Value.reference(DocumentName(database: DatabaseID(project: "p"), path: ResourcePath(segments: ["c", "x"])))
        #expect(try missing(cmp("__name__", .greaterThan, ref), order: [down("__name__")]) == nil)
        #expect(try missing(eq("__name__", ref)) == nil)
        #expect(try missing(cmp("__name__", .greaterThan, ref), group: true) == nil)
        #expect(try missing(all(eq("a"), cmp("__name__", .greaterThan, ref))) == nil)
    }

    // MARK: Rule 4: composite indexes

    @Test func equalityThenOrderNeedsComposite() throws {
        #expect(try missing(eq("a"), order: [up("b")]) == composite(asc("a"), asc("b")))
        #expect(try missing(all(eq("a"), cmp("b", .greaterThan))) == composite(asc("a"), asc("b")))
        // Equality fields are sorted by path whatever the filter order.
        #expect(try missing(all(eq("z"), eq("a"), cmp("m", .lessThan)), order: [down("m")])
                == composite(asc("a"), asc("z"), desc("m")))
    }

    @Test func twoOrderedFieldsNeedComposite() throws {
        let index = try #require(try missing(order: [up("a"), down("b")]))
        #expect(index == composite(asc("a"), desc("b")))
        #expect(index.nameDescending)
        #expect(try missing(cmp("a", .greaterThan), order: [up("b")]) == composite(asc("b"), asc("a")))
        // Inequality fields join the order sorted by path, in the last explicit direction.
        #expect(try missing(all(cmp("b", .greaterThan), cmp("a", .lessThan))) == composite(asc("a"), asc("b")))
        #expect(try missing(cmp("x", .greaterThanOrEqual), order: [down("y")]) == composite(desc("y"), desc("x")))
    }

    @Test func arrayContainsWithOrderNeedsContainsField() throws {
        #expect(try missing(cmp("tags", .arrayContains), order: [down("createdAt")])
                == composite(Field(path("tags"), .contains), desc("createdAt")))
        #expect(try missing(all(eq("a"), cmp("tags", .arrayContainsAny, .array([.integer(1), .integer(2)])), cmp("n", .lessThan)))
                == composite(asc("a"), Field(path("tags"), .contains), asc("n")))
    }

    @Test func explicitNameInAnotherDirectionIsPartOfTheIndex() throws {
        #expect(try missing(order: [up("a"), down("__name__")]) == composite(asc("a"), Field(.documentName, .descending)))
        #expect(try missing(order: [up("a"), up("__name__")]) == nil)
    }

    // MARK: Rule 5: collection groups

    @Test func collectionGroupNeedsCollectionGroupScope() throws {
        #expect(try missing(eq("a"), group: true) == composite(asc("a"), group: true))
        #expect(try missing(order: [down("a")], group: true) == composite(desc("a"), group: true))
        let config = IndexConfiguration(fieldOverrides: [
            .init(collectionGroup: "c", fieldPath: path("a"), indexes: [Entry(.ascending), Entry(.ascending, scope: .collectionGroup)]),
        ])
        #expect(try missing(eq("a"), group: true, config: config) == nil)
        #expect(try missing(cmp("a", .greaterThan), group: true, config: config) == nil)
        #expect(try missing(order: [down("a")], group: true, config: config) == composite(desc("a"), group: true))
        // The override does not serve another collection group.
        let other = IndexConfiguration(fieldOverrides: [
            .init(collectionGroup: "d", fieldPath: path("a"), indexes: [Entry(.ascending, scope: .collectionGroup)]),
        ])
        #expect(try missing(eq("a"), group: true, config: other) == composite(asc("a"), group: true))
        // Composite needs of collection-group queries have collection-group scope.
        #expect(try missing(eq("a"), order: [up("b")], group: true) == composite(asc("a"), asc("b"), group: true))
        let declared = IndexConfiguration(indexes: [composite(asc("a"), asc("b"), group: true)])
        #expect(try missing(eq("a"), order: [up("b")], group: true, config: declared) == nil)
        #expect(try missing(eq("a"), order: [up("b")], config: declared) == composite(asc("a"), asc("b")))
    }

    // MARK: Rule 8: exemptions

    @Test func disabledFieldNeedsItsSingleFieldIndex() throws {
        let config = IndexConfiguration(fieldOverrides: [
            .init(collectionGroup: "c", fieldPath: path("body"), indexes: []),
            .init(collectionGroup: "c", fieldPath: path("m"), indexes: [Entry(.descending)]),
        ])
        #expect(try missing(eq("body", .string("x")), config: config) == composite(asc("body")))
        #expect(try missing(all(eq("a"), eq("body")), config: config) == composite(asc("body")))
        #expect(try missing(cmp("tags", .arrayContains), config: IndexConfiguration(fieldOverrides: [
            .init(collectionGroup: "c", fieldPath: path("tags"), indexes: [Entry(.ascending)]),
        ])) == composite(Field(path("tags"), .contains)))
        // Children inherit: m.x has only a descending index.
        #expect(try missing(order: [down("m.x")], config: config) == nil)
        #expect(try missing(order: [up("m.x")], config: config) == composite(asc("m.x")))
        // A `*` override applies to every other field of the group.
        let wildcard = IndexConfiguration(fieldOverrides: [.init(collectionGroup: "c", fieldPath: nil, indexes: [])])
        #expect(try missing(eq("q"), config: wildcard) == composite(asc("q")))
        // Composite indexes do not depend on single-field settings.
        #expect(try missing(eq("a"), order: [up("body")], config: config) == composite(asc("a"), asc("body")))
    }

    // MARK: Declared indexes

    @Test func declaredIndexServesOnlyAnExactMatch() throws {
        func check(_ declared: IndexDefinition, serves: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try missing(all(eq("a"), eq("b")), order: [down("c")], config: IndexConfiguration(indexes: [declared]))
            #expect((result == nil) == serves, sourceLocation: sourceLocation)
            if !serves { #expect(result == composite(asc("a"), asc("b"), desc("c")), sourceLocation: sourceLocation) }
        }
        try check(composite(asc("a"), asc("b"), desc("c")), serves: true)
        try check(composite(asc("b"), desc("a"), desc("c")), serves: true)  // equalities: any order and direction
        try check(composite(asc("a"), asc("b"), desc("c"), Field(.documentName, .descending)), serves: true)
        try check(composite(asc("a"), asc("b"), asc("c")), serves: false)  // reversed direction
        try check(composite(asc("a"), asc("b"), desc("c"), Field(.documentName, .ascending)), serves: false)
        try check(composite(asc("a"), asc("b"), desc("c"), asc("d")), serves: false)  // extra trailing field
        try check(composite(asc("a"), desc("c")), serves: false)
        try check(composite(asc("a"), desc("c"), asc("b")), serves: false)
        try check(IndexDefinition(collectionGroup: "d", fields: [asc("a"), asc("b"), desc("c")]), serves: false)
        try check(composite(asc("a"), asc("b"), desc("c"), group: true), serves: false)
    }

    // MARK: OR queries

    @Test func eachDisjunctIsAnalysedWithTheNormalisedOrder() throws {
        #expect(try missing(any(eq("a"), eq("b"))) == nil)
        // `a > 1 OR b == 1` orders both disjuncts by a (docs/semantics.md#composite-filters-and-limits): the second needs (b, a).
        #expect(try missing(any(cmp("a", .greaterThan), eq("b"))) == composite(asc("b"), asc("a")))
        let q = try query(any(all(eq("a"), cmp("c", .greaterThan)), all(eq("b"), cmp("c", .greaterThan))))
        #expect(IndexRequirements.missingIndexes(for: q, configuration: IndexConfiguration())
                == [composite(asc("a"), asc("c")), composite(asc("b"), asc("c"))])
        let partly = IndexConfiguration(indexes: [composite(asc("a"), asc("c"))])
        #expect(IndexRequirements.missingIndex(for: q, configuration: partly) == composite(asc("b"), asc("c")))
        let fully = IndexConfiguration(indexes: [composite(asc("b"), asc("c")), composite(asc("a"), asc("c"))])
        #expect(IndexRequirements.missingIndexes(for: q, configuration: fully).isEmpty)
    }

    @Test func missingIndexesAreDeduplicated() throws {
        let q = try query(cmp("a", .in, .array([.integer(1), .integer(2), .integer(3)])), order: [up("b")])
        #expect(q.disjuncts.count == 3)
        #expect(IndexRequirements.missingIndexes(for: q, configuration: IndexConfiguration()) == [composite(asc("a"), asc("b"))])
        let group = try query(all(eq("x"), eq("a")), group: true)
        #expect(IndexRequirements.missingIndexes(for: group, configuration: IndexConfiguration())
                == [composite(asc("a"), group: true), composite(asc("x"), group: true)])
    }

    // MARK: Rule 7: aggregations

    @Test func aggregatedFieldsJoinTheIndex() throws {
        let sumX = Aggregation(.sum(path("x")), alias: "s"), avgY = Aggregation(.average(path("y")), alias: "v")
        let count = Aggregation(.count(upTo: nil), alias: "n")
        #expect(try missing(aggregations: [sumX, count]) == nil)
        #expect(try missing(cmp("x", .greaterThan), aggregations: [sumX]) == nil)
        #expect(try missing(order: [down("x")], aggregations: [sumX]) == nil)
        #expect(try missing(eq("a"), aggregations: [count]) == nil)
        #expect(try missing(aggregations: [sumX, avgY]) == composite(asc("x"), asc("y")))
        #expect(try missing(eq("a"), aggregations: [sumX]) == composite(asc("a"), asc("x")))
        #expect(try missing(eq("a"), order: [up("x")], aggregations: [sumX]) == composite(asc("a"), asc("x")))
        #expect(try missing(eq("a"), order: [down("b")], aggregations: [sumX, avgY])
                == composite(asc("a"), desc("b"), asc("x"), asc("y")))
        let declared = IndexConfiguration(indexes: [composite(asc("a"), asc("x"))])
        #expect(try missing(eq("a"), aggregations: [sumX], config: declared) == nil)
        // A single aggregated field still needs its own single-field index.
        let disabled = IndexConfiguration(fieldOverrides: [.init(collectionGroup: "c", fieldPath: path("x"), indexes: [])])
        #expect(try missing(aggregations: [sumX], config: disabled) == composite(asc("x")))
        #expect(try missing(group: true, aggregations: [sumX]) == composite(asc("x"), group: true))
    }

    // MARK: Vector search

    @Test func nearestNeighbourQueriesNeedAVectorIndex() throws {
        let nearest = FindNearest(vectorField: path("embedding"), queryVector: [1, 2, 3], distanceMeasure: .cosine, limit: 5)
        let vector = Field(path("embedding"), .vector(dimension: 3))
        let plain = try query(nearest: nearest)
        #expect(IndexRequirements.missingIndex(for: plain, configuration: IndexConfiguration()) == composite(vector))
        let filtered = try query(eq("color", .string("red")), nearest: nearest)
        #expect(IndexRequirements.missingIndex(for: filtered, configuration: IndexConfiguration()) == composite(asc("color"), vector))
        let declared = IndexConfiguration(indexes: [composite(asc("color"), vector)])
        #expect(IndexRequirements.missingIndex(for: filtered, configuration: declared) == nil)
        let otherDimension = IndexConfiguration(indexes: [composite(asc("color"), Field(path("embedding"), .vector(dimension: 4)))])
        #expect(IndexRequirements.missingIndex(for: filtered, configuration: otherDimension) != nil)
    }

    // MARK: The error

    func token(in message: String, after marker: String) throws -> [UInt8] {
        let start = try #require(message.range(of: marker)).upperBound
        let encoded = message[start...].prefix { !$0.isWhitespace }
        return Array(try #require(Data(base64Encoded: String(encoded))))
    }

    func lengthDelimited(_ field: UInt8, _ payload: [UInt8]) -> [UInt8] { [field << 3 | 2, UInt8(payload.count)] + payload }

    @Test func compositeErrorHasProductionsLinkAndTheIndexJSON() throws {
        let error = IndexRequirements.missingIndexError(composite(asc("a"), desc("b")), database: DatabaseID(project: "p"))
        #expect(error.code == .failedPrecondition)
        let prefix = "The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_composite="
        #expect(error.message.hasPrefix(prefix))
        #expect(error.message.lowercased().contains("index"))
        let name = "projects/p/databases/(default)/collectionGroups/c/indexes/_"
        #expect(name.utf8.count == 0x3B)
        let expected: [UInt8] = [0x0A, 0x3B] + Array(name.utf8)
            + [0x10, 0x01]                                          // query_scope COLLECTION
            + [0x1A, 0x05, 0x0A, 0x01, UInt8(ascii: "a"), 0x10, 0x01]  // a ASCENDING
            + [0x1A, 0x05, 0x0A, 0x01, UInt8(ascii: "b"), 0x10, 0x02]  // b DESCENDING
            + [0x1A, 0x0C, 0x0A, 0x08] + Array("__name__".utf8) + [0x10, 0x02]
        #expect(try token(in: error.message, after: "create_composite=") == expected)
        #expect(error.message.hasSuffix("""


        Add this index to firestore.indexes.json:
        {
          "collectionGroup": "c",
          "queryScope": "COLLECTION",
          "fields": [
            {
              "fieldPath": "a",
              "order": "ASCENDING"
            },
            {
              "fieldPath": "b",
              "order": "DESCENDING"
            }
          ]
        }
        """))
    }

    @Test func compositeTokenEncodesContainsScopeAndQuotedPaths() throws {
        let index = IndexDefinition(collectionGroup: "g", scope: .collectionGroup,
                                    fields: [Field(FieldPath(["t"]), .contains), Field(FieldPath(["a-b"]), .ascending)])
        let error = IndexRequirements.missingIndexError(index, database: DatabaseID(project: "p", database: "db"))
        #expect(error.message.contains("https://console.firebase.google.com/v1/r/project/p/firestore/databases/db/indexes?create_composite="))
        let name = Array("projects/p/databases/db/collectionGroups/g/indexes/_".utf8)
        let expected: [UInt8] = lengthDelimited(1, name) + [0x10, 0x02]
            + lengthDelimited(3, [0x0A, 0x01, UInt8(ascii: "t"), 0x18, 0x01])  // array_config CONTAINS
            + lengthDelimited(3, lengthDelimited(1, Array("`a-b`".utf8)) + [0x10, 0x01])
            + lengthDelimited(3, lengthDelimited(1, Array("__name__".utf8)) + [0x10, 0x01])
        #expect(try token(in: error.message, after: "create_composite=") == expected)
        #expect(error.message.contains("\"fieldPath\": \"`a-b`\""))
    }

    @Test func singleFieldErrorUsesAnExemptionLink() throws {
        let index = composite(asc("a"), group: true)
        let error = IndexRequirements.missingIndexError(index, database: DatabaseID(project: "p"))
        #expect(error.code == .failedPrecondition)
        #expect(error.message.hasPrefix("The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_exemption="))
        let indexMessage = lengthDelimited(3, [0x0A, 0x01, UInt8(ascii: "a"), 0x10, 0x01])
        let expected = lengthDelimited(1, Array("projects/p/databases/(default)/collectionGroups/c/fields/a".utf8))
            + lengthDelimited(2, lengthDelimited(1, [0x10, 0x02] + indexMessage))
        #expect(try token(in: error.message, after: "create_exemption=") == expected)
        // The override to declare keeps the automatic indexes and adds the needed one.
        #expect(error.message.contains("""
          "fieldPath": "a",
          "indexes": [
            {
              "order": "ASCENDING",
              "queryScope": "COLLECTION"
            },
            {
              "order": "DESCENDING",
              "queryScope": "COLLECTION"
            },
            {
              "arrayConfig": "CONTAINS",
              "queryScope": "COLLECTION"
            },
            {
              "order": "ASCENDING",
              "queryScope": "COLLECTION_GROUP"
            }
          ]
        """))
        // With the field disabled, the suggestion re-enables only what is needed.
        let disabled = IndexConfiguration(fieldOverrides: [.init(collectionGroup: "c", fieldPath: path("a"), indexes: [])])
        let narrow = IndexRequirements.missingIndexError(composite(asc("a")), database: DatabaseID(project: "p"), configuration: disabled)
        #expect(narrow.message.hasSuffix("""
          "indexes": [
            {
              "order": "ASCENDING",
              "queryScope": "COLLECTION"
            }
          ]
        }
        """))
    }

    @Test func vectorErrorGivesTheGcloudCommand() {
        let index = composite(asc("color"), Field(path("embedding"), .vector(dimension: 3)))
        let error = IndexRequirements.missingIndexError(index, database: DatabaseID(project: "p"))
        #expect(error.code == .failedPrecondition)
        #expect(error.message.hasPrefix("Missing vector index configuration. Please create the required index with the following gcloud command: gcloud firestore indexes composite create --project=p --collection-group=c --query-scope=COLLECTION --field-config=order=ASCENDING,field-path=color --field-config=vector-config='{\"dimension\":\"3\",\"flat\": \"{}\"}',field-path=embedding"))
        #expect(error.message.contains("\"vectorConfig\": {\n        \"dimension\": 3,\n        \"flat\": {}\n      }"))
    }

    @Test func errorJSONParsesBackToTheIndex() throws {
        let index = composite(asc("a"), Field(path("t"), .contains), desc("b"))
        let message = IndexRequirements.missingIndexError(index, database: DatabaseID(project: "p")).message
        let json = try #require(message.components(separatedBy: "firestore.indexes.json:\n").last)
        let file = "{\"indexes\": [\(json)]}"
        #expect(try IndexConfiguration(json: Data(file.utf8)).indexes == [index])
    }
}
