import Foundation
import Testing
@testable import HearthCore

@Suite("Document sizes and limits (docs/semantics.md#document-size-and-limits)")
struct DocumentLimitsTests {
    // docs/semantics.md#document-size-and-limits: users/jeff/tasks/my_task_id → 6 + 5 + 6 + 11 + 16 = 44.
    @Test("document name size: the docs' example")
    func nameSize() {
        #expect(DocumentLimits.nameSize(testPath("users/jeff/tasks/my_task_id")) == 44)
        #expect(DocumentLimits.nameSize(testPath("c/d")) == 2 + 2 + 16)
    }

    // docs/semantics.md#document-size-and-limits worked example: 44 + 71 + 32 = 147 bytes.
    @Test("document size: the docs' 147-byte example")
    func workedExample() {
        let fields = testFields([
            "type": .string("Personal"),
            "done": .boolean(false),
            "priority": .integer(1),
            "description": .string("Learn Cloud Firestore"),
        ])
        #expect(DocumentLimits.fieldsSize(fields) == 71)
        #expect(DocumentLimits.documentSize(path: testPath("users/jeff/tasks/my_task_id"), fields: fields) == 147)
    }

    @Test("value sizes", arguments: [
        (Value.null, 1), (.boolean(true), 1), (.integer(.max), 8), (.double(.pi), 8),
        (.timestamp(Timestamp(seconds: 1, nanos: 1)), 8), (.geoPoint(GeoPoint(latitude: 1, longitude: 2)), 16),
        (.bytes(Data([1, 2, 3])), 3), (.bytes(Data()), 0), (.string(""), 1), (.string("abc"), 4), (.string("é"), 3),
        (.string("🐵"), 5), (testReference("users/jeff/tasks/my_task_id"), 44),
        (.array([.integer(1), .string("ab"), .null]), 8 + 3 + 1), (.array([]), 0),
        (testMap(["a": .integer(1), "bc": .boolean(true)]), (2 + 8) + (3 + 1)),  // no +32 for nested maps (docs/semantics.md#open-points, A11)
        (.map(MapValue()), 0), (.vector([1, 2, 3]), 24),
    ] as [(Value, Int)])
    func valueSizes(_ value: Value, _ size: Int) {
        #expect(DocumentLimits.valueSize(value) == size)
    }

    @Test("byte counts are grouped by thousands", arguments: [
        (0, "0"), (999, "999"), (1000, "1,000"), (1_048_576, "1,048,576"), (1_060_109, "1,060,109"),
        (123_456_789, "123,456,789"), (1_000_000_000, "1,000,000,000"),
    ] as [(Int, String)])
    func grouped(_ n: Int, _ text: String) {
        #expect(DocumentLimits.grouped(n) == text)
    }

    /// A document at `c/d` of `totalSize` bytes, in two strings `f` and `g` (each under the
    /// per-value limit): 20 (name) + 32 + 2 × (2 (field name) + 1) + the strings' bytes.
    static func document(totalSize: Int) -> MapValue {
        let strings = totalSize - 58
        return testFields(["f": .string(String(repeating: "x", count: strings / 2)),
                           "g": .string(String(repeating: "y", count: strings - strings / 2))])
    }

    // docs/semantics.md#document-size-and-limits: 1 MiB = 1,048,576 bytes, INVALID_ARGUMENT with the production message.
    @Test("the 1 MiB limit is inclusive and reported with grouped digits")
    func oneMiB() throws {
        let atLimit = Self.document(totalSize: 1_048_576)
        #expect(DocumentLimits.documentSize(path: testPath("c/d"), fields: atLimit) == 1_048_576)
        try DocumentLimits.validate(path: testPath("c/d"), fields: atLimit, database: testDatabaseID)
        expectFirestoreError(.invalidArgument,
            message: "Document 'projects/p/databases/(default)/documents/c/d' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed size of 1,048,576 bytes.") {
            try DocumentLimits.validate(path: testPath("c/d"), fields: Self.document(totalSize: 1_048_577), database: testDatabaseID)
        }
    }

    static func nested(depth: Int, arrays: Bool) -> Value {
        var v: Value = .integer(1)
        for level in 0..<depth {
            v = arrays && level % 2 == 1 ? .array([v]) : testMap(["a": v])
        }
        return v
    }

    // docs/semantics.md#field-paths, #document-size-and-limits, A3 of #open-points: at most 20 levels of maps and arrays; a top-level field's map is
    // level 1 (the code's documented choice).
    @Test("nesting depth: 20 accepted, 21 rejected", arguments: [false, true])
    func nestingDepth(arrays: Bool) throws {
        try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["f": Self.nested(depth: 20, arrays: arrays)]),
                                    database: testDatabaseID)
        expectFirestoreError(.invalidArgument, containing: ["maximum nesting depth of 20", "projects/p/databases/(default)/documents/c/d", "'f."]) {
            try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["f": Self.nested(depth: 21, arrays: arrays)]),
                                        database: testDatabaseID)
        }
    }

    @Test("the first field too deep in document order is named; an oversized document reports its size first")
    func firstDeepFieldAndSizeFirst() {
        let deep = Self.nested(depth: 21, arrays: false)
        expectFirestoreError(.invalidArgument, containing: ["field 'b.a.", "maximum nesting depth"]) {
            try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["z": deep, "b": deep, "a": .integer(1)]), database: testDatabaseID)
        }
        let half = String(repeating: "x", count: 600_000)
        expectFirestoreError(.invalidArgument, containing: ["exceeds the maximum allowed size"]) {
            try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["b": deep, "s": .string(half), "t": .string(half)]),
                                        database: testDatabaseID)
        }
    }

    // Observed on the official emulator: one string or bytes value may hold 1,048,487 bytes;
    // the check comes before the document's size, and names the top-level field.
    @Test("a string or bytes value over 1,048,487 bytes is refused before the document's size")
    func perValueLimit() throws {
        let limit = DocumentLimits.maxValueBytes
        try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["s": .string(String(repeating: "x", count: limit))]),
                                    database: testDatabaseID)
        expectFirestoreError(.invalidArgument, message: "The value of property \"s\" is longer than 1048487 bytes.") {
            try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["s": .string(String(repeating: "x", count: limit + 1))]),
                                        database: testDatabaseID)
        }
        expectFirestoreError(.invalidArgument, message: "The value of property \"a\" is longer than 1048487 bytes.") {
            try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["a": .array([.bytes(Data(count: 2_000_000))])]),
                                        database: testDatabaseID)
        }
        expectFirestoreError(.invalidArgument, message: "Property m contains an invalid nested entity.") {
            try DocumentLimits.validate(path: testPath("c/d"), fields: testFields(["m": testMap(["s": .string(String(repeating: "x", count: limit + 1))])]),
                                        database: testDatabaseID)
        }
    }
}
