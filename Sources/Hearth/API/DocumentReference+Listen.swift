import Foundation
import HearthCore

/// Snapshot listeners on one document (docs/semantics.md#listeners). Delivery is asynchronous, on
/// `settings.dispatchQueue`: first the document now (`exists == false` when it is missing),
/// then one snapshot for each commit that changes it. This instance's own writes arrive
/// first as they are issued, with `metadata.hasPendingWrites == true`, then as committed
/// when the data changed (resolved server timestamps) or, with `includeMetadataChanges`,
/// for the pending state alone (`LocalWriteEvents`). Online, a listener on a document
/// the instance's cache holds raises the cached version first (`isFromCache`), then the
/// server's (docs/local-view.md); offline (`disableNetwork()`), from the cache.
extension DocumentReference {
    @discardableResult
    public func addSnapshotListener(_ listener: @escaping (DocumentSnapshot?, Error?) -> Void) -> ListenerRegistration {
        addSnapshotListener(options: SnapshotListenOptions(), listener: listener)
    }

    @discardableResult
    public func addSnapshotListener(includeMetadataChanges: Bool,
                                    listener: @escaping (DocumentSnapshot?, Error?) -> Void) -> ListenerRegistration {
        addSnapshotListener(options: SnapshotListenOptions().withIncludeMetadataChanges(includeMetadataChanges), listener: listener)
    }

    /// `options.source` is accepted for compatibility: `.cache` listens like `.default`.
    @discardableResult
    public func addSnapshotListener(options: SnapshotListenOptions,
                                    listener: @escaping (DocumentSnapshot?, Error?) -> Void) -> ListenerRegistration {
        firestore.ensureActive()
        let callback = sendable(listener)
        let registration = SnapshotListener(firestore: firestore)
        registration.start(.documents([key]), includeMetadataChanges: options.includeMetadataChanges, onSnapshot: { [self] view, _, fromCache in
            let document = view.documents.first
            // A missing document has no pending writes to show (SDK: only documents in the view do).
            let pending = document.map { view.mutatedKeys.contains($0.path) } ?? false
            callback(DocumentSnapshot(reference: self, document: document, metadata: .of(pending: pending, fromCache: fromCache)), nil)
        }, onError: { callback(nil, $0) })
        return registration
    }

    /// The document's snapshots as an `AsyncSequence`; see `DocumentSnapshotsSequence`.
    public var snapshots: DocumentSnapshotsSequence { snapshots(includeMetadataChanges: false) }

    public func snapshots(includeMetadataChanges: Bool) -> DocumentSnapshotsSequence {
        DocumentSnapshotsSequence(reference: self, includeMetadataChanges: includeMetadataChanges)
    }

    /// The snapshots of a document listener as an `AsyncSequence`. Each iteration starts its
    /// own listener; ending the iteration (leaving the loop, cancelling the task) removes
    /// it, and an error finishes the sequence by throwing.
    public struct DocumentSnapshotsSequence: AsyncSequence, Sendable {
        public typealias Element = DocumentSnapshot
        public typealias Failure = Error

        let reference: DocumentReference
        let includeMetadataChanges: Bool

        public func makeAsyncIterator() -> AsyncIterator {
            let stream = AsyncThrowingStream<DocumentSnapshot, Error> { continuation in
                let registration = reference.addSnapshotListener(includeMetadataChanges: includeMetadataChanges) { snapshot, error in
                    if let snapshot { continuation.yield(snapshot) } else { continuation.finish(throwing: error) }
                }
                let listener = UncheckedBox(registration)
                continuation.onTermination = { _ in listener.value.remove() }
            }
            return AsyncIterator(base: stream.makeAsyncIterator())
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<DocumentSnapshot, Error>.Iterator

            public mutating func next() async throws -> DocumentSnapshot? {
                try await base.next()
            }
        }
    }
}
