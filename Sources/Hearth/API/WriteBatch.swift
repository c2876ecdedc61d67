import Foundation
import HearthCore

/// Writes committed together: all of them apply, or none.
public final class WriteBatch {
    let firestore: Firestore
    private var writes: [Write] = []
    private var committed = false

    init(firestore: Firestore) { self.firestore = firestore }

    private func add(_ document: DocumentReference, _ make: () throws(FirestoreError) -> Write) -> WriteBatch {
        if committed { programmerError("A write batch can no longer be used after commit has been called.") }
        if document.firestore !== firestore {
            programmerError("Provided document reference is from a different Cloud Firestore instance.")
        }
        writes.append(requireValid(make))
        return self
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference) -> WriteBatch {
        add(document) { () throws(FirestoreError) in try document.reader.setWrite(data, document: document.storageKey) }
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool) -> WriteBatch {
        add(document) { () throws(FirestoreError) in
            merge ? try document.reader.mergeWrite(data, document: document.storageKey) : try document.reader.setWrite(data, document: document.storageKey)
        }
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, mergeFields: [Any]) -> WriteBatch {
        add(document) { () throws(FirestoreError) in
            try document.reader.mergeFieldsWrite(data, mergeFields: mergeFields, document: document.storageKey)
        }
    }

    @discardableResult
    public func updateData(_ fields: [AnyHashable: Any], forDocument document: DocumentReference) -> WriteBatch {
        add(document) { () throws(FirestoreError) in try document.reader.updateWrite(fields, document: document.storageKey) }
    }

    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> WriteBatch {
        add(document) { () throws(FirestoreError) in .delete(document.storageKey) }
    }

    private func takeWrites() -> [Write] {
        if committed { programmerError("A write batch can no longer be used after commit has been called.") }
        committed = true
        firestore.ensureActive()
        return writes
    }

    public func commit() {
        commit(completion: nil)
    }

    public func commit(completion: ((Error?) -> Void)?) {
        firestore.commit(takeWrites(), completion: completion.map(sendable))
    }

    public func commit() async throws {
        try await firestore.commit(takeWrites())
    }
}
