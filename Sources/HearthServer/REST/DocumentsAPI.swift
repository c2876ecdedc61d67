import Foundation
import HearthCore

/// The Firestore REST v1 methods on `projects/{p}/databases/{d}/documents…`
/// (wire-protocol §9.1). Each decodes its request into core types, calls the engine and
/// encodes the answer; the semantics (and error texts) are the engine's. Every read, query
/// and commit first passes the project's security rules (`rules`).
struct DocumentsAPI {
    let state: EmulatorState
    let database: DatabaseID
    let auth: AuthContext
    let rules: RulesEnforcer

    private var db: Database { state.database(database) }

    // MARK: Single documents

    func get(_ path: ResourcePath, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        try ResourcePath.validateIDs(path)
        let mask = try params.all("mask.fieldPaths").map { s throws(FirestoreError) in try FieldPath.parseServerFormat(s) }
        let doc: Document?
        if let t = params.first("transaction") {
            guard let bytes = ProtoJSON.decodeBase64(t) else { throw .invalidArgument("Invalid transaction: not base64.") }
            try rules.checkGet(path, in: db.state())
            doc = try db.document(path, transaction: TransactionID(bytes: bytes))
        } else if let readTime = try params.timestamp("readTime") {
            let s = try db.state(readTime: readTime)
            try rules.checkGet(path, in: s, readTime: readTime)
            doc = s.document(path, at: readTime)
        } else {
            let s = db.state()
            try rules.checkGet(path, in: s)
            doc = s.document(path)
        }
        guard let doc else {
            throw FirestoreError(.notFound, "Document \"\(database.resourceName(path))\" not found.")
        }
        return ok(ProtoWrite.encode(doc, database: database, mask: mask.isEmpty && params.first("mask.fieldPaths") == nil ? nil : mask))
    }

    func create(collection: ResourcePath, body: JSON, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        let id = params.first("documentId").flatMap { $0.isEmpty ? nil : $0 } ?? Self.generateID()
        let path = collection.appending(id)
        try ResourcePath.validateIDs(path)
        var o = try ProtoObject(body, context: "document")
        if let name = o.take("name"), name != .string("") {
            throw .invalidArgument("A document to create must not have a name; the id is given by documentId (at 'document.name').")
        }
        let fields = try o.take("fields").map { f throws(FirestoreError) in try ProtoValue.decodeFields(f, context: "document.fields") } ?? MapValue()
        _ = o.take("createTime")
        _ = o.take("updateTime")
        try o.finish()
        let mask = try maskParameter(params)
        let result = try db.commit([Write(path: path, operation: .set(fields), precondition: .exists(false))],
                                   authorize: rules.commitAuthorizer())
        let t = result.writeResults.first?.updateTime ?? result.commitTime
        let doc = Document(path: path, fields: fields, createTime: t, updateTime: t)
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
        let operation: Write.Operation
        if params.first("updateMask.fieldPaths") != nil {
            let updateMask = try params.all("updateMask.fieldPaths").map { s throws(FirestoreError) in try FieldPath.parseServerFormat(s) }
            operation = .update(fields, mask: updateMask.filter { !$0.isDocumentName })
        } else {
            operation = .set(fields)
        }
        let result = try db.commit([Write(path: path, operation: operation, precondition: precondition)],
                                   authorize: rules.commitAuthorizer())
        let time = result.writeResults.first?.updateTime ?? result.commitTime
        guard let doc = try db.state(readTime: time).document(path, at: time) else {
            throw FirestoreError(.notFound, "Document \"\(database.resourceName(path))\" not found.")
        }
        return ok(ProtoWrite.encode(doc, database: database, mask: mask))
    }

    func delete(_ path: ResourcePath, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        try db.commit([Write.delete(path, precondition: try preconditionParameter(params))], authorize: rules.commitAuthorizer())
        return ok(.object([]))
    }

    // MARK: Listing

