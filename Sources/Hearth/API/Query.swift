import Foundation
import HearthCore

/// A query over the documents of a collection. (Filters, ordering, cursors and limits build
/// on this type; a plain collection query returns every document in ID order.)
public class Query: @unchecked Sendable, Hashable {
    public let firestore: Firestore
    /// The collection queried.
    let collectionPath: ResourcePath

    init(firestore: Firestore, collectionPath: ResourcePath) {
        self.firestore = firestore
        self.collectionPath = collectionPath
    }

    public static func == (a: Query, b: Query) -> Bool {
        a.firestore === b.firestore && a.collectionPath == b.collectionPath
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(firestore))
        hasher.combine(collectionPath)
    }

    func run() -> QuerySnapshot {
        firestore.ensureActive()
        let docs = firestore.database.state().documents(in: collectionPath)
        return QuerySnapshot(query: self, documents: docs.map {
            QueryDocumentSnapshot(reference: DocumentReference(firestore: firestore, path: $0.path), document: $0, metadata: .server)
        })
    }

    public func getDocuments(completion: @escaping (QuerySnapshot?, Error?) -> Void) {
        getDocuments(source: .default, completion: completion)
    }

    public func getDocuments(source: FirestoreSource, completion: @escaping (QuerySnapshot?, Error?) -> Void) {
        let snap = run()
        let completion = sendable(completion)
        firestore.deliver { completion(snap, nil) }
    }

    public func getDocuments() async throws -> QuerySnapshot { run() }

    public func getDocuments(source: FirestoreSource) async throws -> QuerySnapshot { run() }
}
