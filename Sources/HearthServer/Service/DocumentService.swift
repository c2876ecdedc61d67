import Foundation
import HearthCore
import HearthTransport

/// The Firestore document methods on core types, shared by both front ends: the REST
/// handlers (`DocumentsAPI`, JSON) and the gRPC handlers (`FirestoreRPCs`, protobuf) decode
/// their requests, call these, and encode the answers. Rules checks, transaction
/// bookkeeping, paging and the admin-only operations live here, so both front ends answer
/// identically.
struct DocumentService {
    let state: EmulatorState
    let database: DatabaseID
    let auth: AuthContext
    let rules: RulesEnforcer
    /// Whether injected faults (`state.faults`) apply: the clients' front ends yes, the
    /// console no (it must keep working to show and clear them).
    let injectsFaults: Bool
    /// The current request's trace while the request log is observed: told what the request
    /// addressed. Read per call, as a stream's service outlives each of its requests.
    private var trace: RequestTrace? { RequestTrace.current(ifObserving: state.requestLog) }

    init(state: EmulatorState, database: DatabaseID, auth: AuthContext, injectsFaults: Bool = true) throws(FirestoreError) {
        self.state = state
        self.database = database
        self.auth = auth
        self.injectsFaults = injectsFaults
        self.rules = try RulesEnforcer(state: state, database: database, auth: auth)
        trace?.addressed(database)
    }

    var db: Database { state.database(database) }

    // MARK: Injected faults

    /// What an injected fault does before `method`'s work (HearthCore/Faults,
    /// docs/faults.md): waits its delay, throws its error or reset; returns a dropped answer
    /// for `afterFault`. While no fault is set this is one atomic load.
    @inline(__always)
    func fault(_ method: FaultMethod, _ paths: @autoclosure () -> [ResourcePath]) throws(FirestoreError) -> FaultEffect? {
        // The load first: while no fault is set, `injectsFaults` is not read.
        guard state.faults.isArmed && injectsFaults else { return nil }
        return try state.faults.before(project: database.project, database: database.database, method: method, paths: paths())
    }

    /// After the work: a dropped answer becomes the error that has the front end close the
    /// connection instead of answering (the work is done, exactly once).
    @inline(__always)
    func afterFault(_ effect: FaultEffect?) throws(FirestoreError) {
        if let effect, effect == .dropAnswer { throw .injectedDroppedAnswer }
    }

    /// The messages a server stream (RunQuery, BatchGetDocuments) sends before an injected
    /// `dropAfter` ends it, or nil.
    static func dropAfter(_ effect: FaultEffect?) -> Int? {
        if case .dropStream(let n) = effect { return n }
        return nil
    }

    // MARK: Single documents

    /// GetDocument: NOT_FOUND when absent.
    func get(_ path: ResourcePath, transaction: TransactionID?, readTime: Timestamp?) throws(FirestoreError) -> Document {
        trace?.named(path, in: database)
        let fault = try fault(.getDocument, [path])
        try path.validateSegments()
        let doc: Document?
        if let transaction {
            try rules.checkGet(path, in: db.state())
            doc = try db.document(path, transaction: transaction)
        } else if let readTime {
            let s = try db.state(readTime: readTime)
            try rules.checkGet(path, in: s, readTime: readTime)
            doc = s.document(path, at: readTime)
        } else {
            let s = db.state()
            try rules.checkGet(path, in: s)
            doc = s.document(path)
        }
        try afterFault(fault)
        guard let doc else { throw FirestoreError(.notFound, "Document (\(database.resourceName(path))) not found.") }
        return doc
    }

    /// CreateDocument: `id` nil or empty picks a random 20-character id; ALREADY_EXISTS
    /// when the document exists.
    func create(collection: ResourcePath, id: String?, fields: MapValue) throws(FirestoreError) -> Document {
        let path = collection.appending(id.flatMap { $0.isEmpty ? nil : $0 } ?? AutoID.generate())
        trace?.named(path, in: database)
        let fault = try fault(.createDocument, [path])
        try path.validateSegments()
        let result = try db.commit([Write(path: path, operation: .set(fields), precondition: .exists(false))], authorize: rules.commitAuthorizer())
        try afterFault(fault)
        let t = result.writeResults.first?.updateTime ?? result.commitTime
        return Document(path: path, fields: fields, createTime: t, updateTime: t)
    }

