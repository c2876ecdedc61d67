import Foundation
import HearthCore

/// A collection of documents; also the query over all of them.
public final class CollectionReference: Query, @unchecked Sendable {
    init(firestore: Firestore, path: ResourcePath) {
        super.init(firestore: firestore, collectionPath: path)
    }

    /// The last path segment.
    public var collectionID: String { collectionPath.lastSegment }
    /// The containing document, or nil for a root collection.
    public var parent: DocumentReference? {
        collectionPath.count > 1 ? DocumentReference(firestore: firestore, path: collectionPath.parent) : nil
    }
    /// Slash-separated path relative to the database root (`users/u1/posts`).
    public var path: String { collectionPath.description }

    /// A new document with a random 20-character ID.
    @discardableResult
    public func document() -> DocumentReference {
        document(AutoID.generate())
    }

    /// The document at a relative path (`"b"` or `"b/sub/c"`).
    @discardableResult
    public func document(_ documentPath: String) -> DocumentReference {
        firestore.ensureActive()
        let relative = requireValid { () throws(FirestoreError) in
            if documentPath.isEmpty { throw .invalidArgument("Document path cannot be empty.") }
            return try ResourcePath.parse(documentPath)
        }
        let full = collectionPath.appending(relative)
        if !full.isDocument {
            programmerError("Invalid document reference. Document references must have an even number of segments, but \(full) has \(full.count)")
        }
        return DocumentReference(firestore: firestore, path: full)
    }

    /// Adds a document with a random ID; the reference is returned at once and the document
    /// is readable as soon as the call returns.
    @discardableResult
    public func addDocument(data: [String: Any]) -> DocumentReference {
        addDocument(data: data, completion: nil)
    }

    @discardableResult
    public func addDocument(data: [String: Any], completion: ((Error?) -> Void)?) -> DocumentReference {
        let ref = document()
        ref.setData(data, completion: completion)
        return ref
    }

    @discardableResult
    public func addDocument(data: [String: Any]) async throws -> DocumentReference {
        let ref = document()
        try await ref.setData(data)
        return ref
    }
}
