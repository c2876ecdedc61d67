import Foundation
import Testing
@testable import Hearth

/// A type Firestore cannot store.
private struct Unstorable {}

/// Programmer errors: the SDK raises an exception with these messages (the app crashes);
/// Hearth runs the same checks in internal throwing functions, tested here directly
/// (docs/embedded-api.md#linux-and-apple-platforms item 4; docs/semantics.md#values, #field-paths, #writes, #field-transforms, #paths-and-ids).
@Suite struct ProgrammerErrorTests {
    private let db = apiDB()
    private var reader: UserDataReader { UserDataReader(firestore: db) }
    private var path: DocumentReference { db.document("c/d") }

    private func setMessage(_ data: [String: Any]) -> String? {
        apiRejection { _ = try reader.setWrite(data, document: path.storageKey) }
    }

    private func mergeMessage(_ data: [String: Any]) -> String? {
        apiRejection { _ = try reader.mergeWrite(data, document: path.storageKey) }
    }

    private func mergeFieldsMessage(_ data: [String: Any], _ fields: [Any]) -> String? {
        apiRejection { _ = try reader.mergeFieldsWrite(data, mergeFields: fields, document: path.storageKey) }
    }

    private func updateMessage(_ data: [AnyHashable: Any]) -> String? {
        apiRejection { _ = try reader.updateWrite(data, document: path.storageKey) }
    }

    // MARK: Values

    @Test func unsupportedTypeNamesTheField() {
        #expect(setMessage(["a": ["b": Unstorable()]]) == "Unsupported type: Unstorable (found in field a.b)")
        #expect(updateMessage(["x.y": Unstorable()]) == "Unsupported type: Unstorable (found in field x.y)")
        #expect(mergeMessage(["top": NSObject()]) == "Unsupported type: NSObject (found in field top)")
    }

    @Test func unsupportedTypeInsideAnArrayHasNoFieldDescription() {
        // The SDK has no paths inside arrays (FieldDescription is empty there).
        #expect(setMessage(["a": [1, Unstorable()]]) == "Unsupported type: Unstorable")
    }

    @Test func nestedArraysAreRejected() {
        #expect(setMessage(["a": [[1, 2]]]) == "Nested arrays are not supported")
        #expect(setMessage(["m": ["list": [1, [2]]]]) == "Nested arrays are not supported")
        #expect(updateMessage(["a": FieldValue.arrayUnion([[1]])]) == "Nested arrays are not supported")
        // Indirect nesting (an array inside a map inside an array) is fine.
        #expect(setMessage(["a": [["inner": [1, 2]]]]) == nil)
    }

    @Test func deleteInPlainSetIsRejected() {
        #expect(setMessage(["a": FieldValue.delete()]) == "FieldValue.delete() can only be used with updateData() and setData() with merge:true (found in field a)")
        #expect(setMessage(["m": ["b": FieldValue.delete()]]) == "FieldValue.delete() can only be used with updateData() and setData() with merge:true (found in field m.b)")
        #expect(mergeMessage(["m": ["b": FieldValue.delete()]]) == nil)
    }

    @Test func deleteNestedInUpdateIsRejected() {
        #expect(updateMessage(["a": ["b": FieldValue.delete()]]) == "FieldValue.delete() can only appear at the top level of your update data (found in field a.b)")
        #expect(updateMessage(["a.b": FieldValue.delete()]) == nil)
    }

    @Test func sentinelsInsideArraysAreRejected() {
        #expect(setMessage(["a": [FieldValue.serverTimestamp()]]) == "FieldValue.serverTimestamp() is not currently supported inside arrays")
        #expect(updateMessage(["a": [1, FieldValue.arrayUnion([2])]]) == "FieldValue.arrayUnion() is not currently supported inside arrays")
        #expect(mergeMessage(["a": [FieldValue.delete()]]) == "FieldValue.delete() is not currently supported inside arrays")
        #expect(setMessage(["a": [["t": FieldValue.increment(Int64(1))]]]) == "FieldValue.increment() is not currently supported inside arrays")
    }

    @Test func sentinelsInsideArrayTransformElementsAreRejected() {
        #expect(updateMessage(["a": FieldValue.arrayUnion([FieldValue.serverTimestamp()])]) == "FieldValue.serverTimestamp() can only be used with updateData() and setData()")
        #expect(updateMessage(["a": FieldValue.arrayRemove([1, FieldValue.delete()])]) == "FieldValue.delete() can only be used with updateData() and setData()")
    }

    @Test func unsignedValuesAboveInt64MaxAreRejected() {
        #expect(setMessage(["a": UInt64(Int64.max) + 1]) == "NSNumber (9223372036854775808) is too large (found in field a)")
        #expect(setMessage(["m": ["u": UInt.max]]) == "NSNumber (18446744073709551615) is too large (found in field m.u)")
        #expect(setMessage(["n": NSNumber(value: UInt64.max)]) == "NSNumber (18446744073709551615) is too large (found in field n)")
        #expect(setMessage(["a": UInt64(Int64.max)]) == nil)
    }

