import Foundation
import HearthCore
import HearthTransport

/// The Firestore REST v1 methods on `projects/{p}/databases/{d}/documents…`
/// (docs/protocol.md#rest). Each decodes its JSON request into core types, calls the shared
/// `DocumentService` (rules, transactions, paging — the same as over gRPC) and encodes
/// the answer; the semantics (and error texts) are the engine's.
struct DocumentsAPI {
    let service: DocumentService

    private var database: DatabaseID { service.database }

    // MARK: Single documents

    func get(_ path: ResourcePath, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        let mask = try params.all("mask.fieldPaths").map { s throws(FirestoreError) in try FieldPath.parseServerFormat(s) }
        var transaction: TransactionID?
        if let t = params.first("transaction") {
            guard let bytes = ProtoJSON.decodeBase64(t) else { throw .invalidArgument("Invalid transaction: not base64.") }
            transaction = TransactionID(bytes: bytes)
        }
        let readTime = transaction == nil ? try params.timestamp("readTime") : nil
        let doc = try service.get(path, transaction: transaction, readTime: readTime)
        return ok(ProtoWrite.encode(doc, database: database, mask: mask.isEmpty && params.first("mask.fieldPaths") == nil ? nil : mask))
    }

    func create(collection: ResourcePath, body: JSON, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        let id = params.first("documentId").flatMap { $0.isEmpty ? nil : $0 } ?? AutoID.generate()
        try collection.appending(id).validateSegments()
        var o = try ProtoObject(body, context: "document")
        if let name = o.take("name"), name != .string("") {
            throw .documentNameSet
        }
        let fields = try o.take("fields").map { f throws(FirestoreError) in try ProtoValue.decodeFields(f, context: "document.fields") } ?? MapValue()
        _ = o.take("createTime")
        _ = o.take("updateTime")
        try o.finish()
        let mask = try maskParameter(params)
        let doc = try service.create(collection: collection, id: id, fields: fields)
        return ok(ProtoWrite.encode(doc, database: database, mask: mask))
    }

