// Only the drop-in module: what an app file written for the SDK sees with
// `import FirebaseFirestore` alone (no `import Foundation`).
import FirebaseFirestore
import Testing

@Suite("The FirebaseFirestore module as an app sees it")
struct DropInModuleTests {
    @Test("Foundation comes with the module: URL, UUID, Data, NSError, Date need no import")
    func foundationIsVisible() async throws {
        let db = Firestore.inMemory()
        let ref = db.collection("files").document(UUID().uuidString)
        let url = try #require(URL(string: "https://example.com/a.png"))
        try await ref.setData(["url": url.absoluteString, "bytes": Data([1, 2, 3]), "at": Date(timeIntervalSince1970: 0)])
        let snap = try await ref.getDocument()
        #expect(snap["bytes"] as? Data == Data([1, 2, 3]))
        let error = NSError(domain: FirestoreErrorDomain, code: FirestoreErrorCode.notFound.rawValue)
        #expect(FirestoreErrorCode.Code(rawValue: error.code) == .notFound)
    }

    @Test("query and reference builders used as statements compile without 'result unused' warnings, like the SDK's imported methods")
    func buildersAreDiscardable() {
        let db = Firestore.inMemory()
        // Each line would warn (and fail the warning-free build) if its result were not discardable.
        db.collection("cities")
        db.document("cities/SF")
        db.collectionGroup("landmarks")
        db.batch()
        db.collection("cities").document()
        db.collection("cities").document("SF").collection("landmarks")
        db.collection("cities").whereField("state", isEqualTo: "CA")
        db.collection("cities").whereField("population", isGreaterThan: 100_000).order(by: "population").limit(to: 2)
        db.collection("cities").order(by: "name").start(at: ["San Francisco"]).end(before: ["Tokyo"])
        db.collection("cities").whereFilter(Filter.orFilter([Filter.whereField("capital", isEqualTo: true)]))
        db.collection("cities").order(by: "name").limit(toLast: 3)
        db.collection("cities").aggregate([AggregateField.count()])
        #expect(db.collection("cities").whereField("state", isEqualTo: "CA") == db.collection("cities").whereField("state", isEqualTo: "CA"))
    }
}
