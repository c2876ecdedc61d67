import Foundation
import HearthCore
import HearthLock

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
        /// Each observer with how many of `delivered` it has been handed.
        var list: [(handle: Int, observer: (LoadBundleTaskProgress) -> Void, handed: Int)] = []
        var next = 0
        /// The reports delivered so far, in order (an observer added later gets them first).
        var delivered: [LoadBundleTaskProgress] = []
        /// The `loadBundle(_:completion:)` completion, called after the observers on the
        /// final report.
        var completion: ((LoadBundleTaskProgress) -> Void)?
    }

    private let observers = HearthMutex(Observers())
    private let queue: DispatchQueue
    private let error = HearthMutex<FirestoreErrorCode?>(nil)

    /// Why the load failed, once it has.
    var failure: FirestoreErrorCode? { error.withLock { $0 } }

    init(queue: DispatchQueue) { self.queue = queue }

    /// Registers `observer` for every report of the load, those already delivered first.
    @discardableResult
    public func addObserver(_ observer: @escaping (LoadBundleTaskProgress) -> Void) -> LoadBundleObserverHandle {
        let box = UncheckedBox(observer)
        let handle = observers.withLock { o in
            o.next += 1
            o.list.append((o.next, box.value, 0))
            return o.next
        }
        queue.async { [self] in deliver(nil) }
        return handle
    }

    /// Removes an observer; an unknown handle is ignored.
    public func removeObserverWith(handle: LoadBundleObserverHandle) {
        observers.withLock { $0.list.removeAll { $0.handle == handle } }
    }

    public func removeAllObservers() {
        observers.withLock { o in
            o.list.removeAll()
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

    /// On the callback queue: records `progress` (if any), hands each observer the reports
    /// it has not had yet, in order, then the completion after a final report.
    private func deliver(_ progress: LoadBundleTaskProgress?) {
        let (work, completion) = observers.withLock { o in
            if let progress { o.delivered.append(progress) }
            let work = o.list.map { ($0.observer, o.delivered[$0.handed...]) }
            for i in o.list.indices { o.list[i].handed = o.delivered.count }
            return (work, o.completion)
        }
        for (observer, reports) in work { for p in reports { observer(p) } }
        if let progress, progress.state != .inProgress { completion?(progress) }
    }
}
