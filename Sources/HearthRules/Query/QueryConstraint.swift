import HearthCore

/// What a query's filters say about one field that is not pinned to a single value by an
/// equality: the value a returned document has there satisfies every filter here.
public struct QueryConstraint: Sendable, CustomStringConvertible {
    public enum Comparator: String, Sendable {
        case lessThan = "<", lessThanOrEqual = "<=", greaterThan = ">", greaterThanOrEqual = ">="
        case notEqual = "!=", notIn = "not-in", arrayContains = "array-contains"

        var isRange: Bool {
            switch self {
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: true
            default: false
            }
        }

        /// Whether a value comparing `cmp` (-1, 0, 1) to the bound satisfies this range.
        func admits(_ cmp: Int) -> Bool {
            switch self {
            case .lessThan: cmp < 0
            case .lessThanOrEqual: cmp <= 0
            case .greaterThan: cmp > 0
            case .greaterThanOrEqual: cmp >= 0
            default: true
            }
        }
    }

    public var filters: [(comparator: Comparator, value: RulesValue)]

    public init(filters: [(comparator: Comparator, value: RulesValue)] = []) { self.filters = filters }

    public var description: String { filters.map { "\($0.comparator.rawValue) \($0.value)" }.joined(separator: " && ") }
}
