/// A pipeline checked and typed: each stage's arguments decoded into what it needs, with
/// production's INVALID_ARGUMENT for a malformed stage, a misplaced source or an unknown
/// stage. Building the plan reads no data.
struct PipelinePlan: Sendable {
    enum Step: Sendable {
        case collection(ResourcePath)
        case collectionGroup(String)
        case database
        case documents([ResourcePath])
        case literals([PipelineValue])
        /// A nested pipeline's source: a subcollection of the enclosing row's document.
        case subcollection(String)
        case filter(PipelineValue)
        case sort([SortKey])
        case limit(Int)
        case offset(Int)
        case select([(FieldPath, PipelineValue)])
        case addFields([(FieldPath, PipelineValue)])
        case removeFields([FieldPath])
        case aggregate(accumulators: [(FieldPath, PipelineFunction)], groups: [(FieldPath, PipelineValue)])
        case distinct([(FieldPath, PipelineValue)])
        case findNearest(field: PipelineValue, vector: [Double], measure: FindNearest.DistanceMeasure, limit: Int?, distanceField: FieldPath?)
        case sample(count: Int?, fraction: Double?)
        case union(PipelinePlan)
        case unnest(PipelineValue, alias: FieldPath, indexField: FieldPath?)
        case replaceWith(PipelineValue)
        case search(query: PipelineValue, sort: [SortKey], offset: Int?, limit: Int?, addFields: [(FieldPath, PipelineValue)])
        case define([(String, PipelineValue)])
        case update([(FieldPath, PipelineValue)])
        case delete
    }

    struct SortKey: Sendable {
        let expression: PipelineValue
        let descending: Bool
    }

    let steps: [Step]

    /// Whether the plan writes (`update` / `delete`).
    var isDML: Bool { steps.contains { if case .update = $0 { true } else if case .delete = $0 { true } else { false } } }

    init(_ stages: [PipelineStage], database: DatabaseID, nested: Bool = false) throws(FirestoreError) {
        guard let first = stages.first else { throw .invalidArgument("A pipeline must have at least one stage.") }
        var steps: [Step] = []
        for (i, stage) in stages.enumerated() {
            let step = try Self.step(stage, index: i, database: database)
            let isSource: Bool
            switch step {
            case .collection, .collectionGroup, .database, .documents, .literals: isSource = true
            case .subcollection:
                guard nested, i == 0 else {
                    throw .invalidArgument("The subcollection stage (stages[\(i)]) is only allowed at the start of a nested pipeline.")
                }
                isSource = true
            default: isSource = false
            }
            if isSource != (i == 0) {
                throw .invalidArgument(i == 0
                    ? "A pipeline must start with a source stage (collection, collection_group, database, documents or literals), not \(first.name)."
                    : "The \(stage.name) stage (stages[\(i)]) is a source: it can only be the first stage.")
            }
            if case .update = step, i != stages.count - 1 { throw .invalidArgument("The update stage must be the last stage.") }
            if case .delete = step, i != stages.count - 1 { throw .invalidArgument("The delete stage must be the last stage.") }
            steps.append(step)
        }
        self.steps = steps
    }

    // MARK: Decoding each stage

    /// One stage being read: its arguments and options, and the checks every decoder shares
    /// (each error names the stage and its index).
    struct StageReader {
        let stage: PipelineStage
        let index: Int
        let database: DatabaseID
        var args: [PipelineValue] { stage.args }
        var options: [String: PipelineValue] { stage.options }

        func fail(_ why: String) -> FirestoreError { .invalidArgument("Invalid \(stage.name) stage (stages[\(index)]): \(why)") }

        func arity(_ n: ClosedRange<Int>) throws(FirestoreError) {
            guard n.contains(stage.args.count) else {
                throw fail("expected \(n.lowerBound == n.upperBound ? "\(n.lowerBound)" : "\(n.lowerBound) to \(n.upperBound)") argument(s), got \(stage.args.count).")
            }
        }

        func integer(_ v: PipelineValue?, _ what: String) throws(FirestoreError) -> Int {
            guard case .constant(.integer(let n))? = v else { throw fail("\(what) must be an integer.") }
            guard n >= 0, n <= Int64(Int32.max) else { throw fail("\(what) must be between 0 and \(Int32.max), got \(n).") }
            return Int(n)
        }

