import HearthCore
import HearthTransport

/// `StructuredPipeline` and pipeline `Value`s in proto3 JSON: the plain members decode as
/// `ProtoValue` does; `fieldReferenceValue`, `variableReferenceValue`, `functionValue`
/// {name, args, options} and `pipelineValue` {stages} carry expressions; a `referenceValue`
/// that is not a full document name (`/books`) stays a string for the stage to read.
enum ProtoPipeline {
    static func decodeStructuredPipeline(_ json: JSON, context: String) throws(FirestoreError) -> StructuredPipeline {
        var o = try ProtoObject(json, context: context)
        let stages = try o.take("pipeline").map { p throws(FirestoreError) in try decodePipeline(p, context: context + ".pipeline") } ?? []
        let options = try o.take("options").map { j throws(FirestoreError) in try decodeOptions(j, context: context + ".options") } ?? [:]
        try o.finish()
        return StructuredPipeline(stages: stages, options: options)
    }

    static func decodePipeline(_ json: JSON, context: String) throws(FirestoreError) -> [PipelineStage] {
        var o = try ProtoObject(json, context: context)
        var stages: [PipelineStage] = []
        if let list = o.take("stages") {
            guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".stages", type: "TYPE_MESSAGE") }
            for (i, item) in items.enumerated() {
                let (name, args, options) = try decodeCall(item, context: "\(context).stages[\(i)]")
                stages.append(PipelineStage(name, args, options: options))
            }
        }
        try o.finish()
        return stages
    }

    private static func decodeCall(_ json: JSON, context: String) throws(FirestoreError) -> (String, [PipelineValue], [String: PipelineValue]) {
        var o = try ProtoObject(json, context: context)
        let name = try o.take("name").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: context + ".name") } ?? ""
        var args: [PipelineValue] = []
        if let list = o.take("args") {
            guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: context + ".args", type: "TYPE_MESSAGE") }
            for (i, item) in items.enumerated() { args.append(try decodeValue(item, context: "\(context).args[\(i)]")) }
        }
        let options = try o.take("options").map { j throws(FirestoreError) in try decodeOptions(j, context: context + ".options") } ?? [:]
        try o.finish()
        guard !name.isEmpty else { throw .invalidArgument("A pipeline stage or function has no name (at '\(context)').") }
        return (name, args, options)
    }

    private static func decodeOptions(_ json: JSON, context: String) throws(FirestoreError) -> [String: PipelineValue] {
        guard case .object(let pairs) = json else { throw ProtoJSON.badValue(json, context: context, type: "TYPE_MESSAGE") }
        var out: [String: PipelineValue] = [:]
        for (k, v) in pairs { out[k] = try decodeValue(v, context: "\(context)[\(k)]") }
        return out
    }

    static func decodeValue(_ json: JSON, context: String) throws(FirestoreError) -> PipelineValue {
        guard case .object(let pairs) = json, pairs.count == 1 else { return .constant(try ProtoValue.decode(json, context: context)) }
        let (member, v) = pairs[0]
        let ctx = context + "." + ProtoJSON.snakeCase(member)
        switch member {
        case "fieldReferenceValue": return .field(try ProtoJSON.string(v, context: ctx))
        case "variableReferenceValue": return .variable(try ProtoJSON.string(v, context: ctx))
        case "functionValue":
            let (name, args, options) = try decodeCall(v, context: ctx)
            return .function(PipelineFunction(name, args, options: options))
        case "pipelineValue": return .pipeline(try decodePipeline(v, context: ctx))
        case "referenceValue":
            let text = try ProtoJSON.string(v, context: ctx)
            if let name = try? DocumentName.parse(text) { return .constant(.reference(name)) }
            return .constant(.string(text))
        case "arrayValue":
            var a = try ProtoObject(v, context: ctx)
            var items: [PipelineValue] = []
            if let list = a.take("values") {
                guard case .array(let elements) = list else { throw ProtoJSON.badValue(list, context: ctx + ".values", type: "TYPE_MESSAGE") }
                for (i, e) in elements.enumerated() { items.append(try decodeValue(e, context: "\(ctx).values[\(i)]")) }
            }
            try a.finish()
            return .makeArray(items)
        case "mapValue":
            var m = try ProtoObject(v, context: ctx)
            var entries: [(String, PipelineValue)] = []
            if let fields = m.take("fields") {
                guard case .object(let fs) = fields else { throw ProtoJSON.badValue(fields, context: ctx + ".fields", type: "TYPE_MESSAGE") }
                for (k, e) in fs { entries.append((k, try decodeValue(e, context: "\(ctx).fields[\(k)]"))) }
            }
            try m.finish()
            return PipelineMessages.vectorOrMap(.makeMap(entries))
        default:
            return .constant(try ProtoValue.decode(json, context: context))
        }
    }
}
