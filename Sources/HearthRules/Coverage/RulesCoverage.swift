import HearthLock

/// Per-expression evaluation counts and results, accumulated over any number of requests
/// (thread-safe, so one coverage object can watch a whole test run).
public final class RulesCoverage: Sendable {
    public struct Counts: Sendable, Equatable {
        public var evaluations = 0
        public var trueResults = 0
        public var falseResults = 0
        public var errors = 0
        /// Results that were neither a bool nor an error.
        public var otherValues = 0
    }

    private let counts: HearthMutex<[Counts]>

    public init(expressionCount: Int) {
        counts = HearthMutex(Array(repeating: Counts(), count: expressionCount))
    }

    func record(_ id: Int, _ value: RulesValue) {
        counts.withLock { c in
            guard id < c.count else { return }
            c[id].evaluations += 1
            switch value {
            case .bool(true): c[id].trueResults += 1
            case .bool(false): c[id].falseResults += 1
            default: c[id].otherValues += 1
            }
        }
    }

    func recordError(_ id: Int) {
        counts.withLock { c in
            guard id < c.count else { return }
            c[id].evaluations += 1
            c[id].errors += 1
        }
    }

    /// Counts by expression id.
    public var snapshot: [Counts] { counts.withLock { $0 } }
}
