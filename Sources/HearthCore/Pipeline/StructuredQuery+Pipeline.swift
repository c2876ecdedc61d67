/// A query as the equivalent pipeline (the SDKs' `pipeline().create(from: query)`), built the
/// way the client libraries build it: the source, each filter as a `where` (with `exists` for
/// the fields a query's filters and order-bys require), the order-bys as one `sort`, then
/// `limit` and `offset`. Cursors, `limit(toLast:)` and `find_nearest` have no rendering here.
extension StructuredQuery {
    public func pipelineStages() throws(FirestoreError) -> [PipelineStage] {
        if startAt != nil || endAt != nil { throw .invalidArgument("A query with cursors cannot be converted to a pipeline here.") }
        if findNearest != nil { throw .invalidArgument("A find_nearest query cannot be converted to a pipeline here.") }
        var stages: [PipelineStage] = []
        if allDescendants {
            stages.append(PipelineStage("collection_group", [.constant(.string("")), .constant(.string(collectionID))]))
        } else {
            stages.append(PipelineStage("collection", [.constant(.string("/" + collectionPath.description))]))
        }
        if let filter { stages.append(PipelineStage("where", [Self.condition(filter)])) }
        if let projection, !projection.isEmpty {
            stages.append(PipelineStage("select", [.makeMap(projection.map { ($0.serverFormat, .field($0.serverFormat)) })]))
        }
        let ordered = orderBy.filter { !$0.field.isDocumentName }
        if !ordered.isEmpty {
            let exists = ordered.map { PipelineValue.function(PipelineFunction("exists", [.field($0.field.serverFormat)])) }
            stages.append(PipelineStage("where", [exists.count == 1 ? exists[0] : .function(PipelineFunction("and", exists))]))
        }
        if !orderBy.isEmpty {
            stages.append(PipelineStage("sort", orderBy.map { o in
                .makeMap([("expression", .field(o.field.isDocumentName ? "__name__" : o.field.serverFormat)),
                          ("direction", .constant(.string(o.descending ? "descending" : "ascending")))])
            }))
        }
        if offset > 0 { stages.append(PipelineStage("offset", [.constant(.integer(Int64(offset)))])) }
        if let limit { stages.append(PipelineStage("limit", [.constant(.integer(Int64(limit)))])) }
        return stages
    }

    private static func condition(_ filter: QueryFilter) -> PipelineValue {
        func call(_ name: String, _ args: PipelineValue...) -> PipelineValue { .function(PipelineFunction(name, args)) }
        switch filter {
        case .composite(let op, let children):
            return .function(PipelineFunction(op == .and ? "and" : "or", children.map(condition)))
        case .unary(let f, let op):
            let field = PipelineValue.field(f.isDocumentName ? "__name__" : f.serverFormat)
            switch op {
            case .isNull: return call("and", call("exists", field), call("equal", field, .constant(.null)))
            case .isNaN: return call("and", call("exists", field), call("equal", field, .constant(.double(.nan))))
            case .isNotNull: return call("and", call("exists", field), call("not", call("equal", field, .constant(.null))))
            case .isNotNaN: return call("and", call("exists", field), call("not", call("equal", field, .constant(.double(.nan)))))
            }
        case .field(let f, let op, let value):
            let field = PipelineValue.field(f.isDocumentName ? "__name__" : f.serverFormat)
            let v = PipelineValue.constant(value)
            switch op {
            case .lessThan: return call("and", call("exists", field), call("less_than", field, v))
            case .lessThanOrEqual: return call("and", call("exists", field), call("less_than_or_equal", field, v))
            case .greaterThan: return call("and", call("exists", field), call("greater_than", field, v))
            case .greaterThanOrEqual: return call("and", call("exists", field), call("greater_than_or_equal", field, v))
            case .equal: return call("and", call("exists", field), call("equal", field, v))
            case .notEqual: return call("not_equal", field, v)
            case .arrayContains: return call("and", call("exists", field), call("array_contains", field, v))
            case .arrayContainsAny: return call("and", call("exists", field), call("array_contains_any", field, v))
            case .in: return call("and", call("exists", field), call("equal_any", field, v))
            case .notIn: return call("not_equal_any", field, v)
            }
        }
    }
}
