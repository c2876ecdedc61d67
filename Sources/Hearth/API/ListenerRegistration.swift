import Foundation
import HearthCore
import HearthLock
import Synchronization

/// A snapshot listener, returned by `addSnapshotListener`. `remove()` stops it; calling it
/// again does nothing.
public protocol ListenerRegistration: AnyObject {
    func remove()
}

/// A listener's link to its engine target and its delivery queue.
///
/// Callbacks run on a private serial queue that targets `settings.dispatchQueue`, so they
/// run there (the main queue by default), in commit order, and never concurrently for one
/// listener even when that queue is concurrent. Each queued callback checks the removed
/// flag on that queue, so none runs once `remove()` has returned (a callback already
/// running when `remove()` is called from another thread finishes). Which view snapshots
/// become callbacks is decided on that queue too, in order (`SnapshotEvents`).
final class SnapshotListener: ListenerRegistration, @unchecked Sendable {
    private let firestore: Firestore
    private let queue: DispatchQueue
    private let removed = Atomic<Bool>(false)
    private let target = HearthMutex<ListenTargetID?>(nil)
    /// Read and written only on `queue`.
    private var events = SnapshotEvents(includeMetadataChanges: false)
    /// Whether the listener is out of sync (the instance offline): its snapshots are
    /// `isFromCache`. Read and written only on `queue` (set before the first is queued).
    private var fromCache = false
    /// The last view snapshot the listener accepted (kept only with metadata changes, the
    /// only listeners that re-raise it: a held snapshot makes the view's next step copy its
    /// chunk array) and whether one was raised; only on `queue`.
    private var lastView: ViewSnapshot?
    private var raised = false
    /// Back online and nothing raised since (`LocalView.SyncEvent.online`); only on `queue`.
    private var unsettled = false
    private let syncObserver = HearthMutex<Int?>(nil)
    /// The target counted in `LocalView.retainTarget`, until removed.
    private let retained = HearthMutex<ListenTarget?>(nil)

    /// This listener's key in `LocalCache`'s eager bookkeeping (unique while it lives).
    private var listenerID: Int { ObjectIdentifier(self).hashValue }

    init(firestore: Firestore) {
        self.firestore = firestore
        queue = DispatchQueue(label: "hearth.snapshot-listener", target: firestore.callbackQueue)
    }

