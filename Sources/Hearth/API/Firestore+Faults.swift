import Foundation
import HearthCore

/// The fault model's names, for code that imports only Hearth.
public typealias FaultMethod = HearthCore.FaultMethod
public typealias FaultRule = HearthCore.FaultRule
public typealias FaultEffect = HearthCore.FaultEffect
public typealias FaultSchedule = HearthCore.FaultSchedule

/// Faults on demand for one embedded instance (docs/faults.md#in-the-embedded-api): the
/// same rules as the server's (`FaultRule`), applied to this instance's operations as the
/// SDK would see them from the network. The embedded operations are named by the RPC the
/// SDK sends for them: writes and batches `.commit` (a transaction's commit too),
/// `getDocument()` `.getDocument` (the SDK's lookup is BatchGetDocuments: either name
/// works), `getDocuments()` `.runQuery`, aggregations `.runAggregationQuery`, a listener's
/// Listen request `.listen` (a failed watch stream, which takes every listener of the
/// instance out of sync when the client becomes Offline: `WatchStream`).
///
/// ```swift
/// db.faults.inject(.unavailable, on: .commit, times: 1)
/// db.faults.delay(milliseconds: 200, on: .runQuery)
/// db.faults.clear()
/// ```
public final class FirestoreFaults: Sendable {
    let injector = FaultInjector()

    init() {}

    /// Fails the matching operations with `code` (UNAVAILABLE, ABORTED, DEADLINE_EXCEEDED,
    /// RESOURCE_EXHAUSTED, INTERNAL, CANCELLED, UNKNOWN); `times` nil: until cleared.
    public func inject(_ code: FirestoreErrorCode.Code, message: String? = nil, on method: FaultMethod? = nil,
                       path: String? = nil, times: Int? = 1) {
        let core = FirestoreError.Code(rawValue: code.rawValue) ?? .unknown
        add(FaultRule(method: method, pathPrefix: path.map { ResourcePath(segments: $0.split(separator: "/").map(String.init)) },
                      effect: .error(core, message: message ?? "Injected fault: \(core.name)."), schedule: times.map { .times($0) } ?? .always))
    }

    /// Delays the matching operations.
    public func delay(milliseconds: Int, on method: FaultMethod? = nil, times: Int? = nil) {
        add(FaultRule(method: method, delayMilliseconds: milliseconds, schedule: times.map { .times($0) } ?? .always))
    }

    /// The matching operations are carried out and their answer is lost (`.dropAnswer`), or
    /// the connection resets before them (`.resetConnection`).
    public func inject(_ effect: FaultEffect, on method: FaultMethod? = nil, times: Int? = 1) {
        add(FaultRule(method: method, effect: effect, schedule: times.map { .times($0) } ?? .always))
    }

    /// Adds any rule (e.g. `FaultRule.parse(spec:)`); a rule the model refuses is a
    /// programmer error, as the SDK treats invalid arguments.
    public func add(_ rule: FaultRule) {
        do { try injector.add(rule) } catch { programmerError(error.message) }
    }

    /// Removes every fault.
    public func clear() { injector.clear() }

    /// The faults still set, in matching order.
    public var active: [FaultRule] { injector.list().map(\.rule) }
}

extension Firestore {
    /// A read's faults: waits a delay, throws an error, a reset or a dropped answer (the
    /// read was done, its answer lost: UNAVAILABLE). One atomic load while none is set.
    @inline(__always)
    func readFault(_ method: FaultMethod, _ paths: [ResourcePath]) throws(FirestoreErrorCode) {
        guard faults.injector.isArmed else { return }
        try readFaultSlow(method, paths)
    }

