import Foundation
import Testing
@testable import HearthCore

/// `current` (nil = missing) transformed by `kind` must give `expected` (compared by identity,
/// so the type — int or double — and the bits of zeros count).
struct TransformCase: Sendable, CustomTestStringConvertible {
    let current: Value?
    let kind: FieldTransform.Kind
    let expected: Value
    let note: String
    init(_ current: Value?, _ kind: FieldTransform.Kind, _ expected: Value, _ note: String = "") {
        self.current = current
        self.kind = kind
        self.expected = expected
        self.note = note
    }
    var testDescription: String { "\(current.map(\.description) ?? "missing") ∘ \(kind) → \(expected) \(note)" }
}

@Suite("Field transforms (docs/semantics.md#field-transforms)")
struct FieldTransformTests {
    static let nan = Value.double(.nan)
    static func i(_ v: Int64) -> Value { .integer(v) }
    static func d(_ v: Double) -> Value { .double(v) }
    static func arr(_ values: Value...) -> Value { .array(values) }

    static func run(_ c: TransformCase) -> Value {
        FieldTransform(path: testFieldPath("f"), kind: c.kind).apply(to: c.current, commitTime: testEpoch)
    }

    // MARK: increment

    static let incrementCases: [TransformCase] = [
        TransformCase(i(1), .increment(i(2)), i(3), "int + int stays int"),
        TransformCase(i(-5), .increment(i(2)), i(-3)),
        TransformCase(i(.max), .increment(i(1)), i(.max), "saturates at Int64.max"),
        TransformCase(i(.max - 1), .increment(i(.max)), i(.max)),
        TransformCase(i(.min), .increment(i(-1)), i(.min), "saturates at Int64.min"),
        TransformCase(i(.min), .increment(i(.min)), i(.min)),
        TransformCase(i(.min), .increment(i(.max)), i(-1), "no overflow, no saturation"),
        TransformCase(i(1), .increment(d(0.5)), d(1.5), "int + double → double"),
        TransformCase(d(1.5), .increment(i(1)), d(2.5), "double + int → double"),
        TransformCase(d(0.1), .increment(d(0.2)), d(0.1 + 0.2), "IEEE addition"),
        TransformCase(i(1), .increment(d(0)), d(1), "1 + 0.0 becomes a double"),
        TransformCase(i(.max), .increment(d(1)), d(9_223_372_036_854_775_807.0 + 1), "double arithmetic, no saturation"),
        TransformCase(d(.infinity), .increment(i(1)), d(.infinity)),
        TransformCase(nan, .increment(i(1)), nan),
        TransformCase(nil, .increment(i(5)), i(5), "missing → operand"),
        TransformCase(nil, .increment(d(2.5)), d(2.5)),
        TransformCase(.string("7"), .increment(i(5)), i(5), "non-number → operand"),
        TransformCase(.null, .increment(d(-1)), d(-1)),
        TransformCase(testMap(["a": i(1)]), .increment(i(1)), i(1)),
        TransformCase(.array([i(1)]), .increment(i(1)), i(1)),
        TransformCase(.boolean(true), .increment(i(1)), i(1)),
    ]

    @Test("increment", arguments: incrementCases)
    func increment(_ c: TransformCase) {
        #expect(Self.run(c) == c.expected)
    }

    // MARK: maximum / minimum

    static let maximumCases: [TransformCase] = [
        TransformCase(i(1), .maximum(i(2)), i(2)),
        TransformCase(i(2), .maximum(i(1)), i(2)),
        TransformCase(i(3), .maximum(d(3.0)), i(3), "equal operands: field unchanged"),
        TransformCase(d(3.0), .maximum(i(3)), d(3.0), "equal operands: field unchanged"),
        TransformCase(i(1), .maximum(d(2.5)), d(2.5), "winner keeps its type"),
        TransformCase(d(2.5), .maximum(i(3)), i(3), "winner keeps its type"),
        TransformCase(d(1.5), .maximum(i(1)), d(1.5)),
        TransformCase(d(-0.0), .maximum(i(0)), d(-0.0), "zeros are equal: unchanged"),
        TransformCase(d(0.0), .maximum(d(-0.0)), d(0.0)),
        TransformCase(i(0), .maximum(d(-0.0)), i(0)),
        TransformCase(i(.max), .maximum(d(9_223_372_036_854_775_808.0)), d(9_223_372_036_854_775_808.0), "exact comparison"),
        TransformCase(nan, .maximum(i(1)), nan, "NaN → NaN"),
        TransformCase(i(1), .maximum(nan), nan, "NaN → NaN"),
        TransformCase(d(.infinity), .maximum(nan), nan),
        TransformCase(nil, .maximum(i(4)), i(4), "missing → operand"),
        TransformCase(.string("z"), .maximum(d(4)), d(4), "non-number → operand"),
        TransformCase(.null, .maximum(i(-4)), i(-4)),
    ]

