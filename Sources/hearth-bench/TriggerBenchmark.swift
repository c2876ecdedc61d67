// `hearth-bench --triggers [PORT]`: commit throughput with Cloud Functions triggers
// registered vs without (the target: within 10%). Both through the engine (4 threads
// committing single-document sets) and through REST (4 keep-alive connections PATCHing
// documents), with four triggers matching every write (1st gen write and update, 2nd gen
// written and updated) and an in-process stand-in Functions emulator answering 204. Modes:
// off (no trigger); queued (delivery paused: the commit path's own cost, matching and
// queueing); delivering (the delivery threads and the stand-in run meanwhile and compete with
// the committers for the cores). Rounds alternate the modes; the median of each is reported.
// With PORT, the stand-in binds PORT and the servers the next 3 × rounds ports.
import Foundation
import HearthCore
import HearthServer
import HearthTransport

enum TriggerBenchmark {
    static func printResults(rounds: Int = 3, commits: Int = 100_000, threads: Int = 4, restSeconds: Double = 2, basePort: Int = 0) {
        guard let receiver = try? HTTPServer(host: "127.0.0.1", port: basePort, handler: { _ in HTTPResponse(status: 204) }) else {
            FileHandle.standardError.write(Data("cannot start the stand-in Functions emulator\n".utf8))
            exit(1)
        }
        defer { receiver.stop() }
        let address = "127.0.0.1:\(receiver.port)"
        // Every commit fires write and written; all but each document's first, update and updated.
        let expected = (commits / 4 + commits) * 4 - min(commits / 4, 1000) * 2
        let policy = TriggerDeliveryPolicy(capacity: expected + 1000)
        let modes = ["off", "queued", "delivering"]
        var engine: [String: [Double]] = [:]
        var single: [String: [Double]] = [:]
        var rest: [String: [Double]] = [:]
        var drain: [Double] = []
        for round in 0..<rounds {
            for (m, mode) in modes.enumerated() {
                let triggers = CloudFunctionsTriggers(functionsEmulator: address, paused: mode == "queued", policy: policy)
                if mode != "off" { register(triggers) }
                let registry = DatabaseRegistry(commitObserver: triggers)
                let db = registry.database(DatabaseID(project: "bench"))
                // One committing thread first (a core left for the dispatcher and delivery),
                // then `threads`, on the same documents.
                let s0 = DispatchTime.now().uptimeNanoseconds
                for i in 0..<(commits / 4) {
                    _ = try? db.commit([.set(ResourcePath(segments: ["bench", "d\(i % 1000)"]), MapValue([("n", .integer(Int64(i)))]))])
                }
                single[mode, default: []].append(Double(commits / 4) / (Double(DispatchTime.now().uptimeNanoseconds - s0) / 1e9))
                let t0 = DispatchTime.now().uptimeNanoseconds
                DispatchQueue.concurrentPerform(iterations: threads) { t in
                    for i in stride(from: t, to: commits, by: threads) {
                        _ = try? db.commit([.set(ResourcePath(segments: ["bench", "d\(i % 1000)"]), MapValue([("n", .integer(Int64(i)))]))])
                    }
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                engine[mode, default: []].append(Double(commits) / seconds)
                if mode == "queued" {
                    // Drop what was queued (no address: each fails at once, unlogged) so the
                    // dispatcher's backlog does not run into the next measurement.
                    HearthLog.setHandler { _, _ in }
                    triggers.configure(functionsEmulator: .some(nil), paused: false)
                    _ = triggers.waitUntilIdle(timeout: .seconds(120))
                    HearthLog.setHandler(HearthLog.standardStreams)
                }
                if mode == "delivering" {
                    _ = triggers.waitUntilIdle(timeout: .seconds(120))
                    drain.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                    let s = triggers.statistics
                    if s.delivered != expected {
                        FileHandle.standardError.write(Data("triggers: \(s.delivered) of \(expected) events delivered (\(s))\n".utf8))
                    }
                }
                let port = basePort == 0 ? 0 : basePort + 1 + round * modes.count + m
                rest[mode, default: []].append(restRound(mode: mode, address: address, port: port, seconds: restSeconds, connections: threads))
            }
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        func name(_ mode: String) -> String { mode.padding(toLength: 12, withPad: " ", startingAt: 0) }
        let eOff = median(engine["off"]!), rOff = median(rest["off"]!), sOff = median(single["off"]!)
        print(String(format: "trigger_engine_1thread_commits_per_s_off  %.0f  (%d commits, median of %d)", sOff, commits / 4, rounds))
        for mode in modes.dropFirst() {
            let v = median(single[mode]!)
            print("trigger_engine_1thread_commits_per_s_\(name(mode))" + String(format: "%.0f  (%+.1f%%)", v, (v / sOff - 1) * 100))
        }
        print(String(format: "trigger_engine_commits_per_s_off          %.0f  (%d commits, %d threads, median of %d)", eOff, commits, threads, rounds))
        for mode in modes.dropFirst() {
            let v = median(engine[mode]!)
            print("trigger_engine_commits_per_s_\(name(mode)) " + String(format: "%.0f  (%+.1f%%)", v, (v / eOff - 1) * 100))
        }
        print(String(format: "trigger_engine_events_delivered_per_s     %.0f  (%d events, first commit to last delivery)", Double(expected) / median(drain), expected))
        print(String(format: "trigger_rest_commits_per_s_off            %.0f  (%d connections, %.0f s)", rOff, threads, restSeconds))
        for mode in modes.dropFirst() {
            let v = median(rest[mode]!)
            print("trigger_rest_commits_per_s_\(name(mode))   " + String(format: "%.0f  (%+.1f%%)", v, (v / rOff - 1) * 100))
        }
    }

    /// Four triggers on bench/{id}: 1st gen write and update, 2nd gen written and updated.
    private static func register(_ triggers: CloudFunctionsTriggers) {
        for (key, type) in [("us-central1-w-0", "providers/cloud.firestore/eventTypes/document.write"),
                            ("us-central1-u-0", "providers/cloud.firestore/eventTypes/document.update"),
                            ("us-central1-e-0", "google.cloud.firestore.document.v1.written"),
                            ("us-central1-f-0", "google.cloud.firestore.document.v1.updated")] {
            try? triggers.register(key: key, project: "bench", eventType: type, document: "bench/{id}")
        }
    }

    private static func restRound(mode: String, address: String, port: Int, seconds: Double, connections: Int) -> Double {
        guard let server = try? EmulatorServer(host: "127.0.0.1", port: port,
                                               state: EmulatorState(functionsEmulator: address, triggersPaused: mode == "queued")) else { exit(1) }
        defer { server.stop() }
        if mode != "off" { register(server.state.triggers) }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let port = server.port
        let counts = (0..<connections).map { _ in Counter() }
        DispatchQueue.concurrentPerform(iterations: connections) { c in
            guard let client = LoopbackClient(port: port) else { return }
            var i = c
            while DispatchTime.now().uptimeNanoseconds < deadline {
                guard client.request("PATCH", "/v1/projects/bench/databases/(default)/documents/bench/d\(i % 1000)",
                                     body: #"{"fields": {"n": {"integerValue": "\#(i)"}}}"#) == 200 else { break }
                counts[c].value += 1
                i += connections
            }
        }
        if mode == "delivering" { _ = server.state.triggers.waitUntilIdle(timeout: .seconds(60)) }
        return Double(counts.reduce(0) { $0 + $1.value }) / seconds
    }

    private final class Counter: @unchecked Sendable { var value = 0 }
}
