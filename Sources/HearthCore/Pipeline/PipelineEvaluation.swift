import Foundation

/// One row flowing through a pipeline: a document (its name and times), or a row a stage made
/// (`select`, `aggregate`, `literals`…), which has fields only.
public struct PipelineRow: Sendable {
    public var name: ResourcePath?
    /// Changing the fields detaches the row from the stored document it came from.
    public var fields: MapValue { didSet { document = nil } }
    /// The stored document the row still is (same fields), so front ends can reuse what they
    /// derived from it (`Document.frontEndCache`); nil once a stage changed it.
    public private(set) var document: Document?
    public var createTime: Timestamp?
    public var updateTime: Timestamp?
    /// The relevance a `search` stage gave the row (`score()`).
    var score: Double?
    /// The variables a `let` stage bound for this row.
    var variables: [String: Value] = [:]

    public init(name: ResourcePath? = nil, fields: MapValue, createTime: Timestamp? = nil, updateTime: Timestamp? = nil) {
        self.name = name
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    init(_ document: Document) {
        self.init(name: document.path, fields: document.fields, createTime: document.createTime, updateTime: document.updateTime)
        self.document = document
    }
}

/// Why evaluating an expression failed. `.evaluation` is an expression's own error — a wrong
/// type, an overflow, an index out of range — which `is_error`/`if_error` catch and `where`
/// treats as not matching; `.request` fails the whole request (an unknown function, a wrong
/// number of arguments, a nested pipeline's own failure).
enum PipelineFailure: Error {
    case evaluation(String)
    case request(FirestoreError)

    var asFirestoreError: FirestoreError {
        switch self {
        case .evaluation(let message): FirestoreError(.invalidArgument, message)
        case .request(let error): error
        }
    }
}

/// Where an expression is evaluated: the row, the variables in scope and the run it belongs to.
struct PipelineScope {
    let row: PipelineRow
    var variables: [String: Value]
    let run: PipelineRun

    /// The value at a field of the row: `__name__` is the document's reference,
    /// `__create_time__` / `__update_time__` its times; nil when absent.
    func field(_ path: FieldPath) -> Value? {
        if path.count == 1 {
            switch path.segments[0] {
            case "__name__": return row.name.map { .reference(DocumentName(database: run.database, path: $0)) }
            case "__create_time__": return row.createTime.map(Value.timestamp)
            case "__update_time__": return row.updateTime.map(Value.timestamp)
            default: break
            }
        }
        return row.fields.value(at: path)
    }
}

/// A pipeline run's shared context: the state read, the request time and the generator for
/// `rand()` and `sample`.
final class PipelineRun: @unchecked Sendable {
    let database: DatabaseID
    let state: DatabaseState
    /// The state's own read time, or an earlier retained one.
    let readTime: Timestamp?
    /// `current_timestamp()`: one instant for the whole request.
    let now: Timestamp
    private var generator = SystemRandomNumberGenerator()
    /// Field paths already parsed (field references repeat once per row).
    private var paths: [String: FieldPath] = [:]
    /// Regular expressions compiled so far (`StringFunctions`).
    var regexes: [String: NSRegularExpression] = [:]

    init(database: DatabaseID, state: DatabaseState, readTime: Timestamp?, now: Timestamp) {
        self.database = database
        self.state = state
        self.readTime = readTime
        self.now = now
    }

    func random() -> Double { Double.random(in: 0..<1, using: &generator) }

    func randomIndex(below n: Int) -> Int { Int.random(in: 0..<n, using: &generator) }

    func path(_ text: String) throws(PipelineFailure) -> FieldPath {
        if let p = paths[text] { return p }
        do throws(FirestoreError) {
            let p = try pipelineFieldPath(text)
            paths[text] = p
            return p
        } catch {
            throw .request(error)
        }
    }
}

extension PipelineValue {
    /// The value of this expression for `scope`'s row; nil when absent (a missing field, a
    /// missing map key…). Arrays and maps of expressions drop absent elements and entries.
    func evaluate(_ scope: PipelineScope) throws(PipelineFailure) -> Value? {
        switch self {
        case .constant(let v): return v
        case .field(let text): return scope.field(try scope.run.path(text))
        case .variable(let name):
            guard let v = scope.variables[name] ?? scope.row.variables[name] else {
                throw .request(.invalidArgument("Unknown variable \"\(name)\": no enclosing let stage or array function binds it."))
            }
            return v
        case .array(let items):
            var out: [Value] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try item.evaluate(scope) ?? .null) }
            return .array(out)
        case .map(let entries):
            var out: [(String, Value)] = []
            for (k, item) in entries { if let v = try item.evaluate(scope) { out.append((k, v)) } }
            return .map(MapValue(out))
        case .function(let f):
            guard let implementation = PipelineFunctions.table[f.name] else {
                throw .request(.invalidArgument("Unknown function \"\(f.name)\"."))
            }
            return try implementation(PipelineCall(function: f, scope: scope))
        case .pipeline:
            throw .request(.invalidArgument("A pipeline value can only be an argument of array() or scalar()."))
        }
    }

    /// A condition's outcome: true only for the boolean `true`; an evaluation error, absence,
    /// null or another type is not a match (how `where` treats them).
    func matches(_ scope: PipelineScope) throws(PipelineFailure) -> Bool {
        do throws(PipelineFailure) {
            return try evaluate(scope) == .boolean(true)
        } catch {
            if case .evaluation = error { return false }
            throw error
        }
    }
}

