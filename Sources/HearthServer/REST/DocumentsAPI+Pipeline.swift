import HearthCore
import HearthTransport

extension DocumentsAPI {
    /// `POST …/documents:executePipeline`: the stream's responses as one JSON array.
    func executePipeline(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        guard let sp = o.take("structuredPipeline") else { throw .invalidArgument("executePipeline needs a structured_pipeline.") }
        let pipeline = try ProtoPipeline.decodeStructuredPipeline(sp, context: "structured_pipeline")
        let consistency = try consistency(&o)
        _ = o.take("database")
        try o.finish()
        let (output, began) = try service.executePipeline(pipeline, consistency: consistency)
        var pairs: [(String, JSON)] = []
        if let began { pairs.append(("transaction", ProtoJSON.base64(began.bytes))) }
        if !output.results.isEmpty {
            pairs.append(("results", .array(output.results.map { row in
                var doc: [(String, JSON)] = []
                if let name = row.name { doc.append(("name", .string(service.database.resourceName(name)))) }
                doc.append(("fields", ProtoValue.encodeFields(row.fields)))
                if let t = row.createTime { doc.append(("createTime", .string(t.rfc3339))) }
                if let t = row.updateTime { doc.append(("updateTime", .string(t.rfc3339))) }
                return .object(doc)
            })))
        }
        pairs.append(("executionTime", .string(output.executionTime.rfc3339)))
        if let explain = output.explain {
            pairs.append(("explainStats", .object([("data", .object([
                ("@type", .string("type.googleapis.com/google.protobuf.StringValue")), ("value", .string(explain)),
            ]))])))
        }
        return ok(.array([.object(pairs)]))
    }
}