    /// Registers `listenTarget` with the instance's local view: `onSnapshot` receives each
    /// engine snapshot that raises an event, with the pending documents of the snapshot
    /// before it (to classify metadata changes), on the listener queue; a failure to start
    /// is reported once through `onError`, and the listener ends.
    ///
    /// While the instance is offline the listener is out of sync: its first snapshot and
    /// the ones after are `isFromCache`. Going offline raises, with `includeMetadataChanges`,
    /// the current result again with only that flag changed (the SDK's sync-state change:
    /// FIRQueryTests testQueriesFireFromCacheWhenOffline); coming back, the catch-up's
    /// snapshot is in sync, and when the catch-up raised nothing the in-sync snapshot is
    /// raised alone, with metadata changes.
    ///
    /// Online, a listener that sends its own target (no other listener of the instance
    /// watches it) first builds its view from the cache (`LocalView.cachedView`,
    /// `LocalCache.startView`: the versions the instance received, which may be older than
    /// the server's, with its pending writes) and raises it with `isFromCache == true` when the SDK's
    /// `QueryListener::ShouldRaiseInitialEvent` would (core/query_listener.cc): it holds
    /// documents, or the query has cached results, or the client is Offline (its watch
    /// stream failed, `WatchStream`). Then the server's result follows as one step from it
    /// (`ViewSnapshot.step(from:)`): raised when documents changed (a newer version is
    /// `.modified`), and with metadata changes for the sync state alone (listen_spec_test
    /// "Individual documents cannot revert"; FIRQueryTests
    /// testQueriesCanRaiseInitialSnapshotFromCachedEmptyResults). With nothing to raise
    /// from the cache the server's result is the first snapshot, as before.
    ///
    /// A listener's Listen request meeting a fault fails the instance's watch stream
    /// (`Firestore.watchStreamFailed`): the listener is out of sync until the stream comes
    /// back, and when the client becomes Offline so is every listener of the instance.
    func start(_ listenTarget: ListenTarget, includeMetadataChanges: Bool,
               onSnapshot: @escaping @Sendable (ViewSnapshot, Set<ResourcePath>, _ fromCache: Bool) -> Void,
               onError: @escaping @Sendable (FirestoreErrorCode) -> Void) {
        events = SnapshotEvents(includeMetadataChanges: includeMetadataChanges)
        let observer = firestore.local.addSyncObserver { [self] event in
            deliver { [self] in
                switch event {
                case .offline:
                    guard !fromCache else { return }
                    fromCache = true
                    unsettled = false
                case .online:
                    unsettled = fromCache
                    fromCache = false
                    return
                case .settled:
                    guard unsettled else { return }
                    unsettled = false
                }
                guard includeMetadataChanges, raised, let lastView else { return }
                onSnapshot(lastView.unchanged(), lastView.mutatedKeys, fromCache)
            }
        }
        syncObserver.withLock { $0 = observer }
        let offline = firestore.local.isOffline
        let sharesTarget = firestore.local.retainTarget(listenTarget)
        retained.withLock { $0 = listenTarget }
        // The SDK sends a Listen request for a target no other listener watches, while the
        // client is online and its stream is not failing (a failing one sends it when it
        // comes back). Meeting a fault, it fails the stream.
        let sends = !sharesTarget && !offline && !firestore.local.watch.isDown
        let streamFailed = sends && firestore.listenFault(Firestore.listenPaths(listenTarget))
        if streamFailed { firestore.watchStreamFailed() }
        let streamDown = firestore.local.watch.isDown
        fromCache = offline || streamDown || streamFailed
        // The view from the cache, raised first (ShouldRaiseInitialEvent) — not for a target
        // another listener shares (its view is in sync) nor offline (the engine's offline
        // base is the cache already).
        let cache = firestore.local.cache
        let fromCacheFirst = !sharesTarget && !offline
        // A document target's cached view (lookups, before the listen); a query's is built
        // from its first result (`LocalCache.startView`), raised also when it has cached
        // results (read or listened to before: the SDK keeps such a target with a resume
        // token), or when the client is Offline.
        let cachedDocuments: LocalView.CachedView? = if fromCacheFirst, case .documents(let paths) = listenTarget {
            firestore.local.cachedView(of: paths)
        } else {
            nil
        }
        let hasCachedResults = if fromCacheFirst, case .query(let query) = listenTarget { cache.hasRecorded(query) } else { false }
        let database = firestore.database.id
        // A document listener started online learns that its missing documents are missing
        // (the SDK's cache records a NoDocument from Watch); offline it learns nothing.
        let missingPaths: [ResourcePath] = if !offline, case .documents(let paths) = listenTarget { paths } else { [] }
        // With eager collection the listener's documents stay cached while it listens.
        var queryListener: Int?
        switch listenTarget {
        case .documents(let paths): cache.hold(paths, by: listenerID)
        case .query: queryListener = listenerID
        }
        let holder = queryListener
        let listenedQuery: StructuredQuery? = if case .query(let query) = listenTarget { query } else { nil }
        do throws(FirestoreError) {
            switch listenTarget {
            case .documents(let paths):
                for path in paths { try firestore.access.checkGet(path, in: firestore.database) }
            case .query(let query):
                try firestore.access.checkQuery(query, in: firestore.database)
            }
            let client = firestore.local.listenerStarted()
            do throws(FirestoreError) {
                let id = try firestore.database.listen(listenTarget, client: client) { [self] snapshot in
                    // The view from the cache, taken before the first result goes into it.
                    var first: (documents: [Document], mutated: Set<ResourcePath>, same: Bool)?
                    if snapshot.isInitial && fromCacheFirst {
                        if let cachedDocuments {
                            first = (cachedDocuments.documents, cachedDocuments.mutated, false)
                        } else if let listenedQuery {
                            let view = cache.startView(of: listenedQuery, result: snapshot.documents, mutated: snapshot.mutatedKeys, database: database)
                            first = (view.documents, snapshot.mutatedKeys, view.sameAsResult)
                        }
                        // ShouldRaiseInitialEvent: documents, cached results, or Offline.
                        if let f = first, (f.same ? snapshot.documents.isEmpty : f.documents.isEmpty) && !hasCachedResults && !streamDown {
                            first = nil
                        }
                    }
                    cache.record(snapshot, query: listenedQuery, missingPaths: snapshot.isInitial ? missingPaths : [], holdingResultsFor: holder)
                    let cachedFirst = first
                    deliver { [self] in
                        if includeMetadataChanges { lastView = snapshot }
                        if let cached = cachedFirst {
                            // Built here, off the commit lock: O(k log k) in the cached view,
                            // nothing when it is the server's result itself.
                            let shown = cached.same ? snapshot : snapshot.initial(with: cached.documents, mutatedKeys: cached.mutated)
                            _ = events.accept(shown)
                            raised = true
                            unsettled = false
                            onSnapshot(shown, [], true)
                            let step = cached.same ? snapshot.unchanged() : snapshot.step(from: shown)
                            if let previousMutated = events.accept(step) {
                                onSnapshot(step, previousMutated, fromCache)
                            } else if includeMetadataChanges && !fromCache {
                                onSnapshot(step, shown.mutatedKeys, false)
                            }
                            return
                        }
                        guard let previousMutated = events.accept(snapshot) else { return }
                        raised = true
                        unsettled = false
                        onSnapshot(snapshot, previousMutated, fromCache)
                    }
                }
                target.withLock { $0 = id }
                if case .query(let query) = listenTarget { cache.recordQuery(query) }
            } catch {
                firestore.local.listenerRemoved()
                throw error
            }
        } catch {
            if let id = syncObserver.withLock({ o -> Int? in defer { o = nil }; return o }) { firestore.local.removeSyncObserver(id) }
            if let t = retained.withLock({ r -> ListenTarget? in defer { r = nil }; return r }) { firestore.local.releaseTarget(t) }
            cache.release(listenerID)
            let failure = FirestoreErrorCode(error)
            deliver { onError(failure) }
        }
        // The failed stream is opened again once this listener's first snapshot is queued
        // (its in-sync snapshot then comes after it).
        if streamFailed || streamDown { firestore.reconnectWatch() }
    }

    /// Queues `body` (counted for `Firestore.waitUntilIdle()`); it is skipped when the
    /// listener was removed before its turn.
    private func deliver(_ body: @escaping @Sendable () -> Void) {
        let deliveries = firestore.listenerDeliveries
        deliveries.begin()
        queue.async { [self] in
            if !removed.load(ordering: .acquiring) { body() }
            deliveries.end()
        }
    }

    func remove() {
        removed.store(true, ordering: .releasing)
        if let id = syncObserver.withLock({ o -> Int? in defer { o = nil }; return o }) { firestore.local.removeSyncObserver(id) }
        if let t = retained.withLock({ r -> ListenTarget? in defer { r = nil }; return r }) { firestore.local.releaseTarget(t) }
        if let id = target.withLock({ t -> ListenTargetID? in defer { t = nil }; return t }) {
            firestore.database.stopListening(id)
            firestore.local.listenerRemoved()
            firestore.local.cache.release(listenerID)
        }
    }
}
