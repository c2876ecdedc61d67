import Foundation
import Testing
@testable import HearthCore

@Suite struct IndexConfigurationTests {
    typealias Entry = IndexConfiguration.FieldOverride.Entry

    /// The example file of docs/semantics.md#index-requirements.
    static let example = """
    {
      "indexes": [
        {
          "collectionGroup": "posts",
          "queryScope": "COLLECTION",
          "fields": [
            { "fieldPath": "authorId", "order": "ASCENDING" },
            { "fieldPath": "tags", "arrayConfig": "CONTAINS" },
            { "fieldPath": "createdAt", "order": "DESCENDING" }
          ]
        },
        {
          "collectionGroup": "comments",
          "queryScope": "COLLECTION_GROUP",
          "fields": [
            { "fieldPath": "postId", "order": "ASCENDING" },
            { "fieldPath": "createdAt", "order": "ASCENDING" }
          ]
        }
      ],
      "fieldOverrides": [
        {
          "collectionGroup": "comments",
          "fieldPath": "createdAt",
          "indexes": [
            { "order": "ASCENDING", "queryScope": "COLLECTION" },
            { "order": "DESCENDING", "queryScope": "COLLECTION" },
            { "order": "ASCENDING", "queryScope": "COLLECTION_GROUP" }
          ]
        },
        { "collectionGroup": "posts", "fieldPath": "body", "indexes": [] }
      ]
    }
    """

    func parse(_ text: String) throws(FirestoreError) -> IndexConfiguration {
        try IndexConfiguration(json: Data(text.utf8))
    }

