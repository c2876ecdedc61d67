import HearthCore
import Synchronization

/// The one fault that acts on a Listen or Write stream over time — `dropStream`, which ends
/// the stream with UNAVAILABLE once it has sent N more messages (docs/faults.md) — in front
/// of the transport's sends and flushes. A session sends and flushes through it and calls
/// the transport's call directly for the rest (when it also stood in for those, the
/// forwarding cost ~160 instructions a Listen message: performance-server.md). While no
/// drop is armed a send costs one relaxed atomic load more.
final class FaultStreamCall {
    let inner: any FirestoreStreamCall
    /// Messages still to send before the drop; -1: no drop armed; 0: drop at the next flush.
    private let left = Atomic<Int>(-1)

    init(_ inner: any FirestoreStreamCall) { self.inner = inner }

    /// Arms a drop after `messages` more messages (0: now).
    func dropAfter(_ messages: Int) {
        left.store(messages, ordering: .relaxed)
        if messages == 0 { drop() }
    }

    private func drop() {
        left.store(-1, ordering: .relaxed)
        inner.flush()
        inner.finish(.injectedDroppedStream)
    }

    /// The faults of one request on this stream (method Listen or Write): waits a delay,
    /// throws an error or reset, arms a dropped stream. Returns a dropped answer for the
    /// session to raise once the request's work is done. One atomic load while none is set.
    func fault(_ state: EmulatorState, _ database: DatabaseID, _ method: FaultMethod, _ paths: @autoclosure () -> [ResourcePath]) throws(FirestoreError) -> FaultEffect? {
        guard state.faults.isArmed else { return nil }
        let effect = try state.faults.before(project: database.project, database: database.database, method: method, paths: paths())
        if case .dropStream(let n) = effect {
            dropAfter(n)
            return nil
        }
        return effect
    }

    func send(_ message: [UInt8]) throws(FirestoreError) {
        let l = left.load(ordering: .relaxed)
        if l == 0 {
            // The Nth message went out in this batch: the stream ends here, not after the batch.
            drop()
            throw FirestoreError(.cancelled, "The stream was dropped (injected fault).")
        }
        if l > 0 { left.subtract(1, ordering: .relaxed) }
        try inner.send(message)
    }

    func flush() {
        inner.flush()
        if left.load(ordering: .relaxed) == 0 { drop() }
    }
}
