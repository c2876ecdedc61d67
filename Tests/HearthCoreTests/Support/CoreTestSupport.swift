import Foundation
import Testing
@testable import HearthCore

// Small builders shared by the HearthCore tests. Names are prefixed so they cannot clash
// with helpers of other test files in this target.

/// The database every storage test uses: project `p`, database `(default)`.
let testDatabaseID = DatabaseID(project: "p")

/// 2026-01-01T00:00:00Z, the starting point of manual clocks.
let testEpoch = Timestamp(seconds: 1_767_225_600, nanos: 0)

/// `"c/d"` → a ResourcePath (no validation; tests of parsing use `ResourcePath.parse`).
func testPath(_ path: String) -> ResourcePath {
    ResourcePath(segments: path.split(separator: "/", omittingEmptySubsequences: false).map(String.init))
}

/// `"a.b"` → a FieldPath of literal segments.
func testFieldPath(_ path: String) -> FieldPath {
    FieldPath(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
}

/// Fields from literal pairs (any order; MapValue sorts them).
func testFields(_ pairs: KeyValuePairs<String, Value>) -> MapValue {
    MapValue(pairs.map { ($0.key, $0.value) })
}

/// A map value from literal pairs.
func testMap(_ pairs: KeyValuePairs<String, Value>) -> Value {
    .map(testFields(pairs))
}

/// A reference value to a document of the test database.
func testReference(_ path: String, project: String = "p", database: String = "(default)") -> Value {
    .reference(DocumentName(database: DatabaseID(project: project, database: database), path: testPath(path)))
}

/// A timestamp `seconds` (and `micros`) after `testEpoch`.
func testTime(_ seconds: Int64, micros: Int32 = 0) -> Timestamp {
    Timestamp(seconds: testEpoch.seconds + seconds, nanos: micros * 1000)
}

/// A fresh database on a manual clock standing at `testEpoch`.
func makeTestDatabase(retention: Double = 3600) -> (Database, ManualClock) {
    let clock = ManualClock(now: testEpoch)
    return (Database(id: testDatabaseID, clock: clock, versionRetention: retention), clock)
}

/// `projects/p/databases/(default)/documents/<path>`
func testResourceName(_ path: String) -> String {
    testDatabaseID.resourceName(testPath(path))
}

/// Runs `body` and checks that it throws a `FirestoreError` with `code`, and (when given)
/// exactly `message` or a message containing every fragment. Returns the error.
@discardableResult
func expectFirestoreError<R>(
    _ code: FirestoreError.Code,
    message: String? = nil,
    containing fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) -> FirestoreError? {
    let error = #expect(throws: FirestoreError.self, sourceLocation: sourceLocation) { _ = try body() }
    guard let error else { return nil }
    #expect(error.code == code, "unexpected error \(error)", sourceLocation: sourceLocation)
    if let message {
        #expect(error.message == message, sourceLocation: sourceLocation)
    }
    for fragment in fragments {
        #expect(error.message.contains(fragment), "\"\(error.message)\" lacks \"\(fragment)\"", sourceLocation: sourceLocation)
    }
    return error
}

/// Sorts values by Firestore's total order.
func firestoreSorted(_ values: [Value]) -> [Value] {
    values.sorted { Value.compare($0, $1) < 0 }
}