    @Test func parsesTheSemanticsExample() throws {
        let config = try parse(Self.example)
        #expect(config.indexes == [
            IndexDefinition(collectionGroup: "posts", scope: .collection, fields: [
                .init(FieldPath(["authorId"]), .ascending), .init(FieldPath(["tags"]), .contains),
                .init(FieldPath(["createdAt"]), .descending),
            ]),
            IndexDefinition(collectionGroup: "comments", scope: .collectionGroup, fields: [
                .init(FieldPath(["postId"]), .ascending), .init(FieldPath(["createdAt"]), .ascending),
            ]),
        ])
        #expect(config.fieldOverrides == [
            .init(collectionGroup: "comments", fieldPath: FieldPath(["createdAt"]), indexes: [
                Entry(.ascending), Entry(.descending), Entry(.ascending, scope: .collectionGroup),
            ]),
            .init(collectionGroup: "posts", fieldPath: FieldPath(["body"]), indexes: []),
        ])
    }

    @Test func parsesLegacyModeAndCollectionID() throws {
        let config = try parse("""
        {"indexes": [{"collectionId": "posts", "fields": [
            {"fieldPath": "a", "mode": "ASCENDING"}, {"fieldPath": "b", "mode": "DESCENDING"},
            {"fieldPath": "c", "mode": "ARRAY_CONTAINS"}]}],
         "fieldOverrides": [{"collectionGroup": "posts", "fieldPath": "d", "indexes": [{"mode": "DESCENDING"}]}]}
        """)
        #expect(config.indexes == [IndexDefinition(collectionGroup: "posts", scope: .collection, fields: [
            .init(FieldPath(["a"]), .ascending), .init(FieldPath(["b"]), .descending), .init(FieldPath(["c"]), .contains),
        ])])
        #expect(config.fieldOverrides[0].indexes == [Entry(.descending)])
    }

    @Test func parsesVectorConfigBacktickPathsAndIgnoredKeys() throws {
        let config = try parse("""
        {"indexes": [{"collectionGroup": "docs", "queryScope": "COLLECTION", "apiScope": "ANY_API",
                      "density": "SPARSE_ALL", "multiKey": false, "unique": false, "fields": [
            {"fieldPath": "`a.b`.c", "order": "ASCENDING"},
            {"fieldPath": "embedding", "vectorConfig": {"dimension": 3, "flat": {}}}]}],
         "fieldOverrides": [{"collectionGroup": "docs", "fieldPath": "*", "ttl": true, "indexes": []}]}
        """)
        #expect(config.indexes[0].fields == [
            .init(FieldPath(["a.b", "c"]), .ascending), .init(FieldPath(["embedding"]), .vector(dimension: 3)),
        ])
        #expect(config.fieldOverrides == [.init(collectionGroup: "docs", fieldPath: nil, indexes: [], ttl: true)])
    }

    @Test func explicitNameFieldIsDroppedOnlyWhenImplied() throws {
        let config = try parse("""
        {"indexes": [
          {"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "b", "order": "DESCENDING"},
                                              {"fieldPath": "__name__", "order": "DESCENDING"}]},
          {"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "b", "order": "DESCENDING"},
                                              {"fieldPath": "__name__", "order": "ASCENDING"}]},
          {"collectionGroup": "c", "fields": [{"fieldPath": "t", "arrayConfig": "CONTAINS"},
                                              {"fieldPath": "__name__", "order": "ASCENDING"}]}]}
        """)
        let a = IndexDefinition.Field(FieldPath(["a"]), .ascending), b = IndexDefinition.Field(FieldPath(["b"]), .descending)
        #expect(config.indexes[0].fields == [a, b])
        #expect(config.indexes[0].nameDescending)
        #expect(config.indexes[1].fields == [a, b, .init(.documentName, .ascending)])
        #expect(!config.indexes[1].nameDescending)
        #expect(config.indexes[2].fields == [.init(FieldPath(["t"]), .contains)])
    }

    @Test func roundTripsThroughCanonicalJSON() throws {
        var config = try parse(Self.example)
        config.indexes.append(IndexDefinition(collectionGroup: "c", scope: .collection, fields: [
            .init(FieldPath(["a b", "`x`"]), .ascending), .init(FieldPath(["v"]), .vector(dimension: 8)),
        ]))
        config.indexes.append(IndexDefinition(collectionGroup: "c", fields: [
            .init(FieldPath(["a"]), .descending), .init(.documentName, .ascending),
        ]))
        config.fieldOverrides.append(.init(collectionGroup: "c", fieldPath: nil, indexes: [Entry(.contains)], ttl: true))
        let json = config.json
        #expect(try IndexConfiguration(json: json) == config)
        #expect(try IndexConfiguration(json: json).json == json)
    }

    @Test func writesTheCLILayout() throws {
        let config = IndexConfiguration(
            indexes: [IndexDefinition(collectionGroup: "posts", fields: [
                .init(FieldPath(["a"]), .ascending), .init(FieldPath(["b"]), .descending),
            ])],
            fieldOverrides: [.init(collectionGroup: "posts", fieldPath: FieldPath(["body"]), indexes: [])])
        #expect(String(decoding: config.json, as: UTF8.self) == """
        {
          "indexes": [
            {
              "collectionGroup": "posts",
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
          ],
          "fieldOverrides": [
            {
              "collectionGroup": "posts",
              "fieldPath": "body",
              "indexes": []
            }
          ]
        }

        """)
        #expect(String(decoding: IndexConfiguration().json, as: UTF8.self) == "{\n  \"indexes\": [],\n  \"fieldOverrides\": []\n}\n")
    }

    @Test(arguments: [
        ("[]", "firestore.indexes.json: expected an object, got an array"),
        ("{\"indexes\": 3}", "indexes: expected an array, got 3"),
        ("{}", "indexes: missing"),
        ("{\"indexes\": [], \"extra\": 1}", "firestore.indexes.json: unexpected key \"extra\""),
        ("{\"indexes\": [7]}", "indexes[0]: expected an object, got 7"),
        ("{\"indexes\": [{\"fields\": [{\"fieldPath\": \"a\", \"order\": \"ASCENDING\"}]}]}", "indexes[0].collectionGroup: missing"),
        ("{\"indexes\": [{\"collectionGroup\": \"a/b\", \"fields\": []}]}", "indexes[0].collectionGroup: expected a collection ID"),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"queryScope\": \"GLOBAL\", \"fields\": []}]}", "indexes[0].queryScope: expected \"COLLECTION\" or \"COLLECTION_GROUP\", got \"GLOBAL\""),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": []}]}", "indexes[0].fields: expected at least one field"),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": \"a\"}]}", "indexes[0].fields: expected an array, got \"a\""),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"a\", \"order\": \"ASCENDING\"}, {\"fieldPath\": \"b\"}]}]}",
         "indexes[0].fields[1]: expected exactly one of \"order\", \"arrayConfig\" or \"vectorConfig\""),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"b\", \"order\": \"ASCENDING\", \"arrayConfig\": \"CONTAINS\"}]}]}",
         "indexes[0].fields[0]: expected exactly one of"),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"b\", \"order\": \"ASC\"}]}]}",
         "indexes[0].fields[0].order: expected \"ASCENDING\" or \"DESCENDING\", got \"ASC\""),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"b\", \"arrayConfig\": \"ANY\"}]}]}",
         "indexes[0].fields[0].arrayConfig: expected \"CONTAINS\", got \"ANY\""),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"b\", \"mode\": \"X\"}]}]}",
         "indexes[0].fields[0].mode: expected \"ASCENDING\", \"DESCENDING\" or \"ARRAY_CONTAINS\", got \"X\""),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"v\", \"vectorConfig\": {\"dimension\": 0, \"flat\": {}}}]}]}",
         "indexes[0].fields[0].vectorConfig.dimension: expected a positive integer, got 0"),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"v\", \"vectorConfig\": {\"flat\": {}}}]}]}",
         "indexes[0].fields[0].vectorConfig.dimension: missing"),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"a-b\", \"order\": \"ASCENDING\"}]}]}",
         "indexes[0].fields[0].fieldPath: Invalid property path \"a-b\"."),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": 5, \"order\": \"ASCENDING\"}]}]}",
         "indexes[0].fields[0].fieldPath: expected a string, got 5"),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"a\", \"order\": \"ASCENDING\", \"sort\": 1}]}]}",
         "indexes[0].fields[0]: unexpected key \"sort\""),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"__name__\", \"order\": \"ASCENDING\"}, {\"fieldPath\": \"a\", \"order\": \"ASCENDING\"}]}]}",
         "indexes[0].fields[0]: __name__ must be the last field of an index"),
        ("{\"indexes\": [{\"collectionGroup\": \"c\", \"fields\": [{\"fieldPath\": \"__name__\", \"arrayConfig\": \"CONTAINS\"}]}]}",
         "indexes[0].fields[0]: __name__ can only be indexed with an \"order\""),
        ("{\"indexes\": [], \"fieldOverrides\": [{\"collectionGroup\": \"c\", \"fieldPath\": \"a\"}]}", "fieldOverrides[0].indexes: missing"),
        ("{\"indexes\": [], \"fieldOverrides\": [{\"collectionGroup\": \"c\", \"fieldPath\": \"a\", \"ttl\": \"yes\", \"indexes\": []}]}",
         "fieldOverrides[0].ttl: expected true or false, got \"yes\""),
        ("{\"indexes\": [], \"fieldOverrides\": [{\"collectionGroup\": \"c\", \"fieldPath\": \"a\", \"indexes\": [{\"vectorConfig\": {\"dimension\": 2}}]}]}",
         "fieldOverrides[0].indexes[0]: unexpected key \"vectorConfig\""),
        ("{\"indexes\": [], \"fieldOverrides\": [{\"collectionGroup\": \"c\", \"fieldPath\": \"a\", \"indexes\": [{\"queryScope\": \"COLLECTION\"}]}]}",
         "fieldOverrides[0].indexes[0]: expected exactly one of \"order\" or \"arrayConfig\""),
        ("{\"indexes\": [], \"fieldOverrides\": [{\"collectionGroup\": \"c\", \"fieldPath\": \"a\", \"indexes\": []}, {\"collectionGroup\": \"c\", \"fieldPath\": \"a\", \"indexes\": []}]}",
         "fieldOverrides[1]: duplicate override of field \"a\" in collection group \"c\""),
    ])
    func malformedInputNamesTheLocation(input: String, fragment: String) {
        expectFirestoreError(.invalidArgument, containing: [fragment]) { try parse(input) }
    }

    @Test func invalidJSONIsInvalidArgument() {
        expectFirestoreError(.invalidArgument, containing: ["not valid JSON"]) { try parse("{\"indexes\": [") }
    }

    @Test func singleFieldIndexesPreferExactThenAncestorThenWildcard() {
        let config = IndexConfiguration(fieldOverrides: [
            .init(collectionGroup: "c", fieldPath: nil, indexes: [Entry(.ascending)]),
            .init(collectionGroup: "c", fieldPath: FieldPath(["m"]), indexes: []),
            .init(collectionGroup: "c", fieldPath: FieldPath(["m", "x"]), indexes: [Entry(.descending)]),
            .init(collectionGroup: "other", fieldPath: FieldPath(["a"]), indexes: [Entry(.contains)]),
        ])
        #expect(config.singleFieldIndexes(collectionGroup: "c", field: FieldPath(["m", "x"])) == [Entry(.descending)])
        #expect(config.singleFieldIndexes(collectionGroup: "c", field: FieldPath(["m", "x", "y"])) == [Entry(.descending)])
        #expect(config.singleFieldIndexes(collectionGroup: "c", field: FieldPath(["m", "z"])) == [])
        #expect(config.singleFieldIndexes(collectionGroup: "c", field: FieldPath(["mm"])) == [Entry(.ascending)])
        #expect(config.singleFieldIndexes(collectionGroup: "other", field: FieldPath(["b"])) == nil)
        #expect(config.singleFieldIndexes(collectionGroup: "none", field: FieldPath(["m"])) == nil)
    }

    @Test func insertRecordsCompositesOnceAndSingleFieldNeedsAsOverrides() {
        var config = IndexConfiguration(fieldOverrides: [.init(collectionGroup: "c", fieldPath: FieldPath(["off"]), indexes: [], ttl: true)])
        let composite = IndexDefinition(collectionGroup: "c", fields: [.init(FieldPath(["a"]), .ascending), .init(FieldPath(["b"]), .ascending)])
        config.insert(composite)
        config.insert(composite)
        #expect(config.indexes == [composite])
        // A collection-group need keeps the automatic collection-scope indexes.
        config.insert(IndexDefinition(collectionGroup: "c", scope: .collectionGroup, fields: [.init(FieldPath(["d"]), .descending)]))
        // A disabled field gets back only what is needed.
        config.insert(IndexDefinition(collectionGroup: "c", fields: [.init(FieldPath(["off"]), .ascending)]))
        #expect(config.fieldOverrides == [
            .init(collectionGroup: "c", fieldPath: FieldPath(["off"]), indexes: [Entry(.ascending)], ttl: true),
            .init(collectionGroup: "c", fieldPath: FieldPath(["d"]), indexes: [
                Entry(.ascending), Entry(.descending), Entry(.contains), Entry(.descending, scope: .collectionGroup),
            ]),
        ])
    }
}
