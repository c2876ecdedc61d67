import HearthCore

/// Arithmetic, comparison, equality and membership (docs/rules-language.md#operators).
enum Operators {
    static func unary(_ op: Expr.UnaryOp, _ v: RulesValue) throws(RulesError) -> RulesValue {
        switch (op, v) {
        case (.not, .bool(let b)): return .bool(!b)
        case (.negate, .int(let i)):
            guard i != .min else { throw .overflow }
            return .int(-i)
        case (.negate, .float(let d)): return .float(-d)
        case (.negate, .duration(let d)):
            guard let r = RulesDuration.make(seconds: -d.seconds, nanos: -Int64(d.nanos)) else { throw .overflow }
            return .duration(r)
        default:
            throw .unsupported("\(op.rawValue)\(v.typeName)", expected: op == .not ? "!bool" : "-int, -float, -duration")
        }
    }

    static func binary(_ op: Expr.BinaryOp, _ a: RulesValue, _ b: RulesValue) throws(RulesError) -> RulesValue {
        if case .constraint = a { return try QueryProver.binary(op, a, b) }
        if case .constraint = b { return try QueryProver.binary(op, a, b) }
        switch op {
        case .equal: return .bool(RulesValue.equals(a, b))
        case .notEqual: return .bool(!RulesValue.equals(a, b))
        case .in: return try membership(a, b)
        case .less, .lessEqual, .greater, .greaterEqual:
            guard let c = RulesValue.compare(a, b) else {
                throw .unsupported("\(a.typeName) \(op.rawValue) \(b.typeName)", expected: expectedOperands(op))
            }
            if c == 2 { return .bool(false) }  // NaN
            switch op {
            case .less: return .bool(c < 0)
            case .lessEqual: return .bool(c <= 0)
            case .greater: return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        case .add, .subtract, .multiply, .divide, .remainder:
            return try arithmetic(op, a, b)
        }
    }

    static func membership(_ a: RulesValue, _ b: RulesValue) throws(RulesError) -> RulesValue {
        switch b {
        case .list(let l): return .bool(RulesValue.listContains(l, a))
        case .set(let s): return .bool(RulesValue.setContains(s, a))
        case .map(let m):
            // A key that is not a string is an error, not false: `!(1 in m)` denies, as the
            // official emulator's engine answers (recorded in the differential corpus).
            guard case .string(let key) = a else { throw .unsupported("map.in(\(a.typeName))", expected: "map.in(string)") }
            return .bool(m[key] != nil)
        case .null: throw .nullValue
        default:
            throw .unsupported("\(a.typeName) in \(b.typeName)", expected: "in list, set or map")
        }
    }

    private static func arithmetic(_ op: Expr.BinaryOp, _ a: RulesValue, _ b: RulesValue) throws(RulesError) -> RulesValue {
        switch (a, b) {
        case let (.int(x), .int(y)):
            switch op {
            case .add:
                let (r, o) = x.addingReportingOverflow(y)
                if o { throw .overflow }
                return .int(r)
            case .subtract:
                let (r, o) = x.subtractingReportingOverflow(y)
                if o { throw .overflow }
                return .int(r)
            case .multiply:
                let (r, o) = x.multipliedReportingOverflow(by: y)
                if o { throw .overflow }
                return .int(r)
            case .divide:
                if y == 0 { throw .divideByZero }
                // Java semantics: Long.MIN_VALUE / -1 wraps to MIN_VALUE (observed), no error.
                return .int(x.dividedReportingOverflow(by: y).partialValue)
            default:
                if y == 0 { throw .divideByZero }
                return .int(x.remainderReportingOverflow(dividingBy: y).partialValue)  // MIN % -1 == 0
            }
        case (.int, .float), (.float, .int), (.float, .float):
            let x = a.doubleValue!, y = b.doubleValue!
            switch op {
            case .add: return .float(x + y)
            case .subtract: return .float(x - y)
            case .multiply: return .float(x * y)
            case .divide: return .float(x / y)  // IEEE: 1.0/0 is +Inf (docs/rules-language.md#operators)
            default: return .float(x.truncatingRemainder(dividingBy: y))
            }
        case let (.string(x), .string(y)) where op == .add:
            return .string(x + y)
        case let (.timestamp(t), .duration(d)) where op == .add || op == .subtract:
            return try .timestamp(TimeArithmetic.add(t, d, negate: op == .subtract))
        case let (.duration(d), .timestamp(t)) where op == .add:
            return try .timestamp(TimeArithmetic.add(t, d, negate: false))
        case let (.timestamp(x), .timestamp(y)) where op == .subtract:
            guard let d = RulesDuration.make(seconds: x.seconds - y.seconds, nanos: Int64(x.nanos) - Int64(y.nanos)) else { throw .overflow }
            return .duration(d)
        case let (.duration(x), .duration(y)) where op == .add || op == .subtract:
            let sign: Int64 = op == .add ? 1 : -1
            guard let d = RulesDuration.make(seconds: x.seconds + sign * y.seconds, nanos: Int64(x.nanos) + sign * Int64(y.nanos)) else { throw .overflow }
            return .duration(d)
        default:
            throw .unsupported("\(a.typeName) \(op.rawValue) \(b.typeName)", expected: expectedOperands(op))
        }
    }

    /// What an operator takes, in the official emulator's words for its "Unsupported
    /// operation error" (the evaluation report a denial carries).
    static func expectedOperands(_ op: Expr.BinaryOp) -> String {
        let o = op.rawValue
        let pairs: [String] = switch op {
        case .add: ["int + int", "float + float", "string + string", "duration + duration", "duration + timestamp", "timestamp + duration"]
        case .subtract: ["int - int", "float - float", "duration - duration", "timestamp - duration", "timestamp - timestamp"]
        case .multiply, .divide, .remainder: ["int \(o) int", "float \(o) float"]
        default:
            ["string", "bytes", "int", "float", "duration", "timestamp"].map { "\($0) \(o) \($0)" } + ["constraint \(o) any", "any \(o) constraint"]
        }
        return pairs.joined(separator: ", ")
    }

    static func isType(_ v: RulesValue, _ type: TypeName) -> Bool {
        switch (type, v) {
        case (.bool, .bool), (.bytes, .bytes), (.float, .float), (.int, .int), (.string, .string),
             (.list, .list), (.map, .map), (.timestamp, .timestamp), (.duration, .duration),
             (.path, .path), (.latlng, .latlng), (.mapDiff, .mapDiff), (.constraint, .constraint):
            return true
        case (.number, .int), (.number, .float): return true
        default: return false  // includes `x is set`: false for every set (docs/rules-language.md#operators)
        }
    }
}

extension RulesValue {
    var isBool: Bool {
        if case .bool = self { return true }
        return false
    }

    var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .float(let d): d
        default: nil
        }
    }
}

/// Timestamp ± duration within Firestore's timestamp range.
enum TimeArithmetic {
    static func add(_ t: Timestamp, _ d: RulesDuration, negate: Bool) throws(RulesError) -> Timestamp {
        let sign: Int64 = negate ? -1 : 1
        var s = t.seconds + sign * d.seconds
        var n = Int64(t.nanos) + sign * Int64(d.nanos)
        if n < 0 { n += 1_000_000_000; s -= 1 }
        if n >= 1_000_000_000 { n -= 1_000_000_000; s += 1 }
        guard s >= Timestamp.minSeconds, s <= Timestamp.maxSeconds else {
            throw RulesError("Timestamp out of range.")
        }
        return Timestamp(seconds: s, nanos: Int32(n))
    }
}
