/// An accumulator of the `aggregate` stage (`Field("rating").average()`, `CountAll()`…).
public class AggregateFunction: @unchecked Sendable {
    let functionName: String
    let args: [ExpressionNode]

    public init(functionName: String, args: [Expression]) {
        self.functionName = functionName
        self.args = args.map(expressionNode)
    }

    /// The unlabeled form Google's snippets use: `AggregateFunction("count_if", [cond])`.
    public convenience init(_ functionName: String, _ args: [Expression]) {
        self.init(functionName: functionName, args: args)
    }

    public func `as`(_ name: String) -> AliasedAggregate { AliasedAggregate(aggregate: self, alias: name) }

    var node: ExpressionNode { .function(functionName, args) }
}

/// An accumulator with its output name.
public struct AliasedAggregate: Sendable {
    let aggregate: AggregateFunction
    let alias: String
}

/// `count()` of every row.
public class CountAll: AggregateFunction, @unchecked Sendable {
    public init() { super.init(functionName: "count", args: []) }
}

public extension BooleanExpression {
    /// The rows for which this condition holds.
    func countIf() -> AggregateFunction { AggregateFunction(functionName: "count_if", args: [self]) }
}
