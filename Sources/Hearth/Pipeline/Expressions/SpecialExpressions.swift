import Foundation

/// `conditional(condition, then, else)`.
public class ConditionalExpression: FunctionExpression, @unchecked Sendable {
    public init(_ expression: BooleanExpression, then thenExpression: Expression, else elseExpression: Expression) {
        super.init(functionName: "conditional", args: [expression, thenExpression, elseExpression])
    }
}

/// `switch_on(c1, v1, c2, v2, …, default)`.
public func switchOn(_ condition: BooleanExpression, _ result: Expression, _ others: Expression...) -> FunctionExpression {
    FunctionExpression(functionName: "switch_on", args: [condition, result] + others)
}

/// An array built from values and expressions.
public class ArrayExpression: FunctionExpression, @unchecked Sendable {
    public init(_ elements: [Sendable]) { super.init("array", nodes: elements.map(expressionNode)) }
}

/// A map built from values and expressions.
public class MapExpression: FunctionExpression, @unchecked Sendable {
    public init(_ elements: [String: Sendable]) {
        super.init("map", nodes: elements.keys.sorted().flatMap { [ExpressionNode.constant($0), expressionNode(elements[$0])] })
    }
}

/// `rand()`: a double in [0, 1).
public class RandomExpression: FunctionExpression, @unchecked Sendable {
    public init() { super.init(functionName: "rand", args: []) }
}

public func rand() -> RandomExpression { RandomExpression() }

/// `error(message)`: fails evaluation with the message.
public class ErrorExpression: FunctionExpression, @unchecked Sendable {
    public init(_ errorMessage: String) { super.init(functionName: "error", args: [Constant(errorMessage)]) }
}

/// The request's time.
public class CurrentTimestamp: FunctionExpression, @unchecked Sendable {
    public init() { super.init(functionName: "current_timestamp", args: []) }
}

/// A full-text query for the `search` stage.
public struct DocumentMatches: BooleanExpression, ExpressionNodeConvertible, @unchecked Sendable {
    let query: String
    public init(_ query: String) { self.query = query }
    var node: ExpressionNode { .function("document_matches", [.constant(query)]) }
}

/// The `search` stage's relevance of the row.
public struct Score: Expression, ExpressionNodeConvertible, @unchecked Sendable {
    public init() {}
    var node: ExpressionNode { .function("score", []) }
}

public func && (lhs: BooleanExpression, rhs: @autoclosure () throws -> BooleanExpression) rethrows -> BooleanExpression {
    BooleanFunction("and", nodes: [expressionNode(lhs), expressionNode(try rhs())])
}

public func || (lhs: BooleanExpression, rhs: @autoclosure () throws -> BooleanExpression) rethrows -> BooleanExpression {
    BooleanFunction("or", nodes: [expressionNode(lhs), expressionNode(try rhs())])
}

public func ^ (lhs: BooleanExpression, rhs: @autoclosure () throws -> BooleanExpression) rethrows -> BooleanExpression {
    BooleanFunction("xor", nodes: [expressionNode(lhs), expressionNode(try rhs())])
}

public prefix func ! (lhs: BooleanExpression) -> BooleanExpression {
    BooleanFunction("not", nodes: [expressionNode(lhs)])
}

public func nor(_ condition: BooleanExpression, _ others: BooleanExpression...) -> BooleanExpression {
    BooleanFunction("nor", nodes: ([condition] + others).map(expressionNode))
}

public func nor(_ conditions: [BooleanExpression]) -> BooleanExpression {
    BooleanFunction("nor", nodes: conditions.map(expressionNode))
}

public extension BooleanExpression {
    /// `conditional(self, then, else)`.
    func then(_ thenExpression: Expression, else elseExpression: Expression) -> FunctionExpression {
        ConditionalExpression(self, then: thenExpression, else: elseExpression)
    }
}
