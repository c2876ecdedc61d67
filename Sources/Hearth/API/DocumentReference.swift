import Foundation
import HearthCore
import HearthLock
import Synchronization

/// A reference to a document location (which may or may not hold a document).
public final class DocumentReference: @unchecked Sendable, Hashable, CustomStringConvertible {
    public let firestore: Firestore
    /// The document's path relative to the database root.
    let key: ResourcePath
    /// The engine's storage key for `key`, encoded on the first read through this reference
    /// (query results make a reference per document, most never read through).
    private let encodedKey = HearthMutex<DocumentKey?>(nil)

    init(firestore: Firestore, path: ResourcePath) {
        self.firestore = firestore
        self.key = path
    }

    var storageKey: DocumentKey {
        encodedKey.withLock { cached in
            if let cached { return cached }
            let encoded = DocumentKey(key)
            cached = encoded
            return encoded
        }
    }

    public var documentID: String { key.lastSegment }
    /// Slash-separated path relative to the database root (`users/u1`).
    public var path: String { key.description }
    public var parent: CollectionReference { CollectionReference(firestore: firestore, path: key.parent) }

    /// A subcollection (or deeper collection) at a relative path.
    @discardableResult
    public func collection(_ collectionPath: String) -> CollectionReference {
        firestore.ensureActive()
        let relative = requireValid { () throws(FirestoreError) in try ResourcePath.parse(collectionPath) }
        let full = key.appending(relative)
        if collectionPath.isEmpty || !full.isCollection {
            programmerError("Invalid collection reference. Collection references must have an odd number of segments, but \(full) has \(full.count)")
        }
        return CollectionReference(firestore: firestore, path: full)
    }

