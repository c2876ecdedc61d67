// The server benchmark's data and requests: the shared workload's documents (seeded through
// the REST API, so any Firestore emulator takes them) and one fixed request per workload,
// built once as the bytes h2load sends over and over.
import FirebaseFirestore
import Foundation
import HearthGRPC
import enum HearthCore.JSON
import HearthProtobuf

/// The database every server under test is seeded with and read from.
enum BenchDatabase {
    static let project = "bench"
    static let database = "projects/\(project)/databases/(default)"
    static let documents = "\(database)/documents"
    /// The collection written by the commit workloads (apart from the one queried).
    static let writes = "bench_w"
    /// The document the Listen fan-out watches.
    static let listened = "bench_listen/hot"

    static func name(_ relative: String) -> String { "\(documents)/\(relative)" }
}

/// One request kind the benchmark drives: where it goes, its fixed body, and what a correct
/// answer is (checked once per server before any timing).
struct ServerWorkload: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case getDocument = "GetDocument"
        case batchGet = "BatchGetDocuments"
        case queryEquality = "RunQuery eq"
        case queryRange = "RunQuery range"
        case commitIncrement = "Commit incr"
        case commitOverwrite = "Commit set"
        case restGet = "REST get"

        /// The name `--only` takes.
        var flag: String {
            switch self {
            case .getDocument: "get"
            case .batchGet: "batchget"
            case .queryEquality: "query-eq"
            case .queryRange: "query-range"
            case .commitIncrement: "commit-incr"
            case .commitOverwrite: "commit-set"
            case .restGet: "rest-get"
            }
        }
    }

    let kind: Kind
    /// The request path (gRPC method or REST resource).
    let path: String
    /// The request body (gRPC: the 5-byte prefix + protobuf); empty for REST GET.
    let body: [UInt8]
    /// What the answer must be, in words, for the report.
    let expectation: String
    /// Checks the response body (gRPC: the concatenated length-prefixed messages).
    let check: @Sendable ([UInt8]) -> String?

    var isGRPC: Bool { kind != .restGet }

    /// The request headers of every gRPC call, as the SDKs send them (the official emulator
    /// finds the database of a Listen stream in `google-cloud-resource-prefix`).
    static let grpcHeaders = ["content-type: application/grpc", "te: trailers",
                              "google-cloud-resource-prefix: \(BenchDatabase.database)"]
}

/// The seeded documents and the requests over them.
struct ServerFixture {
    let n: Int
    let workload: Workload
    let workloads: [ServerWorkload]

    /// The equality query's operand and how many documents match it.
    static let category = "cat-13"
    /// The range query's lower bound.
    static let rangeLow = 500_000

