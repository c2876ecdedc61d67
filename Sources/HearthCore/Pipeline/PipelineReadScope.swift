/// What a pipeline reads, in the terms security rules judge (rules are not filters: a read is
/// allowed only when the rules hold for everything it could return). A `collection` or
/// `collection_group` source with its leading `where` stages is a list query — its filters
/// are the field comparisons `PipelineQueryHead` converts, so the query covers at least what
/// the pipeline reads; `documents` is a set of gets; `literals` reads nothing. What the
/// query prover cannot judge — the whole database, unions, subqueries, writes — is
/// `unprovable`, and the caller denies it.
public enum PipelineReadScope: Sendable, Equatable {
    case query(StructuredQuery)
    case documents([ResourcePath])
    case nothing
    case unprovable(String)
}

extension StructuredPipeline {
    public func readScope(database: DatabaseID) throws(FirestoreError) -> PipelineReadScope {
        let plan = try PipelinePlan(stages, database: database)
        for (i, stage) in stages.enumerated() {
            if stage.name == "union" { return .unprovable("a union (stages[\(i)]) reads a second pipeline") }
            if stage.args.contains(where: Self.hasSubpipeline) || stage.options.values.contains(where: Self.hasSubpipeline) {
                return .unprovable("a subquery (stages[\(i)]) reads other documents")
            }
        }
        if plan.isDML { return .unprovable("update and delete stages write documents") }
        switch plan.steps[0] {
        case .collection, .collectionGroup:
            return .query(PipelineQueryHead.filterQuery(plan))
        case .documents(let paths): return .documents(paths)
        case .literals: return .nothing
        default: return .unprovable("the database source reads every collection")
        }
    }

    private static func hasSubpipeline(_ v: PipelineValue) -> Bool {
        switch v {
        case .pipeline: return true
        case .array(let items): return items.contains(where: hasSubpipeline)
        case .map(let m): return m.values.contains(where: hasSubpipeline)
        case .function(let f): return f.args.contains(where: hasSubpipeline) || f.options.values.contains(where: hasSubpipeline)
        default: return false
        }
    }
}
