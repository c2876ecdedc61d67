import Foundation
import HearthCore

/// A pipeline query, as the SDK's `Pipeline`: start one with `db.pipeline()`, add stages,
/// and `execute()` it. Each stage method returns a new pipeline; nothing runs until
/// `execute()`. Runs on the engine's pipeline evaluator (the one `hearth serve` answers
/// `ExecutePipeline` with), with this instance's security rules.
public class Pipeline: @unchecked Sendable {
    let stages: [Stage]
    let db: Firestore?

    /// One stage (or, for `create(from:)`, a query's stages), built when the pipeline runs
    /// (constants are read then).
    struct Stage: Sendable {
        let build: @Sendable (UserDataReader) throws(FirestoreError) -> [PipelineStage]
    }

    init(stages: [Stage], db: Firestore?) {
        self.stages = stages
        self.db = db
    }

    /// The results of `execute()` and the time they reflect.
    public struct Snapshot: Sendable {
        public let results: [PipelineResult]
        public let executionTime: Timestamp
    }

    /// Runs the pipeline.
    public func execute() async throws -> Pipeline.Snapshot {
        guard let db else {
            throw FirestoreErrorCode(.invalidArgument, message: "This pipeline was created without a database (e.g., as a subcollection pipeline) and cannot be executed directly. It can only be used as part of another pipeline.")
        }
        db.ensureActive()
        do {
            let pipeline = StructuredPipeline(stages: try engineStages(UserDataReader(firestore: db)))
            try db.access.checkPipeline(pipeline, in: db.database)
            let output = try db.database.executePipeline(pipeline, authorize: db.access.commitAuthorizer(for: db.database))
            let writer = UserDataWriter(firestore: db)
            return Snapshot(results: output.results.map { PipelineResult(row: $0, firestore: db, writer: writer) },
                            executionTime: Timestamp(output.executionTime))
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    func engineStages(_ reader: UserDataReader) throws(FirestoreError) -> [PipelineStage] {
        var out: [PipelineStage] = []
        for s in stages { out += try s.build(reader) }
        return out
    }

    private func adding(_ name: String, _ build: @escaping @Sendable (UserDataReader) throws(FirestoreError) -> ([PipelineValue], [String: PipelineValue])) -> Pipeline {
        Pipeline(stages: stages + [Stage { reader throws(FirestoreError) in
            let (args, options) = try build(reader)
            return [PipelineStage(name, args, options: options)]
        }], db: db)
    }

    private static func selections(_ items: [Selectable], _ reader: UserDataReader) throws(FirestoreError) -> PipelineValue {
        var entries: [(String, PipelineValue)] = []
        for item in items {
            let (alias, node) = item.selection
            entries.append((alias, try node.value(reader)))
        }
        return .makeMap(entries)
    }

    // MARK: Stages

    public func addFields(_ selectables: [Selectable]) -> Pipeline {
        adding("add_fields") { r throws(FirestoreError) in ([try Self.selections(selectables, r)], [:]) }
    }

    public func removeFields(_ fields: [Field]) -> Pipeline {
        adding("remove_fields") { _ in (fields.map { .field($0.fieldName) }, [:]) }
    }

    public func removeFields(_ fields: [String]) -> Pipeline { removeFields(fields.map { Field($0) }) }

    public func select(_ selections: [Selectable]) -> Pipeline {
        adding("select") { r throws(FirestoreError) in ([try Self.selections(selections, r)], [:]) }
    }

    public func select(_ selections: [String]) -> Pipeline { select(selections.map { Field($0) }) }

    public func `where`(_ condition: BooleanExpression) -> Pipeline {
        adding("where") { r throws(FirestoreError) in ([try expressionNode(condition).value(r)], [:]) }
    }

    public func offset(_ offset: Int32) -> Pipeline {
        adding("offset") { _ in ([.constant(.integer(Int64(offset)))], [:]) }
    }

    public func limit(_ limit: Int32) -> Pipeline {
        adding("limit") { _ in ([.constant(.integer(Int64(limit)))], [:]) }
    }

    /// Binds variables for later stages and subqueries (`Variable("name")`).
    public func define(_ variables: [AliasedExpression]) -> Pipeline {
        adding("let") { r throws(FirestoreError) in ([try Self.selections(variables, r)], [:]) }
    }

    public func distinct(_ groups: [String]) -> Pipeline { distinct(groups.map { Field($0) }) }

    public func distinct(_ groups: [Selectable]) -> Pipeline {
        adding("distinct") { r throws(FirestoreError) in ([try Self.selections(groups, r)], [:]) }
    }

    public func aggregate(_ aggregates: [AliasedAggregate], groups: [Selectable]? = nil) -> Pipeline {
        adding("aggregate") { r throws(FirestoreError) in
            var accumulators: [(String, PipelineValue)] = []
            for a in aggregates { accumulators.append((a.alias, try a.aggregate.node.value(r))) }
            return ([.makeMap(accumulators), try Self.selections(groups ?? [], r)], [:])
        }
    }

    public func findNearest(field: Field, vectorValue: VectorValue, distanceMeasure: DistanceMeasure,
                            limit: Int? = nil, distanceField: String? = nil) -> Pipeline {
        adding("find_nearest") { r throws(FirestoreError) in
            var options: [String: PipelineValue] = [:]
            if let limit { options["limit"] = .constant(.integer(Int64(limit))) }
            if let distanceField { options["distance_field"] = .field(distanceField) }
            return ([.field(field.fieldName), .constant(try r.argumentValue(vectorValue)), .constant(.string(distanceMeasure.rawValue))], options)
        }
    }

    public func sort(_ orderings: [Ordering]) -> Pipeline {
        adding("sort") { r throws(FirestoreError) in
            var args: [PipelineValue] = []
            for o in orderings {
                args.append(.makeMap([("expression", try expressionNode(o.expression).value(r)), ("direction", .constant(.string(o.direction.rawValue)))]))
            }
            return (args, [:])
        }
    }

    public func replace(with expression: Expression) -> Pipeline {
        adding("replace_with") { r throws(FirestoreError) in ([try expressionNode(expression).value(r), .constant(.string("full_replace"))], [:]) }
    }

    public func replace(with fieldName: String) -> Pipeline { replace(with: Field(fieldName)) }

    public func sample(count: Int64) -> Pipeline {
        adding("sample") { _ in ([.constant(.integer(count)), .constant(.string("documents"))], [:]) }
    }

    public func sample(percentage: Double) -> Pipeline {
        adding("sample") { _ in ([.constant(.double(percentage)), .constant(.string("percent"))], [:]) }
    }

    public func search(query: Expression, languageCode: String? = nil, retrievalDepth: Int? = nil, sort: [Ordering]? = nil,
                       offset: Int? = nil, limit: Int? = nil, addFields: [Selectable]? = nil) -> Pipeline {
        adding("search") { r throws(FirestoreError) in
            var options: [String: PipelineValue] = ["query": try expressionNode(query).value(r)]
            if let languageCode { options["language_code"] = .constant(.string(languageCode)) }
            if let retrievalDepth { options["retrieval_depth"] = .constant(.integer(Int64(retrievalDepth))) }
            if let offset { options["offset"] = .constant(.integer(Int64(offset))) }
            if let limit { options["limit"] = .constant(.integer(Int64(limit))) }
            if let sort {
                var items: [PipelineValue] = []
                for o in sort {
                    items.append(.makeMap([("expression", try expressionNode(o.expression).value(r)), ("direction", .constant(.string(o.direction.rawValue)))]))
                }
                options["sort"] = .makeArray(items)
            }
            if let addFields { options["add_fields"] = try Self.selections(addFields, r) }
            return ([], options)
        }
    }

    public func search(query: String, languageCode: String? = nil, retrievalDepth: Int? = nil, sort: [Ordering]? = nil,
                       offset: Int? = nil, limit: Int? = nil, addFields: [Selectable]? = nil) -> Pipeline {
        search(query: DocumentMatches(query), languageCode: languageCode, retrievalDepth: retrievalDepth, sort: sort,
               offset: offset, limit: limit, addFields: addFields)
    }

    public func union(with other: Pipeline) -> Pipeline {
        adding("union") { r throws(FirestoreError) in ([.pipeline(try other.engineStages(r))], [:]) }
    }

    public func unnest(_ field: Selectable, indexField: String? = nil) -> Pipeline {
        adding("unnest") { r throws(FirestoreError) in
            let (alias, node) = field.selection
            var options: [String: PipelineValue] = [:]
            if let indexField { options["index_field"] = .field(indexField) }
            return ([try node.value(r), .field(alias)], options)
        }
    }

    public func rawStage(name: String, params: [Sendable], options: [String: Sendable]? = nil) -> Pipeline {
        adding(name) { r throws(FirestoreError) in
            var args: [PipelineValue] = []
            for p in params { args.append(try expressionNode(p).value(r)) }
            var opts: [String: PipelineValue] = [:]
            for (k, v) in options ?? [:] { opts[k] = try expressionNode(v).value(r) }
            return (args, opts)
        }
    }

    /// This pipeline's results as an array value (a subquery).
    public func toArrayExpression() -> Expression { FunctionExpression("array", nodes: [.pipeline(self)]) }

    /// This pipeline's single result as a value (a subquery; more than one result is an error).
    public func toScalarExpression() -> Expression { FunctionExpression("scalar", nodes: [.pipeline(self)]) }
}

/// A nested pipeline over a subcollection of the enclosing row's document.
public class Subcollection: Pipeline, @unchecked Sendable {
    public init(_ path: String) {
        super.init(stages: [Stage { _ in [PipelineStage("subcollection", [.constant(.string(path))])] }], db: nil)
    }
}