        func named(_ v: PipelineValue, _ what: String) throws(FirestoreError) -> [(FieldPath, PipelineValue)] {
            guard let entries = v.mapEntries else { throw fail("\(what) must be a map of output names to expressions.") }
            var out: [(FieldPath, PipelineValue)] = []
            for e in entries {
                guard !e.key.isEmpty else { throw fail("an output name in \(what) is empty.") }
                out.append((try pipelineFieldPath(e.key), e.value))
            }
            return out
        }

        func check(_ v: PipelineValue) throws(FirestoreError) { try validateExpression(v, database: database) }
    }

    /// Reads one stage's arguments into its step.
    typealias StageDecoder = @Sendable (StageReader) throws(FirestoreError) -> Step

    /// Every stage the protocol has, by name: what its arguments must be, and its step.
    static let stageDecoders: [String: StageDecoder] = [
        "collection": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            guard case .constant(.reference(let name))? = s.args.first.map(referenceArgument) ?? nil,
                  name.path.isCollection, !name.path.isEmpty else {
                throw s.fail("the argument must be a collection path such as \"/users\".")
            }
            return .collection(name.path)
        },
        "collection_group": { s throws(FirestoreError) -> Step in
            try s.arity(1...2)
            guard let id = s.args.last?.stringConstant, !id.isEmpty, !id.contains("/") else {
                throw s.fail("the collection ID must be a non-empty string without \"/\".")
            }
            return .collectionGroup(id)
        },
        "database": { s throws(FirestoreError) -> Step in
            try s.arity(0...0)
            return .database
        },
        "documents": { s throws(FirestoreError) -> Step in
            guard !s.args.isEmpty else { throw s.fail("expected at least one document path.") }
            var paths: [ResourcePath] = []
            for arg in s.args {
                guard case .constant(.reference(let name))? = referenceArgument(arg), name.path.isDocument else {
                    throw s.fail("each argument must be a document path such as \"/users/alice\".")
                }
                paths.append(name.path)
            }
            return .documents(paths)
        },
        "literals": { s throws(FirestoreError) -> Step in
            for arg in s.args {
                guard arg.mapEntries != nil else { throw s.fail("each argument must be a map (one result).") }
                try s.check(arg)
            }
            return .literals(s.args)
        },
        "subcollection": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            guard let path = s.args[0].stringConstant, !path.isEmpty else { throw s.fail("the argument must be a collection ID.") }
            return .subcollection(path)
        },
        "where": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            try s.check(s.args[0])
            return .filter(s.args[0])
        },
        "sort": { s throws(FirestoreError) -> Step in
            guard !s.args.isEmpty else { throw s.fail("expected at least one ordering.") }
            return .sort(try s.args.map { v throws(FirestoreError) in try sortKey(v, s.fail) })
        },
        "limit": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            return .limit(try s.integer(s.args[0], "the limit"))
        },
        "offset": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            return .offset(try s.integer(s.args[0], "the offset"))
        },
        "select": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            let fields = try s.named(s.args[0], "the selection")
            guard !fields.isEmpty else { throw s.fail("expected at least one field.") }
            for f in fields { try s.check(f.1) }
            return .select(fields)
        },
        "add_fields": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            let fields = try s.named(s.args[0], "the fields")
            guard !fields.isEmpty else { throw s.fail("expected at least one field.") }
            for f in fields { try s.check(f.1) }
            return .addFields(fields)
        },
        "remove_fields": { s throws(FirestoreError) -> Step in
            guard !s.args.isEmpty else { throw s.fail("expected at least one field.") }
            return .removeFields(try s.args.map { v throws(FirestoreError) in
                guard let f = v.fieldPath else { throw s.fail("each argument must be a field reference.") }
                return try pipelineFieldPath(f)
            })
        },
        "aggregate": { s throws(FirestoreError) -> Step in
            try s.arity(1...2)
            let accs = try s.named(s.args[0], "the accumulators")
            guard !accs.isEmpty else { throw s.fail("the aggregate stage requires at least one accumulator.") }
            var accumulators: [(FieldPath, PipelineFunction)] = []
            for (alias, v) in accs {
                guard case .function(let f) = v, PipelineAggregates.isAggregate(f.name) else {
                    throw s.fail("the accumulator \"\(alias.dotted)\" must be an aggregate function (count, sum, average, minimum, maximum…).")
                }
                for a in f.args { try s.check(a) }
                accumulators.append((alias, f))
            }
            let groups = s.args.count == 2 ? try s.named(s.args[1], "the groups") : []
            for g in groups { try s.check(g.1) }
            return .aggregate(accumulators: accumulators, groups: groups)
        },
        "distinct": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            let groups = try s.named(s.args[0], "the groups")
            guard !groups.isEmpty else { throw s.fail("expected at least one field.") }
            for g in groups { try s.check(g.1) }
            return .distinct(groups)
        },
        "find_nearest": { s throws(FirestoreError) -> Step in
            try s.arity(3...3)
            try s.check(s.args[0])
            let vector: [Double]
            switch s.args[1].constantValue {
            case .vector(let d)?: vector = d
            case .array(let items)? where items.allSatisfy(\.isNumber): vector = items.map(PipelineFunctions.double)
            default: throw s.fail("the second argument must be a vector.")
            }
            guard let m = s.args[2].stringConstant, let measure = FindNearest.DistanceMeasure(rawValue: m.uppercased()) else {
                throw s.fail("the distance measure must be \"euclidean\", \"cosine\" or \"dot_product\".")
            }
            var limit: Int?
            if let l = s.options["limit"] {
                limit = try s.integer(l, "the limit")
                guard limit! > 0 else { throw s.fail("the limit must be positive.") }
            }
            let distanceField = try s.options["distance_field"].map { v throws(FirestoreError) -> FieldPath in
                guard let f = v.fieldPath ?? v.stringConstant else { throw s.fail("distance_field must be a field reference.") }
                return try pipelineFieldPath(f)
            }
            return .findNearest(field: s.args[0], vector: vector, measure: measure, limit: limit, distanceField: distanceField)
        },
        "sample": { s throws(FirestoreError) -> Step in
            try s.arity(1...2)
            let mode = s.args.count == 2 ? s.args[1].stringConstant : "documents"
            switch (mode, s.args[0].constantValue) {
            case ("documents", .integer(let n)?) where n >= 0: return .sample(count: Int(min(n, Int64(Int32.max))), fraction: nil)
            case ("percent", .double(let p)?) where p >= 0 && p <= 1: return .sample(count: nil, fraction: p)
            case ("percent", .integer(let p)?) where p >= 0 && p <= 1: return .sample(count: nil, fraction: Double(p))
            default: throw s.fail("expected a non-negative document count with \"documents\", or a fraction between 0 and 1 with \"percent\".")
            }
        },
        "union": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            guard case .pipeline(let stages) = s.args[0] else { throw s.fail("the argument must be a pipeline.") }
            if case "subcollection"? = stages.first?.name {
                throw s.fail("a subcollection stage is only allowed at the start of a nested pipeline (an array() or scalar() subquery), not in a union.")
            }
            return .union(try PipelinePlan(stages, database: s.database))
        },
        "unnest": { s throws(FirestoreError) -> Step in
            try s.arity(1...2)
            try s.check(s.args[0])
            let aliasText = s.args.count == 2 ? s.args[1].fieldPath ?? s.args[1].stringConstant : s.args[0].fieldPath
            guard let aliasText else { throw s.fail("the alias must be a field reference.") }
            let indexField = try s.options["index_field"].map { v throws(FirestoreError) -> FieldPath in
                guard let f = v.fieldPath ?? v.stringConstant else { throw s.fail("index_field must be a field reference.") }
                return try pipelineFieldPath(f)
            }
            return .unnest(s.args[0], alias: try pipelineFieldPath(aliasText), indexField: indexField)
        },
        "replace_with": { s throws(FirestoreError) -> Step in
            try s.arity(1...2)
            if s.args.count == 2, let mode = s.args[1].stringConstant, mode != "full_replace" {
                throw s.fail("the mode \"\(mode)\" is not supported; use \"full_replace\".")
            }
            try s.check(s.args[0])
            return .replaceWith(s.args[0])
        },
        "search": { s throws(FirestoreError) -> Step in
            guard let query = s.options["query"] else { throw s.fail("the query option is required.") }
            try s.check(query)
            let sort = try s.options["sort"].map { v throws(FirestoreError) -> [SortKey] in
                guard let items = v.arrayElements else { throw s.fail("sort must be an array of orderings.") }
                return try items.map { item throws(FirestoreError) in try sortKey(item, s.fail) }
            } ?? []
            let addFields = try s.options["add_fields"].map { v throws(FirestoreError) in try s.named(v, "add_fields") } ?? []
            return .search(query: query, sort: sort,
                           offset: try s.options["offset"].map { v throws(FirestoreError) in try s.integer(v, "the offset") },
                           limit: try s.options["limit"].map { v throws(FirestoreError) in try s.integer(v, "the limit") },
                           addFields: addFields)
        },
        "let": { s throws(FirestoreError) -> Step in
            try s.arity(1...1)
            guard let entries = s.args[0].mapEntries, !entries.isEmpty else { throw s.fail("expected a map of variable names to expressions.") }
            for e in entries { try s.check(e.value) }
            return .define(entries.map { ($0.key, $0.value) })
        },
        "update": { s throws(FirestoreError) -> Step in
            try s.arity(0...1)
            let fields = s.args.isEmpty ? [] : try s.named(s.args[0], "the transformed fields")
            for f in fields { try s.check(f.1) }
            return .update(fields)
        },
        "delete": { s throws(FirestoreError) -> Step in
            try s.arity(0...0)
            return .delete
        },
    ]

    private static func step(_ stage: PipelineStage, index i: Int, database: DatabaseID) throws(FirestoreError) -> Step {
        guard let decode = stageDecoders[stage.name] else {
            throw .invalidArgument("Unknown pipeline stage \"\(stage.name)\" (stages[\(i)]).")
        }
        return try decode(StageReader(stage: stage, index: i, database: database))
    }

    /// A reference argument: `referenceValue` `/a/b` (what the clients send) or a full name.
    private static func referenceArgument(_ v: PipelineValue) -> PipelineValue? {
        switch v {
        case .constant(.reference): return v
        case .constant(.string(let s)):
            guard let path = try? ResourcePath.parse(s) else { return nil }
            return .constant(.reference(DocumentName(database: .queryPlaceholder, path: path)))
        default: return nil
        }
    }

    private static func sortKey(_ v: PipelineValue, _ fail: (String) -> FirestoreError) throws(FirestoreError) -> SortKey {
        guard let entries = v.mapEntries, let expression = entries.first(where: { $0.key == "expression" })?.value else {
            throw fail("an ordering must be a map with an expression and a direction.")
        }
        let direction = entries.first { $0.key == "direction" }?.value.stringConstant ?? "ascending"
        switch direction {
        case "ascending": return SortKey(expression: expression, descending: false)
        case "descending": return SortKey(expression: expression, descending: true)
        default: throw fail("the direction \"\(direction)\" must be \"ascending\" or \"descending\".")
        }
    }

    /// Every function in an expression is known (aggregate functions are not expressions),
    /// and every nested pipeline is valid: caught before any data is read.
    static func validateExpression(_ v: PipelineValue, database: DatabaseID) throws(FirestoreError) {
        switch v {
        case .constant, .variable: return
        case .field(let f): _ = try pipelineFieldPath(f)
        case .array(let items): for i in items { try validateExpression(i, database: database) }
        case .map(let m): for e in m.values { try validateExpression(e, database: database) }
        case .function(let f):
            guard PipelineFunctions.isKnown(f.name) else {
                if PipelineAggregates.isAggregate(f.name) {
                    throw .invalidArgument("The aggregate function \(f.name)() can only be used in an aggregate stage.")
                }
                throw .invalidArgument("Unknown function \"\(f.name)\".")
            }
            for a in f.args { try validateExpression(a, database: database) }
        case .pipeline(let stages):
            _ = try PipelinePlan(stages, database: database, nested: true)
        }
    }
}
