/// `equal`, `not_equal`, `less_than`…, `equal_any`, `not_equal_any`, `cmp`.
///
/// Pipelines compare by Firestore's total order (`Value.compare`): `1 == 1.0`, null equals
/// null and NaN equals NaN (an `equal(x, NaN)` is how a query's IS_NAN becomes a pipeline).
/// An absent operand makes every comparison false. Ordering comparisons hold only within one
/// type bracket (numbers with numbers, strings with strings…) and never for NaN, as a
/// query's range filters.
extension PipelineFunctions {
    static let comparisonFunctions: [String: PipelineFunctionImplementation] = [
        "equal": { c throws(PipelineFailure) in try compareBoth(c) { a, b in Value.compare(a, b) == 0 } },
        "not_equal": { c throws(PipelineFailure) in try compareBoth(c) { a, b in Value.compare(a, b) != 0 } },
        "less_than": { c throws(PipelineFailure) in try compareBoth(c) { a, b in ordered(a, b).map { $0 < 0 } ?? false } },
        "less_than_or_equal": { c throws(PipelineFailure) in try compareBoth(c) { a, b in ordered(a, b).map { $0 <= 0 } ?? false } },
        "greater_than": { c throws(PipelineFailure) in try compareBoth(c) { a, b in ordered(a, b).map { $0 > 0 } ?? false } },
        "greater_than_or_equal": { c throws(PipelineFailure) in try compareBoth(c) { a, b in ordered(a, b).map { $0 >= 0 } ?? false } },
        "equal_any": { c throws(PipelineFailure) in try membership(c, negated: false) },
        "not_equal_any": { c throws(PipelineFailure) in try membership(c, negated: true) },
        "cmp": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let a = try c.arg(0), let b = try c.arg(1) else { return .null }
            return .integer(Int64(Value.compare(a, b)))
        },
    ]

    private static func compareBoth(_ c: PipelineCall, _ test: (Value, Value) -> Bool) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let a = try c.arg(0), let b = try c.arg(1) else { return .boolean(false) }
        return .boolean(test(a, b))
    }

    /// The order of two values of one type bracket, or nil (different brackets, NaN).
    static func ordered(_ a: Value, _ b: Value) -> Int? {
        guard a.typeOrder == b.typeOrder, !a.isNaN, !b.isNaN else { return nil }
        return Value.compare(a, b)
    }

    private static func membership(_ c: PipelineCall, negated: Bool) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let v = try c.arg(0) else { return .boolean(false) }
        guard let list = try c.arg(1) else { return .boolean(false) }
        let items = try c.array(list)
        let found = items.contains { Value.compare($0, v) == 0 }
        return .boolean(found != negated)
    }
}
