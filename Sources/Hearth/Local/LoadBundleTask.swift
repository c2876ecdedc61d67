import Foundation
import HearthCore
import Synchronization

/// Where loading a bundle stands. `error` and `success` are final.
public enum LoadBundleTaskState: Int, Sendable {
    case error, inProgress, success
}

/// One progress report of a bundle load (or its final state).
public final class LoadBundleTaskProgress: NSObject, @unchecked Sendable {
    /// Documents loaded so far.
    public let documentsLoaded: Int
    /// Documents in the bundle (0 when it could not be read).
    public let totalDocuments: Int
    /// Bytes loaded so far (the metadata element not counted).
    public let bytesLoaded: Int
    /// Bytes in the bundle after its metadata element (0 when it could not be read).
    public let totalBytes: Int
    public let state: LoadBundleTaskState

    init(_ progress: BundleLoadProgress, state: LoadBundleTaskState) {
        documentsLoaded = progress.documentsLoaded
        totalDocuments = progress.totalDocuments
        bytesLoaded = progress.bytesLoaded
        totalBytes = progress.totalBytes
        self.state = state
    }

    /// Equal when every number and the state are (as the SDK compares them).
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? LoadBundleTaskProgress else { return false }
        return documentsLoaded == other.documentsLoaded && totalDocuments == other.totalDocuments
            && bytesLoaded == other.bytesLoaded && totalBytes == other.totalBytes && state == other.state
    }

    public override var hash: Int {
        var h = Hasher()
        h.combine(documentsLoaded); h.combine(totalDocuments); h.combine(bytesLoaded); h.combine(totalBytes); h.combine(state)
        return h.finalize()
    }

    public override var description: String {
        "<FIRLoadBundleTaskProgress: \(documentsLoaded)/\(totalDocuments) documents, \(bytesLoaded)/\(totalBytes) bytes, \(state)>"
    }
}

/// A handle for removing an observer (`LoadBundleTask.removeObserverWith(handle:)`).
public typealias LoadBundleObserverHandle = Int

/// A bundle being loaded (`Firestore.loadBundle`). Every observer sees the whole sequence:
/// one report with nothing loaded, one per document, then success (or an error, which ends
/// it). On a device the load never overtakes the code that started it, so an observer added
/// right after `loadBundle` returns sees every report; here the load runs on a background
/// queue and may be further along, so an observer is first handed the reports already
/// delivered (on `settings.dispatchQueue`, in order, before any later one).
public final class LoadBundleTask: NSObject, @unchecked Sendable {
    private struct Observers {
        var list: [(handle: Int, observer: (LoadBundleTaskProgress) -> Void)] = []
        /// Per observer, the reports delivered before it was added and not yet replayed to it.
        var missed: [Int: [LoadBundleTaskProgress]] = [:]
        var next = 0
        /// The reports delivered so far, replayed to observers added later.
        var delivered: [LoadBundleTaskProgress] = []
        /// The `loadBundle(_:completion:)` completion, called after the observers on the
        /// final report.
        var completion: ((LoadBundleTaskProgress) -> Void)?
    }

    private let observers = Mutex(Observers())
    private let queue: DispatchQueue
    private let error = Mutex<FirestoreErrorCode?>(nil)

    /// Why the load failed, once it has.
    var failure: FirestoreErrorCode? { error.withLock { $0 } }

    init(queue: DispatchQueue) { self.queue = queue }

    /// Registers `observer` for the reports from now on.
    @discardableResult
    public func addObserver(_ observer: @escaping (LoadBundleTaskProgress) -> Void) -> LoadBundleObserverHandle {
        let box = UncheckedBox(observer)
        let handle = observers.withLock { o in
            o.next += 1
            o.list.append((o.next, box.value))
            if !o.delivered.isEmpty { o.missed[o.next] = o.delivered }
            return o.next
        }
        queue.async { [self] in deliver(nil) }
        return handle
    }

    /// Removes an observer; an unknown handle is ignored.
    public func removeObserverWith(handle: LoadBundleObserverHandle) {
        observers.withLock { o in
            o.list.removeAll { $0.handle == handle }
            o.missed[handle] = nil
        }
    }

    public func removeAllObservers() {
        observers.withLock { o in
            o.list.removeAll()
            o.missed.removeAll()
            o.completion = nil
        }
    }

    func setCompletion(_ completion: @escaping (LoadBundleTaskProgress) -> Void) {
        let box = UncheckedBox(completion)
        observers.withLock { $0.completion = box.value }
    }

    /// Ends the load with `failure`; `progress` is the last report's numbers, in state error.
    func fail(_ failure: FirestoreErrorCode, progress: LoadBundleTaskProgress) {
        error.withLock { $0 = failure }
        report(progress)
    }

    /// Hands `progress` to the observers registered when it runs on the callback queue.
    func report(_ progress: LoadBundleTaskProgress) {
        queue.async { [self] in deliver(progress) }
    }

    /// On the callback queue: first the reports each newly added observer missed, then
    /// `progress` (if any) to every observer, and the completion after a final report.
    private func deliver(_ progress: LoadBundleTaskProgress?) {
        let (list, replays, completion) = observers.withLock { o in
            let replays = o.list.compactMap { entry in o.missed[entry.handle].map { (entry.observer, $0) } }
            o.missed.removeAll()
            if let progress { o.delivered.append(progress) }
            return (o.list.map(\.observer), replays, o.completion)
        }
        for (observer, missed) in replays { for p in missed { observer(p) } }
        guard let progress else { return }
        for observer in list { observer(progress) }
        if progress.state != .inProgress { completion?(progress) }
    }
}