    init(n: Int) {
        self.n = n
        workload = Workload(n: n, seed: 42)
        let matching = workload.documents.filter { ($0["category"] as? String) == Self.category }.count
        let getName = BenchDatabase.name("bench/\(Workload.id(1))")
        let batchNames = (0..<20).map { BenchDatabase.name("bench/\(Workload.id($0 * (n / 20)))") }
        var list: [ServerWorkload] = []

        list.append(ServerWorkload(
            kind: .getDocument, path: "/google.firestore.v1.Firestore/GetDocument",
            body: GRPCFrame.wrap { $0.writeString(1, getName) },
            expectation: "one Document named \(Workload.id(1))",
            check: { body in
                let messages = GRPCFrame.split(body)
                guard messages.count == 1 else { return "expected 1 message, got \(messages.count)" }
                return ProtoFields.string(messages[0], 1) == getName ? nil : "the document is not \(getName)"
            }))

        list.append(ServerWorkload(
            kind: .batchGet, path: "/google.firestore.v1.Firestore/BatchGetDocuments",
            body: GRPCFrame.wrap { w in
                w.writeString(1, BenchDatabase.database)
                for name in batchNames { w.writeString(2, name) }
            },
            expectation: "20 found documents",
            check: { body in
                let found = GRPCFrame.split(body).filter { ProtoFields.has($0, 1) }.count
                return found == 20 ? nil : "expected 20 found, got \(found)"
            }))

        list.append(ServerWorkload(
            kind: .queryEquality, path: "/google.firestore.v1.Firestore/RunQuery",
            body: Self.runQuery(field: "category", op: 5 /* EQUAL */, value: { $0.writeString(17, Self.category) }),
            expectation: "\(matching) documents with category \(Self.category)",
            check: { body in
                let docs = GRPCFrame.split(body).filter { ProtoFields.has($0, 1) }.count
                return docs == matching ? nil : "expected \(matching) documents, got \(docs)"
            }))

        list.append(ServerWorkload(
            kind: .queryRange, path: "/google.firestore.v1.Firestore/RunQuery",
            body: Self.runQuery(field: "score", op: 4 /* GREATER_THAN_OR_EQUAL */, value: { $0.writeInt64(2, Int64(Self.rangeLow)) },
                                rest: { q in
                                    q.writeMessage(4) { order in
                                        order.writeMessage(1) { $0.writeString(2, "score") }
                                        order.writeInt32(2, 1)  // ASCENDING
                                    }
                                    q.writeMessage(5) { $0.writeInt32(1, 20) }
                                }),
            expectation: "20 documents with score ≥ \(Self.rangeLow)",
            check: { body in
                let docs = GRPCFrame.split(body).filter { ProtoFields.has($0, 1) }.count
                return docs == 20 ? nil : "expected 20 documents, got \(docs)"
            }))

        let commitCheck: @Sendable ([UInt8]) -> String? = { body in
            let messages = GRPCFrame.split(body)
            guard messages.count == 1 else { return "expected 1 message, got \(messages.count)" }
            return ProtoFields.has(messages[0], 1) && ProtoFields.has(messages[0], 2) ? nil : "no write result and commit time"
        }
        list.append(ServerWorkload(
            kind: .commitIncrement, path: "/google.firestore.v1.Firestore/Commit",
            body: GRPCFrame.wrap { w in
                w.writeString(1, BenchDatabase.database)
                // As the clients send `update({n: increment(1)})`: an update with an empty
                // mask, the transform, and "the document exists".
                w.writeMessage(2) { write in
                    write.writeMessage(1) { $0.writeString(1, BenchDatabase.name("\(BenchDatabase.writes)/counter")) }
                    write.writeMessage(3) { _ in }
                    write.writeMessage(7) { t in
                        t.writeString(1, "n")
                        t.writeMessage(3) { $0.writeInt64(2, 1) }
                    }
                    write.writeMessage(4) { $0.writeBool(1, true) }
                }
            },
            expectation: "a write result and a commit time",
            check: commitCheck))

        list.append(ServerWorkload(
            kind: .commitOverwrite, path: "/google.firestore.v1.Firestore/Commit",
            body: GRPCFrame.wrap { w in
                w.writeString(1, BenchDatabase.database)
                w.writeMessage(2) { write in
                    write.writeMessage(1) { doc in
                        doc.writeString(1, BenchDatabase.name("\(BenchDatabase.writes)/overwrite"))
                        doc.writeMessage(2) { entry in
                            entry.writeString(1, "v")
                            entry.writeMessage(2) { $0.writeString(17, "the same value each time") }
                        }
                    }
                }
            },
            expectation: "a write result and a commit time",
            check: commitCheck))

        let restName = "bench/\(Workload.id(1))"
        list.append(ServerWorkload(
            kind: .restGet, path: "/v1/\(BenchDatabase.documents)/\(restName)", body: [],
            expectation: "HTTP 200 with the document as JSON",
            check: { body in
                String(decoding: body, as: UTF8.self).contains("\"name\": \"\(BenchDatabase.name(restName))\"")
                    || String(decoding: body, as: UTF8.self).contains("\"name\":\"\(BenchDatabase.name(restName))\"")
                    ? nil : "the body does not name \(restName)"
            }))
        workloads = list
    }

