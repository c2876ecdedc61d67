/// A pipeline as the protocol carries it (`google.firestore.v1.StructuredPipeline`): a list of
/// stages, each a name with positional arguments and named options, whose arguments are
/// values that may hold expressions — field references, variables, function calls and nested
/// pipelines (document.proto's `Value` members 19–22). Every front end (gRPC, REST, the Swift
/// API's builders) produces this one tree; `PipelinePlan` checks it and the engine runs it.
public struct StructuredPipeline: Sendable, Hashable {
    public var stages: [PipelineStage]
    /// `StructuredPipeline.options` (e.g. `explain_options`).
    public var options: [String: PipelineValue]

    public init(stages: [PipelineStage], options: [String: PipelineValue] = [:]) {
        self.stages = stages
        self.options = options
    }
}

/// A name with positional arguments and named options: the protocol's `Pipeline.Stage`
/// (`collection`, `where`, `sort`, …) and its `Function` value (`equal`, `add`, …) have this
/// one shape, so they are one type under two names.
public struct PipelineNode: Sendable, Hashable {
    public var name: String
    public var args: [PipelineValue]
    public var options: [String: PipelineValue]

    public init(_ name: String, _ args: [PipelineValue] = [], options: [String: PipelineValue] = [:]) {
        self.name = name
        self.args = args
        self.options = options
    }
}

/// One `Pipeline.Stage`.
public typealias PipelineStage = PipelineNode
/// One `Function` value.
public typealias PipelineFunction = PipelineNode

/// A `Value` that may contain expressions. Plain data stays in `.constant` (an array or map
/// of constants is one constant), so evaluating a literal costs nothing; `.array` and `.map`
/// appear only when some element is an expression.
public indirect enum PipelineValue: Sendable, Hashable {
    case constant(Value)
    case array([PipelineValue])
    case map([String: PipelineValue])
    /// `field_reference_value`: a field path in the server's format (`a.b`, `` `x y`.z ``).
    case field(String)
    /// `variable_reference_value`: a name bound by a `let` stage or an array function.
    case variable(String)
    case function(PipelineFunction)
    case pipeline([PipelineStage])

    /// An array value, folded into a constant when every element is one.
    public static func makeArray(_ items: [PipelineValue]) -> PipelineValue {
        var constants: [Value] = []
        constants.reserveCapacity(items.count)
        for item in items {
            guard case .constant(let v) = item else { return .array(items) }
            constants.append(v)
        }
        return .constant(.array(constants))
    }

    /// A map value, folded into a constant when every entry is one.
    public static func makeMap(_ entries: [(String, PipelineValue)]) -> PipelineValue {
        var constants: [(String, Value)] = []
        constants.reserveCapacity(entries.count)
        for (k, item) in entries {
            guard case .constant(let v) = item else {
                var m: [String: PipelineValue] = [:]
                for (k, v) in entries { m[k] = v }
                return .map(m)
            }
            constants.append((k, v))
        }
        return .constant(.map(MapValue(constants)))
    }

    /// The entries of a map argument (a constant map or an expression map), or nil.
    public var mapEntries: [(key: String, value: PipelineValue)]? {
        switch self {
        case .map(let m): return m.map { ($0.key, $0.value) }.sorted { compareUTF8($0.key, $1.key) < 0 }
        case .constant(.map(let m)): return m.entries.map { ($0.key, PipelineValue.constant($0.value)) }
        default: return nil
        }
    }

    /// The elements of an array argument, or nil.
    public var arrayElements: [PipelineValue]? {
        switch self {
        case .array(let items): return items
        case .constant(.array(let items)): return items.map(PipelineValue.constant)
        default: return nil
        }
    }

    public var constantValue: Value? {
        if case .constant(let v) = self { return v }
        return nil
    }

    public var stringConstant: String? {
        if case .constant(.string(let s)) = self { return s }
        return nil
    }

    public var fieldPath: String? {
        if case .field(let f) = self { return f }
        return nil
    }
}

/// A field reference's path: the server's quoted form when it parses, else the dotted form
/// the client libraries also send (`awards.arthur c. clarke` is three segments, not an error).
func pipelineFieldPath(_ text: String) throws(FirestoreError) -> FieldPath {
    if text == "__name__" { return .documentName }
    if let quoted = try? FieldPath.parseServerFormat(text) { return quoted }
    do throws(FirestoreError) {
        return try FieldPath.parseDotted(text)
    } catch {
        throw .invalidArgument("Invalid field reference \"\(text)\": \(error.message)")
    }
}
