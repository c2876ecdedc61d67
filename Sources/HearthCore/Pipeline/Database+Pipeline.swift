import Foundation

/// What a pipeline returned: its rows in order, the time they reflect and, when the request
/// asked for `explain_options`, the plan and execution statistics as text.
public struct PipelineOutput: Sendable {
    public let results: [PipelineRow]
    public let executionTime: Timestamp
    /// nil unless explain was requested.
    public let explain: String?
    /// `explain_options.mode` was "explain": the pipeline was planned, not run.
    public let planOnly: Bool
}

/// `ExecutePipeline`: plan the pipeline, read one consistent state (now, at a retained read
/// time, or a transaction's), run the stages, and commit the writes of the DML stages.
extension Database {
    /// - Parameters:
    ///   - readTime: a retained earlier time to read at.
    ///   - transaction: a transaction to read in (a read-write one records what was read).
    ///   - authorize: the commit check for the DML stages' writes (rules).
    public func executePipeline(_ pipeline: StructuredPipeline, readTime: Timestamp? = nil, transaction: TransactionID? = nil,
                                authorize: CommitAuthorizer? = nil) throws(FirestoreError) -> PipelineOutput {
        let plan = try PipelinePlan(pipeline.stages, database: id)
        let explainMode = try Self.explainMode(pipeline.options)
        if explainMode == "explain" {
            return PipelineOutput(results: [], executionTime: state().readTime, explain: Self.describe(plan, head: PipelineQueryHead(plan), stats: nil),
                                  planOnly: true)
        }
        var state = self.state()
        var pastTime = readTime
        var recordReads = false
        if let transaction {
            if let point = try queryReadPoint(transaction) {
                state = point.state
                pastTime = point.readTime
            } else {
                recordReads = true
            }
        } else if let readTime {
            state = try self.state(readTime: readTime)
            if readTime >= state.readTime { pastTime = nil }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let run = PipelineRun(database: id, state: state, readTime: pastTime, now: clock.now().truncatedToMicroseconds)
        var head: (rows: [PipelineRow], steps: Int, residual: [PipelineValue])?
        let queryHead = pastTime == nil ? PipelineQueryHead(plan) : nil
        if let queryHead, let rows = try? headRows(queryHead, state: &state) {
            head = (rows, queryHead.steps, queryHead.residual)
        }
        var executor = PipelineExecutor(run: PipelineRun(database: id, state: state, readTime: pastTime, now: run.now))
        let rows: [PipelineRow]
        do throws(PipelineFailure) {
            rows = try executor.execute(plan, head: head)
        } catch {
            throw error.asFirestoreError
        }
        if recordReads, let transaction {
            try self.recordReads(rows.compactMap { $0.name.flatMap { state.document($0) } }, transaction: transaction)
        }
        var time = pastTime ?? state.readTime
        if !executor.writes.isEmpty {
            if readTime != nil { throw .invalidArgument("A pipeline with update or delete stages cannot read at a past read time.") }
            time = try commit(executor.writes, transaction: nil, authorize: authorize).commitTime
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        let explain = explainMode == nil ? nil
            : Self.describe(plan, head: head == nil ? nil : queryHead, stats: (rows.count, executor.writes.count, elapsed))
        return PipelineOutput(results: rows, executionTime: time, explain: explain, planOnly: false)
    }

    /// The rows of an index-served head, with the indexes its plans need materialised.
    private func headRows(_ head: PipelineQueryHead, state: inout DatabaseState) throws(FirestoreError) -> [PipelineRow] {
        let normalized = try NormalizedQuery(head.query, database: id)
        let plans = QueryPlanner.plans(for: normalized)
        let needed = QueryExecutor.requiredIndexes(plans)
        if needed.contains(where: { state.indexes.entries($0) == nil }) {
            let fresh = materializing(needed)
            // Another commit may have landed meanwhile: read the state the indexes belong to.
            state = fresh
        }
        return QueryExecutor(query: normalized, state: state, readTime: nil, plans: plans).run().map(PipelineRow.init)
    }

    /// `options.explain_options.mode`: nil when not asked; "analyze" (the default) or "explain".
    private static func explainMode(_ options: [String: PipelineValue]) throws(FirestoreError) -> String? {
        guard let value = options["explain_options"] else { return nil }
        guard let entries = value.mapEntries else { throw .invalidArgument("explain_options must be a map.") }
        let mode = entries.first { $0.key == "mode" }?.value.stringConstant ?? "analyze"
        guard mode == "analyze" || mode == "explain" else {
            throw .invalidArgument("explain_options.mode must be \"analyze\" or \"explain\", got \"\(mode)\".")
        }
        return mode
    }

    /// The plan (and, after a run, its statistics) as text.
    private static func describe(_ plan: PipelinePlan, head: PipelineQueryHead?, stats: (rows: Int, writes: Int, nanos: UInt64)?) -> String {
        var lines = ["Plan:"]
        for (i, step) in plan.steps.enumerated() {
            let served = head.map { i < $0.steps } ?? false
            lines.append("  \(i): \(String(describing: step).prefix(120))\(served ? "  [index scan]" : "")")
        }
        if let head {
            lines.append("Index scan: \(head.query.collectionID) filter \(head.query.filter.map { "\($0)" } ?? "none") order \(head.query.orderBy)")
        }
        if let stats {
            lines.append("Execution:")
            lines.append("  results returned: \(stats.rows)")
            if stats.writes > 0 { lines.append("  documents written: \(stats.writes)") }
            lines.append(String(format: "  execution time: %.3f ms", Double(stats.nanos) / 1e6))
        }
        return lines.joined(separator: "\n")
    }
}
