import Foundation
import HearthCore

/// Snapshot listeners on a query (docs/semantics.md#listeners). Delivery is asynchronous, on
/// `settings.dispatchQueue`: first the whole result (every document `.added`), then one
/// snapshot for each commit that changes the result — a batch or transaction is one
/// snapshot — with `documentChanges` as the SDK computes them. The engine maintains the
/// result incrementally (`HearthCore.QueryView`). This instance's own writes arrive first
/// as they are issued, with `metadata.hasPendingWrites == true` (`LocalWriteEvents`).
/// Errors the server reports when a query starts (a missing index under `.enforce`, limits
/// on filters) arrive once, as the only callback, and the listener ends. Online, a listener on
/// data the instance's cache holds raises the cached view first (`isFromCache`), then the
/// server's result (docs/local-view.md); offline (`disableNetwork()`), from the cache.
extension Query {
    @discardableResult
    public func addSnapshotListener(_ listener: @escaping (QuerySnapshot?, Error?) -> Void) -> ListenerRegistration {
        addSnapshotListener(options: SnapshotListenOptions(), listener: listener)
    }

    @discardableResult
    public func addSnapshotListener(includeMetadataChanges: Bool,
                                    listener: @escaping (QuerySnapshot?, Error?) -> Void) -> ListenerRegistration {
        addSnapshotListener(options: SnapshotListenOptions().withIncludeMetadataChanges(includeMetadataChanges), listener: listener)
    }

    /// `options.source` is accepted for compatibility: `.cache` listens like `.default`.
    @discardableResult
    public func addSnapshotListener(options: SnapshotListenOptions,
                                    listener: @escaping (QuerySnapshot?, Error?) -> Void) -> ListenerRegistration {
        firestore.ensureActive()
        requireValid { () throws(FirestoreError) in try checkRunnable() }
        let callback = sendable(listener)
        let registration = SnapshotListener(firestore: firestore)
        let reversed = definition.limitType == .last
        let includeMetadataChanges = options.includeMetadataChanges
        registration.start(.query(definition.structuredQuery), includeMetadataChanges: includeMetadataChanges,
                           onSnapshot: { [self] view, previousMutated, fromCache in
            callback(QuerySnapshot(query: self, view: view, previousMutated: previousMutated, reversed: reversed,
                                   includesMetadataChanges: includeMetadataChanges, fromCache: fromCache), nil)
        }, onError: { callback(nil, $0) })
        return registration
    }

    /// The query's snapshots as an `AsyncSequence`; see `QuerySnapshotsSequence`.
    public var snapshots: QuerySnapshotsSequence { snapshots(includeMetadataChanges: false) }

    public func snapshots(includeMetadataChanges: Bool) -> QuerySnapshotsSequence {
        QuerySnapshotsSequence(query: self, includeMetadataChanges: includeMetadataChanges)
    }

    /// The snapshots of a query listener as an `AsyncSequence`. Each iteration starts its
    /// own listener; ending the iteration (leaving the loop, cancelling the task) removes
    /// it, and an error finishes the sequence by throwing.
    public struct QuerySnapshotsSequence: AsyncSequence, Sendable {
        public typealias Element = QuerySnapshot
        public typealias Failure = Error

        let query: Query
        let includeMetadataChanges: Bool

        public func makeAsyncIterator() -> AsyncIterator {
            let stream = AsyncThrowingStream<QuerySnapshot, Error> { continuation in
                let registration = query.addSnapshotListener(includeMetadataChanges: includeMetadataChanges) { snapshot, error in
                    if let snapshot { continuation.yield(snapshot) } else { continuation.finish(throwing: error) }
                }
                let listener = UncheckedBox(registration)
                continuation.onTermination = { _ in listener.value.remove() }
            }
            return AsyncIterator(base: stream.makeAsyncIterator())
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<QuerySnapshot, Error>.Iterator

            public mutating func next() async throws -> QuerySnapshot? {
                try await base.next()
            }
        }
    }
}
