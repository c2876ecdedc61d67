import Foundation
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer

/// The Firestore layer's work for one call, without sockets: decode the request, dispatch
/// to `DocumentService`, encode the answer — the steps `FirestoreRPCs.getDocument` and
/// `runQuery` take between the transport and the engine.
///
/// Each test checks that repeated calls answer exactly as the first. With
/// `HEARTH_CALL_LOOP=N` each runs N calls: the loop profiled with callgrind
/// (docs/performance-server.md), in a release build with testing enabled.
@Suite struct CallCostTests {
    static let iterations = Int(ProcessInfo.processInfo.environment["HEARTH_CALL_LOOP"] ?? "") ?? 5
    static let database = DatabaseID(project: "cost")
    static let root = "projects/cost/databases/(default)/documents"

    /// Document `i`, shaped like the benchmark workload's (13 fields, a map, an array).
    static func fields(_ i: Int) -> MapValue {
        let address = MapValue([("city", .string("city-\(i % 20)")), ("zip", .string(String(format: "%05d", i))),
                                ("street", .string("\(i) Main St"))])
        let tags: [Value] = [.string("tag-\(i % 50)"), .string("tag-\(i % 7)"), .string("tag-\(i % 3)")]
        var pairs: [(String, Value)] = []
        pairs.append(("category", .string(String(format: "cat-%02d", i % 20))))
        pairs.append(("score", .integer(Int64(i * 7919 % 1_000_000))))
        pairs.append(("age", .integer(Int64(18 + i % 72))))
        pairs.append(("name", .string(String(format: "name-%09d", i * 31))))
        pairs.append(("active", .boolean(i % 2 == 0)))
        pairs.append(("price", .double(Double(i) / 100)))
        pairs.append(("tags", .array(tags)))
        pairs.append(("address", .map(address)))
        pairs.append(("email", .string("user\(i)@example.com")))
        pairs.append(("created", .timestamp(Timestamp(seconds: 1_700_000_000 + Int64(i), nanos: 0))))
        pairs.append(("counter", .integer(0)))
        return MapValue(pairs)
    }

    /// 2,000 such documents in `bench`.
    static let state: EmulatorState = {
        let state = EmulatorState()
        let db = state.database(database)
        for start in stride(from: 0, to: 2000, by: 500) {
            let writes = (start..<(start + 500)).map { i in
                Write.set(ResourcePath(segments: ["bench", String(format: "d%08d", i)]), fields(i))
            }
            _ = try? db.commit(writes)
        }
        return state
    }()

    /// `FirestoreRPCs.getDocument` without the call: the framed answer.
    static func getDocument(_ request: [UInt8]) throws -> [UInt8] {
        let req = try DocumentRequestMessages.decodeGet(request)
        let (database, path) = try ResourceNameFields.document(req.name, field: "name")
        let doc = try DocumentService(state: state, database: database, auth: try AuthContext.parse(nil))
            .get(path, transaction: nil, readTime: nil)
        var w = ProtoWriter()
        DocumentMessage.encode(doc, database: database, mask: req.mask, into: &w)
        return GRPCMessageWriter.frame(w.bytes)
    }

    /// `FirestoreRPCs.runQuery` without the call: the framed answers.
    static func runQuery(_ request: [UInt8]) throws -> [[UInt8]] {
        let req = try ReadRequestMessages.decodeQuery(request, aggregation: false)
        let (result, began) = try DocumentService(state: state, database: req.database, auth: try AuthContext.parse(nil))
            .runQuery(req.query, consistency: req.consistency)
        var transaction = began
        var out: [[UInt8]] = []
        for doc in result.documents {
            out.append(GRPCMessageWriter.frame(ReadRequestMessages.encodeRunQueryResponse(
                document: doc, transaction: transaction, readTime: result.readTime, skippedResults: 0, done: false, database: req.database)))
            transaction = nil
        }
        return out
    }

    @Test func getDocumentCallsAnswerAlike() throws {
        var w = ProtoWriter()
        w.writeString(1, "\(Self.root)/bench/d00000001")
        let request = w.bytes
        let first = try Self.getDocument(request)
        #expect(first.count > 300)
        for _ in 0..<Self.iterations { #expect(try Self.getDocument(request) == first) }
    }

    @Test func rangeQueryCallsAnswerAlike() throws {
        // score >= 500000 ORDER BY score LIMIT 20, as `hearth-bench --server` sends it.
        var w = ProtoWriter()
        w.writeString(1, Self.root)
        w.writeMessage(2) { q in
            q.writeMessage(2) { $0.writeString(2, "bench") }
            q.writeMessage(3) { f in
                f.writeMessage(2) { ff in
                    ff.writeMessage(1) { $0.writeString(2, "score") }
                    ff.writeInt32(2, 4)
                    ff.writeMessage(3) { $0.writeInt64(2, 500_000) }
                }
            }
            q.writeMessage(4) { o in
                o.writeMessage(1) { $0.writeString(2, "score") }
                o.writeInt32(2, 1)
            }
            q.writeMessage(5) { $0.writeInt32(1, 20) }
        }
        let request = w.bytes
        let first = try Self.runQuery(request)
        #expect(first.count == 20)
        for _ in 0..<Self.iterations { #expect(try Self.runQuery(request) == first) }
    }

    @Test func equalityQueryCallsAnswerAlike() throws {
        // category == "cat-13": 100 of the 2,000 documents.
        var w = ProtoWriter()
        w.writeString(1, Self.root)
        w.writeMessage(2) { q in
            q.writeMessage(2) { $0.writeString(2, "bench") }
            q.writeMessage(3) { f in
                f.writeMessage(2) { ff in
                    ff.writeMessage(1) { $0.writeString(2, "category") }
                    ff.writeInt32(2, 5)
                    ff.writeMessage(3) { $0.writeString(17, "cat-13") }
                }
            }
        }
        let request = w.bytes
        let first = try Self.runQuery(request)
        #expect(first.count == 100)
        for _ in 0..<Self.iterations { #expect(try Self.runQuery(request) == first) }
    }
}
