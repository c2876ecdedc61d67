// `hearth-bench --triggers`: commit throughput with Cloud Functions triggers registered vs
// without (issue 35's target: within 10%). Both through the engine (4 threads committing
// single-document sets) and through REST (4 keep-alive connections PATCHing documents), with
// four triggers matching every write (1st gen write and update, 2nd gen written and updated)
// and an in-process stand-in Functions emulator answering 204. Rounds alternate off/on; the
// median of each is reported, and how long the queued events took to deliver.
import Foundation
import HearthCore
import HearthServer
import HearthTransport

enum TriggerBenchmark {
    static func printResults(rounds: Int = 3, commits: Int = 20_000, threads: Int = 4, restSeconds: Double = 2) {
        guard let receiver = try? HTTPServer(host: "127.0.0.1", port: 0, handler: { _ in HTTPResponse(status: 204) }) else {
            FileHandle.standardError.write(Data("cannot start the stand-in Functions emulator\n".utf8))
            exit(1)
        }
        defer { receiver.stop() }
        let address = "127.0.0.1:\(receiver.port)"
        let policy = TriggerDeliveryPolicy(capacity: commits * 4 + 1000)
        var engine: [Bool: [Double]] = [false: [], true: []]
        var rest: [Bool: [Double]] = [false: [], true: []]
        var drain: [Double] = []
        for _ in 0..<rounds {
            for on in [false, true] {
                let triggers = CloudFunctionsTriggers(functionsEmulator: address, policy: policy)
                if on { register(triggers) }
                let registry = DatabaseRegistry(commitObserver: triggers)
                let db = registry.database(DatabaseID(project: "bench"))
                let t0 = DispatchTime.now().uptimeNanoseconds
                DispatchQueue.concurrentPerform(iterations: threads) { t in
                    for i in stride(from: t, to: commits, by: threads) {
                        _ = try? db.commit([.set(ResourcePath(segments: ["bench", "d\(i % 1000)"]), MapValue([("n", .integer(Int64(i)))]))])
                    }
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                engine[on]!.append(Double(commits) / seconds)
                if on {
                    _ = triggers.waitUntilIdle(timeout: .seconds(120))
                    let s = triggers.statistics
                    drain.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                    if s.delivered != commits * 4 {
                        FileHandle.standardError.write(Data("triggers: \(s.delivered) of \(commits * 4) events delivered (\(s))\n".utf8))
                    }
                }
                rest[on]!.append(restRound(on: on, address: address, seconds: restSeconds, connections: threads))
            }
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let (eOff, eOn, rOff, rOn) = (median(engine[false]!), median(engine[true]!), median(rest[false]!), median(rest[true]!))
        print(String(format: "trigger_engine_commits_per_s_without  %.0f", eOff))
        print(String(format: "trigger_engine_commits_per_s_with     %.0f  (%+.1f%%; 4 triggers, %d commits, %d threads)", eOn, (eOn / eOff - 1) * 100, commits, threads))
        print(String(format: "trigger_engine_events_delivered_per_s %.0f  (%d events, commits to last delivery)", Double(commits * 4) / median(drain), commits * 4))
        print(String(format: "trigger_rest_commits_per_s_without    %.0f", rOff))
        print(String(format: "trigger_rest_commits_per_s_with       %.0f  (%+.1f%%; %d connections)", rOn, (rOn / rOff - 1) * 100, threads))
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

    private static func restRound(on: Bool, address: String, seconds: Double, connections: Int) -> Double {
        guard let server = try? EmulatorServer(host: "127.0.0.1", port: 0, state: EmulatorState(functionsEmulator: address)) else { exit(1) }
        defer { server.stop() }
        if on { register(server.state.triggers) }
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
        _ = server.state.triggers.waitUntilIdle(timeout: .seconds(60))
        return Double(counts.reduce(0) { $0 + $1.value }) / seconds
    }

    private final class Counter: @unchecked Sendable { var value = 0 }
}