    /// A RunQueryRequest on `bench` with one field filter (`value` writes its Value), and
    /// whatever else `rest` adds to the StructuredQuery.
    static func runQuery(field: String, op: Int32, value: (inout ProtoWriter) -> Void,
                         rest: (inout ProtoWriter) -> Void = { _ in }) -> [UInt8] {
        GRPCFrame.wrap { w in
            w.writeString(1, BenchDatabase.documents)
            w.writeMessage(2) { q in
                q.writeMessage(2) { $0.writeString(2, "bench") }
                q.writeMessage(3) { filter in
                    filter.writeMessage(2) { f in
                        f.writeMessage(1) { $0.writeString(2, field) }
                        f.writeInt32(2, op)
                        f.writeMessage(3, value)
                    }
                }
                rest(&q)
            }
        }
    }

    /// The REST commits that seed a server: every workload document, the commit targets
    /// and the listened document, 500 writes a commit.
    func seedCommits() -> [String] {
        var writes: [JSON] = []
        for (i, doc) in workload.documents.enumerated() {
            writes.append(RESTJSON.update(BenchDatabase.name("bench/\(Workload.id(i))"), doc))
        }
        writes.append(RESTJSON.update(BenchDatabase.name("\(BenchDatabase.writes)/counter"), ["n": 0]))
        writes.append(RESTJSON.update(BenchDatabase.name("\(BenchDatabase.writes)/overwrite"), ["v": "first"]))
        writes.append(RESTJSON.update(BenchDatabase.name(BenchDatabase.listened), ["v": 0]))
        return stride(from: 0, to: writes.count, by: 500).map { start in
            String(decoding: JSON.object([("writes", .array(Array(writes[start..<min(start + 500, writes.count)])))]).bytes, as: UTF8.self)
        }
    }
}

/// gRPC's length-prefixed messages.
enum GRPCFrame {
    /// One uncompressed message: flag 0, the 4-byte big-endian length, the bytes.
    static func wrap(_ build: (inout ProtoWriter) -> Void) -> [UInt8] {
        var w = ProtoWriter()
        build(&w)
        let n = w.bytes.count
        return [0, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + w.bytes
    }

    /// The messages of a response body (a truncated tail is dropped).
    static func split(_ body: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while i + 5 <= body.count {
            let n = Int(body[i + 1]) << 24 | Int(body[i + 2]) << 16 | Int(body[i + 3]) << 8 | Int(body[i + 4])
            guard i + 5 + n <= body.count else { break }
            out.append(Array(body[(i + 5)..<(i + 5 + n)]))
            i += 5 + n
        }
        return out
    }
}

/// Just enough protobuf reading to check answers: a top-level field's presence or string.
enum ProtoFields {
    static func has(_ message: [UInt8], _ field: Int) -> Bool {
        var r = ProtoWireReader<GRPCStatus>(message)
        while let key = try? r.next() {
            if key.number == field { return true }
            guard (try? r.skip(key)) != nil else { return false }
        }
        return false
    }

    static func string(_ message: [UInt8], _ field: Int) -> String? {
        var r = ProtoWireReader<GRPCStatus>(message)
        while let key = try? r.next() {
            if key.number == field { return try? r.readString(key) }
            guard (try? r.skip(key)) != nil else { return nil }
        }
        return nil
    }
}

/// The workload's documents as Firestore REST JSON (proto3 JSON of `Value`), written by
/// HearthCore's JSON writer.
enum RESTJSON {
    static func update(_ name: String, _ fields: [String: Any]) -> JSON {
        .object([("update", .object([("name", .string(name)), ("fields", map(fields))]))])
    }

    static func map(_ fields: [String: Any]) -> JSON {
        .object(fields.keys.sorted().map { ($0, value(fields[$0]!)) })
    }

    static func value(_ v: Any) -> JSON {
        switch v {
        case let s as String: return .object([("stringValue", .string(s))])
        case let b as Bool: return .object([("booleanValue", .bool(b))])
        case let i as Int: return .object([("integerValue", .string(String(i)))])
        case let d as Double: return .object([("doubleValue", .double(d))])
        case let t as Timestamp:
            let date = Date(timeIntervalSince1970: TimeInterval(t.seconds))
            return .object([("timestampValue", .string(ISO8601DateFormatter().string(from: date)))])
        case let a as [Any]: return .object([("arrayValue", .object([("values", .array(a.map(value)))]))])
        case let m as [String: Any]: return .object([("mapValue", .object([("fields", map(m))]))])
        default: return .object([("nullValue", .null)])
        }
    }
}