    @Test("maximum", arguments: maximumCases)
    func maximum(_ c: TransformCase) {
        #expect(Self.run(c) == c.expected)
    }

    static let minimumCases: [TransformCase] = [
        TransformCase(i(1), .minimum(i(2)), i(1)),
        TransformCase(i(2), .minimum(i(1)), i(1)),
        TransformCase(i(3), .minimum(d(3.0)), i(3), "equal operands: field unchanged"),
        TransformCase(d(3.0), .minimum(i(3)), d(3.0), "equal operands: field unchanged"),
        TransformCase(i(3), .minimum(d(2.5)), d(2.5), "winner keeps its type"),
        TransformCase(d(2.5), .minimum(i(2)), i(2), "winner keeps its type"),
        TransformCase(d(0.0), .minimum(d(-0.0)), d(0.0), "zeros are equal: unchanged"),
        TransformCase(d(-0.0), .minimum(i(0)), d(-0.0)),
        TransformCase(i(.min), .minimum(d(-.infinity)), d(-.infinity)),
        TransformCase(nan, .minimum(i(1)), nan, "NaN → NaN"),
        TransformCase(i(1), .minimum(nan), nan, "NaN → NaN"),
        TransformCase(nil, .minimum(d(4)), d(4), "missing → operand"),
        TransformCase(testMap([:]), .minimum(i(4)), i(4), "non-number → operand"),
    ]

    @Test("minimum", arguments: minimumCases)
    func minimum(_ c: TransformCase) {
        #expect(Self.run(c) == c.expected)
    }

    // MARK: arrayUnion / arrayRemove

    static let arrayUnionCases: [TransformCase] = [
        TransformCase(arr(i(1), i(2)), .appendMissingElements([i(3)]), arr(i(1), i(2), i(3))),
        TransformCase(arr(i(3)), .appendMissingElements([d(3.0)]), arr(i(3)), "3 == 3.0"),
        TransformCase(arr(d(3.0)), .appendMissingElements([i(3), i(4)]), arr(d(3.0), i(4))),
        TransformCase(arr(i(0)), .appendMissingElements([d(-0.0)]), arr(i(0)), "-0.0 == 0"),
        TransformCase(arr(i(1)), .appendMissingElements([i(2), i(2), i(3), d(2)]), arr(i(1), i(2), i(3)), "argument duplicates added once"),
        TransformCase(arr(i(1), i(1)), .appendMissingElements([i(2), i(1)]), arr(i(1), i(1), i(2)), "existing duplicates kept"),
        TransformCase(arr(nan), .appendMissingElements([nan]), arr(nan), "NaN == NaN here"),
        TransformCase(arr(), .appendMissingElements([nan, nan]), arr(nan)),
        TransformCase(arr(.null), .appendMissingElements([.null]), arr(.null), "null == null"),
        TransformCase(arr(i(1)), .appendMissingElements([.null, .string("1")]), arr(i(1), .null, .string("1"))),
        TransformCase(arr(testMap(["a": i(1)])), .appendMissingElements([testMap(["a": d(1)])]), arr(testMap(["a": i(1)]))),
        TransformCase(arr(i(2), i(1)), .appendMissingElements([i(0)]), arr(i(2), i(1), i(0)), "appended, not sorted"),
        TransformCase(nil, .appendMissingElements([i(1), i(2)]), arr(i(1), i(2)), "missing starts as []"),
        TransformCase(.string("x"), .appendMissingElements([i(1)]), arr(i(1)), "non-array starts as []"),
        TransformCase(testMap(["0": i(1)]), .appendMissingElements([i(1)]), arr(i(1))),
        TransformCase(arr(i(1)), .appendMissingElements([]), arr(i(1))),
    ]

    @Test("arrayUnion", arguments: arrayUnionCases)
    func arrayUnion(_ c: TransformCase) {
        #expect(Self.run(c) == c.expected)
    }

