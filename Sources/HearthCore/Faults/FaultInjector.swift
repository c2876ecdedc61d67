import Foundation
import HearthLock
import Synchronization

/// The active fault rules of one emulator (`EmulatorState.faults`) or one embedded
/// instance (`Firestore.faults`), and the one question every front end asks per request:
/// does a fault hit this one?
///
/// Cost while no rule is set: `isArmed`, one relaxed atomic load, which callers check
/// before anything else (Benchmarks/request-instructions.sh measures it; docs/faults.md).
/// With rules set, a request takes a mutex to match them in the order they were added (the
/// first rule that covers the request and whose schedule fires wins) and to count the firing.
public final class FaultInjector: Sendable {
    /// One rule as it stands: how many firings are left and its generator.
    public struct Active: Sendable, Equatable {
        public let id: Int
        public let rule: FaultRule
        /// Firings left (`times`); nil for `always` and `probability`.
        public var remaining: Int?
        /// Requests it hit so far.
        public var fired = 0
        var random: UInt64
    }

    private struct Rules {
        var active: [Active] = []
        var nextID = 1
    }

    /// Visible to the inlined `isArmed` (below).
    @usableFromInline
    let armed = Atomic<Bool>(false)
    private let rules = HearthMutex(Rules())

    public init() {}

    /// Whether any rule is set (one relaxed atomic load: the whole cost on a request path
    /// while none is). `@inlinable`, not only `@inline(__always)`: the callers are in
    /// HearthServer, and without its body in the module interface each check was a call
    /// (~5 instructions more per check, two checks per request; docs/performance-server.md).
    @inlinable @inline(__always)
    public var isArmed: Bool { armed.load(ordering: .relaxed) }

    /// Adds a rule (after `validate()`); returns its id.
    @discardableResult
    public func add(_ rule: FaultRule) throws(FirestoreError) -> Int {
        try rule.validate()
        return rules.withLock { r in
            let id = r.nextID
            r.nextID += 1
            var remaining: Int?
            var seed: UInt64 = 0
            switch rule.schedule {
            case .times(let n): remaining = n
            case .always: break
            case .probability(_, let s): seed = s
            }
            r.active.append(Active(id: id, rule: rule, remaining: remaining, random: seed))
            armed.store(true, ordering: .relaxed)
            return id
        }
    }

    /// Removes one rule; false when there is none with that id.
    @discardableResult
    public func remove(_ id: Int) -> Bool {
        rules.withLock { r in
            guard let i = r.active.firstIndex(where: { $0.id == id }) else { return false }
            r.active.remove(at: i)
            armed.store(!r.active.isEmpty, ordering: .relaxed)
            return true
        }
    }

    /// Removes every rule (of one project when given).
    public func clear(project: String? = nil) {
        rules.withLock { r in
            if let project { r.active.removeAll { $0.rule.project == project } } else { r.active.removeAll() }
            armed.store(!r.active.isEmpty, ordering: .relaxed)
        }
    }

    /// The rules as they stand, in the order they match (of one project, or that cover
    /// every project, when given).
    public func list(project: String? = nil) -> [Active] {
        rules.withLock { r in r.active.filter { project == nil || $0.rule.project == nil || $0.rule.project == project } }
    }

    /// The rule that fires for this request, counted as fired (a `times` rule used up is
    /// removed), or nil. Call only when `isArmed`.
    public func hit(project: String?, database: String?, method: FaultMethod, paths: [ResourcePath]) -> FaultRule? {
        rules.withLock { r -> FaultRule? in
            var i = 0
            while i < r.active.count {
                defer { i += 1 }
                guard r.active[i].rule.covers(project: project, database: database, method: method, paths: paths) else { continue }
                if case .probability(let p, _) = r.active[i].rule.schedule {
                    guard Self.draw(&r.active[i].random) < p else { continue }
                }
                r.active[i].fired += 1
                let rule = r.active[i].rule
                if let left = r.active[i].remaining {
                    if left <= 1 {
                        r.active.remove(at: i)
                        armed.store(!r.active.isEmpty, ordering: .relaxed)
                    } else {
                        r.active[i].remaining = left - 1
                    }
                }
                return rule
            }
            return nil
        }
    }

    /// Applies what a fault does before a request's work, where the caller may block: waits
    /// the delay, throws an error (or `injectedReset` for a reset). Returns what is left for
    /// after the work — a dropped answer or a dropped stream — or nil.
    public func before(project: String?, database: String?, method: FaultMethod, paths: [ResourcePath]) throws(FirestoreError) -> FaultEffect? {
        guard let rule = hit(project: project, database: database, method: method, paths: paths) else { return nil }
        if rule.delayMilliseconds > 0 { usleep(UInt32(min(rule.delayMilliseconds, 600_000)) * 1000) }
        switch rule.effect {
        case .error(let code, let message): throw FirestoreError(code, message)
        case .resetConnection: throw .injectedReset
        case .dropAnswer, .dropStream: return rule.effect
        case nil: return nil
        }
    }

    /// A uniform double in [0, 1) from SplitMix64 (a seeded, repeatable sequence).
    static func draw(_ state: inout UInt64) -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
