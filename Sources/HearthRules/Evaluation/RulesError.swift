/// A run-time evaluation error (docs/rules-language.md#errors-and-truthiness): it poisons every operator except
/// the absorbing cases of `&&`, `||` and the ternary, and an allow that ends in one denies.
public struct RulesError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    static let nullValue = RulesError("Null value error.")
    /// `resource` read in a list's first pass over a disjunct that names its document: the
    /// allow's outcome is then reported as "evaluation error at L<line>:<column>" of its
    /// condition (RulesProgram.evaluate(_:_:)), the emulator's text.
    static let unreadResource = RulesError("resource is read only in the second pass")
    static let divideByZero = RulesError("Divide by zero error.")
    static let overflow = RulesError("Integer overflow error.")
    static let tooManyEvaluations = RulesError(
        "Unable to evaluate the expression as the maximum of \(EvaluationContext.maxEvaluations) expressions to evaluate has been reached.")

    static func undefinedProperty(_ name: String) -> RulesError {
        RulesError("Property \(name) is undefined on object.")
    }

    static func functionNotFound(_ name: String) -> RulesError {
        RulesError("Function not found error: Name: [\(name)].")
    }

    static func unsupported(_ received: String, expected: String) -> RulesError {
        RulesError("Unsupported operation error. Received: \(received). Expected: \(expected).")
    }

    static func indexOutOfBounds(_ index: Int64, size: Int) -> RulesError {
        RulesError("Index out of bound error. Index: [\(index)] , size: [\(size)].")
    }
}