    /// UpdateDocument: replaces the document, or with `updateMask` sets the masked paths
    /// present in `fields` and deletes the absent ones; returns the document as written.
    func update(_ path: ResourcePath, fields: MapValue, updateMask: [FieldPath]?, precondition: Precondition?) throws(FirestoreError) -> Document {
        trace?.named(path, in: database)
        let operation: Write.Operation = updateMask.map { .update(fields, mask: $0.filter { !$0.isDocumentName }) } ?? .set(fields)
        let fault = try fault(.updateDocument, [path])
        let result = try db.commit([Write(path: path, operation: operation, precondition: precondition)], authorize: rules.commitAuthorizer())
        try afterFault(fault)
        guard let doc = result.documents.first ?? nil else {
            throw FirestoreError(.notFound, "Document (\(database.resourceName(path))) not found.")
        }
        return doc
    }

    /// DeleteDocument (deleting a missing document succeeds unless a precondition says otherwise).
    func delete(_ path: ResourcePath, precondition: Precondition?) throws(FirestoreError) {
        trace?.named(path, in: database)
        let fault = try fault(.deleteDocument, [path])
        _ = try db.commit([Write.delete(path, precondition: precondition)], authorize: rules.commitAuthorizer())
        try afterFault(fault)
    }

    // MARK: Listing

    /// ListDocuments of `collection` (`[""]`: every root collection). `orderBy` runs it as
    /// a query; `showMissing` (admin only) adds the missing parents of subcollection
    /// documents. The documents of one named collection in ID order — what clients page
    /// through — are paged by a cursor (the last ID sent) in the opaque token, as production
    /// does: each page costs O(log n + page), and a document added or deleted behind the
    /// cursor neither repeats nor hides another. The other listings page by offset.
    func list(collection: ResourcePath, showMissing: Bool, orderBy: [Ordering], pageSize: Int, pageToken: String?,
              readTime: Timestamp?) throws(FirestoreError) -> ([ListedDocument], String?) {
        let fault = try fault(.listDocuments, [collection])
        let listed = try listing(collection: collection, showMissing: showMissing, orderBy: orderBy, pageSize: pageSize,
                                 pageToken: pageToken, readTime: readTime)
        try afterFault(fault)
        return listed
    }