/// One call of a function: its arguments, evaluated on demand (`and`, `conditional`,
/// `if_error` and the others that short-circuit read only what they need).
struct PipelineCall {
    let function: PipelineFunction
    let scope: PipelineScope

    var name: String { function.name }
    var count: Int { function.args.count }

    /// Fails the request unless the call has between `min` and `max` arguments.
    func arity(_ min: Int, _ max: Int? = nil) throws(PipelineFailure) {
        let max = max ?? min
        guard count >= min, count <= max else {
            let wanted = min == max ? "\(min)" : max == Int.max ? "at least \(min)" : "\(min) to \(max)"
            throw .request(.invalidArgument("Function \(name)() takes \(wanted) argument\(wanted == "1" ? "" : "s"), but \(count) were given."))
        }
    }

    /// Argument `i`, evaluated; nil when absent.
    func arg(_ i: Int) throws(PipelineFailure) -> Value? {
        try function.args[i].evaluate(scope)
    }

    /// Every argument, evaluated; nil when any is absent or null (most functions then
    /// return null).
    func presentArgs() throws(PipelineFailure) -> [Value]? {
        var out: [Value] = []
        out.reserveCapacity(count)
        var missing = false
        for i in 0..<count {
            guard let v = try arg(i) else { missing = true; continue }
            if case .null = v { missing = true }
            out.append(v)
        }
        return missing ? nil : out
    }

    /// An evaluation error naming the function and what was wrong.
    func typeError(_ what: String) -> PipelineFailure {
        .evaluation("\(name)() \(what)")
    }

    func expect(_ v: Value, _ kind: String) -> PipelineFailure {
        typeError("expects \(kind), but got a \(PipelineTypes.name(of: v)) value")
    }

    /// Argument `i` as an integer constant (option-like arguments: counts, places).
    func integer(_ v: Value) throws(PipelineFailure) -> Int64 {
        switch v {
        case .integer(let i): return i
        case .double(let d) where d == d.rounded() && abs(d) < 9.2e18: return Int64(d)
        default: throw expect(v, "an integer")
        }
    }

    func string(_ v: Value) throws(PipelineFailure) -> String {
        guard case .string(let s) = v else { throw expect(v, "a string") }
        return s
    }

    func array(_ v: Value) throws(PipelineFailure) -> [Value] {
        switch v {
        case .array(let a): return a
        case .vector(let d): return d.map(Value.double)
        default: throw expect(v, "an array")
        }
    }

    func map(_ v: Value) throws(PipelineFailure) -> MapValue {
        guard case .map(let m) = v else { throw expect(v, "a map") }
        return m
    }

    /// A scope with `name` bound to `value` (array functions' element aliases).
    func binding(_ bindings: [(String, Value)]) -> PipelineScope {
        var s = scope
        for (k, v) in bindings { s.variables[k] = v }
        return s
    }
}

typealias PipelineFunctionImplementation = @Sendable (PipelineCall) throws(PipelineFailure) -> Value?

/// Every expression function, by its protocol name, gathered from the families.
enum PipelineFunctions {
    static let table: [String: PipelineFunctionImplementation] = {
        var all: [String: PipelineFunctionImplementation] = [:]
        for family in [comparisonFunctions, logicalFunctions, arithmeticFunctions, stringFunctions, arrayFunctions,
                       mapFunctions, timestampFunctions, vectorFunctions, typeFunctions, referenceFunctions, searchFunctions] {
            for (name, f) in family { all[name] = f }
        }
        return all
    }()

    /// Whether `name` is a function the evaluator knows (aggregate functions are separate).
    static func isKnown(_ name: String) -> Bool { table[name] != nil }
}

/// The names production gives value types (`type()`, `is_type()`, messages).
enum PipelineTypes {
    static func name(of v: Value) -> String {
        switch v {
        case .null: "null"
        case .boolean: "boolean"
        case .integer: "int64"
        case .double: "float64"
        case .timestamp: "timestamp"
        case .string: "string"
        case .bytes: "bytes"
        case .reference: "reference"
        case .geoPoint: "geo_point"
        case .array: "array"
        case .map: "map"
        case .vector: "vector"
        }
    }
}