    static let arrayRemoveCases: [TransformCase] = [
        TransformCase(arr(i(1), i(2), i(1), i(3)), .removeAllFromArray([i(1)]), arr(i(2), i(3)), "all occurrences"),
        TransformCase(arr(i(3), d(3.0), i(4)), .removeAllFromArray([i(3)]), arr(i(4)), "3 == 3.0"),
        TransformCase(arr(i(3), d(3.0), i(4)), .removeAllFromArray([d(3)]), arr(i(4))),
        TransformCase(arr(i(0), d(-0.0), d(0.0)), .removeAllFromArray([d(-0.0)]), arr(), "-0.0 == 0 (docs/semantics.md#observed-on-the-official-emulator)"),
        TransformCase(arr(nan, i(1), nan), .removeAllFromArray([nan]), arr(i(1)), "NaN == NaN here"),
        TransformCase(arr(.null, i(1)), .removeAllFromArray([.null]), arr(i(1)), "null == null"),
        TransformCase(arr(i(1), i(2)), .removeAllFromArray([i(2), i(2)]), arr(i(1)), "duplicate arguments"),
        TransformCase(arr(testMap(["a": d(1)]), i(5)), .removeAllFromArray([testMap(["a": i(1)])]), arr(i(5))),
        TransformCase(arr(i(1), .string("1")), .removeAllFromArray([.string("1")]), arr(i(1)), "types must match"),
        TransformCase(arr(i(1)), .removeAllFromArray([i(9)]), arr(i(1))),
        TransformCase(nil, .removeAllFromArray([i(1)]), arr(), "missing becomes []"),
        TransformCase(.string("x"), .removeAllFromArray([.string("x")]), arr(), "non-array becomes []"),
        TransformCase(i(1), .removeAllFromArray([i(1)]), arr()),
    ]

    @Test("arrayRemove", arguments: arrayRemoveCases)
    func arrayRemove(_ c: TransformCase) {
        #expect(Self.run(c) == c.expected)
    }

    @Test("serverTimestamp gives the commit time whatever the field held", arguments: [nil, Value.null, .integer(1), .timestamp(Timestamp(seconds: 1, nanos: 0))] as [Value?])
    func serverTimestampUnit(_ current: Value?) {
        let t = Timestamp(seconds: 42, nanos: 7000)
        #expect(FieldTransform(path: testFieldPath("f"), kind: .serverTimestamp).apply(to: current, commitTime: t) == .timestamp(t))
    }

    @Test("transform results: the new value, null for array transforms")
    func resultValues() {
        let v = Value.array([.integer(1)])
        #expect(FieldTransform(path: testFieldPath("f"), kind: .appendMissingElements([])).result(newValue: v) == .null)
        #expect(FieldTransform(path: testFieldPath("f"), kind: .removeAllFromArray([])).result(newValue: v) == .null)
        #expect(FieldTransform(path: testFieldPath("f"), kind: .increment(.integer(1))).result(newValue: .integer(3)) == .integer(3))
        #expect(FieldTransform(path: testFieldPath("f"), kind: .serverTimestamp).result(newValue: .timestamp(testEpoch)) == .timestamp(testEpoch))
    }
}

@Suite("Field transforms through Database.commit (docs/semantics.md#field-transforms, #batches, #observed-on-the-official-emulator)")
struct FieldTransformCommitTests {
    let db: Database
    let clock: ManualClock
    init() { (db, clock) = makeTestDatabase() }

    static func t(_ path: String, _ kind: FieldTransform.Kind) -> FieldTransform {
        FieldTransform(path: testFieldPath(path), kind: kind)
    }

    // docs/semantics.md#field-transforms (prod test): one commit → one server timestamp, across documents.
    @Test("serverTimestamp is the commit time, the same for every write of a commit")
    func serverTimestamp() throws {
        clock.set(Timestamp(seconds: testEpoch.seconds, nanos: 123_456_789))
        let r = try db.commit([
            .set(testPath("c/a"), MapValue(), transforms: [Self.t("when", .serverTimestamp)]),
            .set(testPath("c/b"), testFields(["x": .integer(1)]), transforms: [Self.t("m.when", .serverTimestamp), Self.t("other", .serverTimestamp)]),
            Write(path: testPath("other/c"), operation: .transformOnly, transforms: [Self.t("when", .serverTimestamp)]),
        ])
        // Microsecond precision, truncated.
        #expect(r.commitTime == Timestamp(seconds: testEpoch.seconds, nanos: 123_456_000))
        let ts = Value.timestamp(r.commitTime)
        #expect(db.document(testPath("c/a"))?.fields == testFields(["when": ts]))
        #expect(db.document(testPath("c/b"))?.fields == testFields(["x": .integer(1), "m": testMap(["when": ts]), "other": ts]))
        #expect(db.document(testPath("other/c"))?.fields == testFields(["when": ts]))
        #expect(r.writeResults.map(\.transformResults) == [[ts], [ts, ts], [ts]])
        #expect(r.writeResults.allSatisfy { $0.updateTime == r.commitTime })
    }

