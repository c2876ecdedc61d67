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
/// works), `getDocuments()` `.runQuery` (listeners and aggregations are not faulted).
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
            if effect == .dropAnswer { throw FirestoreError.injectedDroppedAnswer }
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
}