    public static func == (a: DocumentReference, b: DocumentReference) -> Bool {
        a.firestore === b.firestore && a.key == b.key
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(firestore))
        hasher.combine(key)
    }

    public var description: String { "<FIRDocumentReference: \(path)>" }

    var reader: UserDataReader { UserDataReader(firestore: firestore) }

    // MARK: Writes (fire-and-forget and completion forms)

    public func setData(_ documentData: [String: Any]) {
        setData(documentData, completion: nil)
    }

    public func setData(_ documentData: [String: Any], merge: Bool) {
        setData(documentData, merge: merge, completion: nil)
    }

    public func setData(_ documentData: [String: Any], mergeFields: [Any]) {
        setData(documentData, mergeFields: mergeFields, completion: nil)
    }

    public func setData(_ documentData: [String: Any], completion: ((Error?) -> Void)?) {
        firestore.ensureActive()
        let write = requireValid { () throws(FirestoreError) in try reader.setWrite(documentData, document: storageKey) }
        commit(write, completion: completion.map(sendable))
    }

    public func setData(_ documentData: [String: Any], merge: Bool, completion: ((Error?) -> Void)?) {
        firestore.ensureActive()
        let write = requireValid { () throws(FirestoreError) in
            merge ? try reader.mergeWrite(documentData, document: storageKey) : try reader.setWrite(documentData, document: storageKey)
        }
        commit(write, completion: completion.map(sendable))
    }

    public func setData(_ documentData: [String: Any], mergeFields: [Any], completion: ((Error?) -> Void)?) {
        firestore.ensureActive()
        let write = requireValid { () throws(FirestoreError) in try reader.mergeFieldsWrite(documentData, mergeFields: mergeFields, document: storageKey) }
        commit(write, completion: completion.map(sendable))
    }

    public func updateData(_ fields: [AnyHashable: Any]) {
        updateData(fields, completion: nil)
    }

    public func updateData(_ fields: [AnyHashable: Any], completion: ((Error?) -> Void)?) {
        firestore.ensureActive()
        let write = requireValid { () throws(FirestoreError) in try reader.updateWrite(fields, document: storageKey) }
        commit(write, completion: completion.map(sendable))
    }

    public func delete() {
        delete(completion: nil)
    }

    public func delete(completion: ((Error?) -> Void)?) {
        firestore.ensureActive()
        commit(.delete(storageKey), completion: completion.map(sendable))
    }

    // MARK: Writes (async)

    public func setData(_ documentData: [String: Any]) async throws {
        firestore.ensureActive()
        try await commit(requireValid { () throws(FirestoreError) in try reader.setWrite(documentData, document: storageKey) })
    }

    public func setData(_ documentData: [String: Any], merge: Bool) async throws {
        firestore.ensureActive()
        try await commit(requireValid { () throws(FirestoreError) in
            merge ? try reader.mergeWrite(documentData, document: storageKey) : try reader.setWrite(documentData, document: storageKey)
        })
    }

    public func setData(_ documentData: [String: Any], mergeFields: [Any]) async throws {
        firestore.ensureActive()
        try await commit(requireValid { () throws(FirestoreError) in
            try reader.mergeFieldsWrite(documentData, mergeFields: mergeFields, document: storageKey)
        })
    }

    public func updateData(_ fields: [AnyHashable: Any]) async throws {
        firestore.ensureActive()
        try await commit(requireValid { () throws(FirestoreError) in try reader.updateWrite(fields, document: storageKey) })
    }

    public func delete() async throws {
        firestore.ensureActive()
        try await commit(.delete(storageKey))
    }

    /// Commits one write of this document (fire-and-forget and completion forms).
    private func commit(_ write: Write, completion: (@Sendable (Error?) -> Void)?) {
        firestore.commit([write], completion: completion)
    }

    /// The `async` forms.
    private func commit(_ write: Write) async throws(FirestoreErrorCode) {
        try await firestore.commit([write])
    }

    // MARK: Reads

    /// The document now, from the database (`.default`, `.server`) or from this instance's
    /// cache (`.cache`: `LocalCache`; UNAVAILABLE when the document is not in it).
    func snapshot(source: FirestoreSource = .default) throws(FirestoreErrorCode) -> DocumentSnapshot {
        firestore.ensureActive()
        if source == .cache { return try cachedSnapshot() }
        if firestore.local.isOffline { return try offlineSnapshot(source: source) }
        try firestore.readFault(.getDocument, [key])
        do { try firestore.access.checkGet(key, in: firestore.database) } catch { throw FirestoreErrorCode(error) }
        firestore.local.acknowledgeAll()
        let document = firestore.database.document(storageKey)
        firestore.local.cache.record(storageKey, document, readTime: firestore.database.state().readTime)
        return DocumentSnapshot(reference: self, document: document, metadata: .server)
    }

    /// A read while the instance is offline, answered as the SDK's `GetDocument` answers
    /// from the snapshot its cache raises (api/document_reference.cc): the cached document
    /// (`isFromCache`) for the default source; UNAVAILABLE when the cache does not hold it as
    /// existing (never seen, or known deleted — FIRFirestoreSourceTests
    /// testGetNonExistingDocWhileOfflineWithDefaultSource) and for `.server`
    /// (…testGetDocumentWhileOfflineServerOnly).
    private func offlineSnapshot(source: FirestoreSource) throws(FirestoreErrorCode) -> DocumentSnapshot {
        let cached = try? cachedSnapshot()
        guard let cached, cached.exists else {
            throw FirestoreErrorCode(.unavailable, message: "Failed to get document because the client is offline.")
        }
        if source == .server {
            throw FirestoreErrorCode(.unavailable, message: "Failed to get document from server. (However, this document does exist in the local cache. Run again without setting source to FirestoreSourceServer to retrieve the cached document.)")
        }
        return cached
    }

    private func cachedSnapshot() throws(FirestoreErrorCode) -> DocumentSnapshot {
        if let local = firestore.local.pendingDocument(storageKey) {
            return DocumentSnapshot(reference: self, document: local.document, metadata: local.document == nil ? .cache : .pendingInCache)
        }
        switch firestore.local.cachedDocument(storageKey) {
        case .document(let document):
            return DocumentSnapshot(reference: self, document: document, metadata: .cache)
        case .absent:
            // The SDK's text (FirestoreClient::GetDocumentFromLocalCache), whose sentence the
            // SDK leaves unfinished; finished here.
            throw FirestoreErrorCode(.unavailable, message: "Failed to get document from cache. (However, this document may exist on the server. Run again without setting source to FirestoreSourceCache to attempt to retrieve the document from the server.)")
        }
    }

    public func getDocument(completion: @escaping (DocumentSnapshot?, Error?) -> Void) {
        getDocument(source: .default, completion: completion)
    }

    public func getDocument(source: FirestoreSource, completion: @escaping (DocumentSnapshot?, Error?) -> Void) {
        let completion = sendable(completion)
        do {
            let snap = try snapshot(source: source)
            firestore.deliver { completion(snap, nil) }
        } catch {
            firestore.deliver { completion(nil, error) }
        }
    }

    public func getDocument() async throws -> DocumentSnapshot { try snapshot() }

    public func getDocument(source: FirestoreSource) async throws -> DocumentSnapshot { try snapshot(source: source) }
}

/// The source a read asks for: `.default` and `.server` read the database (offline:
/// `.default` reads the cache and `.server` fails), `.cache` the instance's cache
/// (`LocalCache`).
public enum FirestoreSource: UInt, Sendable {
    case `default`, server, cache
}

/// Wraps a caller's closure so it can be sent to the callback queue. The SDK's handlers are
/// not `@Sendable`; like the SDK, Hearth calls each exactly once on the settings' queue.
func sendable<A>(_ f: @escaping (A) -> Void) -> @Sendable (A) -> Void {
    let box = UncheckedBox(f)
    return { a in box.value(a) }
}

func sendable<A, B>(_ f: @escaping (A, B) -> Void) -> @Sendable (A, B) -> Void {
    let box = UncheckedBox(f)
    return { a, b in box.value(a, b) }
}

struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
