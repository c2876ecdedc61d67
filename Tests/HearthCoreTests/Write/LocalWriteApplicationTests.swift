import Foundation
import Testing
@testable import HearthCore

/// A client's local application of a write (what the mobile SDKs' `ApplyToLocalView` does),
/// checked against the SDK's rules: transforms read the document as it was before the write,
/// pending server timestamps keep the oldest real previous value, a failed precondition leaves
/// the document alone.
@Suite("Write.applyLocally")
struct LocalWriteApplicationTests {
    let path = testPath("c/a")
    let t = testTime(5)

    /// The pending server timestamp at `field` of `document`, if it holds one.
    func pending(_ document: Document?, _ field: String) -> (localWriteTime: Timestamp, previous: Value?)? {
        document?.value(at: testFieldPath(field)).flatMap(PendingServerTimestamp.decode)
    }

    func doc(_ fields: KeyValuePairs<String, Value>) -> Document {
        Document(path: path, fields: testFields(fields), createTime: testTime(1), updateTime: testTime(2))
    }

    @Test("serverTimestamp() becomes a pending value over the field's previous value")
    func serverTimestampPending() throws {
        let write = Write.set(path, testFields(["a": .integer(42)]),
                              transforms: [FieldTransform(path: testFieldPath("when"), kind: .serverTimestamp)])
        let fresh = write.applyLocally(to: nil, localWriteTime: t)
        let first = try #require(pending(fresh, "when"))
        #expect(first.localWriteTime == t && first.previous == nil)
        #expect(fresh?.value(at: testFieldPath("a")) == .integer(42))

        let over = write.applyLocally(to: doc(["when": .integer(7)]), localWriteTime: t)
        #expect(pending(over, "when")?.previous == .integer(7))
        // Pending over pending keeps the oldest real value (SDK: no chains of previous values).
        let second = try #require(pending(write.applyLocally(to: over, localWriteTime: testTime(6)), "when"))
        #expect(second.previous == .integer(7) && second.localWriteTime == testTime(6))
    }

    @Test("transforms read the document as it was before the write (SetMutation / PatchMutation local view)")
    func transformsReadTheOldDocument() throws {
        // An update of "deep" to a map holding only a server timestamp: the mask clears
        // "deep" first, yet the previous value is the old deep.when (FIRServerTimestampTests
        // testServerTimestampsWithPreviousValue).
        let update = Write.update(path, testFields(["deep": .map(MapValue())]), mask: [testFieldPath("deep")],
                                  transforms: [FieldTransform(path: testFieldPath("deep.when"), kind: .serverTimestamp)])
        let old = doc(["deep": testMap(["when": .timestamp(testTime(3))])])
        #expect(pending(update.applyLocally(to: old, localWriteTime: t), "deep.when")?.previous == .timestamp(testTime(3)))

        let increment = Write.set(path, MapValue(), transforms: [FieldTransform(path: testFieldPath("n"), kind: .increment(.integer(1)))])
        #expect(increment.applyLocally(to: doc(["n": .integer(5)]), localWriteTime: t)?.value(at: testFieldPath("n")) == .integer(6))
    }

    @Test("a precondition that does not hold leaves the document as it is; delete removes it")
    func preconditionsAndDelete() throws {
        let update = Write.update(path, testFields(["b": .integer(1)]), mask: [testFieldPath("b")])
        #expect(update.applyLocally(to: nil, localWriteTime: t) == nil)
        let existing = doc(["a": .integer(1)])
        let updated = try #require(update.applyLocally(to: existing, localWriteTime: t))
        #expect(updated.fields == testFields(["a": .integer(1), "b": .integer(1)]))
        #expect(updated.createTime == existing.createTime)
        #expect(Write.delete(path).applyLocally(to: existing, localWriteTime: t) == nil)
    }

    @Test("a local document never equals a committed one: its update time has an odd nanosecond count")
    func localVersionNeverACommitTime() throws {
        let write = Write.set(path, testFields(["a": .integer(1)]))
        let local = try #require(write.applyLocally(to: nil, localWriteTime: testTime(2)))
        #expect(local.updateTime.nanos % 2 == 1 && local.updateTime.seconds == testTime(2).seconds)
        #expect(local != Document(path: path, fields: testFields(["a": .integer(1)]), createTime: testTime(2), updateTime: testTime(2)))
    }
}
