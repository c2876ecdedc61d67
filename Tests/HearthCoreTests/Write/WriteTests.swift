import Foundation
import Testing
@testable import HearthCore

@Suite("Writes through Database.commit (docs/semantics.md#writes, #batches)")
struct WriteTests {
    let db: Database
    let clock: ManualClock
    init() { (db, clock) = makeTestDatabase() }

    func fields(_ path: String) -> MapValue? { db.document(testPath(path))?.fields }

    // MARK: set

    @Test("set creates, then replaces the whole document")
    func set() throws {
        try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1), "b": testMap(["x": .integer(1)])]))])
        #expect(fields("c/d") == testFields(["a": .integer(1), "b": testMap(["x": .integer(1)])]))
        try db.commit([.set(testPath("c/d"), testFields(["z": .string("new")]))])
        #expect(fields("c/d") == testFields(["z": .string("new")]))
        #expect(db.document(testPath("c/d"))?.path == testPath("c/d"))
        #expect(db.document(testPath("c/d"))?.id == "d")
    }

    @Test("set keeps literal field names (a.b is one field) and empty maps")
    func setLiteralNames() throws {
        try db.commit([.set(testPath("c/d"), testFields(["a.b": .integer(1), "m": .map(MapValue())]))])
        let doc = try #require(db.document(testPath("c/d")))
        #expect(doc.value(at: FieldPath(["a.b"])) == .integer(1))
        #expect(doc.value(at: testFieldPath("a.b")) == nil)
        #expect(doc.fields["m"] == .map(MapValue()))
    }

    @Test("set stores 1 and 1.0 as different types")
    func typesPreserved() throws {
        try db.commit([.set(testPath("c/d"), testFields(["i": .integer(1), "d": .double(1.0), "z": .double(-0.0)]))])
        #expect(fields("c/d")?["i"] == .integer(1))
        #expect(fields("c/d")?["d"] == .double(1.0))
        #expect(fields("c/d")?["z"] == .double(-0.0))  // sign preserved (docs/semantics.md#open-points, A1)
    }

    // MARK: update with a mask

    static let start = testFields(["a": testMap(["b": .integer(1), "c": .integer(2)]), "d": .integer(3), "s": .integer(5)])

    struct UpdateCase: Sendable, CustomTestStringConvertible {
        let name: String
        let fields: MapValue
        let mask: [String]
        let expected: MapValue
        var testDescription: String { name }
    }

    static let updateCases: [UpdateCase] = [
        UpdateCase(name: "dotted nested path sets one leaf", fields: testFields(["a": testMap(["b": .integer(10)])]), mask: ["a.b"],
                   expected: testFields(["a": testMap(["b": .integer(10), "c": .integer(2)]), "d": .integer(3), "s": .integer(5)])),
        UpdateCase(name: "map value replaces the whole map", fields: testFields(["a": testMap(["x": .integer(1)])]), mask: ["a"],
                   expected: testFields(["a": testMap(["x": .integer(1)]), "d": .integer(3), "s": .integer(5)])),
        UpdateCase(name: "mask path absent from fields deletes it", fields: MapValue(), mask: ["d", "a.c"],
                   expected: testFields(["a": testMap(["b": .integer(1)]), "s": .integer(5)])),
        UpdateCase(name: "deleting a missing path is a no-op", fields: MapValue(), mask: ["nope.deeper", "zz"],
                   expected: start),
        UpdateCase(name: "non-map intermediate is replaced", fields: testFields(["s": testMap(["t": .integer(1)])]), mask: ["s.t"],
                   expected: testFields(["a": testMap(["b": .integer(1), "c": .integer(2)]), "d": .integer(3), "s": testMap(["t": .integer(1)])])),
        UpdateCase(name: "missing intermediate maps are created", fields: testFields(["x": testMap(["y": testMap(["z": .null])])]), mask: ["x.y.z"],
                   expected: testFields(["a": testMap(["b": .integer(1), "c": .integer(2)]), "d": .integer(3), "s": .integer(5),
                                         "x": testMap(["y": testMap(["z": .null])])])),
        UpdateCase(name: "data outside the mask is ignored", fields: testFields(["d": .integer(30), "e": .integer(1)]), mask: ["d"],
                   expected: testFields(["a": testMap(["b": .integer(1), "c": .integer(2)]), "d": .integer(30), "s": .integer(5)])),
        UpdateCase(name: "empty mask only checks existence", fields: MapValue(), mask: [], expected: start),
    ]

    @Test("update applies the mask", arguments: updateCases)
    func update(_ c: UpdateCase) throws {
        try db.commit([.set(testPath("c/d"), Self.start)])
        try db.commit([.update(testPath("c/d"), c.fields, mask: c.mask.map(testFieldPath))])
        #expect(fields("c/d") == c.expected)
    }

    // docs/semantics.md#writes: updateData on a missing document → NOT_FOUND with the full name.
    @Test("update of a missing document is NOT_FOUND")
    func updateMissing() {
        expectFirestoreError(.notFound, message: "No document to update: projects/p/databases/(default)/documents/c/missing") {
            try db.commit([.update(testPath("c/missing"), testFields(["a": .integer(1)]), mask: [testFieldPath("a")])])
        }
        #expect(db.document(testPath("c/missing")) == nil)
        #expect(db.state().documentCount == 0)
    }

    // setData(merge:) is an update with a mask and no precondition: it creates the document.
    @Test("set-merge style update creates a missing document")
    func mergeCreates() throws {
        let w = Write(path: testPath("c/d"), operation: .update(testFields(["a": testMap(["b": .integer(1)])]), mask: [testFieldPath("a.b")]))
        let result = try db.commit([w])
        let doc = try #require(db.document(testPath("c/d")))
        #expect(doc.fields == testFields(["a": testMap(["b": .integer(1)])]))
        #expect(doc.createTime == result.commitTime)
        // And merges into an existing one.
        try db.commit([Write(path: testPath("c/d"), operation: .update(testFields(["a": testMap(["c": .integer(2)])]), mask: [testFieldPath("a.c")]))])
        #expect(fields("c/d") == testFields(["a": testMap(["b": .integer(1), "c": .integer(2)])]))
    }

    // MARK: delete and verify

    @Test("delete removes the document; deleting a missing document succeeds")
    func delete() throws {
        try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1)]))])
        let r1 = try db.commit([.delete(testPath("c/d"))])
        #expect(db.document(testPath("c/d")) == nil)
        #expect(r1.writeResults == [WriteResult(updateTime: nil, transformResults: [])])
        let before = db.state()
        let r2 = try db.commit([.delete(testPath("c/never"))])
        #expect(r2.writeResults.count == 1)
        #expect(db.state().documentCount == 0)
        #expect(db.state().hasSameDocuments(as: before))
    }

    @Test("delete keeps subcollection documents")
    func deleteKeepsSubcollections() throws {
        try db.commit([.set(testPath("c/d"), MapValue()), .set(testPath("c/d/sub/e"), MapValue())])
        try db.commit([.delete(testPath("c/d"))])
        #expect(db.document(testPath("c/d/sub/e")) != nil)
    }

    @Test("verify checks the precondition and changes nothing")
    func verify() throws {
        let created = try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1)]))]).commitTime
        let r = try db.commit([Write(path: testPath("c/d"), operation: .verify, precondition: .exists(true))])
        #expect(db.document(testPath("c/d"))?.updateTime == created)
        #expect(r.writeResults.count == 1)
        try db.commit([Write(path: testPath("c/d"), operation: .verify, precondition: .updateTime(created))])
        expectFirestoreError(.notFound, containing: [testResourceName("c/x")]) {
            try db.commit([Write(path: testPath("c/x"), operation: .verify, precondition: .exists(true))])
        }
        expectFirestoreError(.failedPrecondition) {
            try db.commit([Write(path: testPath("c/d"), operation: .verify, precondition: .updateTime(testTime(-5)))])
        }
    }

    @Test("transform-only write creates a missing document")
    func transformOnly() throws {
        try db.commit([Write(path: testPath("c/d"), operation: .transformOnly,
                             transforms: [FieldTransform(path: testFieldPath("n"), kind: .increment(.integer(2)))])])
        #expect(fields("c/d") == testFields(["n": .integer(2)]))
    }

    // MARK: Preconditions

    @Test("exists(false) on an existing document is ALREADY_EXISTS")
    func existsFalse() throws {
        try db.commit([Write(path: testPath("c/d"), operation: .set(testFields(["a": .integer(1)])), precondition: .exists(false))])
        #expect(fields("c/d") == testFields(["a": .integer(1)]))
        expectFirestoreError(.alreadyExists, message: "Document already exists: projects/p/databases/(default)/documents/c/d") {
            try db.commit([Write(path: testPath("c/d"), operation: .set(testFields(["a": .integer(2)])), precondition: .exists(false))])
        }
        #expect(fields("c/d") == testFields(["a": .integer(1)]))
    }

    @Test("exists(true) on a missing document is NOT_FOUND, also for delete")
    func existsTrue() {
        expectFirestoreError(.notFound, message: "No document to update: projects/p/databases/(default)/documents/c/d") {
            try db.commit([.delete(testPath("c/d"), precondition: .exists(true))])
        }
        expectFirestoreError(.notFound, message: "No document to update: projects/p/databases/(default)/documents/c/d") {
            try db.commit([Write(path: testPath("c/d"), operation: .set(MapValue()), precondition: .exists(true))])
        }
    }

    @Test("updateTime precondition")
    func updateTimePrecondition() throws {
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["v": .integer(1)]))]).commitTime
        let t2 = try db.commit([Write(path: testPath("c/d"), operation: .set(testFields(["v": .integer(2)])), precondition: .updateTime(t1))]).commitTime
        #expect(fields("c/d") == testFields(["v": .integer(2)]))
        expectFirestoreError(.failedPrecondition, containing: [testResourceName("c/d"), t1.rfc3339, t2.rfc3339]) {
            try db.commit([Write(path: testPath("c/d"), operation: .set(testFields(["v": .integer(3)])), precondition: .updateTime(t1))])
        }
        expectFirestoreError(.failedPrecondition, containing: [testResourceName("c/nope"), "does not exist"]) {
            try db.commit([Write(path: testPath("c/nope"), operation: .set(MapValue()), precondition: .updateTime(t1))])
        }
        #expect(fields("c/d") == testFields(["v": .integer(2)]))
        // A required time later than the stored one is a bad request (production, and the
        // Python client's system tests).
        let later = Timestamp(seconds: t2.seconds + 3600, nanos: t2.nanos)
        expectFirestoreError(.invalidArgument, containing: [testResourceName("c/d"), later.rfc3339, t2.rfc3339]) {
            try db.commit([.delete(testPath("c/d"), precondition: .updateTime(later))])
        }
        try db.commit([.delete(testPath("c/d"), precondition: .updateTime(t2))])
        #expect(db.document(testPath("c/d")) == nil)
    }

    // MARK: Several writes to one document

    // docs/semantics.md#batches (prod test): delete, set {a:1,b:1,when:"when"}, update {b:2, when: serverTimestamp}.
    @Test("writes to the same document apply in order")
    func sameDocumentInOrder() throws {
        try db.commit([.set(testPath("c/d"), testFields(["old": .boolean(true)]))])
        let r = try db.commit([
            .delete(testPath("c/d")),
            .set(testPath("c/d"), testFields(["a": .integer(1), "b": .integer(1), "when": .string("when")])),
            .update(testPath("c/d"), testFields(["b": .integer(2)]), mask: [testFieldPath("b")],
                    transforms: [FieldTransform(path: testFieldPath("when"), kind: .serverTimestamp)]),
        ])
        #expect(fields("c/d") == testFields(["a": .integer(1), "b": .integer(2), "when": .timestamp(r.commitTime)]))
    }

    // docs/semantics.md#transactions matrix and docs/semantics.md#error-codes: d,u on one document in one commit → INVALID_ARGUMENT,
    // whether or not the document existed before.
    @Test("update after delete in one commit is INVALID_ARGUMENT and applies nothing", arguments: [true, false])
    func updateAfterDelete(existed: Bool) throws {
        if existed { try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1)]))]) }
        let before = db.state()
        expectFirestoreError(.invalidArgument, containing: [testResourceName("c/d")]) {
            try db.commit([
                .set(testPath("c/e"), MapValue()),
                .delete(testPath("c/d")),
                .update(testPath("c/d"), testFields(["a": .integer(2)]), mask: [testFieldPath("a")]),
            ])
        }
        #expect(db.state().hasSameDocuments(as: before))
        #expect(fields("c/d") == (existed ? testFields(["a": .integer(1)]) : nil))
    }

    // docs/semantics.md#transactions matrix: d,s → the document holds the last data; s,d → deleted.
    @Test("delete then set, set then delete in one commit")
    func deleteSetSequences() throws {
        try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1)]))])
        try db.commit([.delete(testPath("c/d")), .set(testPath("c/d"), testFields(["a": .integer(2)]))])
        #expect(fields("c/d") == testFields(["a": .integer(2)]))
        try db.commit([.set(testPath("c/d"), testFields(["a": .integer(3)])), .delete(testPath("c/d"))])
        #expect(db.document(testPath("c/d")) == nil)
        try db.commit([.set(testPath("c/n"), testFields(["a": .integer(1)])), .update(testPath("c/n"), testFields(["b": .integer(2)]), mask: [testFieldPath("b")])])
        #expect(fields("c/n") == testFields(["a": .integer(1), "b": .integer(2)]))
    }

    // MARK: Invalid writes

    struct InvalidCase: Sendable, CustomTestStringConvertible {
        let name: String
        let write: Write
        let fragments: [String]
        var testDescription: String { name }
    }

    static let invalidCases: [InvalidCase] = [
        InvalidCase(name: "collection path", write: .set(testPath("c"), MapValue()), fragments: ["even number of segments", "has 1"]),
        InvalidCase(name: "empty segment", write: .set(testPath("c//d/e"), MapValue()), fragments: ["must not be empty"]),
        InvalidCase(name: "reserved document ID", write: .set(testPath("c/__x__"), MapValue()), fragments: ["\"__x__\"", "reserved"]),
        InvalidCase(name: "dot ID", write: .delete(testPath("c/..")), fragments: ["\"..\"", "reserved"]),
        InvalidCase(name: "reserved field name", write: .set(testPath("c/d"), testFields(["__x__": .integer(1)])),
                    fragments: ["Document fields cannot begin and end with \"__\" (found in field __x__)"]),
        InvalidCase(name: "nested reserved field name", write: .set(testPath("c/d"), testFields(["a": testMap(["__x__": .integer(1)])])),
                    fragments: ["Document fields cannot begin and end with \"__\" (found in field a.__x__)"]),
        InvalidCase(name: "reserved name in a map inside an array",
                    write: .set(testPath("c/d"), testFields(["a": .array([testMap(["__y__": .null])])])),
                    fragments: ["cannot begin and end with \"__\"", "__y__"]),
        InvalidCase(name: "empty field name", write: .set(testPath("c/d"), testFields(["": .integer(1)])),
                    fragments: ["Document fields must not be empty"]),
        InvalidCase(name: "empty nested field name", write: .set(testPath("c/d"), testFields(["m": testMap(["": .integer(1)])])),
                    fragments: ["Document fields must not be empty", "found in field m."]),
        InvalidCase(name: "field name over 1,500 bytes", write: .set(testPath("c/d"), testFields(["m": testMap([String(repeating: "n", count: 1501): .null])])),
                    fragments: ["Field name is longer than 1500 bytes", "found in field m.nnn"]),
        InvalidCase(name: "nested arrays", write: .set(testPath("c/d"), testFields(["a": .array([.array([.integer(1)])])])),
                    fragments: ["Invalid data. Nested arrays are not supported (found in field a)"]),
        InvalidCase(name: "nested arrays inside a map", write: .set(testPath("c/d"), testFields(["m": testMap(["a": .array([.array([])])])])),
                    fragments: ["Nested arrays are not supported (found in field m.a)"]),
        InvalidCase(name: "oversized document", write: .set(testPath("c/d"), testFields(["f": .string(String(repeating: "x", count: 524_288)),
                                                                                        "g": .string(String(repeating: "x", count: 524_288))])),
                    fragments: ["Document 'projects/p/databases/(default)/documents/c/d' cannot be written because its size (1,048,634 bytes) exceeds the maximum allowed size of 1,048,576 bytes."]),
        InvalidCase(name: "oversized string", write: .set(testPath("c/d"), testFields(["f": .string(String(repeating: "x", count: 1_048_488))])),
                    fragments: ["The value of property \"f\" is longer than 1048487 bytes."]),
        InvalidCase(name: "too deep", write: .set(testPath("c/d"), testFields(["f": DocumentLimitsTests.nested(depth: 21, arrays: false)])),
                    fragments: ["maximum nesting depth of 20"]),
        InvalidCase(name: "reserved name in an update mask",
                    write: .update(testPath("c/d"), testFields(["__m__": .integer(1)]), mask: [testFieldPath("__m__")]),
                    fragments: ["cannot begin and end with \"__\""]),
        InvalidCase(name: "empty mask path", write: .update(testPath("c/d"), MapValue(), mask: [FieldPath([])]), fragments: ["empty path"]),
        InvalidCase(name: "non-numeric increment",
                    write: .update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: testFieldPath("n"), kind: .increment(.string("1")))]),
                    fragments: ["Input must be int64 or double."]),
        InvalidCase(name: "non-numeric maximum",
                    write: .update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: testFieldPath("n"), kind: .maximum(.null))]),
                    fragments: ["Input must be int64 or double."]),
        InvalidCase(name: "nested array in arrayUnion",
                    write: .update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: testFieldPath("arr"), kind: .appendMissingElements([.array([])]))]),
                    fragments: ["Nested arrays are not supported (found in field arr)"]),
        InvalidCase(name: "nested array in arrayRemove",
                    write: .update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: testFieldPath("arr"), kind: .removeAllFromArray([.integer(1), .array([])]))]),
                    fragments: ["Nested arrays are not supported (found in field arr)"]),
        InvalidCase(name: "transform of a reserved field",
                    write: .update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: testFieldPath("a.__t__"), kind: .serverTimestamp)]),
                    fragments: ["cannot begin and end with \"__\""]),
        InvalidCase(name: "transform of the empty path",
                    write: .update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: FieldPath([]), kind: .serverTimestamp)]),
                    fragments: ["empty path"]),
    ]

    @Test("invalid writes are INVALID_ARGUMENT naming the problem and apply nothing", arguments: invalidCases)
    func invalid(_ c: InvalidCase) throws {
        try db.commit([.set(testPath("c/d"), testFields(["keep": .integer(1)]))])
        let before = db.state()
        expectFirestoreError(.invalidArgument, containing: c.fragments) {
            // A valid write first: the batch must stay atomic.
            try db.commit([.set(testPath("c/other"), testFields(["x": .integer(1)])), c.write])
        }
        #expect(db.state().hasSameDocuments(as: before))
        #expect(db.state().readTime == before.readTime)
        #expect(fields("c/d") == testFields(["keep": .integer(1)]))
        #expect(db.document(testPath("c/other")) == nil)
    }

    @Test("arrays of maps holding arrays are accepted (indirect nesting)")
    func indirectNesting() throws {
        try db.commit([.set(testPath("c/d"), testFields(["a": .array([testMap(["b": .array([.integer(1)])])])]))])
        #expect(fields("c/d")?.value(at: testFieldPath("a")) == .array([testMap(["b": .array([.integer(1)])])]))
    }

    // MARK: Limits on documents changed by updates

    /// A one-field string whose document at c/d totals `size` bytes (see DocumentLimitsTests).
    static func filler(_ name: String, documentSize size: Int, otherFields: Int) -> Value {
        .string(String(repeating: "x", count: size - 20 - 32 - otherFields - (name.utf8.count + 1) - 1))
    }

    @Test("an update is held to the 1 MiB limit of the whole document, measuring only what it changes")
    func updateSizeLimit() throws {
        // f fills the document to 1,000,000 bytes next to g (2 + 8 bytes).
        try db.commit([.set(testPath("c/d"), testFields(["f": Self.filler("f", documentSize: 1_000_000, otherFields: 10), "g": .integer(1)]))])
        let grown = Value.string(String(repeating: "y", count: 48_584))  // g: 2 + 48,585 bytes, 48,577 more than before
        expectFirestoreError(.invalidArgument,
            message: "Document 'projects/p/databases/(default)/documents/c/d' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed size of 1,048,576 bytes.") {
            try db.commit([.update(testPath("c/d"), testFields(["g": grown]), mask: [testFieldPath("g")])])
        }
        #expect(fields("c/d")?["g"] == .integer(1))
        // Shrinking f in the same write makes room; deleting a field gives its bytes back.
        try db.commit([.update(testPath("c/d"), testFields(["f": .string("short"), "g": grown]), mask: [testFieldPath("f"), testFieldPath("g")])])
        try db.commit([.update(testPath("c/d"), MapValue(), mask: [testFieldPath("f")])])
        let big = Self.filler("h", documentSize: 1_048_576, otherFields: 2 + 48_585)
        try db.commit([.update(testPath("c/d"), testFields(["h": big]), mask: [testFieldPath("h")])])
        #expect(DocumentLimits.documentSize(path: testPath("c/d"), fields: try #require(fields("c/d"))) == 1_048_576)
        expectFirestoreError(.invalidArgument, containing: ["(1,048,586 bytes)"]) {
            try db.commit([.update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: testFieldPath("n"), kind: .increment(.integer(1)))])])
        }
    }

    @Test("an update nesting a field too deep is rejected, naming the field")
    func updateDepthLimit() throws {
        try db.commit([.set(testPath("c/d"), testFields(["a": .integer(1), "m": DocumentLimitsTests.nested(depth: 20, arrays: false)]))])
        // m.a…a (20 names) holds the innermost value; a map there is the 21st level.
        let path = "m." + Array(repeating: "a", count: 20).joined(separator: ".")
        var update = testFields(["a": .integer(2)])
        update.setValue(testMap(["a": .integer(1)]), at: testFieldPath(path))
        expectFirestoreError(.invalidArgument, containing: ["field '\(path)' exceeds the maximum nesting depth of 20"]) {
            try db.commit([.update(testPath("c/d"), update, mask: [testFieldPath("a"), testFieldPath(path)])])
        }
        #expect(fields("c/d")?["a"] == .integer(1))
    }

    @Test("the size kept with each stored version matches the document after every kind of write")
    func storedSizeTracksWrites() throws {
        let key = DocumentKey(testPath("c/d"))
        func check() throws {
            let version = try #require(db.state().documents[key])
            #expect(version.fieldsSize == version.document.map { DocumentLimits.fieldsSize($0.fields) } ?? 0)
        }
        let writes: [Write] = [
            .set(testPath("c/d"), testFields(["a": testMap(["b": .integer(1), "c": .string("long enough to matter")]), "t": .array([.integer(1)])])),
            .update(testPath("c/d"), testFields(["a": testMap(["b": .string("now a string")])]), mask: [testFieldPath("a.b")]),
            .update(testPath("c/d"), MapValue(), mask: [testFieldPath("a.c")]),
            .update(testPath("c/d"), testFields(["z": .null]), mask: [testFieldPath("z"), testFieldPath("a.b")]),
            // Two paths under one top-level field: that field is measured once.
            .update(testPath("c/d"), testFields(["a": testMap(["b": .integer(2), "d": .boolean(true)])]),
                    mask: [testFieldPath("a.b"), testFieldPath("z"), testFieldPath("a.d")]),
            .update(testPath("c/d"), MapValue(), mask: [], transforms: [
                FieldTransform(path: testFieldPath("t"), kind: .appendMissingElements([.string("two"), .integer(3)])),
                FieldTransform(path: testFieldPath("n.m"), kind: .increment(.integer(5))),
                FieldTransform(path: testFieldPath("s"), kind: .serverTimestamp),
            ]),
            .update(testPath("c/d"), MapValue(), mask: [], transforms: [FieldTransform(path: testFieldPath("t"), kind: .removeAllFromArray([.integer(1)]))]),
            .delete(testPath("c/d")),
            Write(path: testPath("c/d"), operation: .update(testFields(["q": .integer(1)]), mask: [testFieldPath("q")])),  // a merge: creates
        ]
        for write in writes {
            try db.commit([write])
            try check()
        }
        // Several writes to one document in one commit, the last a partial update.
        try db.commit([.set(testPath("c/d"), testFields(["x": .string("abc")])),
                       .update(testPath("c/d"), testFields(["y": .bytes(Data([1, 2, 3]))]), mask: [testFieldPath("y")])])
        try check()
    }
}
