import Testing
@testable import HearthCore

/// Building an index over a database large enough to be built on two threads: the entries
/// must be exactly those made document by document, in key order.
@Suite struct IndexBuildTests {
    /// Documents of the group `c` at the top level and under parents, among documents of
    /// other collections that sort before, between and after them, with values that make
    /// every kind of entry (ascending, descending, one per distinct array element).
    static func documents(count: Int) -> PersistentSortedMap<DocumentKey, DocumentVersion> {
        var map = PersistentSortedMap<DocumentKey, DocumentVersion>()
        let time = Timestamp(seconds: 1_700_000_000, nanos: 0)
        for i in 0..<count {
            let path: String
            switch i % 7 {
            case 0: path = "a/d\(i)"
            case 1: path = "p/x\(i % 13)/c/d\(i)"
            case 2: path = "cz/d\(i)"
            default: path = "c/d\(i)"
            }
            var fields = MapValue()
            if i % 5 != 0 { fields.setValue(.integer(Int64((i * 7919) % 1000)), at: testFieldPath("score")) }
            fields.setValue(.string("cat-\(i % 17)"), at: testFieldPath("category"))
            if i % 3 == 0 { fields.setValue(.array([.integer(Int64(i % 4)), .integer(Int64(i % 6)), .integer(Int64(i % 4))]), at: testFieldPath("tags")) }
            let document = Document(path: testPath(path), fields: fields, createTime: time, updateTime: time)
            map.updateValue(DocumentVersion(document: document, since: time, older: nil), forKey: DocumentKey(testPath(path)))
        }
        return map
    }

    static let definitions: [IndexDefinition] = [
        IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("score"), .ascending)]),
        IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("score"), .descending)]),
        IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("category"), .ascending), .init(testFieldPath("score"), .descending)]),
        IndexDefinition(collectionGroup: "c", fields: [.init(testFieldPath("tags"), .contains), .init(testFieldPath("score"), .ascending)]),
        IndexDefinition(collectionGroup: "c", scope: .collectionGroup, fields: [.init(testFieldPath("score"), .ascending)]),
    ]

    @Test("a parallel build holds exactly the entries made document by document", arguments: definitions)
    func parallelBuildMatchesDocumentByDocument(definition: IndexDefinition) throws {
        let documents = Self.documents(count: max(5_000, IndexStore.parallelBuildMinimum))
        #expect(documents.splitKeys(parts: IndexStore.parallelBuildChunks).count == IndexStore.parallelBuildChunks - 1)
        var expected: [(key: IndexKey, path: ResourcePath)] = []
        var noHints: [Int] = [], scratch: [UInt8] = []
        for (key, version) in documents where key.path.segments[key.path.count - 2] == definition.collectionGroup {
            IndexStore.forEachEntryKey(of: version.document!, key: key, in: definition, hints: &noHints, scratch: &scratch) {
                expected.append(($0, key.path))
            }
        }
        expected.sort { $0.key < $1.key }
        #expect(expected.count > 1_000)

        var store = IndexStore()
        store.materialize(definition, from: documents)
        let entries = try #require(store.entries(definition))
        var built: [(key: IndexKey, path: ResourcePath)] = []
        for (key, document) in entries { built.append((key, document.path)) }
        #expect(built.count == expected.count)
        #expect(built.map(\.key) == expected.map(\.key))
        #expect(built.map(\.path) == expected.map(\.path))
    }

    @Test("one pass building several definitions of several groups equals building each alone")
    func severalDefinitionsInOnePass() throws {
        let documents = Self.documents(count: max(5_000, IndexStore.parallelBuildMinimum))
        // Groups `c` and `a` and `cz` at once, one definition repeated and one already built.
        let others = [
            IndexDefinition(collectionGroup: "a", fields: [.init(testFieldPath("category"), .ascending)]),
            IndexDefinition(collectionGroup: "cz", fields: [.init(testFieldPath("score"), .descending)]),
        ]
        let all = Self.definitions + others
        var together = IndexStore()
        together.materialize(all[0], from: documents)
        together.materialize(all + [all[1]], from: documents)
        for definition in all {
            var alone = IndexStore()
            alone.materialize(definition, from: documents)
            let expected = try #require(alone.entries(definition)).map { ($0.key, $0.value.path) }
            let built = try #require(together.entries(definition)).map { ($0.key, $0.value.path) }
            #expect(expected.count > 300)
            #expect(built.map(\.0) == expected.map(\.0))
            #expect(built.map(\.1) == expected.map(\.1))
        }
        // Each materialised once: an update reaches every index of its group exactly once.
        let key = DocumentKey(testPath("c/new"))
        var fields = MapValue()
        fields.setValue(.integer(5), at: testFieldPath("score"))
        fields.setValue(.string("cat-1"), at: testFieldPath("category"))
        let time = Timestamp(seconds: 1_700_000_001, nanos: 0)
        together.update(key, from: nil, to: Document(path: key.path, fields: fields, createTime: time, updateTime: time))
        let scoreIndex = try #require(together.entries(Self.definitions[0]))
        #expect(scoreIndex.filter { $0.value.path == key.path }.count == 1)
    }
}
