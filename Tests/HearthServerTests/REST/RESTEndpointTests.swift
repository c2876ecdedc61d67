import Foundation
import HearthTestSupport
import HearthCore
import Testing
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// Every REST method over loopback HTTP, with its error paths.
@Suite struct RESTEndpointTests {
    let admin = ["Authorization": "Bearer owner"]

    @Test func crudRoundTrip() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let created = c.request("POST", "\(docs)/users?documentId=alice", body: #"{"fields": {"age": {"integerValue": "30"}}}"#)
            #expect(created?.status == 200)
            #expect(created?.json?["name"] == .string("projects/p/databases/(default)/documents/users/alice"))
            #expect(c.request("POST", "\(docs)/users?documentId=alice", body: "{}")?.json?["error"]?["status"] == .string("ALREADY_EXISTS"))
            let got = c.request("GET", "\(docs)/users/alice")
            #expect(got?.json?["fields"]?["age"]?["integerValue"] == .string("30"))
            let patched = c.request("PATCH", "\(docs)/users/alice?updateMask.fieldPaths=name&updateMask.fieldPaths=age&currentDocument.exists=true",
                                    body: #"{"fields": {"name": {"stringValue": "Alice"}}}"#)
            #expect(patched?.json?["fields"]?["name"]?["stringValue"] == .string("Alice"))
            #expect(patched?.json?["fields"]?["age"] == nil)
            let missing = c.request("PATCH", "\(docs)/users/bob?currentDocument.exists=true", body: "{}")
            #expect(missing?.status == 404)
            let masked = c.request("GET", "\(docs)/users/alice?mask.fieldPaths=nothing")
            #expect(masked?.status == 200 && masked?.json?["fields"] == nil)
            let generated = c.request("POST", "\(docs)/users", body: "{}")
            if case .string(let name)? = generated?.json?["name"] { #expect(name.split(separator: "/").last?.count == 20) }
            else { Issue.record("no generated name") }
            #expect(c.request("DELETE", "\(docs)/users/alice?currentDocument.updateTime=2000-01-01T00:00:00Z")?.status == 400)
            #expect(c.request("DELETE", "\(docs)/users/alice")?.status == 200)
            let gone = c.request("GET", "\(docs)/users/alice")
            #expect(gone?.status == 404)
            #expect(gone?.json?["error"]?["status"] == .string("NOT_FOUND"))
            #expect(gone?.json?["error"]?["code"] == .number("404"))
        }
    }

    /// Pages of a collection's documents follow a cursor, as production's do: a document
    /// added or deleted behind the cursor neither repeats nor hides another, the page whose
    /// last document is deleted still leads on, and the last page carries no token.
    @Test func listDocumentsPagesByCursor() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            for i in 0..<7 { _ = c.request("PATCH", "\(docs)/col/d\(i)", body: #"{"fields": {}}"#) }
            func page(_ token: String?) -> (ids: [String], next: String?) {
                let query = token.map { "&pageToken=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? ""
                let answer = c.request("GET", "\(docs)/col?pageSize=3\(query)")?.json
                let ids = answer?["documents"]?.arrayValue?.compactMap { $0["name"]?.stringValue?.split(separator: "/").last.map(String.init) } ?? []
                return (ids, answer?["nextPageToken"]?.stringValue)
            }
            let first = page(nil)
            #expect(first.ids == ["d0", "d1", "d2"])
            // Behind the cursor: d0 deleted, d00 added (both before d2); d2 itself deleted.
            _ = c.request("DELETE", "\(docs)/col/d0")
            _ = c.request("PATCH", "\(docs)/col/d00", body: #"{"fields": {}}"#)
            _ = c.request("DELETE", "\(docs)/col/d2")
            let second = page(first.next)
            #expect(second.ids == ["d3", "d4", "d5"])
            let last = page(second.next)
            #expect(last.ids == ["d6"])
            #expect(last.next == nil)
            // A page that ends exactly at the last document has no token either.
            #expect(c.request("GET", "\(docs)/col?pageSize=7")?.json?["nextPageToken"] == nil)
            // A token that is not ours is refused.
            let bad = c.request("GET", "\(docs)/col?pageSize=3&pageToken=bm9wZQ")
            #expect(bad?.status == 400)
            #expect(bad?.json?["error"]?["status"] == .string("INVALID_ARGUMENT"))
        }
    }

    @Test func listDocumentsPagesAndShowsMissing() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            for id in ["a", "b", "c"] { _ = c.request("PATCH", "\(docs)/col/\(id)", body: #"{"fields": {"n": {"integerValue": "1"}}}"#) }
            _ = c.request("PATCH", "\(docs)/col/ghost/sub/x", body: "{}")
            let page1 = c.request("GET", "\(docs)/col?pageSize=2")
            #expect(page1?.json?["documents"]?.arrayValue?.count == 2)
            guard let token = page1?.json?["nextPageToken"]?.stringValue else { Issue.record("no token"); return }
            let page2 = c.request("GET", "\(docs)/col?pageSize=2&pageToken=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(page2?.json?["documents"]?.arrayValue?.count == 1)
            #expect(c.request("GET", "\(docs)/col?showMissing=true")?.status == 403)
            let withMissing = c.request("GET", "\(docs)/col?show_missing=true", headers: admin)
            #expect(withMissing?.json?["documents"]?.arrayValue?.count == 4)
            let ordered = c.request("GET", "\(docs)/col?orderBy=__name__%20desc")
            #expect(ordered?.json?["documents"]?.arrayValue?.first?["name"] == .string("projects/p/databases/(default)/documents/col/c"))
            let ids = c.request("POST", "\(docs):listCollectionIds", body: "{}", headers: admin)
            #expect(ids?.json?["collectionIds"] == .array([.string("col")]))
            let sub = c.request("POST", "\(docs)/col/ghost:listCollectionIds", body: "{}", headers: admin)
            #expect(sub?.json?["collectionIds"] == .array([.string("sub")]))
            #expect(c.request("POST", "\(docs):listCollectionIds", body: "{}")?.status == 403)
        }
    }

    @Test func commitWithTransformsAndTransactions() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let name = "projects/p/databases/(default)/documents/k/v"
            let commit = c.request("POST", "\(docs):commit", body: """
                {"writes": [{"update": {"name": "\(name)", "fields": {"n": {"integerValue": "1"}}},
                             "updateTransforms": [{"fieldPath": "n", "increment": {"integerValue": "41"}},
                                                  {"fieldPath": "at", "setToServerValue": "REQUEST_TIME"}]}]}
                """)
            #expect(commit?.json?["writeResults"]?.arrayValue?.first?["transformResults"]?.arrayValue?.first == .object([("integerValue", .string("42"))]))
            #expect(commit?.json?["commitTime"] != nil)

            let begin = c.request("POST", "\(docs):beginTransaction", body: #"{"options": {"readWrite": {}}}"#)
            guard let txn = begin?.json?["transaction"]?.stringValue else { Issue.record("no transaction"); return }
            let read = c.request("POST", "\(docs):batchGet", body: #"{"documents": ["\#(name)", "\#(name)"], "transaction": "\#(txn)"}"#)
            #expect(read?.json?.arrayValue?.count == 1)
            #expect(read?.json?.arrayValue?.first?["found"]?["fields"]?["n"] == .object([("integerValue", .string("42"))]))
            // A write by someone else makes the transaction's commit fail with ABORTED.
            _ = c.request("PATCH", "\(docs)/k/v", body: "{}")
            let conflicted = c.request("POST", "\(docs):commit", body: #"{"writes": [], "transaction": "\#(txn)"}"#)
            #expect(conflicted?.status == 409)
            #expect(conflicted?.json?["error"]?["status"] == .string("ABORTED"))
            // Closed transactions cannot commit again; rolling one back again is harmless.
            #expect(c.request("POST", "\(docs):commit", body: #"{"writes": [], "transaction": "\#(txn)"}"#)?.status == 400)
            #expect(c.request("POST", "\(docs):rollback", body: #"{"transaction": "\#(txn)"}"#)?.status == 200)

            let ro = c.request("POST", "\(docs):beginTransaction", body: #"{"options": {"readOnly": {}}}"#)?.json?["transaction"]?.stringValue ?? ""
            let roWrite = c.request("POST", "\(docs):commit", body: #"{"writes": [{"delete": "\#(name)"}], "transaction": "\#(ro)"}"#)
            #expect(roWrite?.status == 400)
            let rb = c.request("POST", "\(docs):beginTransaction", body: "{}")?.json?["transaction"]?.stringValue ?? ""
            #expect(c.request("POST", "\(docs):rollback", body: #"{"transaction": "\#(rb)"}"#)?.status == 200)
        }
    }

    /// A batchGet in a read-only transaction begun at a read time reads, and reports, that
    /// time (it reported the present), as the official emulator does
    /// (Tests/Differential/cases/transaction_read_times.py).
    @Test func aReadOnlyTransactionAtAReadTimeReportsThatTime() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let name = "projects/p/databases/(default)/documents/k/v"
            let first = c.request("POST", "\(docs):commit", body: #"{"writes": [{"update": {"name": "\#(name)", "fields": {"n": {"integerValue": "1"}}}}]}"#)
            let t = try #require(first?.json?["commitTime"]?.stringValue)
            _ = c.request("POST", "\(docs):commit", body: #"{"writes": [{"update": {"name": "\#(name)", "fields": {"n": {"integerValue": "2"}}}}]}"#)
            let begin = c.request("POST", "\(docs):beginTransaction", body: #"{"options": {"readOnly": {"readTime": "\#(t)"}}}"#)
            let txn = try #require(begin?.json?["transaction"]?.stringValue)
            let read = c.request("POST", "\(docs):batchGet", body: #"{"documents": ["\#(name)"], "transaction": "\#(txn)"}"#)
            let answer = try #require(read?.json?.arrayValue?.first)
            #expect(answer["found"]?["fields"]?["n"] == .object([("integerValue", .string("1"))]))
            #expect(answer["readTime"]?.stringValue == t)
        }
    }

    @Test func queriesAndAggregations() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            for i in 1...5 { _ = c.request("PATCH", "\(docs)/nums/n\(i)", body: #"{"fields": {"v": {"integerValue": "\#(i)"}}}"#) }
            let q = c.request("POST", "\(docs):runQuery", body: """
                {"structuredQuery": {"from": [{"collectionId": "nums"}],
                 "where": {"fieldFilter": {"field": {"fieldPath": "v"}, "op": "GREATER_THAN", "value": {"integerValue": "2"}}},
                 "orderBy": [{"field": {"fieldPath": "v"}, "direction": "DESCENDING"}], "limit": 2}}
                """)
            let rows = q?.json?.arrayValue ?? []
            #expect(rows.count == 2)
            #expect(rows.first?["document"]?["fields"]?["v"] == .object([("integerValue", .string("5"))]))
            #expect(rows.last?["done"] == .bool(true))
            #expect(rows.allSatisfy { $0["readTime"] != nil })
            let empty = c.request("POST", "\(docs):runQuery", body: #"{"structuredQuery": {"from": [{"collectionId": "none"}]}}"#)
            #expect(empty?.json?.arrayValue?.count == 1 && empty?.json?.arrayValue?.first?["document"] == nil)
            let newTxn = c.request("POST", "\(docs):runQuery", body: #"{"structuredQuery": {"from": [{"collectionId": "nums"}]}, "newTransaction": {"readOnly": {}}}"#)
            #expect(newTxn?.json?.arrayValue?.first?["transaction"] != nil)
            #expect(newTxn?.json?.arrayValue?.count == 6)
            let agg = c.request("POST", "\(docs):runAggregationQuery", body: """
                {"structuredAggregationQuery": {"structuredQuery": {"from": [{"collectionId": "nums"}]},
                 "aggregations": [{"alias": "n", "count": {}}, {"alias": "s", "sum": {"field": {"fieldPath": "v"}}},
                                  {"alias": "a", "avg": {"field": {"fieldPath": "v"}}}]}}
                """)
            let fields = agg?.json?.arrayValue?.first?["result"]?["aggregateFields"]
            #expect(fields?["n"] == .object([("integerValue", .string("5"))]))
            #expect(fields?["s"] == .object([("integerValue", .string("15"))]))
            #expect(fields?["a"] == .object([("doubleValue", .number("3.0"))]))
            let part = c.request("POST", "\(docs):partitionQuery", body: #"{"structuredQuery": {"from": [{"collectionId": "nums"}]}, "partitionCount": "4"}"#)
            #expect(part?.status == 200 && part?.json == .object([]))
            let bad = c.request("POST", "\(docs):runQuery", body: #"{"structuredQuery": {"from": [{"collectionId": "nums"}], "where": {"fieldFilter": {"field": {"fieldPath": "v"}, "op": "BOGUS", "value": {"integerValue": "1"}}}}}"#)
            #expect(bad?.status == 400)
            #expect(bad?.json?["error"]?["message"]?.stringValue?.contains("op") == true)
        }
    }

    @Test func batchWriteReportsPerWriteStatus() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            let body = """
                {"writes": [{"update": {"name": "projects/p/databases/(default)/documents/b/1"}},
                            {"update": {"name": "projects/p/databases/(default)/documents/b/2"}, "currentDocument": {"exists": true}}]}
                """
            #expect(c.request("POST", "\(docs):batchWrite", body: body)?.status == 403)
            let r = c.request("POST", "\(docs):batchWrite", body: body, headers: admin)
            let statuses = r?.json?["status"]?.arrayValue ?? []
            #expect(statuses.count == 2)
            #expect(statuses.first == .object([]))
            #expect(statuses.last?["code"] == .number("5"))
            #expect(c.request("GET", "\(docs)/b/1")?.status == 200)
            #expect(c.request("GET", "\(docs)/b/2")?.status == 404)
        }
    }

    @Test func routingErrorsCorsAndAuth() throws {
        try withServer { server in
            let c = try RawHTTPClient(port: server.port)
            #expect(c.request("GET", "/")?.text == "Ok\n")
            #expect(c.request("GET", "/nothing")?.status == 404)
            #expect(c.request("PUT", "\(docs)/a/b")?.status == 404)
            #expect(c.request("POST", "\(docs):listen", body: "{}")?.status == 404)
            #expect(c.request("POST", "\(docs)/a/b", body: "{}")?.status == 400)
            let malformed = c.request("POST", "\(docs):commit", body: "{not json")
            #expect(malformed?.status == 400)
            #expect(malformed?.json?["error"]?["message"]?.stringValue?.hasPrefix("Invalid JSON payload received.") == true)
            #expect(c.request("GET", "\(docs)/a/b", headers: ["Authorization": "Bearer x.y"])?.status == 400)
            #expect(c.request("GET", "\(docs)/a/b", headers: ["Authorization": "Basic x"])?.status == 500)
            let pre = c.request("OPTIONS", "\(docs):commit", headers: ["Origin": "http://localhost:5173", "Access-Control-Request-Headers": "authorization,content-type"])
            #expect(pre?.status == 200)
            #expect(pre?.headers["access-control-allow-origin"] == "http://localhost:5173")
            #expect(pre?.headers["access-control-allow-headers"] == "authorization,content-type")
            // Each CORS header once: browsers reject a preflight that repeats one.
            let preNames = pre?.headerLines.map(\.name).filter { $0.hasPrefix("access-control-") || $0 == "vary" } ?? []
            #expect(preNames.sorted() == ["access-control-allow-credentials", "access-control-allow-headers",
                                          "access-control-allow-methods", "access-control-allow-origin",
                                          "access-control-max-age", "vary"])
            let err = c.request("GET", "\(docs)/a/b", headers: ["Origin": "http://x"])
            #expect(err?.headerLines.filter { $0.name == "access-control-allow-origin" }.count == 1)
            #expect(err?.status == 404 && err?.headers["access-control-allow-origin"] == "http://x")
            // text/plain bodies (web SDK) are JSON too; `%28default%29` and `(default)` are one database.
            _ = c.request("PATCH", "/v1/projects/p/databases/(default)/documents/t/1", body: "{}", headers: ["Content-Type": "text/plain"])
            #expect(c.request("GET", "\(docs)/t/1")?.status == 200)
            // Projects and databases are separate.
            #expect(c.request("GET", "/v1/projects/other/databases/%28default%29/documents/t/1")?.status == 404)
            #expect(c.request("GET", "/v1/projects/p/databases/named/documents/t/1")?.status == 404)
        }
    }
}
