import Foundation

/// `add`, `subtract`, `multiply`, `divide`, `mod`, the rounding functions, `pow`, `sqrt`,
/// `exp`, `ln`, `log`, `log10`, `rand`.
///
/// Two integers give an integer (overflow is an error, as is an integer division or modulo
/// by zero); a double on either side gives a double with IEEE semantics. A null operand
/// gives null; a non-number is an error.
extension PipelineFunctions {
    static let arithmeticFunctions: [String: PipelineFunctionImplementation] = [
        "add": { c throws(PipelineFailure) in
            try binary(c, ints: { a, b in a.addingReportingOverflow(b) }, doubles: { $0 + $1 })
        },
        "subtract": { c throws(PipelineFailure) in
            try binary(c, ints: { a, b in a.subtractingReportingOverflow(b) }, doubles: { $0 - $1 })
        },
        "multiply": { c throws(PipelineFailure) in
            try binary(c, ints: { a, b in a.multipliedReportingOverflow(by: b) }, doubles: { $0 * $1 })
        },
        "divide": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let (a, b) = try numbers(c) else { return .null }
            if case .integer(let x) = a, case .integer(let y) = b {
                guard y != 0 else { throw .evaluation("divide(): division by zero") }
                let (q, overflow) = x.dividedReportingOverflow(by: y)
                if overflow { throw .evaluation("divide(): integer overflow") }
                return .integer(q)
            }
            return .double(double(a) / double(b))
        },
        "mod": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let (a, b) = try numbers(c) else { return .null }
            if case .integer(let x) = a, case .integer(let y) = b {
                guard y != 0 else { throw .evaluation("mod(): division by zero") }
                return .integer(y == -1 ? 0 : x % y)
            }
            return .double(fmod(double(a), double(b)))
        },
        "abs": { c throws(PipelineFailure) in
            try unary(c, int: { i throws(PipelineFailure) in
                guard i != .min else { throw .evaluation("abs(): integer overflow") }
                return .integer(Swift.abs(i))
            }, double: { Swift.abs($0) })
        },
        "ceil": { c throws(PipelineFailure) in try unary(c, int: { .integer($0) }, double: { $0.rounded(.up) }) },
        "floor": { c throws(PipelineFailure) in try unary(c, int: { .integer($0) }, double: { $0.rounded(.down) }) },
        "round": { c throws(PipelineFailure) in
            try c.arity(1, 2)
            guard c.count == 2 else { return try unary(c, int: { .integer($0) }, double: { $0.rounded(.toNearestOrAwayFromZero) }) }
            return try scaled(c, .toNearestOrAwayFromZero)
        },
        "trunc": { c throws(PipelineFailure) in
            try c.arity(1, 2)
            guard c.count == 2 else { return try unary(c, int: { .integer($0) }, double: { $0.rounded(.towardZero) }) }
            return try scaled(c, .towardZero)
        },
        "sqrt": { c throws(PipelineFailure) in try real(c) { $0.squareRoot() } },
        "exp": { c throws(PipelineFailure) in try real(c) { Foundation.exp($0) } },
        "ln": { c throws(PipelineFailure) in try real(c) { Foundation.log($0) } },
        "log10": { c throws(PipelineFailure) in try real(c) { Foundation.log10($0) } },
        "log": { c throws(PipelineFailure) in
            try c.arity(1, 2)
            guard c.count == 2 else { return try real(c) { Foundation.log($0) } }
            guard let (a, b) = try numbers(c) else { return .null }
            return .double(Foundation.log(double(a)) / Foundation.log(double(b)))
        },
        "pow": { c throws(PipelineFailure) in
            try c.arity(2)
            guard let (a, b) = try numbers(c) else { return .null }
            return .double(Foundation.pow(double(a), double(b)))
        },
        "rand": { c throws(PipelineFailure) in
            try c.arity(0)
            return .double(c.scope.run.random())
        },
    ]

    static func double(_ v: Value) -> Double {
        switch v {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: .nan
        }
    }

    /// Both operands as numbers; nil when either is null or absent.
    private static func numbers(_ c: PipelineCall) throws(PipelineFailure) -> (Value, Value)? {
        guard let args = try c.presentArgs() else { return nil }
        for v in args where !v.isNumber { throw c.expect(v, "numbers") }
        return (args[0], args[1])
    }

    private static func binary(_ c: PipelineCall, ints: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
                               doubles: (Double, Double) -> Double) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let (a, b) = try numbers(c) else { return .null }
        if case .integer(let x) = a, case .integer(let y) = b {
            let r = ints(x, y)
            if r.overflow { throw .evaluation("\(c.name)(): integer overflow") }
            return .integer(r.partialValue)
        }
        return .double(doubles(double(a), double(b)))
    }

    private static func unary(_ c: PipelineCall, int: (Int64) throws(PipelineFailure) -> Value,
                              double: (Double) -> Double) throws(PipelineFailure) -> Value? {
        try c.arity(1, 2)
        guard let v = try c.arg(0), v != .null else { return .null }
        switch v {
        case .integer(let i): return try int(i)
        case .double(let d): return .double(double(d))
        default: throw c.expect(v, "a number")
        }
    }

    private static func real(_ c: PipelineCall, _ f: (Double) -> Double) throws(PipelineFailure) -> Value? {
        try c.arity(1)
        guard let v = try c.arg(0), v != .null else { return .null }
        guard v.isNumber else { throw c.expect(v, "a number") }
        return .double(f(double(v)))
    }

    /// `round(x, places)` / `trunc(x, places)`: at `places` decimal digits (negative: to the
    /// left of the point). Integers stay integers.
    private static func scaled(_ c: PipelineCall, _ rule: FloatingPointRoundingRule) throws(PipelineFailure) -> Value? {
        guard let args = try c.presentArgs() else { return .null }
        let places = try c.integer(args[1])
        switch args[0] {
        case .integer(let i):
            guard places < 0 else { return .integer(i) }
            let p = Foundation.pow(10.0, Double(-places))
            return .integer(Int64((Double(i) / p).rounded(rule) * p))
        case .double(let d):
            let p = Foundation.pow(10.0, Double(places))
            let r = (d * p).rounded(rule) / p
            return .double(r.isFinite ? r : d)
        case let v:
            throw c.expect(v, "a number")
        }
    }
}
