import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport
import HearthProtobuf

/// ExecutePipeline over loopback gRPC (protobuf with field references and functions) and
/// over REST (proto3 JSON).
@Suite struct ExecutePipelineRPCTests {
    static let db = DatabaseID(project: "pipeline-test")

    /// `collection /users` → `where age > 30` → `sort age desc` → `select name`.
    static func pipeline(_ w: inout ProtoWriter) {
        func stage(_ name: String, _ args: [(inout ProtoWriter) -> Void]) -> (inout ProtoWriter) -> Void {
            { s in
                s.writeString(1, name)
                for a in args { s.writeMessage(2, a) }
            }
        }
        func field(_ f: String) -> (inout ProtoWriter) -> Void { { $0.writeString(19, f) } }
        func entry(_ k: String, _ v: @escaping (inout ProtoWriter) -> Void) -> (inout ProtoWriter) -> Void {
            { e in e.writeString(1, k); e.writeMessage(2, v) }
        }
        w.writeMessage(1) { p in
            p.writeMessage(1, stage("collection", [{ $0.writeString(5, "/users") }]))
            p.writeMessage(1, stage("where", [{ v in
                v.writeMessage(20) { f in
                    f.writeString(1, "greater_than")
                    f.writeMessage(2, field("age"))
                    f.writeMessage(2) { $0.writeInt64(2, 30) }
                }
            }]))
            p.writeMessage(1, stage("sort", [{ v in
                v.writeMessage(6) { m in
                    m.writeMessage(1, entry("expression", field("age")))
                    m.writeMessage(1, entry("direction") { $0.writeString(17, "descending") })
                }
            }]))
            p.writeMessage(1, stage("select", [{ v in v.writeMessage(6) { $0.writeMessage(1, entry("name", field("name"))) } }]))
        }
    }

    @Test func grpcStreamsResultsWithExecutionTime() throws {
        let state = EmulatorState()
        let server = try EmulatorServer(host: "127.0.0.1", port: 0, state: state)
        defer { server.stop() }
        try state.database(Self.db).commit([("ada", 36), ("bob", 25), ("cy", 41)].map { id, age in
            Write.set(ResourcePath(segments: ["users", id]), MapValue([("name", .string(id)), ("age", .integer(Int64(age)))]))
        })
        let client = try GRPCTestClient(port: server.port)
        let r = try client.call("ExecutePipeline", TestProto.message { w in
            w.writeString(1, Self.db.name)
            w.writeMessage(2) { Self.pipeline(&$0) }
        })
        #expect(r.status == 0 && r.messages.count == 1)
        let fields = try TestProto.fields(r.messages[0])
        let docs = try fields.filter { $0.0 == 2 }.map { try TestProto.decodeDocument($0.1) }
        #expect(docs.map { $0.fields["name"] } == [.string("cy"), .string("ada")])
        #expect(docs.allSatisfy { $0.name.isEmpty }, "select's results carry no document name")
        #expect(fields.contains { $0.0 == 3 }, "execution_time")

        // An unknown function fails the call with INVALID_ARGUMENT naming it.
        let bad = try client.call("ExecutePipeline", TestProto.message { w in
            w.writeString(1, Self.db.name)
            w.writeMessage(2) { s in
                s.writeMessage(1) { p in
                    p.writeMessage(1) { st in st.writeString(1, "collection"); st.writeMessage(2) { $0.writeString(5, "/users") } }
                    p.writeMessage(1) { st in
                        st.writeString(1, "where")
                        st.writeMessage(2) { $0.writeMessage(20) { $0.writeString(1, "no_such_function") } }
                    }
                }
            }
        })
        #expect(bad.status == 3)
        #expect(bad.message.contains("no_such_function"))
    }

    @Test func restAnswersTheStreamAsOneArray() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            for (id, age) in [("ada", 36), ("bob", 25)] {
                _ = c.request("PATCH", "\(docs)/users/\(id)", body: #"{"fields": {"age": {"integerValue": "\#(age)"}}}"#)
            }
            let body = #"""
            {"structuredPipeline": {"pipeline": {"stages": [
              {"name": "collection", "args": [{"referenceValue": "/users"}]},
              {"name": "where", "args": [{"functionValue": {"name": "less_than", "args": [{"fieldReferenceValue": "age"}, {"integerValue": "30"}]}}]}
            ]}, "options": {"explain_options": {"mapValue": {"fields": {"mode": {"stringValue": "analyze"}}}}}}}
            """#
            let r = c.request("POST", "\(docs):executePipeline", body: body)
            #expect(r?.status == 200)
            let first = r?.json?.arrayValue?.first
            #expect(first?["results"]?.arrayValue?.count == 1)
            #expect(first?["results"]?.arrayValue?.first?["name"] == .string("projects/p/databases/(default)/documents/users/bob"))
            #expect(first?["executionTime"]?.stringValue != nil)
            #expect(first?["explainStats"]?["data"]?["value"]?.stringValue?.contains("Execution:") == true)
            let invalid = c.request("POST", "\(docs):executePipeline", body: #"{"structuredPipeline": {"pipeline": {"stages": [{"name": "limit", "args": [{"integerValue": "1"}]}]}}}"#)
            #expect(invalid?.status == 400)
            #expect(invalid?.json?["error"]?["message"]?.stringValue?.contains("source stage") == true)
        }
    }
}
