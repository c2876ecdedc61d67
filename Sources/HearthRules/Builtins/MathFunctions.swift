import Foundation

/// The `math` namespace (docs/rules-language.md#global-functions).
enum MathFunctions {
    static func call(_ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        if name == "pow" {
            try Builtins.arity("math.pow", args, 2)
            guard let b = args[0].doubleValue, let e = args[1].doubleValue else {
                throw .unsupported("math.pow(\(args[0].typeName), \(args[1].typeName))", expected: "math.pow(number, number)")
            }
            return .float(Foundation.pow(b, e))
        }
        try Builtins.arity("math.\(name)", args, 1)
        let x = args[0]
        guard let d = x.doubleValue else {
            throw .unsupported("math.\(name)(\(x.typeName))", expected: "math.\(name)(number)")
        }
        switch name {
        case "abs":
            if case .int(let i) = x {
                // Java's Math.abs: abs(Long.MIN_VALUE) is MIN_VALUE (observed).
                return .int(i == .min ? .min : Swift.abs(i))
            }
            return .float(Swift.abs(d))
        case "ceil": return .float(d.rounded(.up))      // float even for an int (docs/rules-language.md#global-functions)
        case "floor": return .float(d.rounded(.down))
        case "round":
            if case .int = x { return x }
            // Java's Math.round: floor(x + 0.5), halves toward +∞.
            guard d.isFinite else { return .int(d.isNaN ? 0 : (d > 0 ? .max : .min)) }
            let r = (d + 0.5).rounded(.down)
            // x + 0.5 can round up for the largest double below 0.5; Java special-cases it.
            let fixed = (d < 0.5 && r >= 1 && d > 0) ? 0 : r
            if fixed >= 9.223372036854775807e18 { return .int(.max) }
            if fixed <= -9.223372036854775808e18 { return .int(.min) }
            return .int(Int64(fixed))
        case "sqrt": return .float(d.squareRoot())
        case "isNaN": return .bool(d.isNaN)
        default: throw .functionNotFound("math.\(name)")
        }
    }
}
