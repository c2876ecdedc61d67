// `hearth-bench --history [--updates N] [--limit MIB|none]`: the memory the version history
// takes when two hot documents are updated in a loop (increments, as a counter app does),
// with the server's one-hour retention and a history budget; with `--limit none`, what one
// past version costs, which is how the budget estimates its bytes.
import Foundation
import HearthCore

enum HistoryBenchmark {
    static let defaultLimitMiB = VersionHistoryBudget.defaultLimit >> 20

    static func printResults(updates: Int, limitMiB: Int?) {
        let budget = VersionHistoryBudget(limit: limitMiB.map { $0 << 20 } ?? Int.max)
        let db = Database(id: DatabaseID(project: "bench"), versionRetention: 3600, historyBudget: budget)
        let paths = [ResourcePath(segments: ["counters", "a"]), ResourcePath(segments: ["counters", "b"])]
        _ = try? db.commit(paths.map { .set($0, MapValue([("n", .integer(0))])) })
        let rss0 = residentBytes() ?? 0
        let start = DispatchTime.now().uptimeNanoseconds
        let step = max(1, updates / 10)
        for i in 0..<updates {
            let write = Write(path: paths[i & 1], operation: .transformOnly,
                              transforms: [FieldTransform(path: FieldPath(["n"]), kind: .increment(.integer(1)))])
            do { try db.commit([write]) } catch {
                FileHandle.standardError.write(Data("commit failed: \(error)\n".utf8))
                exit(1)
            }
            if (i + 1) % step == 0 {
                let rss = Double((residentBytes() ?? 0) - rss0) / 1_048_576
                FileHandle.standardError.write(Data(String(format: "  %9d updates  history %7.1f MiB (estimated)  RSS +%7.1f MiB\n",
                                                           i + 1, Double(budget.usedBytes) / 1_048_576, rss).utf8))
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let rss = (residentBytes() ?? 0) - rss0
        let total = paths.compactMap { db.document($0)?.fields["n"] }.reduce(0) { sum, v in
            if case .integer(let n) = v { return sum + Int(n) } else { return sum }
        }
        check("history updates", total, updates)
        print(String(format: "history_updates            %d  (%.0f commits/s)", updates, Double(updates) / seconds))
        print("history_limit_mib          \(limitMiB.map(String.init) ?? "none")")
        print(String(format: "history_estimated_mib      %.1f", Double(budget.usedBytes) / 1_048_576))
        print(String(format: "history_rss_growth_mib     %.1f", Double(rss) / 1_048_576))
        if limitMiB == nil {
            print(String(format: "history_bytes_per_version  %.0f measured, %d estimated", Double(rss) / Double(updates),
                         budget.usedBytes / max(1, updates)))
        }
    }
}
