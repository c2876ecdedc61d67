import Foundation
import HearthCore

/// A pipeline expression, as the SDK's `Expression`: a field, a constant, a function call, a
/// variable… Build them with `Field`, `Constant` and the methods below; the pipeline turns
/// them into the engine's expression tree when it runs (constants are read then, as query
/// arguments are).
public protocol Expression: Sendable {}

/// What an expression is made of (the types of this module conform; anything else passed
/// where an expression is expected is a constant).
indirect enum ExpressionNode: @unchecked Sendable {
    case field(String)
    case constant(Any?)
    case variable(String)
    case function(String, [ExpressionNode])
    case pipeline(Pipeline)

    /// The engine's form, with constants read as query arguments are.
    func value(_ reader: UserDataReader) throws(FirestoreError) -> PipelineValue {
        switch self {
        case .field(let path): return .field(path)
        case .variable(let name): return .variable(name)
        case .constant(let v):
            guard let v, !(v is NSNull) else { return .constant(.null) }
            return .constant(try reader.argumentValue(v))
        case .function(let name, let args):
            var values: [PipelineValue] = []
            for a in args { values.append(try a.value(reader)) }
            return .function(PipelineFunction(name, values))
        case .pipeline(let p): return .pipeline(try p.engineStages(reader))
        }
    }
}

/// Conformed to by this module's expression types.
protocol ExpressionNodeConvertible {
    var node: ExpressionNode { get }
}

/// The node of any value passed as an expression: an expression's own, a list as `array(…)`,
/// a dictionary as `map(…)`, anything else a constant.
func expressionNode(_ value: Any?) -> ExpressionNode {
    switch value {
    case let e as ExpressionNodeConvertible: return e.node
    case let list as [Any]: return .function("array", list.map(expressionNode))
    case let map as [String: Any]:
        return .function("map", map.keys.sorted().flatMap { [ExpressionNode.constant($0), expressionNode(map[$0])] })
    default: return .constant(value)
    }
}

/// A field of the document (or row): `Field("rating")`, `Field("address.city")`.
public struct Field: Expression, Selectable, ExpressionNodeConvertible {
    public let fieldName: String

    public init(_ name: String) { fieldName = name }

    public init(_ path: FieldPath) { fieldName = path.core.isDocumentName ? "__name__" : path.core.serverFormat }

    /// The document's name (`__name__`).
    public static let documentID = Field("__name__")

    var node: ExpressionNode { .field(fieldName) }

    /// Meters between this field's geo point and `location`.
    public func geoDistance(_ location: GeoPoint) -> FunctionExpression {
        FunctionExpression(functionName: "geo_distance", args: [self, Constant(location)])
    }
}

/// A constant value: numbers, strings, booleans, bytes, geo points, timestamps, dates,
/// references, vectors, or `Constant.nil`.
public struct Constant: Expression, ExpressionNodeConvertible, @unchecked Sendable {
    let value: Any?

    init(_ value: Any?) { self.value = value }
    public init(_ value: Int) { self.init(value as Any) }
    public init(_ value: Double) { self.init(value as Any) }
    public init(_ value: String) { self.init(value as Any) }
    public init(_ value: Bool) { self.init(value as Any) }
    public init(_ value: Data) { self.init(value as Any) }
    public init(_ value: GeoPoint) { self.init(value as Any) }
    public init(_ value: Timestamp) { self.init(value as Any) }
    public init(_ value: Date) { self.init(value as Any) }
    public init(_ value: DocumentReference) { self.init(value as Any) }
    public init(_ value: VectorValue) { self.init(value as Any) }

    public static let `nil` = Constant(nil)

    var node: ExpressionNode { .constant(value) }
}

/// A function call: `FunctionExpression(functionName: "add", args: [Field("a"), Constant(1)])`
/// (the methods of `Expression` build these).
public class FunctionExpression: Expression, ExpressionNodeConvertible, @unchecked Sendable {
    let functionName: String
    let args: [ExpressionNode]

    public init(functionName: String, args: [Expression]) {
        self.functionName = functionName
        self.args = args.map(expressionNode)
    }

    /// The unlabeled form: `FunctionExpression("add", [Field("a"), Constant(1)])`.
    public convenience init(_ functionName: String, _ args: [Expression]) {
        self.init(functionName: functionName, args: args)
    }

    init(_ name: String, nodes: [ExpressionNode]) {
        functionName = name
        args = nodes
    }

    var node: ExpressionNode { .function(functionName, args) }
}

/// A condition (`where`, `and`, `countIf`…).
public protocol BooleanExpression: Expression {}

/// A function returning a boolean.
final class BooleanFunction: FunctionExpression, BooleanExpression, @unchecked Sendable {}

/// A variable bound by `define` or an array function's alias.
public struct Variable: Expression, ExpressionNodeConvertible {
    let name: String
    public init(_ name: String) { self.name = name }
    var node: ExpressionNode { .variable(name) }
}

/// The current row as a map (to bind with `define` for a subquery).
public struct CurrentDocument: Expression, ExpressionNodeConvertible {
    public init() {}
    var node: ExpressionNode { .function("current_document", []) }
}

/// Something `select`, `addFields`, `distinct` can output: a `Field` or an aliased expression.
public protocol Selectable: Sendable {}

/// An expression with an output name (`expr.as("name")`).
public struct AliasedExpression: Selectable, Sendable {
    let expression: ExpressionNode
    let alias: String

    init(_ expression: Expression, _ alias: String) {
        self.expression = expressionNode(expression)
        self.alias = alias
    }
}

/// An ordering for `sort`: `Field("rating").descending()`.
public struct Ordering: @unchecked Sendable {
    public let expression: Expression
    public let direction: Direction

    init(expression: Expression, direction: Direction) {
        self.expression = expression
        self.direction = direction
    }
}

public struct Direction: Sendable, Equatable, Hashable {
    public let rawValue: String
    public static let ascending = Direction(rawValue: "ascending")
    public static let descending = Direction(rawValue: "descending")
}

extension Selectable {
    /// (output name, expression).
    var selection: (String, ExpressionNode) {
        switch self {
        case let f as Field: return (f.fieldName, f.node)
        case let a as AliasedExpression: return (a.alias, a.expression)
        default: return ("\(self)", .constant(nil))
        }
    }
}