    private func readFaultSlow(_ method: FaultMethod, _ paths: [ResourcePath]) throws(FirestoreErrorCode) {
        do throws(FirestoreError) {
            var effect = try faults.injector.before(project: database.id.project, database: database.id.database, method: method, paths: paths)
            if effect == nil && method == .getDocument {
                effect = try faults.injector.before(project: database.id.project, database: database.id.database, method: .batchGetDocuments, paths: paths)
            }
            switch effect {
            case .dropAnswer?: throw FirestoreError.injectedDroppedAnswer
            case .dropStream?: throw FirestoreError.injectedDroppedStream  // a RunQuery answer cut: UNAVAILABLE
            default: break
            }
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    /// Attempts the SDK's write stream would make before a batch commits: every error a
    /// fault injects is transient for a write (firebase-ios-sdk Firestore/core/src/remote/
    /// datastore.cc, `IsPermanentWriteError`: only permanent codes other than ABORTED roll
    /// a write back), so the write stays pending and is sent again — each attempt consumes
    /// one firing — until one goes through. Returns whether its answer is lost (the SDK
    /// then sends the batch again: `commitTwice`), or the last error after
    /// `maxWriteAttempts` (where the SDK would keep retrying; a test that wants that uses
    /// `disableNetwork()`).
    func writeFault(_ writes: [Write]) -> Result<Bool, FirestoreError> {
        guard faults.injector.isArmed else { return .success(false) }
        var last: FirestoreError?
        for _ in 0..<Self.maxWriteAttempts {
            do throws(FirestoreError) {
                let effect = try faults.injector.before(project: database.id.project, database: database.id.database,
                                                        method: .commit, paths: writes.map(\.path))
                return .success(effect == .dropAnswer)
            } catch {
                last = error
            }
        }
        return .failure(last ?? FirestoreError(.unavailable, "Injected fault."))
    }

    static let maxWriteAttempts = 100

    /// Whether a Listen request naming `paths` (a listener adding its target, or a
    /// reconnected stream sending its targets again: by their documents or their query's
    /// collection, as the server matches a Listen request) fails the watch stream. A delay
    /// waits (on the caller: `addSnapshotListener` returns later); any other effect — an
    /// error, a reset, a dropped stream or answer — is a failed stream, which the SDK never
    /// reports to a listener: it opens the stream again. Each failed stream consumes one
    /// firing of the rule. One relaxed atomic load while no fault is set.
    func listenFault(_ paths: @autoclosure () -> [ResourcePath]) -> Bool {
        guard faults.injector.isArmed else { return false }
        do throws(FirestoreError) {
            return try faults.injector.before(project: database.id.project, database: database.id.database, method: .listen, paths: paths()) != nil
        } catch {
            return true
        }
    }

    /// The paths a Listen request adding `target` names.
    static func listenPaths(_ target: ListenTarget) -> [ResourcePath] {
        switch target {
        case .documents(let paths): paths
        case .query(let query): [query.collectionPath]
        }
    }

    /// The watch stream failed (a listener's Listen request met a fault): every listener of
    /// the instance goes out of sync when the client becomes Offline (`WatchStream`), and
    /// raises `isFromCache == true` with metadata changes. Call `reconnectWatch()` once the
    /// failing listener has queued its first snapshot.
    func watchStreamFailed() {
        if local.watch.fail(hadListeners: local.listensToOtherTargets) && !local.isOffline { local.notifySync(.offline) }
    }

    /// Starts the stream's reconnection loop unless one runs (or the instance is offline:
    /// `enableNetwork` starts it). The first attempt runs at once, on a background queue
    /// (counted for `waitUntilIdle()`, so a one-time fault has recovered when it returns);
    /// a failed attempt schedules the next with the SDK's backoff (1 s, then 1.5 times
    /// longer, at most 60 s). An attempt sends the instance's targets again: it fails when
    /// a Listen fault fires for them (consuming one firing), and otherwise brings the
    /// listeners back in sync (`isFromCache == false` with metadata changes). The loop
    /// holds the instance weakly: it ends with it.
    func reconnectWatch() {
        guard !local.isOffline, local.watch.beginReconnecting() else { return }
        scheduleWatchAttempt(0)
    }

    private func scheduleWatchAttempt(_ n: Int) {
        let delay = n == 0 ? 0 : min(pow(1.5, Double(n - 1)), 60)
        let deliveries = listenerDeliveries
        if n == 0 { deliveries.begin() }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.attemptWatchReconnection(n)
            if n == 0 { deliveries.end() }
        }
    }

    private func attemptWatchReconnection(_ n: Int) {
        if local.isOffline || isTerminated { return local.watch.stopReconnecting() }
        let paths = local.activeTargetPaths()
        if !paths.isEmpty && listenFault(paths) {
            watchStreamFailed()
            return scheduleWatchAttempt(n + 1)
        }
        if local.watch.reconnected() || !paths.isEmpty {
            // In-sync listeners ignore these; the out-of-sync ones raise their in-sync snapshot.
            local.notifySync(.online)
            local.notifySync(.settled)
        }
    }
}
