/// The accumulators of the `aggregate` stage: `count` (of all rows, or of an expression's
/// non-null values), `count_if`, `count_distinct`, `sum`, `average`, `minimum`, `maximum`,
/// `first`, `last`, `array_agg`, `array_agg_distinct`. Null and absent inputs are skipped
/// (except by `first` / `last` / `array_agg`, which keep nulls); `sum` and `average` read
/// numbers only. Integer sums stay integers unless they overflow.
enum PipelineAggregates {
    static let names: Set<String> = ["count", "count_all", "count_if", "count_distinct", "sum", "average", "avg", "minimum", "maximum",
                                     "first", "last", "array_agg", "array_agg_distinct"]

    static func isAggregate(_ name: String) -> Bool { names.contains(name) }

    /// One accumulator's running state.
    struct Accumulator {
        let function: PipelineFunction
        private var count: Int64 = 0
        private var intSum: Int128 = 0
        private var doubleSum = 0.0
        private var sawDouble = false
        private var numbers: Int64 = 0
        private var best: Value?
        private var first: Value??
        private var last: Value?
        private var items: [Value] = []
        private var seen: Set<Value> = []

        init(_ function: PipelineFunction) { self.function = function }

        mutating func add(_ scope: PipelineScope) throws(PipelineFailure) {
            let name = function.name
            if name == "count" || name == "count_all", function.args.isEmpty {
                count += 1
                return
            }
            guard function.args.count == 1 else {
                throw .request(.invalidArgument("The aggregate function \(name)() takes one argument, but \(function.args.count) were given."))
            }
            let value: Value?
            do throws(PipelineFailure) {
                value = try function.args[0].evaluate(scope)
            } catch {
                if case .evaluation = error { return }  // an error input is skipped, like null
                throw error
            }
            switch name {
            case "first":
                if first == nil { first = .some(value) }
                return
            case "last":
                last = value ?? .null
                return
            case "array_agg":
                if let value { items.append(value) }
                return
            default: break
            }
            guard let value, value != .null else { return }
            switch name {
            case "count": count += 1
            case "count_if": if value == .boolean(true) { count += 1 }
            case "count_distinct": if seen.insert(Self.canonical(value)).inserted { count += 1 }
            case "array_agg_distinct": if seen.insert(Self.canonical(value)).inserted { items.append(value) }
            case "sum", "average", "avg":
                switch value {
                case .integer(let i): intSum += Int128(i); numbers += 1
                case .double(let d): doubleSum += d; sawDouble = true; numbers += 1
                default: break
                }
            case "minimum", "maximum":
                if let b = best {
                    let c = Value.compare(value, b)
                    if name == "maximum" ? c > 0 : c < 0 { best = value }
                } else {
                    best = value
                }
            default: break
            }
        }

        var result: Value {
            switch function.name {
            case "count", "count_all", "count_if", "count_distinct": return .integer(count)
            case "sum":
                if !sawDouble, let exact = Int64(exactly: intSum) { return .integer(exact) }
                return .double(Double(intSum) + doubleSum)
            case "average", "avg":
                guard numbers > 0 else { return .null }
                return .double((Double(intSum) + doubleSum) / Double(numbers))
            case "minimum", "maximum": return best ?? .null
            case "first": return (first ?? nil) ?? .null
            case "last": return last ?? .null
            case "array_agg", "array_agg_distinct": return .array(items)
            default: return .null
            }
        }

        /// Numbers that compare equal (`1` and `1.0`) count once.
        private static func canonical(_ v: Value) -> Value {
            if case .integer(let i) = v { return .double(Double(i)) }
            return v
        }
    }
}