    @Test func referenceFromAnotherDatabaseIsRejected() {
        let other = Firestore.inMemory(projectID: "other-project")
        #expect(setMessage(["r": other.document("x/y")]) == "Document Reference is for database other-project/(default) but should be for database \(Firestore.defaultProjectID)/(default) (found in field r)")
        #expect(setMessage(["r": db.document("x/y")]) == nil)
    }

    // MARK: mergeFields

    @Test func mergeFieldPathMissingFromDataIsRejected() {
        #expect(mergeFieldsMessage(["a": 1], ["a", "b"]) == "Field 'b' is specified in your field mask but missing from your input data.")
        #expect(mergeFieldsMessage(["a": 1], ["a.b"]) == "Field 'a.b' is specified in your field mask but missing from your input data.")
        #expect(mergeFieldsMessage(["m": ["x": 1]], ["m.y"]) == "Field 'm.y' is specified in your field mask but missing from your input data.")
        #expect(mergeFieldsMessage(["a": 1], [FieldPath(["a"])]) == nil)
        #expect(mergeFieldsMessage(["m": ["x": 1]], ["m"]) == nil)
        #expect(mergeFieldsMessage(["t": FieldValue.serverTimestamp()], ["t"]) == nil)
        #expect(mergeFieldsMessage(["d": FieldValue.delete()], ["d"]) == nil)
    }

    @Test func mergeFieldsElementsMustBeStringsOrFieldPaths() {
        #expect(mergeFieldsMessage(["a": 1], [1]) == "All elements in mergeFields: must be NSStrings or FIRFieldPaths.")
    }

    // MARK: Field paths

    @Test func updateKeysMustBeStringsOrFieldPaths() {
        #expect(updateMessage([1: "x"]) == "Dictionary keys in updateData: must be NSStrings or FIRFieldPaths.")
    }

    @Test func invalidDottedPathsAreRejected() {
        for bad in ["a..b", ".a", "a.", ""] {
            #expect(updateMessage([bad: 1]) == "Invalid field path (\(bad)). Paths must not be empty, begin with '.', end with '.', or contain '..'")
        }
        for bad in ["a~b", "a*", "a/b", "a[0]", "b]"] {
            #expect(updateMessage([bad: 1]) == "Invalid field path (\(bad)). Paths must not contain '~', '*', '/', '[', or ']'")
        }
        #expect(mergeFieldsMessage(["a": 1], ["a..b"]) == "Invalid field path (a..b). Paths must not be empty, begin with '.', end with '.', or contain '..'")
        #expect(updateMessage(["`a.b`": 1]) == nil)
    }

    @Test func fieldPathSegmentsMustNotBeEmpty() {
        #expect(apiRejection { _ = try FieldPath.validated([]) } == "Invalid field path. Provided names must not be empty.")
        #expect(apiRejection { _ = try FieldPath.validated(["a", ""]) } == "Invalid field name at index 1. Field names must not be empty.")
        #expect(apiRejection { _ = try FieldPath.validated(["a.b", "c"]) } == nil)
    }

    // MARK: Resource paths

    @Test func collectionPathChecks() {
        #expect(apiRejection { _ = try Firestore.parseCollectionPath("") } == "Collection path cannot be empty.")
        #expect(apiRejection { _ = try Firestore.parseCollectionPath("a/b") } == "Invalid collection reference. Collection references must have an odd number of segments, but a/b has 2")
        #expect(apiRejection { _ = try Firestore.parseCollectionPath("a//b/c") } == "Invalid path (a//b/c). Paths must not contain // in them.")
        #expect(apiRejection { _ = try Firestore.parseCollectionPath("a/b/c") } == nil)
        #expect(apiRejection { _ = try Firestore.parseCollectionPath("/a/") } == nil)
    }

    @Test func documentPathChecks() {
        #expect(apiRejection { _ = try Firestore.parseDocumentPath("") } == "Document path cannot be empty.")
        #expect(apiRejection { _ = try Firestore.parseDocumentPath("a") } == "Invalid document reference. Document references must have an even number of segments, but a has 1")
        #expect(apiRejection { _ = try Firestore.parseDocumentPath("a/b/c") } == "Invalid document reference. Document references must have an even number of segments, but a/b/c has 3")
        #expect(apiRejection { _ = try Firestore.parseDocumentPath("a//b") } == "Invalid path (a//b). Paths must not contain // in them.")
        #expect(apiRejection { _ = try Firestore.parseDocumentPath("a/b") } == nil)
    }
}