    private func listing(collection: ResourcePath, showMissing: Bool, orderBy: [Ordering], pageSize: Int, pageToken: String?,
                         readTime: Timestamp?) throws(FirestoreError) -> ([ListedDocument], String?) {
        trace?.named(collection, in: database)
        if showMissing && !auth.isAdmin {
            throw FirestoreError(.permissionDenied, "Metadata operations require admin authentication.")
        }
        guard pageSize >= 0 else { throw .negativePageSize }
        let start = try Self.pageStart(fromToken: pageToken)
        if orderBy.isEmpty && pageSize > 0 && !collection.lastSegment.isEmpty, case .cursor(let after) = start {
            // Keyset paging in ID order, O(log n + page): one row past the page says whether
            // another follows, and the next token names the page's last ID. (Without a page
            // size the whole listing is one page, read below; a cursor token there is refused.)
            let limit = pageSize + 1
            var rows: [ListedDocument]
            if showMissing {
                let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
                try collection.validateSegments()
                try rules.checkQuery(StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment), in: s)
                rows = s.listing(in: collection, after: after, limit: limit, at: readTime).map { $0.document.map(ListedDocument.document) ?? .missing($0.path) }
            } else {
                rows = try documents(in: collection, start: after.map { .after($0) } ?? .first, limit: limit, readTime: readTime).map { .document($0) }
            }
            let more = rows.count > pageSize
            if more { rows.removeLast() }
            return (rows, more ? rows.last.map { Self.cursorToken(after: $0.path.lastSegment) } : nil)
        }
        let offset = try Self.offset(from: start)
        // Offset pages read no further than the page's end (and one more, to say whether
        // another follows): O(offset + page) with an index serving the order.
        let needed = pageSize > 0 ? offset + pageSize + 1 : Int.max
        var entries: [ListedDocument]
        if !orderBy.isEmpty {
            if showMissing { throw .invalidArgument("show_missing cannot be combined with order_by.") }
            var query = StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment)
            query.orderBy = orderBy
            // Rules see the listing as asked (no limit of ours in `request.query`).
            try rules.checkQuery(query, in: db.state())
            if needed < .max { query.limit = needed }
            entries = try db.runQuery(query, readTime: readTime).documents.map { .document($0) }
        } else {
            let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
            if collection.lastSegment.isEmpty {
                // `…/documents/` or `…/documents/c/a/`: the documents of every collection
                // directly under the parent, collection by collection (as the official
                // emulator lists them); each collection with documents must be listable.
                let parent = collection.parent
                try parent.validateSegments()
                let collections = s.collectionIDs(under: parent, at: readTime).map { parent.appending($0) }
                    .filter { !s.documents(in: $0, start: .first, limit: 1, at: readTime).isEmpty }
                for c in collections { try rules.checkQuery(StructuredQuery(parent: parent, collectionID: c.lastSegment), in: s) }
                entries = []
                for c in collections where entries.count < needed {
                    entries += s.documents(in: c, start: .first, limit: needed - entries.count, at: readTime).map { .document($0) }
                }
            } else {
                try collection.validateSegments()
                try rules.checkQuery(StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment), in: s)
                entries = showMissing
                    ? s.listing(in: collection, after: nil, limit: needed, at: readTime).map { $0.document.map(ListedDocument.document) ?? .missing($0.path) }
                    : s.documents(in: collection, start: .first, limit: needed, at: readTime).map { .document($0) }
            }
        }
        return Self.page(entries, offset: offset, size: pageSize)
    }

    /// One page of the documents directly in `collection`, in ID order, by cursor — what the
    /// console browses with. Checked as a `list`.
    func page(collection: ResourcePath, start: DocumentPageStart, size: Int) throws(FirestoreError) -> [Document] {
        trace?.named(collection, in: database)
        return try documents(in: collection, start: start, limit: size, readTime: nil)
    }

    /// Up to `limit` documents directly in `collection` from `start`, in ID order, at
    /// `readTime` (nil: now), checked as a `list`: what ListDocuments' cursor pages and the
    /// console's pages read, O(log n + limit).
    private func documents(in collection: ResourcePath, start: DocumentPageStart, limit: Int, readTime: Timestamp?) throws(FirestoreError) -> [Document] {
        let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
        try collection.validateSegments()
        try rules.checkQuery(StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment), in: s)
        return s.documents(in: collection, start: start, limit: limit, at: readTime)
    }

    /// ListCollectionIds under `parent` (the database root or a document); admin only.
    func listCollectionIds(parent: ResourcePath, pageSize: Int, pageToken: String?, readTime: Timestamp?) throws(FirestoreError) -> ([String], String?) {
        let fault = try fault(.listCollectionIds, [parent])
        guard auth.isAdmin else { throw FirestoreError(.permissionDenied, "Metadata operations require admin authentication.") }
        guard pageSize >= 0 else { throw .negativePageSize }
        let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
        let page = Self.page(s.collectionIDs(under: parent, at: readTime), offset: try Self.offset(fromToken: pageToken), size: pageSize)
        try afterFault(fault)
        return page
    }

    // MARK: Batches and transactions

    /// BatchGetDocuments: one result per distinct path — the found documents first, then the
    /// missing ones, each in first-occurrence order, as production streams them (the Python
    /// client's system tests rely on it; the official emulator answers in request order) —
    /// the transaction a `newTransaction` began, and the read time. One denied document fails
    /// the whole request (as on the official emulator).
    /// `dropAfter`: an injected fault's cut of the answer stream (the front end ends it after
    /// that many messages with `FirestoreError.injectedDroppedStream`).
    func batchGet(_ paths: [ResourcePath], consistency: ReadConsistency) throws(FirestoreError) -> (results: [(ResourcePath, Document?)], transaction: TransactionID?, readTime: Timestamp, dropAfter: Int?) {
        if let trace { for p in paths { trace.named(p, in: database) } }
        let fault = try fault(.batchGetDocuments, paths)
        var readTime: Timestamp?
        if case .readTime(let t) = consistency { readTime = t }
        let s = try readTime.map { t throws(FirestoreError) in try db.state(readTime: t) } ?? db.state()
        for path in paths { try rules.checkGet(path, in: s, readTime: readTime) }
        var txn: TransactionID?
        var began: TransactionID?
        switch consistency {
        case .transaction(let id): txn = id
        case .newTransaction(let mode):
            txn = try begin(mode)
            began = txn
        case .current, .readTime: break
        }
        var seen = Set<ResourcePath>(minimumCapacity: paths.count)
        var results: [(ResourcePath, Document?)] = []
        results.reserveCapacity(paths.count)
        for path in paths where seen.insert(path).inserted {
            let doc: Document?
            if let txn { doc = try db.document(path, transaction: txn) }
            else if let readTime { doc = s.document(path, at: readTime) }
            else { doc = s.document(path) }
            results.append((path, doc))
        }
        let found = results.filter { $0.1 != nil }
        // A read-only transaction begun at a read time reads (and reports) that time, as the
        // official emulator does (Tests/Differential/cases/transaction_read_times.py).
        let transactionTime = try txn.flatMap { id throws(FirestoreError) in try db.readTime(of: id) }
        try afterFault(fault)
        return (found + results.filter { $0.1 == nil }, began, readTime ?? transactionTime ?? s.readTime, Self.dropAfter(fault))
    }

    /// BeginTransaction, the method (faults apply; `begin` is also what a read's
    /// `newTransaction` does, which is that read's method).
    func beginTransaction(_ mode: TransactionMode) throws(FirestoreError) -> TransactionID {
        let fault = try fault(.beginTransaction, [])
        let id = try begin(mode)
        try afterFault(fault)
        return id
    }

    /// Begins a transaction.
    func begin(_ mode: TransactionMode) throws(FirestoreError) -> TransactionID {
        switch mode {
        case .readWrite(let retry): return try db.beginTransaction(readOnly: false, retrying: retry)
        case .readOnly(let readTime): return try db.beginTransaction(readOnly: true, readTime: readTime)
        }
    }

    /// Commit: atomic, optionally ending a transaction (ABORTED on conflict). `faultMethod`:
    /// the method faults see (a Write stream checks its own, `nil`).
    func commit(_ writes: [Write], transaction: TransactionID?, faultMethod: FaultMethod? = .commit) throws(FirestoreError) -> CommitResult {
        if let trace { for w in writes { trace.named(w.path, in: database) } }
        var fault: FaultEffect?
        if let faultMethod { fault = try self.fault(faultMethod, writes.map(\.path)) }
        let result = try db.commit(writes, transaction: transaction, authorize: rules.commitAuthorizer())
        try afterFault(fault)
        return result
    }

    /// Rollback.
    func rollback(_ transaction: TransactionID) throws(FirestoreError) {
        let fault = try fault(.rollback, [])
        try db.rollback(transaction)
        try afterFault(fault)
    }

    /// BatchWrite: admin only; each write is applied on its own (its own rules check and
    /// status), in order.
    func batchWrite(_ writes: [Write]) throws(FirestoreError) -> [Result<WriteResult, FirestoreError>] {
        guard auth.isAdmin else { throw FirestoreError(.permissionDenied, "Batch writes require admin authentication.") }
        if let trace { for w in writes { trace.named(w.path, in: database) } }
        let fault = try fault(.batchWrite, writes.map(\.path))
        // "Method does not allow more than one write per document" (BatchWriteRequest).
        var written = Set<ResourcePath>()
        for w in writes where !written.insert(w.path).inserted {
            throw .invalidArgument("the same document cannot be written more than once in a single request")
        }
        // An invalid write (a reserved field name, a bad value) fails the whole request, as
        // the official emulator answers; only what the stored data decides (preconditions,
        // rules) is reported write by write.
        for w in writes { try w.validate(database: database) }
        var outcomes: [Result<WriteResult, FirestoreError>] = []
        for w in writes {
            do throws(FirestoreError) {
                let result = try db.commit([w], authorize: rules.commitAuthorizer())
                outcomes.append(.success(result.writeResults[0]))
            }
            catch { outcomes.append(.failure(error)) }
        }
        try afterFault(fault)
        return outcomes
    }

    // MARK: Queries

    /// RunQuery; inside a transaction the engine reads its consistent view and records
    /// the reads. Returns the transaction a `newTransaction` began, and an injected fault's
    /// cut of the answer stream (`dropAfter`, as `batchGet`'s).
    func runQuery(_ query: StructuredQuery, consistency: ReadConsistency) throws(FirestoreError) -> (QueryResult, TransactionID?, dropAfter: Int?) {
        trace?.named(query.collectionPath, in: database)
        let fault = try fault(.runQuery, [query.collectionPath])
        try rules.checkQuery(query, in: db.state())
        let (txn, began, time) = try readPoint(consistency)
        let result: QueryResult
        if let txn { result = try db.runQuery(query, transaction: txn) } else { result = try db.runQuery(query, readTime: time) }
        try afterFault(fault)
        return (result, began, Self.dropAfter(fault))
    }

    /// RunAggregationQuery. Returns the transaction a `newTransaction` began.
    func runAggregation(_ query: StructuredQuery, aggregations: [Aggregation], consistency: ReadConsistency) throws(FirestoreError) -> (AggregationResult, TransactionID?) {
        trace?.named(query.collectionPath, in: database)
        let fault = try fault(.runAggregationQuery, [query.collectionPath])
        try rules.checkQuery(query, in: db.state())
        let (txn, began, time) = try readPoint(consistency)
        let answer: AggregationResult
        if let txn { answer = try db.runAggregation(query, aggregations: aggregations, transaction: txn) }
        else { answer = try db.runAggregation(query, aggregations: aggregations, readTime: time) }
        try afterFault(fault)
        return (answer, began)
    }

    /// PartitionQuery: validated and rules-checked; answered with zero partitions (the
    /// whole query is one partition).
    func partitionQuery(_ query: StructuredQuery?, partitionCount: Int64?) throws(FirestoreError) {
        let fault = try fault(.partitionQuery, query.map { [$0.collectionPath] } ?? [])
        if let query { try rules.checkQuery(query, in: db.state()) }
        if let partitionCount, partitionCount < 1 {
            throw .invalidArgument("partition_count must be at least 1, but was \(partitionCount).")
        }
        try afterFault(fault)
    }

    /// Where a query reads: (the transaction, the one begun here, the read time).
    func readPoint(_ consistency: ReadConsistency) throws(FirestoreError) -> (TransactionID?, TransactionID?, Timestamp?) {
        switch consistency {
        case .current: return (nil, nil, nil)
        case .readTime(let t): return (nil, nil, t)
        case .transaction(let id): return (id, nil, try db.readTime(of: id))
        case .newTransaction(let mode):
            let id = try begin(mode)
            return (id, id, try db.readTime(of: id))
        }
    }

    // MARK: Paging and ids

    /// A listing's `order_by`: comma-separated field paths, each optionally `asc`/`desc`.
    static func parseOrderBy(_ text: String) throws(FirestoreError) -> [Ordering] {
        var orderBy: [Ordering] = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ")
            guard let first = words.first, words.count <= 2 else { throw .invalidArgument("Invalid order_by: \"\(text)\".") }
            let descending: Bool
            switch words.count == 2 ? words[1].lowercased() : "asc" {
            case "asc": descending = false
            case "desc": descending = true
            default: throw .invalidArgument("Invalid order by clause \"\(text)\".")
            }
            orderBy.append(Ordering(try FieldPath.parseServerFormat(String(first)), descending: descending))
        }
        return orderBy
    }

    /// The offset a page token encodes ("offset:N", base64).
    static func offset(fromToken token: String?) throws(FirestoreError) -> Int {
        try offset(from: pageStart(fromToken: token))
    }

    /// The offset a listing paged by offset starts at (a cursor token is not one of its own).
    private static func offset(from start: PageStart) throws(FirestoreError) -> Int {
        switch start {
        case .offset(let n): n
        case .cursor(after: nil): 0
        case .cursor: throw .invalidPageToken
        }
    }

    /// Where a page token says the next page starts: an offset into the listing, or (for
    /// a collection's documents in ID order) after a document ID. No token: the start,
    /// which either kind of listing reads as its own.
    enum PageStart: Equatable {
        case offset(Int)
        /// nil: the first page.
        case cursor(after: String?)
    }

    static func pageStart(fromToken token: String?) throws(FirestoreError) -> PageStart {
        guard let token, !token.isEmpty else { return .cursor(after: nil) }
        guard let data = ProtoJSON.decodeBase64(token), let text = String(data: data, encoding: .utf8) else { throw .invalidPageToken }
        if text.hasPrefix("offset:"), let n = Int(text.dropFirst(7)), n >= 0 { return .offset(n) }
        if text.hasPrefix("after:"), text.count > 6 { return .cursor(after: String(text.dropFirst(6))) }
        throw .invalidPageToken
    }

    static func cursorToken(after id: String) -> String {
        Data("after:\(id)".utf8).base64EncodedString()
    }

    /// One page of `items` from `offset` (`size` 0: all), and the next page's token.
    static func page<T>(_ items: [T], offset: Int, size: Int) -> ([T], String?) {
        guard offset < items.count else { return ([], nil) }
        let end = size > 0 ? min(items.count, offset + size) : items.count
        let next = end < items.count ? Data("offset:\(end)".utf8).base64EncodedString() : nil
        return (Array(items[offset..<end]), next)
    }
}
