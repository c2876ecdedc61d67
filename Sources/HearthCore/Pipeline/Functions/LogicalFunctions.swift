/// `and`, `or`, `xor`, `nor`, `not`, `conditional`, `switch_on`, `coalesce`, the absence and
/// error functions, and the logical `maximum` / `minimum`.
///
/// Booleans follow three-valued logic with errors: `and` is false as soon as one operand is
/// false, whatever the others; otherwise an error (or a non-boolean operand) is the result's
/// error; otherwise true. `or` mirrors it. Absent operands count as null.
extension PipelineFunctions {
    static let logicalFunctions: [String: PipelineFunctionImplementation] = [
        "and": { c throws(PipelineFailure) in try junction(c, decisive: false) },
        "or": { c throws(PipelineFailure) in try junction(c, decisive: true) },
        "nor": { c throws(PipelineFailure) in
            guard case .boolean(let any)? = try junction(c, decisive: true) else { return .null }
            return .boolean(!any)
        },
        "xor": { c throws(PipelineFailure) in
            try c.arity(1, Int.max)
            var result = false, sawNull = false
            for i in 0..<c.count {
                switch try c.arg(i) ?? .null {
                case .boolean(let b): result = result != b
                case .null: sawNull = true
                case let v: throw c.expect(v, "boolean operands")
                }
            }
            return sawNull ? .null : .boolean(result)
        },
        "not": { c throws(PipelineFailure) in
            try c.arity(1)
            switch try c.arg(0) ?? .null {
            case .boolean(let b): return .boolean(!b)
            case .null: return .null
            case let v: throw c.expect(v, "a boolean")
            }
        },
        "conditional": { c throws(PipelineFailure) in
            try c.arity(3)
            return try c.arg(0) == .boolean(true) ? try c.arg(1) : try c.arg(2)
        },
        "switch_on": { c throws(PipelineFailure) in
            try c.arity(2, Int.max)
            var i = 0
            while i + 1 < c.count {
                if try c.arg(i) == .boolean(true) { return try c.arg(i + 1) }
                i += 2
            }
            if i < c.count { return try c.arg(i) }
            throw .evaluation("switch_on(): all switch cases evaluate to false, and no default provided")
        },
        "coalesce": { c throws(PipelineFailure) in
            try c.arity(1, Int.max)
            for i in 0..<c.count {
                if let v = try c.arg(i), v != .null { return v }
            }
            return nil
        },
        "if_null": { c throws(PipelineFailure) in
            try c.arity(2, Int.max)
            for i in 0..<c.count {
                if let v = try c.arg(i), v != .null { return v }
            }
            return .null
        },
        "if_absent": { c throws(PipelineFailure) in
            try c.arity(2)
            if let v = try c.arg(0) { return v }
            return try c.arg(1)
        },
        "is_absent": { c throws(PipelineFailure) in
            try c.arity(1)
            return .boolean(try c.arg(0) == nil)
        },
        "exists": { c throws(PipelineFailure) in
            try c.arity(1)
            return .boolean(try c.arg(0) != nil)
        },
        "is_null": { c throws(PipelineFailure) in
            try c.arity(1)
            return .boolean(try c.arg(0) == .null)
        },
        "is_not_null": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0) else { return .boolean(false) }
            return .boolean(v != .null)
        },
        "is_nan": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0), v != .null else { return .null }
            guard v.isNumber else { throw c.expect(v, "a number") }
            return .boolean(v.isNaN)
        },
        "is_not_nan": { c throws(PipelineFailure) in
            try c.arity(1)
            guard let v = try c.arg(0), v != .null else { return .null }
            guard v.isNumber else { throw c.expect(v, "a number") }
            return .boolean(!v.isNaN)
        },
        "is_error": { c throws(PipelineFailure) in
            try c.arity(1)
            do throws(PipelineFailure) {
                _ = try c.arg(0)
                return .boolean(false)
            } catch {
                if case .evaluation = error { return .boolean(true) }
                throw error
            }
        },
        "if_error": { c throws(PipelineFailure) in
            try c.arity(2)
            do throws(PipelineFailure) {
                return try c.arg(0)
            } catch {
                if case .evaluation = error { return try c.arg(1) }
                throw error
            }
        },
        "error": { c throws(PipelineFailure) in
            try c.arity(1)
            let v = try c.arg(0) ?? .null
            if case .string(let s) = v { throw .evaluation(s) }
            throw .evaluation(v.description)
        },
        "maximum": { c throws(PipelineFailure) in try extreme(c, largest: true) },
        "minimum": { c throws(PipelineFailure) in try extreme(c, largest: false) },
    ]

    /// `and` (decisive = false) / `or` (decisive = true).
    private static func junction(_ c: PipelineCall, decisive: Bool) throws(PipelineFailure) -> Value? {
        try c.arity(1, Int.max)
        var pending: PipelineFailure?
        var sawNull = false
        for i in 0..<c.count {
            let v: Value?
            do throws(PipelineFailure) {
                v = try c.arg(i)
            } catch {
                guard case .evaluation = error else { throw error }
                pending = pending ?? error
                continue
            }
            switch v ?? .null {
            case .boolean(let b): if b == decisive { return .boolean(decisive) }
            case .null: sawNull = true
            case let other: pending = pending ?? c.expect(other, "boolean operands")
            }
        }
        if let pending { throw pending }
        return sawNull ? .null : .boolean(!decisive)
    }

    /// The logical `maximum(a, b, …)` / `minimum(…)` by the total order, ignoring null and
    /// absent operands (null when nothing is left). With one array operand, the client
    /// libraries' `array_maximum` / `array_minimum`: the extreme element of the array.
    private static func extreme(_ c: PipelineCall, largest: Bool) throws(PipelineFailure) -> Value? {
        try c.arity(1, Int.max)
        var candidates: [Value] = []
        if c.count == 1 {
            guard let only = try c.arg(0) else { return .null }
            switch only {
            case .array(let items): candidates = items
            case .null: return .null
            default: candidates = [only]
            }
        } else {
            for i in 0..<c.count { if let v = try c.arg(i) { candidates.append(v) } }
        }
        var best: Value?
        for v in candidates where v != .null {
            guard let b = best else { best = v; continue }
            let cmp = Value.compare(v, b)
            if largest ? cmp > 0 : cmp < 0 { best = v }
        }
        return best ?? .null
    }
}
