import HearthCore
import HearthGRPC

extension FirestoreRPCs {
    /// ExecutePipeline (server streaming): results in batches of up to 100 documents, each
    /// response with the execution time; a new transaction's id on the first; explain stats
    /// on the last; no results → one response with the time (and stats).
    func executePipeline(_ bytes: [UInt8], _ call: FirestoreCall) throws(FirestoreError) {
        let req = try PipelineMessages.decodeRequest(bytes)
        let auth = try AuthContext.parse(call.request.value("authorization"))
        let service = try DocumentService(state: state, database: req.database, auth: auth)
        let (output, began) = try service.executePipeline(req.pipeline, consistency: req.consistency)
        let rows = output.results
        var start = 0
        repeat {
            let end = min(rows.count, start + 100)
            let last = end == rows.count
            try call.send(PipelineMessages.encodeResponse(rows[start..<end], executionTime: output.executionTime,
                                                         transaction: start == 0 ? began : nil,
                                                         explain: last ? output.explain : nil, database: req.database))
            start = end
        } while start < rows.count
    }
}