    @Test("transform results are reported per write: the new value, null for array transforms")
    func transformResults() throws {
        try db.commit([.set(testPath("c/d"), testFields(["n": .integer(1), "arr": .array([.integer(1)])]))])
        let r = try db.commit([.update(testPath("c/d"), MapValue(), mask: [], transforms: [
            Self.t("n", .increment(.integer(2))),
            Self.t("arr", .appendMissingElements([.integer(2)])),
            Self.t("arr", .removeAllFromArray([.integer(1)])),
            Self.t("max", .maximum(.double(1.5))),
        ])])
        #expect(r.writeResults[0].transformResults == [.integer(3), .null, .null, .double(1.5)])
        #expect(db.document(testPath("c/d"))?.fields
                == testFields(["n": .integer(3), "arr": .array([.integer(2)]), "max": .double(1.5)]))
    }

    // docs/semantics.md#observed-on-the-official-emulator: two transforms of one field, or an update and a transform, apply in order.
    @Test("two transforms on one field apply in order")
    func transformsInOrder() throws {
        try db.commit([.set(testPath("c/d"), testFields(["x": .integer(1)]))])
        let r = try db.commit([.update(testPath("c/d"), MapValue(), mask: [], transforms: [
            Self.t("x", .increment(.integer(2))), Self.t("x", .maximum(.integer(10))), Self.t("x", .increment(.double(0.5))),
        ])])
        #expect(r.writeResults[0].transformResults == [.integer(3), .integer(10), .double(10.5)])
        #expect(db.document(testPath("c/d"))?.fields["x"] == .double(10.5))
    }

    @Test("an update and a transform of the same field: data first, then the transform")
    func updateThenTransform() throws {
        try db.commit([.set(testPath("c/d"), testFields(["x": .integer(1)]))])
        try db.commit([.update(testPath("c/d"), testFields(["x": .integer(10)]), mask: [testFieldPath("x")],
                               transforms: [Self.t("x", .increment(.integer(1)))])])
        #expect(db.document(testPath("c/d"))?.fields["x"] == .integer(11))
    }

    @Test("set with a transform: the transform runs on the new data")
    func setThenTransform() throws {
        try db.commit([.set(testPath("c/d"), testFields(["x": .integer(100), "y": .integer(1)]))])
        try db.commit([.set(testPath("c/d"), testFields(["y": .integer(5)]), transforms: [Self.t("x", .increment(.integer(1))), Self.t("y", .increment(.integer(1)))])])
        #expect(db.document(testPath("c/d"))?.fields == testFields(["x": .integer(1), "y": .integer(6)]))
    }

    // docs/semantics.md#field-transforms: increment works with set-merge on a missing document; update → NOT_FOUND.
    @Test("increment on a missing document: merge creates, update fails")
    func incrementMissing() throws {
        let merge = Write(path: testPath("c/m"), operation: .update(MapValue(), mask: []), transforms: [Self.t("n", .increment(.integer(3)))])
        try db.commit([merge])
        #expect(db.document(testPath("c/m"))?.fields == testFields(["n": .integer(3)]))
        expectFirestoreError(.notFound, message: "No document to update: \(testResourceName("c/u"))") {
            try db.commit([.update(testPath("c/u"), MapValue(), mask: [], transforms: [Self.t("n", .increment(.integer(3)))])])
        }
        #expect(db.document(testPath("c/u")) == nil)
    }

    @Test("transforms see the state left by earlier writes of the same commit")
    func transformsSeeEarlierWrites() throws {
        try db.commit([
            .set(testPath("c/d"), testFields(["n": .integer(1)])),
            .update(testPath("c/d"), MapValue(), mask: [], transforms: [Self.t("n", .increment(.integer(1)))]),
            .update(testPath("c/d"), MapValue(), mask: [], transforms: [Self.t("n", .increment(.integer(1)))]),
        ])
        #expect(db.document(testPath("c/d"))?.fields["n"] == .integer(3))
    }

    @Test("a transform that changes nothing keeps the update time")
    func noOpTransform() throws {
        let t1 = try db.commit([.set(testPath("c/d"), testFields(["n": .integer(5), "a": .array([.integer(1)])]))]).commitTime
        let r = try db.commit([.update(testPath("c/d"), MapValue(), mask: [], transforms: [
            Self.t("n", .maximum(.double(5.0))), Self.t("n", .increment(.integer(0))), Self.t("a", .appendMissingElements([.double(1)])),
        ])])
        #expect(r.commitTime > t1)
        #expect(r.writeResults[0].updateTime == t1)
        #expect(db.document(testPath("c/d"))?.updateTime == t1)
        #expect(db.document(testPath("c/d"))?.fields == testFields(["n": .integer(5), "a": .array([.integer(1)])]))
    }
}