    func patch(_ path: ResourcePath, body: JSON, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "document")
        if let name = o.take("name") {
            let given = try ProtoJSON.string(name, context: "document.name")
            guard given.isEmpty || given == database.resourceName(path) else {
                throw .invalidArgument("The document name \"\(given)\" does not match the URL's \"\(database.resourceName(path))\".")
            }
        }
        let fields = try o.take("fields").map { f throws(FirestoreError) in try ProtoValue.decodeFields(f, context: "document.fields") } ?? MapValue()
        _ = o.take("createTime")
        _ = o.take("updateTime")
        try o.finish()
        let mask = try maskParameter(params)
        let precondition = try preconditionParameter(params)
        var updateMask: [FieldPath]?
        if params.first("updateMask.fieldPaths") != nil {
            updateMask = try params.all("updateMask.fieldPaths").map { s throws(FirestoreError) in try FieldPath.parseServerFormat(s) }
        }
        let doc = try service.update(path, fields: fields, updateMask: updateMask, precondition: precondition)
        return ok(ProtoWrite.encode(doc, database: database, mask: mask))
    }

    func delete(_ path: ResourcePath, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        try service.delete(path, precondition: try preconditionParameter(params))
        return ok(.object([]))
    }

    // MARK: Listing

    func list(collection: ResourcePath, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        let showMissing = params.bool("showMissing")
        if showMissing && !service.auth.isAdmin {
            throw FirestoreError(.permissionDenied, "Metadata operations require admin authentication.")
        }
        let pageSize = try params.int("pageSize") ?? 0
        let mask = try maskParameter(params)
        let readTime = try readTimeParameter(params)
        let orderBy = try DocumentService.parseOrderBy(params.first("orderBy") ?? "")
        let (page, next) = try service.list(collection: collection, showMissing: showMissing, orderBy: orderBy,
                                            pageSize: pageSize, pageToken: params.first("pageToken"), readTime: readTime)
        let entries: [JSON] = page.map { entry in
            switch entry {
            case .document(let d): ProtoWrite.encode(d, database: database, mask: mask)
            case .missing(let p): JSON.object([("name", .string(database.resourceName(p)))])
            }
        }
        var out: [(String, JSON)] = []
        if !entries.isEmpty { out.append(("documents", .array(entries))) }
        if let next { out.append(("nextPageToken", .string(next))) }
        return ok(.object(out))
    }

    func listCollectionIds(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        guard service.auth.isAdmin else { throw FirestoreError(.permissionDenied, "Metadata operations require admin authentication.") }
        var o = try ProtoObject(body, context: "")
        let pageSize = try o.take("pageSize").map { j throws(FirestoreError) in Int(try ProtoJSON.int32(j, context: "page_size")) } ?? 0
        let token = try o.take("pageToken").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: "page_token") }
        let readTime = try o.take("readTime").map { j throws(FirestoreError) in try ProtoJSON.timestamp(j, context: "read_time") }
        _ = o.take("parent")
        try o.finish()
        let (page, next) = try service.listCollectionIds(parent: parent, pageSize: pageSize, pageToken: token, readTime: readTime)
        var out: [(String, JSON)] = []
        if !page.isEmpty { out.append(("collectionIds", .array(page.map { JSON.string($0) }))) }
        if let next { out.append(("nextPageToken", .string(next))) }
        return ok(.object(out))
    }

    // MARK: Batches and transactions

    func batchGet(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        var names: [String] = []
        if let list = o.take("documents") {
            guard case .array(let items) = list else { throw ProtoJSON.badValue(list, context: "documents", type: "TYPE_STRING") }
            for (i, item) in items.enumerated() { names.append(try ProtoJSON.string(item, context: "documents[\(i)]")) }
        }
        let mask = try o.take("mask").map { j throws(FirestoreError) in try ProtoWrite.mask(j, context: "mask") }
        let consistency = try consistency(&o)
        _ = o.take("database")
        try o.finish()
        var paths: [ResourcePath] = []
        for (i, name) in names.enumerated() {
            paths.append(try ProtoWrite.documentPath(name, database: database, context: "documents[\(i)]"))
        }
        let (results, began, readTime) = try service.batchGet(paths, consistency: consistency)
        // A new transaction's id comes alone, first (as the official emulator streams it).
        var responses: [JSON] = began.map { [.object([("transaction", ProtoJSON.base64($0.bytes))])] } ?? []
        for (path, doc) in results {
            var pairs: [(String, JSON)] = []
            if let doc { pairs.append(("found", ProtoWrite.encode(doc, database: database, mask: mask))) }
            else { pairs.append(("missing", .string(database.resourceName(path)))) }
            pairs.append(("readTime", .string(readTime.rfc3339)))
            responses.append(.object(pairs))
        }
        return ok(.array(responses))
    }

    func beginTransaction(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let options = o.take("options") ?? .object([("readWrite", .object([]))])
        try o.finish()
        let id = try service.beginTransaction(try transactionMode(options))
        return ok(.object([("transaction", ProtoJSON.base64(id.bytes))]))
    }

    func commit(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let writes = try decodeWrites(o.take("writes"))
        let transaction = try o.take("transaction").map { j throws(FirestoreError) in TransactionID(bytes: try ProtoJSON.bytes(j, context: "transaction")) }
        try o.finish()
        let result = try service.commit(writes, transaction: transaction)
        // A commit without writes answers `{}`: nothing was committed, so no time either.
        var out: [(String, JSON)] = []
        if !result.writeResults.isEmpty {
            out.append(("writeResults", .array(result.writeResults.map(ProtoWrite.encode))))
            out.append(("commitTime", .string(result.commitTime.rfc3339)))
        }
        return ok(.object(out))
    }

    func rollback(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        guard let t = o.take("transaction") else { throw .missingTransaction }
        let id = TransactionID(bytes: try ProtoJSON.bytes(t, context: "transaction"))
        try o.finish()
        try service.rollback(id)
        return ok(.object([]))
    }

    func batchWrite(body: JSON) throws(FirestoreError) -> HTTPResponse {
        guard service.auth.isAdmin else { throw FirestoreError(.permissionDenied, "Batch writes require admin authentication.") }
        var o = try ProtoObject(body, context: "")
        let writes = try decodeWrites(o.take("writes"))
        _ = o.take("labels")
        try o.finish()
        var results: [JSON] = []
        var statuses: [JSON] = []
        for outcome in try service.batchWrite(writes) {
            switch outcome {
            case .success(let r):
                results.append(ProtoWrite.encode(r))
                statuses.append(.object([]))
            case .failure(let error):
                results.append(.object([]))
                statuses.append(.object([("code", .int(error.code.rawValue)), ("message", .string(error.message))]))
            }
        }
        // proto3 JSON leaves empty lists out.
        return ok(.object(results.isEmpty ? [] : [("writeResults", .array(results)), ("status", .array(statuses))]))
    }

    // MARK: Queries

    func runQuery(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        guard let sq = o.take("structuredQuery") else { throw .onlyStructuredQueries }
        let query = try ProtoQuery.decode(sq, parent: parent)
        let consistency = try consistency(&o)
        _ = o.take("parent")
        _ = o.take("explainOptions")
        try o.finish()
        let (result, began) = try service.runQuery(query, consistency: consistency)
        let readTimeJSON = JSON.string(result.readTime.rfc3339)
        // A new transaction's id comes alone, first; the documents follow, the first
        // response after the offset saying how many it skipped; the last one says done.
        var responses: [[(String, JSON)]] = began.map { [[("transaction", ProtoJSON.base64($0.bytes))]] } ?? []
        let first = responses.count
        for doc in result.documents {
            responses.append([("document", ProtoWrite.encode(doc, database: database)), ("readTime", readTimeJSON)])
        }
        if responses.count == first { responses.append([("readTime", readTimeJSON)]) }
        if result.skippedResults > 0 { responses[first].append(("skippedResults", .int(result.skippedResults))) }
        responses[responses.count - 1].append(("done", .bool(true)))
        return ok(.array(responses.map { JSON.object($0) }))
    }

    func runAggregationQuery(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        guard let saq = o.take("structuredAggregationQuery") else { throw .onlyStructuredQueries }
        let (query, aggregations) = try ProtoQuery.decodeAggregation(saq, parent: parent)
        let consistency = try consistency(&o)
        _ = o.take("parent")
        _ = o.take("explainOptions")
        try o.finish()
        let (result, began) = try service.runAggregation(query, aggregations: aggregations, consistency: consistency)
        let fields: [(String, JSON)] = aggregations.map { a in (a.alias, ProtoValue.encode(result.values[a.alias] ?? .null)) }
        // A new transaction's id comes alone, first.
        var responses: [JSON] = began.map { [.object([("transaction", ProtoJSON.base64($0.bytes))])] } ?? []
        responses.append(.object([("result", .object([("aggregateFields", .object(fields))])),
                                  ("readTime", .string(result.readTime.rfc3339)), ("done", .bool(true))]))
        return ok(.array(responses))
    }

    func partitionQuery(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let query = try o.take("structuredQuery").map { sq throws(FirestoreError) in try ProtoQuery.decode(sq, parent: parent) }
        let count = try o.take("partitionCount").map { n throws(FirestoreError) in try ProtoJSON.int64(n, context: "partition_count") }
        _ = o.take("pageToken")
        _ = o.take("pageSize")
        _ = o.take("readTime")
        _ = o.take("parent")
        try o.finish()
        try service.partitionQuery(query, partitionCount: count)
        return ok(.object([]))
    }

    // MARK: Helpers

    func ok(_ json: JSON) -> HTTPResponse { .json(200, json.bytes) }

    private func decodeWrites(_ json: JSON?) throws(FirestoreError) -> [Write] {
        guard let json else { return [] }
        guard case .array(let items) = json else { throw ProtoJSON.badValue(json, context: "writes", type: "TYPE_MESSAGE") }
        var writes: [Write] = []
        writes.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            writes.append(try ProtoWrite.decodeWrite(item, database: database, context: "writes[\(i)]"))
        }
        return writes
    }

    /// The consistency selector oneof: `transaction`, `newTransaction` or `readTime`.
    func consistency(_ o: inout ProtoObject) throws(FirestoreError) -> ReadConsistency {
        let t = o.take("transaction")
        let n = o.take("newTransaction")
        let r = o.take("readTime")
        guard [t, n, r].compactMap({ $0 }).count <= 1 else { throw ProtoJSON.invalid("Multiple values for oneof consistency_selector", context: nil) }
        if let t { return .transaction(TransactionID(bytes: try ProtoJSON.bytes(t, context: "transaction"))) }
        if let n { return .newTransaction(try transactionMode(n)) }
        if let r { return .readTime(try ProtoJSON.timestamp(r, context: "read_time")) }
        return .current
    }

    /// `TransactionOptions` JSON (no mode: read-only, as observed).
    private func transactionMode(_ options: JSON) throws(FirestoreError) -> TransactionMode {
        var o = try ProtoObject(options, context: "options")
        let readOnly = o.take("readOnly")
        let readWrite = o.take("readWrite")
        try o.finish()
        guard readOnly == nil || readWrite == nil else { throw ProtoJSON.invalid("Multiple values for oneof mode", context: "options") }
        if let readWrite {
            var rw = try ProtoObject(readWrite, context: "options.read_write")
            let retry = try rw.take("retryTransaction").map { j throws(FirestoreError) in
                TransactionID(bytes: try ProtoJSON.bytes(j, context: "options.read_write.retry_transaction"))
            }
            try rw.finish()
            return .readWrite(retry: retry)
        }
        var readTime: Timestamp?
        if let readOnly {
            var ro = try ProtoObject(readOnly, context: "options.read_only")
            readTime = try ro.take("readTime").map { j throws(FirestoreError) in try ProtoJSON.timestamp(j, context: "options.read_only.read_time") }
            try ro.finish()
        }
        return .readOnly(readTime: readTime)
    }

    private func maskParameter(_ params: QueryParameters) throws(FirestoreError) -> [FieldPath]? {
        guard params.first("mask.fieldPaths") != nil else { return nil }
        return try params.all("mask.fieldPaths").map { s throws(FirestoreError) in try FieldPath.parseServerFormat(s) }
    }

    private func preconditionParameter(_ params: QueryParameters) throws(FirestoreError) -> Precondition? {
        if let e = params.first("currentDocument.exists") { return .exists(e == "true") }
        if let t = try params.timestamp("currentDocument.updateTime") { return .updateTime(t) }
        return nil
    }

    private func readTimeParameter(_ params: QueryParameters) throws(FirestoreError) -> Timestamp? {
        if let t = params.first("transaction") {
            guard let bytes = ProtoJSON.decodeBase64(t) else { throw .invalidArgument("Invalid transaction: not base64.") }
            return try service.db.readTime(of: TransactionID(bytes: bytes))
        }
        return try params.timestamp("readTime")
    }
}
