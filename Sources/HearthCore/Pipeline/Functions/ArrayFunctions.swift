/// The array functions: construction, `array_concat`, the `array_contains` family, element
/// access (`array_get` / `offset`, first / last, slices), searching, sorting extremes and the
/// higher-order `array_filter` / `array_transform`. Indexes are zero-based; negative ones
/// count from the end. An index outside the array gives an absent value.
extension PipelineFunctions {
    static let arrayFunctions: [String: PipelineFunctionImplementation] = [
        "array": { c throws(PipelineFailure) in
            if c.count == 1, case .pipeline(let stages) = c.function.args[0] {
                return .array(try c.scope.run.subpipelineValues(stages, scope: c.scope))
            }
            var out: [Value] = []
            for i in 0..<c.count { out.append(try c.arg(i) ?? .null) }
            return .array(out)
        },
        "scalar": { c throws(PipelineFailure) in
            try c.arity(1)
            guard case .pipeline(let stages) = c.function.args[0] else {
                throw .request(.invalidArgument("scalar() takes a pipeline."))
            }
            let values = try c.scope.run.subpipelineValues(stages, scope: c.scope)
            guard values.count <= 1 else {
                throw .evaluation("scalar(): the subquery returned multiple results (\(values.count)); a scalar subquery must return at most one")
            }
            return values.first ?? .null
        },
        "array_concat": { c throws(PipelineFailure) in
            try c.arity(1, Int.max)
            guard let args = try c.presentArgs() else { return .null }
            var out: [Value] = []
            for v in args { out += try c.array(v) }
            return .array(out)
        },
        "array_contains": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let a = try c.arg(0), let v = try c.arg(1) else { return .boolean(false) }
            if a == .null { return .null }
            return .boolean(try c.array(a).contains { Value.compare($0, v) == 0 })
        },
        "array_contains_any": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let a = try c.arg(0), let w = try c.arg(1) else { return .boolean(false) }
            if a == .null || w == .null { return .null }
            let items = try c.array(a), wanted = try c.array(w)
            return .boolean(wanted.contains { x in items.contains { Value.compare($0, x) == 0 } })
        },
        "array_contains_all": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let a = try c.arg(0), let w = try c.arg(1) else { return .boolean(false) }
            if a == .null || w == .null { return .null }
            let items = try c.array(a), wanted = try c.array(w)
            return .boolean(wanted.allSatisfy { x in items.contains { Value.compare($0, x) == 0 } })
        },
        "array_length": { c throws(PipelineFailure) in
            try list(c) { a throws(PipelineFailure) in .integer(Int64(a.count)) }
        },
        "array_reverse": { c throws(PipelineFailure) in try list(c) { a throws(PipelineFailure) in .array(a.reversed()) } },
        "array_get": { c throws(PipelineFailure) in try element(c) },
        "offset": { c throws(PipelineFailure) in try element(c) },
        "array_first": { c throws(PipelineFailure) in try list(c) { a throws(PipelineFailure) in a.first } },
        "array_last": { c throws(PipelineFailure) in try list(c) { a throws(PipelineFailure) in a.last } },
        "array_first_n": { c throws(PipelineFailure) in try prefix(c, fromEnd: false) },
        "array_last_n": { c throws(PipelineFailure) in try prefix(c, fromEnd: true) },
        "maximum_n": { c throws(PipelineFailure) in try extremes(c, largest: true) },
        "minimum_n": { c throws(PipelineFailure) in try extremes(c, largest: false) },
        "array_slice": { c throws(PipelineFailure) in
            try c.arity(2, 3)
            guard let args = try c.presentArgs() else { return .null }
            let a = try c.array(args[0])
            var start = try c.integer(args[1])
            if start < 0 { start = max(0, Int64(a.count) + start) }
            start = min(start, Int64(a.count))
            var end = Int64(a.count)
            if args.count == 3 {
                let length = try c.integer(args[2])
                guard length >= 0 else { throw c.typeError("expects a non-negative length, but got \(length)") }
                end = min(end, start + length)
            }
            return .array(Array(a[Int(start)..<Int(end)]))
        },
        "array_index_of": { c throws(PipelineFailure) in
            try c.arity(2, 3)
            guard let a = try c.arg(0), a != .null else { return .null }
            let items = try c.array(a)
            let v = try c.arg(1) ?? .null
            var last = false
            if c.count == 3, let which = try c.arg(2) {
                switch try c.string(which) {
                case "first": last = false
                case "last": last = true
                case let other: throw c.typeError("expects \"first\" or \"last\", but got \"\(other)\"")
                }
            }
            let index = last ? items.lastIndex { Value.compare($0, v) == 0 } : items.firstIndex { Value.compare($0, v) == 0 }
            return .integer(Int64(index ?? -1))
        },
        "array_index_of_all": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let a = try c.arg(0), a != .null else { return .null }
            let v = try c.arg(1) ?? .null
            let items = try c.array(a)
            return .array(items.indices.filter { Value.compare(items[$0], v) == 0 }.map { .integer(Int64($0)) })
        },
        "array_filter": { c throws(PipelineFailure) in
            try c.arity(3)
            guard let a = try c.arg(0), a != .null else { return .null }
            let alias = try c.string(try c.arg(1) ?? .null)
            var out: [Value] = []
            for item in try c.array(a) where try c.function.args[2].evaluate(c.binding([(alias, item)])) == .boolean(true) {
                out.append(item)
            }
            return .array(out)
        },
        "array_transform": { c throws(PipelineFailure) in
            try c.arity(3, 4)
            guard let a = try c.arg(0), a != .null else { return .null }
            let alias = try c.string(try c.arg(1) ?? .null)
            let indexAlias = c.count == 4 ? try c.string(try c.arg(2) ?? .null) : nil
            var out: [Value] = []
            for (i, item) in try c.array(a).enumerated() {
                var bindings = [(alias, item)]
                if let indexAlias { bindings.append((indexAlias, .integer(Int64(i)))) }
                out.append(try c.function.args[c.count - 1].evaluate(c.binding(bindings)) ?? .null)
            }
            return .array(out)
        },
        "array_sum": { c throws(PipelineFailure) in
            try list(c) { a throws(PipelineFailure) in
                var total: Value = .integer(0)
                for v in a where v != .null {
                    guard v.isNumber else { throw c.expect(v, "an array of numbers") }
                    if case .integer(let x) = total, case .integer(let y) = v {
                        let (s, overflow) = x.addingReportingOverflow(y)
                        total = overflow ? .double(Double(x) + Double(y)) : .integer(s)
                    } else {
                        total = .double(double(total) + double(v))
                    }
                }
                return total
            }
        },
    ]

    /// A one-array function; null in, null out.
    private static func list(_ c: PipelineCall, _ f: ([Value]) throws(PipelineFailure) -> Value?) throws(PipelineFailure) -> Value? {
        try c.arity(1)
        guard let v = try c.arg(0), v != .null else { return .null }
        return try f(try c.array(v))
    }

    private static func element(_ c: PipelineCall) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let args = try c.presentArgs() else { return .null }
        let items = try c.array(args[0])
        let i = try c.integer(args[1])
        let index = i < 0 ? Int64(items.count) + i : i
        guard index >= 0, index < Int64(items.count) else { return nil }
        return items[Int(index)]
    }

    private static func prefix(_ c: PipelineCall, fromEnd: Bool) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let args = try c.presentArgs() else { return .null }
        let items = try c.array(args[0])
        let n = try c.integer(args[1])
        guard n >= 0 else { throw c.typeError("expects a non-negative count, but got \(n)") }
        let k = Int(min(n, Int64(items.count)))
        return .array(fromEnd ? Array(items.suffix(k)) : Array(items.prefix(k)))
    }

    /// `maximum_n` / `minimum_n`: the n largest (descending) or smallest (ascending) non-null
    /// elements.
    private static func extremes(_ c: PipelineCall, largest: Bool) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let args = try c.presentArgs() else { return .null }
        let items = try c.array(args[0]).filter { $0 != .null }
        let n = try c.integer(args[1])
        guard n >= 0 else { throw c.typeError("expects a non-negative count, but got \(n)") }
        let sorted = items.sorted { largest ? Value.compare($0, $1) > 0 : Value.compare($0, $1) < 0 }
        return .array(Array(sorted.prefix(Int(min(n, Int64(sorted.count))))))
    }
}
