import HearthLock
import Synchronization

/// The online state of an instance's watch stream, as far as Listen faults make it fail
/// (docs/faults.md#in-the-embedded-api). In the SDK one watch stream carries every listener
/// of an instance, and its `OnlineStateTracker` (firebase-ios-sdk
/// Firestore/core/src/remote/online_state_tracker.cc) decides when they all go out of sync:
/// a stream that was Online and fails is given one more try (Unknown: the listeners stay
/// in sync); a failure while not Online — the first stream of an instance, or the retry of
/// a failed one — makes the client Offline (`kMaxWatchStreamFailures = 1`), and every view
/// then raises `isFromCache == true`; the stream that comes back with its targets current
/// makes it Online again. The retries follow the stream's backoff (stream.cc: the first at
/// once, then 1 s growing by 1.5 up to 60 s; Hearth leaves out the jitter, so a test's
/// sequence is the same on every run). The 10 s OnlineState timeout is not modelled: a
/// Hearth stream never hangs, it fails or connects.
///
/// Online is not stored: a stream is Online when the instance has listeners (their targets
/// current) and is not retrying, and Unknown without listeners (the SDK closes an idle
/// stream), so nothing is tracked while no fault fires. State only;
/// `Firestore.watchStreamFailed` and its reconnection loop drive it. One relaxed atomic
/// load (`isDown`) when nothing failed.
final class WatchStream: Sendable {
    private struct State: Sendable {
        var offline = false
        /// A reconnection attempt is scheduled or running (the stream is not Online).
        var reconnecting = false
    }

    private let state = HearthMutex(State())
    /// `state.offline`, readable with one load.
    private let offline = Atomic<Bool>(false)

    /// Whether the client is Offline because its stream failed (its listeners are out of
    /// sync until it comes back).
    var isDown: Bool { offline.load(ordering: .relaxed) }

    /// The stream failed. `hadListeners`: other listeners' targets were current on it, so
    /// unless it is retrying already it was Online and becomes Unknown; anything else makes
    /// the client Offline. Returns whether it just went Offline.
    func fail(hadListeners: Bool) -> Bool {
        state.withLock { s in
            if s.offline || (hadListeners && !s.reconnecting) { return false }
            s.offline = true
            offline.store(true, ordering: .relaxed)
            return true
        }
    }

    /// Claims the reconnection loop; false when one runs already.
    func beginReconnecting() -> Bool {
        state.withLock { s in
            guard !s.reconnecting else { return false }
            s.reconnecting = true
            return true
        }
    }

    /// The loop stops without a stream (the network was disabled; `enableNetwork` starts it
    /// again while the client is Offline).
    func stopReconnecting() {
        state.withLock { $0.reconnecting = false }
    }

    /// The stream came back with its targets current, or there is no target left to listen
    /// to (the stream stays closed). Returns whether the client was Offline.
    func reconnected() -> Bool {
        state.withLock { s in
            let was = s.offline
            s = State()
            offline.store(false, ordering: .relaxed)
            return was
        }
    }
}
