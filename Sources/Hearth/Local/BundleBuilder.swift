import Foundation
import HearthCore

extension Firestore {
    /// A new bundle of this database's documents and query results, as the Admin SDKs'
    /// `firestore.bundle(id)` builds one (a Hearth addition: the iOS SDK only loads
    /// bundles). `db.bundle("id").add(documentSnapshot).add("name", querySnapshot).build()`
    /// gives bytes `loadBundle` reads.
    public func bundle(_ bundleID: String) -> BundleBuilder {
        ensureActive()
        return BundleBuilder(firestore: self, id: bundleID)
    }
}

/// Collects documents and named queries for a bundle (`Firestore.bundle(_:)`).
public final class BundleBuilder: @unchecked Sendable {
    private let firestore: Firestore
    private var builder: HearthCore.BundleBuilder

    init(firestore: Firestore, id: String) {
        self.firestore = firestore
        builder = HearthCore.BundleBuilder(id: id, database: firestore.database.id)
    }

    /// Adds a document (or its absence). Its read time is the query's for a query result,
    /// otherwise the database's last commit time when it is added.
    @discardableResult
    public func add(_ document: DocumentSnapshot) -> BundleBuilder {
        checkInstance(document.firestore)
        builder.add(document: document.document, path: document.path, readTime: firestore.database.state().readTime)
        return self
    }

    /// Adds a query's results under `queryName`, for `getQuery(named:)` after loading. Reusing
    /// a name is a programmer error, as the Admin SDKs throw.
    @discardableResult
    public func add(_ queryName: String, _ querySnapshot: QuerySnapshot) -> BundleBuilder {
        checkInstance(querySnapshot.query.firestore)
        let results = querySnapshot.documents.map { $0.document! }
        let readTime = querySnapshot.readTime ?? firestore.database.state().readTime
        requireValid { () throws(FirestoreError) in
            try builder.add(namedQuery: queryName, query: querySnapshot.query.definition.bundled, results: results, readTime: readTime)
        }
        return self
    }

    /// The bundle's bytes.
    public func build() -> Data {
        Data(builder.build())
    }

    private func checkInstance(_ other: Firestore) {
        if other.database !== firestore.database {
            programmerError("Provided snapshot is from a different Cloud Firestore database.")
        }
    }
}