    func list(collection: ResourcePath, _ params: QueryParameters) throws(FirestoreError) -> HTTPResponse {
        let showMissing = params.bool("showMissing")
        if showMissing && !auth.isAdmin {
            throw FirestoreError(.permissionDenied, "Metadata operations require admin authentication.")
        }
        let pageSize = try params.int("pageSize") ?? 0
        guard pageSize >= 0 else { throw .invalidArgument("page_size must be non-negative, but was \(pageSize).") }
        let offset = try Self.offset(fromToken: params.first("pageToken"))
        let mask = try maskParameter(params)
        let readTime = try readTimeParameter(params)
        var entries: [JSON] = []
        if let orderBy = params.first("orderBy"), !orderBy.isEmpty {
            if showMissing { throw .invalidArgument("show_missing cannot be combined with order_by.") }
            var query = StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment)
            for part in orderBy.split(separator: ",") {
                let words = part.split(separator: " ")
                guard let first = words.first, words.count <= 2 else { throw .invalidArgument("Invalid order_by: \"\(orderBy)\".") }
                let descending: Bool
                switch words.count == 2 ? words[1].lowercased() : "asc" {
                case "asc": descending = false
                case "desc": descending = true
                default: throw .invalidArgument("Invalid order_by direction in \"\(orderBy)\"; use asc or desc.")
                }
                query.orderBy.append(Ordering(try FieldPath.parseServerFormat(String(first)), descending: descending))
            }
            try rules.checkQuery(query, in: db.state())
            entries = try db.runQuery(query, readTime: readTime).documents.map { ProtoWrite.encode($0, database: database, mask: mask) }
        } else {
            let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
            var docs: [Document]
            if collection == ResourcePath(segments: [""]) {
                docs = s.allDocuments(at: readTime).filter { $0.path.count == 2 }
                // Every root collection: each one listed must be listable.
                for id in Set(docs.map { $0.path.segments[0] }).sorted() {
                    try rules.checkQuery(StructuredQuery(collectionID: id), in: s)
                }
            } else {
                try ResourcePath.validateIDs(collection)
                try rules.checkQuery(StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment), in: s)
                docs = s.documents(in: collection, at: readTime)
            }
            if showMissing {
                var existing = Set(docs.map(\.path))
                var missing: [ResourcePath] = []
                for d in s.allDocuments(at: readTime) where d.path.count > collection.count + 1 && collection.isPrefix(of: d.path) {
                    let parent = ResourcePath(segments: Array(d.path.segments.prefix(collection.count + 1)))
                    if existing.insert(parent).inserted { missing.append(parent) }
                }
                var all: [(ResourcePath, JSON)] = docs.map { ($0.path, ProtoWrite.encode($0, database: database, mask: mask)) }
                all += missing.map { ($0, JSON.object([("name", .string(database.resourceName($0)))])) }
                all.sort { ResourcePath.compare($0.0, $1.0) < 0 }
                entries = all.map(\.1)
            } else {
                entries = docs.map { ProtoWrite.encode($0, database: database, mask: mask) }
            }
        }
        let (page, next) = Self.page(entries, offset: offset, size: pageSize)
        var out: [(String, JSON)] = []
        if !page.isEmpty { out.append(("documents", .array(page))) }
        if let next { out.append(("nextPageToken", .string(next))) }
        return ok(.object(out))
    }

    func listCollectionIds(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        guard auth.isAdmin else { throw FirestoreError(.permissionDenied, "Metadata operations require admin authentication.") }
        var o = try ProtoObject(body, context: "")
        let pageSize = try o.take("pageSize").map { j throws(FirestoreError) in Int(try ProtoJSON.int32(j, context: "page_size")) } ?? 0
        let token = try o.take("pageToken").map { j throws(FirestoreError) in try ProtoJSON.string(j, context: "page_token") }
        let readTime = try o.take("readTime").map { j throws(FirestoreError) in try ProtoJSON.timestamp(j, context: "read_time") }
        _ = o.take("parent")
        try o.finish()
        let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
        var ids = Set<String>()
        for d in s.allDocuments(at: readTime) where d.path.count > parent.count && parent.isPrefix(of: d.path) {
            ids.insert(d.path.segments[parent.count])
        }
        let sorted = ids.sorted { ResourcePath.compareSegments($0, $1) < 0 }.map { JSON.string($0) }
        let (page, next) = Self.page(sorted, offset: try Self.offset(fromToken: token), size: pageSize)
        var out: [(String, JSON)] = []
        if !page.isEmpty { out.append(("collectionIds", .array(page))) }
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
        let (transaction, newTransaction, readTime) = try consistency(&o)
        _ = o.take("database")
        try o.finish()
        var seen = Set<String>()
        var responses: [JSON] = []
        let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
        let txn = try newTransaction.map { opts throws(FirestoreError) in try begin(opts) } ?? transaction
        let time = s.readTime
        // One denied document fails the whole request (as on the official emulator).
        var paths: [ResourcePath] = []
        for (i, name) in names.enumerated() {
            let path = try ProtoWrite.documentPath(name, database: database, context: "documents[\(i)]")
            try rules.checkGet(path, in: s, readTime: readTime)
            paths.append(path)
        }
        for (i, name) in names.enumerated() where seen.insert(name).inserted {
            let path = paths[i]
            let doc: Document?
            if let txn { doc = try db.document(path, transaction: txn) }
            else if let readTime { doc = s.document(path, at: readTime) }
            else { doc = s.document(path) }
            var pairs: [(String, JSON)] = []
            if let doc { pairs.append(("found", ProtoWrite.encode(doc, database: database, mask: mask))) }
            else { pairs.append(("missing", .string(name))) }
            if responses.isEmpty, let newTxn = newTransaction != nil ? txn : nil { pairs.append(("transaction", ProtoJSON.base64(newTxn.bytes))) }
            pairs.append(("readTime", .string((readTime ?? time).rfc3339)))
            responses.append(.object(pairs))
        }
        if responses.isEmpty, newTransaction != nil, let txn {
            responses.append(.object([("transaction", ProtoJSON.base64(txn.bytes)), ("readTime", .string(time.rfc3339))]))
        }
        return ok(.array(responses))
    }

    func beginTransaction(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let options = o.take("options") ?? .object([("readWrite", .object([]))])
        try o.finish()
        let id = try begin(options)
        return ok(.object([("transaction", ProtoJSON.base64(id.bytes))]))
    }

    func commit(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let writes = try decodeWrites(o.take("writes"))
        let transaction = try o.take("transaction").map { j throws(FirestoreError) in TransactionID(bytes: try ProtoJSON.bytes(j, context: "transaction")) }
        try o.finish()
        if let transaction { state.endedTransaction(transaction, database: database) }
        let result = try db.commit(writes, transaction: transaction, authorize: rules.commitAuthorizer())
        var out: [(String, JSON)] = []
        if !result.writeResults.isEmpty { out.append(("writeResults", .array(result.writeResults.map(ProtoWrite.encode)))) }
        out.append(("commitTime", .string(result.commitTime.rfc3339)))
        return ok(.object(out))
    }

    func rollback(body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        guard let t = o.take("transaction") else { throw .invalidArgument("Missing transaction.") }
        let id = TransactionID(bytes: try ProtoJSON.bytes(t, context: "transaction"))
        try o.finish()
        state.endedTransaction(id, database: database)
        try db.rollback(id)
        return ok(.object([]))
    }

    func batchWrite(body: JSON) throws(FirestoreError) -> HTTPResponse {
        guard auth.isAdmin else { throw FirestoreError(.permissionDenied, "Batch writes require admin authentication.") }
        var o = try ProtoObject(body, context: "")
        let writes = try decodeWrites(o.take("writes"))
        _ = o.take("labels")
        try o.finish()
        var results: [JSON] = []
        var statuses: [JSON] = []
        for w in writes {
            do {
                // Each write stands alone: its own rules check, its own status.
                let r = try db.commit([w], authorize: rules.commitAuthorizer())
                results.append(ProtoWrite.encode(r.writeResults[0]))
                statuses.append(.object([]))
            } catch {
                results.append(.object([]))
                statuses.append(.object([("code", .int(error.code.rawValue)), ("message", .string(error.message))]))
            }
        }
        return ok(.object([("writeResults", .array(results)), ("status", .array(statuses))]))
    }

    // MARK: Queries

    func runQuery(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        guard let sq = o.take("structuredQuery") else { throw .invalidArgument("runQuery needs a structured_query.") }
        let query = try ProtoQuery.decode(sq, parent: parent)
        let (transaction, newTransaction, readTime) = try consistency(&o)
        _ = o.take("parent")
        _ = o.take("explainOptions")
        try o.finish()
        try rules.checkQuery(query, in: db.state())
        let (txn, time) = try readPoint(transaction: transaction, newTransaction: newTransaction, readTime: readTime)
        // Inside a transaction the engine reads its consistent view and records the reads.
        let result: QueryResult
        if let txn { result = try db.runQuery(query, transaction: txn) } else { result = try db.runQuery(query, readTime: time) }
        var responses: [JSON] = []
        let readTimeJSON = JSON.string(result.readTime.rfc3339)
        if newTransaction != nil, let txn {
            responses.append(.object([("transaction", ProtoJSON.base64(txn.bytes)), ("readTime", readTimeJSON)]))
        }
        for doc in result.documents {
            responses.append(.object([("document", ProtoWrite.encode(doc, database: database)), ("readTime", readTimeJSON)]))
        }
        if responses.isEmpty || (newTransaction != nil && responses.count == 1) {
            responses.append(.object([("readTime", readTimeJSON)]))
        }
        if case .object(var last) = responses[responses.count - 1] {
            last.append(("done", .bool(true)))
            responses[responses.count - 1] = .object(last)
        }
        return ok(.array(responses))
    }

    func runAggregationQuery(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        guard let saq = o.take("structuredAggregationQuery") else { throw .invalidArgument("runAggregationQuery needs a structured_aggregation_query.") }
        let (query, aggregations) = try ProtoQuery.decodeAggregation(saq, parent: parent)
        let (transaction, newTransaction, readTime) = try consistency(&o)
        _ = o.take("parent")
        _ = o.take("explainOptions")
        try o.finish()
        try rules.checkQuery(query, in: db.state())
        let (txn, time) = try readPoint(transaction: transaction, newTransaction: newTransaction, readTime: readTime)
        let result = try db.runAggregation(query, aggregations: aggregations, readTime: time)
        let fields: [(String, JSON)] = aggregations.map { a in (a.alias, ProtoValue.encode(result.values[a.alias] ?? .null)) }
        var pairs: [(String, JSON)] = [("result", .object([("aggregateFields", .object(fields))]))]
        if newTransaction != nil, let txn { pairs.append(("transaction", ProtoJSON.base64(txn.bytes))) }
        pairs.append(("readTime", .string(result.readTime.rfc3339)))
        pairs.append(("done", .bool(true)))
        return ok(.array([.object(pairs)]))
    }

    func partitionQuery(parent: ResourcePath, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        if let sq = o.take("structuredQuery") { try rules.checkQuery(try ProtoQuery.decode(sq, parent: parent), in: db.state()) }
        if let n = o.take("partitionCount") {
            let count = try ProtoJSON.int64(n, context: "partition_count")
            guard count >= 1 else { throw .invalidArgument("partition_count must be at least 1, but was \(count).") }
        }
        _ = o.take("pageToken")
        _ = o.take("pageSize")
        _ = o.take("readTime")
        _ = o.take("parent")
        try o.finish()
        // Zero partitions: the whole query is one partition.
        return ok(.object([]))
    }

    // MARK: Helpers

    private func ok(_ json: JSON) -> HTTPResponse { .json(200, json.bytes) }

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
    private func consistency(_ o: inout ProtoObject) throws(FirestoreError) -> (TransactionID?, JSON?, Timestamp?) {
        let t = o.take("transaction")
        let n = o.take("newTransaction")
        let r = o.take("readTime")
        guard [t, n, r].compactMap({ $0 }).count <= 1 else { throw ProtoJSON.invalid("Multiple values for oneof consistency_selector", context: nil) }
        let txn = try t.map { j throws(FirestoreError) in TransactionID(bytes: try ProtoJSON.bytes(j, context: "transaction")) }
        let readTime = try r.map { j throws(FirestoreError) in try ProtoJSON.timestamp(j, context: "read_time") }
        return (txn, n, readTime)
    }

    /// Where a query reads: a transaction's time, a new transaction, a read time or now.
    private func readPoint(transaction: TransactionID?, newTransaction: JSON?, readTime: Timestamp?) throws(FirestoreError) -> (TransactionID?, Timestamp?) {
        if let transaction { return (transaction, try state.transactionReadTime(transaction, database: database)) }
        if let newTransaction {
            let id = try begin(newTransaction)
            return (id, try state.transactionReadTime(id, database: database))
        }
        return (nil, readTime)
    }

    /// Begins a transaction from `TransactionOptions` JSON (no mode: read-only, as observed).
    private func begin(_ options: JSON) throws(FirestoreError) -> TransactionID {
        var o = try ProtoObject(options, context: "options")
        let readOnly = o.take("readOnly")
        let readWrite = o.take("readWrite")
        try o.finish()
        guard readOnly == nil || readWrite == nil else { throw ProtoJSON.invalid("Multiple values for oneof mode", context: "options") }
        if let readWrite {
            var rw = try ProtoObject(readWrite, context: "options.read_write")
            _ = o.take("retryTransaction")
            _ = rw.take("retryTransaction")
            try rw.finish()
            let id = try db.beginTransaction(readOnly: false)
            state.beganTransaction(id, database: database, readTime: nil)
            return id
        }
        var readTime: Timestamp?
        if let readOnly {
            var ro = try ProtoObject(readOnly, context: "options.read_only")
            readTime = try ro.take("readTime").map { j throws(FirestoreError) in try ProtoJSON.timestamp(j, context: "options.read_only.read_time") }
            try ro.finish()
        }
        let id = try db.beginTransaction(readOnly: true, readTime: readTime)
        state.beganTransaction(id, database: database, readTime: readTime ?? db.state().readTime)
        return id
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
            return try state.transactionReadTime(TransactionID(bytes: bytes), database: database)
        }
        return try params.timestamp("readTime")
    }

    static func offset(fromToken token: String?) throws(FirestoreError) -> Int {
        guard let token, !token.isEmpty else { return 0 }
        guard let data = ProtoJSON.decodeBase64(token), let text = String(data: data, encoding: .utf8),
              text.hasPrefix("offset:"), let n = Int(text.dropFirst(7)), n >= 0 else {
            throw .invalidArgument("Invalid page token: \"\(token.prefix(60))\".")
        }
        return n
    }

    static func page(_ items: [JSON], offset: Int, size: Int) -> ([JSON], String?) {
        guard offset < items.count else { return ([], nil) }
        let end = size > 0 ? min(items.count, offset + size) : items.count
        let next = end < items.count ? Data("offset:\(end)".utf8).base64EncodedString() : nil
        return (Array(items[offset..<end]), next)
    }

    static func generateID() -> String {
        let chars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var g = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in chars[Int.random(in: 0..<chars.count, using: &g)] })
    }
}

extension ResourcePath {
    /// Every segment must be a valid id (no empty segments, no `.`/`..`, not `__x__`).
    static func validateIDs(_ path: ResourcePath) throws(FirestoreError) {
        try path.validateSegments()
    }
}
