import Foundation
import HearthCore
import HearthLock
import Synchronization

/// One `Firestore` instance's hold on a data directory. The directories open in this
/// process are shared: the first lease opens the `DurableStore` (taking its lock), the last
/// one released closes it, so instances of one process never lock each other out.
final class DataDirectoryLease: Sendable {
    let store: DurableStore
    private let path: String
    private let released = Atomic<Bool>(false)

    private static let open = HearthMutex<[String: (store: DurableStore, leases: Int)]>([:])

    private init(store: DurableStore, path: String) {
        self.store = store
        self.path = path
    }

    static func acquire(_ directory: String) throws -> DataDirectoryLease {
        let path = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
        let store = try open.withLock { (dirs: inout [String: (store: DurableStore, leases: Int)]) throws -> DurableStore in
            if let entry = dirs[path] {
                dirs[path] = (entry.store, entry.leases + 1)
                return entry.store
            }
            let store: DurableStore
            do throws(DurableStoreError) { store = try DurableStore.open(directory: path) } catch {
                throw FirestoreErrorCode(FirestoreError(.failedPrecondition, error.message))
            }
            dirs[path] = (store, 1)
            return store
        }
        return DataDirectoryLease(store: store, path: path)
    }

    /// Gives the hold up (once); the last one closes the directory.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let closing: DurableStore? = Self.open.withLock { dirs in
            guard let entry = dirs[path] else { return nil }
            if entry.leases > 1 {
                dirs[path] = (entry.store, entry.leases - 1)
                return nil
            }
            dirs[path] = nil
            return entry.store
        }
        closing?.close()
    }

    deinit { release() }
}
