import Foundation
import HearthCore
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
/// running when `remove()` is called from another thread finishes).
final class SnapshotListener: ListenerRegistration, @unchecked Sendable {
    private let firestore: Firestore
    private let queue: DispatchQueue
    private let removed = Atomic<Bool>(false)
    private let target = Mutex<ListenTargetID?>(nil)

    init(firestore: Firestore) {
        self.firestore = firestore
        queue = DispatchQueue(label: "hearth.snapshot-listener", target: firestore.callbackQueue)
    }

    /// Registers `listenTarget`: `onSnapshot` receives each engine snapshot on the listener
    /// queue; a failure to start is reported once through `onError`, and the listener ends.
    func start(_ listenTarget: ListenTarget,
               onSnapshot: @escaping @Sendable (ViewSnapshot) -> Void,
               onError: @escaping @Sendable (FirestoreErrorCode) -> Void) {
        do {
            switch listenTarget {
            case .documents(let paths):
                for path in paths { try firestore.access.checkGet(path, in: firestore.database) }
            case .query(let query):
                try firestore.access.checkQuery(query, in: firestore.database)
            }
            let id = try firestore.database.listen(listenTarget) { [self] snapshot in
                deliver { onSnapshot(snapshot) }
            }
            target.withLock { $0 = id }
        } catch {
            let failure = FirestoreErrorCode(error)
            deliver { onError(failure) }
        }
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
        if let id = target.withLock({ t -> ListenTargetID? in defer { t = nil }; return t }) {
            firestore.database.stopListening(id)
        }
    }
}
