import Foundation
import HearthCore
import HearthTransport
import HearthRules

/// The console's JSON API under `/api/`: browsing and editing documents, running queries
/// with their index analysis, the request log and the open streams. Every document read and
/// write goes through `DocumentService` as the owner — the same service REST and gRPC call,
/// so validation, limits and error texts are the engine's; listings page by document-ID
/// cursor in either direction (`DocumentService.page`, O(log n + page)), never loading a
/// whole collection.
///
/// - `GET /api/databases` — projects and their databases, with document counts and whether
///   rules are loaded.
/// - `GET /api/collections?database=D&parent=P` — collection ids under the root or a document.
/// - `GET /api/documents?database=D&collection=C[&after=ID|&before=ID|&from=ID][&pageSize=N][&count=true]`
///   — one page of a collection in id order, with whether pages exist before and after it.
/// - `GET|PUT|PATCH|DELETE /api/document?database=D&path=P` — read (with its
///   subcollections), set `{"fields"}`, update `{"fields", "mask": [[segments]…]}` (masked
///   fields absent from `fields` are deleted) or delete one document.
///   `POST /api/document?database=D&collection=C` `{"fields"}` adds one with a random id.
/// - `POST /api/query?database=D` `{"parent", "structuredQuery"}` (REST shapes) — the
///   results, and the composite indexes production would need with their JSON.
/// - `GET /api/requests[?after=ID]` — the request log's kept entries.
/// - `GET /api/streams` — open Listen/Write streams and their targets.
/// - `GET /api/snapshots?database=D` — snapshots taken of a database.
struct ConsoleAPI {
    let state: EmulatorState
    /// What `GET /api/info` reports besides the state.
    let info: ConsoleServer.Info

    /// Page size when none is asked for, and the largest allowed.
    static let defaultPageSize = 50
    static let maxPageSize = 500

    func route(_ request: HTTPRequest) throws(FirestoreError) -> HTTPResponse? {
        let params = try QueryParameters(request.query)
        switch (request.method, request.path) {
        case ("GET", "/api/info"): return ok(infoJSON())
        case ("GET", "/api/databases"): return ok(databases())
        case ("GET", "/api/collections"): return ok(try collections(params))
        case ("GET", "/api/documents"): return ok(try documents(params))
        case ("GET", "/api/document"): return ok(try document(params))
        case ("PUT", "/api/document"): return ok(try setDocument(params, body: JSONRequestBody.parse(request)))
        case ("PATCH", "/api/document"): return ok(try updateDocument(params, body: JSONRequestBody.parse(request)))
        case ("POST", "/api/document"): return ok(try addDocument(params, body: JSONRequestBody.parse(request)))
        case ("DELETE", "/api/document"): return ok(try deleteDocument(params))
        case ("POST", "/api/query"): return ok(try query(params, body: JSONRequestBody.parse(request)))
        case ("GET", "/api/requests"): return ok(requests(params))
        case ("GET", "/api/faults"): return ok(faults())
        case ("DELETE", "/api/faults"):
            state.faults.clear()
            return ok(faults())
        case ("GET", "/api/streams"): return ok(.object([("streams", .array(state.streams.all.map(ConsoleJSON.stream)))]))
        case ("GET", "/api/snapshots"):
            return ok(.object([("snapshots", .array(state.snapshotIDs(of: try database(params)).map(JSON.string)))]))
        default: return nil
        }
    }

    /// Every active fault, in matching order (docs/faults.md).
    private func faults() -> JSON {
        .object([("faults", .array(state.faults.list().map(\.json)))])
    }

    private func ok(_ json: JSON) -> HTTPResponse {
        var r = HTTPResponse.json(200, json.bytes)
        r.headers.append(("Cache-Control", "no-store"))
        return r
    }

    // MARK: Parameters

    private func database(_ params: QueryParameters) throws(FirestoreError) -> DatabaseID {
        guard let name = params.first("database") else { throw .invalidArgument("The database parameter is required (projects/{p}/databases/{d}).") }
        return try ResourceNameFields.database(name)
    }

    private func path(_ params: QueryParameters, _ name: String) throws(FirestoreError) -> ResourcePath {
        guard let text = params.first(name) else { throw .invalidArgument("The \(name) parameter is required.") }
        let path = try ResourcePath.parse(text)
        try path.validateSegments()
        return path
    }

    private func service(_ id: DatabaseID) throws(FirestoreError) -> DocumentService {
        try DocumentService(state: state, database: id, auth: .admin, injectsFaults: false)
    }

    // MARK: Databases and collections

    private func infoJSON() -> JSON {
        .object([
            ("emulator", .string(info.emulatorAddress)),
            ("clock", .object([("now", .string(state.clock.now().rfc3339)), ("manual", .bool(state.clock.isManual))])),
            // What the process keeps beyond the live documents: a soak watches these stay flat.
            ("history", .object([("usedBytes", .int(state.registry.historyBudget.usedBytes)),
                                 ("limitBytes", .int(state.registry.historyBudget.limit))])),
            ("openStreams", .int(state.streams.count)),
        ])
    }

    private func databases() -> JSON {
        var byProject: [String: [Database]] = [:]
        for db in state.registry.all { byProject[db.id.project, default: []].append(db) }
        for p in state.rules.projects where byProject[p] == nil { byProject[p] = [] }
        let projects: [JSON] = byProject.keys.sorted().map { project in
            let dbs = byProject[project]!.sorted { $0.id.database < $1.id.database }
            return .object([
                ("project", .string(project)),
                ("rules", .bool(state.rules.rules(forProject: project) != nil)),
                ("databases", .array(dbs.map { db in
                    .object([("name", .string(db.id.name)), ("database", .string(db.id.database)),
                             ("documents", .int(db.state().documentCount)), ("indexMode", .string(ConsoleJSON.modeName(db.indexMode)))])
                })),
            ])
        }
        return .object([("projects", .array(projects))])
    }

    private func collections(_ params: QueryParameters) throws(FirestoreError) -> JSON {
        let id = try database(params)
        let parent = try params.first("parent").map { p throws(FirestoreError) in try ResourcePath.parse(p) } ?? .root
        guard parent.isEmpty || parent.isDocument else { throw .invalidArgument("parent must be the database root or a document, got \"\(parent)\".") }
        let (ids, _) = try service(id).listCollectionIds(parent: parent, pageSize: 0, pageToken: nil, readTime: nil)
        return .object([("collections", .array(ids.map(JSON.string)))])
    }

    // MARK: Documents

    /// One page of a collection in `__name__` order, after (or before) a document id.
    private func documents(_ params: QueryParameters) throws(FirestoreError) -> JSON {
        let id = try database(params)
        let collection = try path(params, "collection")
        guard collection.isCollection else { throw .invalidArgument("collection must be a collection path, got \"\(collection)\".") }
        let size = try min(Self.maxPageSize, max(1, params.int("pageSize") ?? Self.defaultPageSize))
        let after = params.first("after"), before = params.first("before"), from = params.first("from")
        guard [after, before, from].compactMap({ $0 }).count <= 1 else { throw .invalidArgument("Give at most one of after, before and from.") }
        let svc = try service(id)
        let start: DocumentPageStart
        if let cursor = after ?? before ?? from {
            guard !cursor.isEmpty, !cursor.contains("/") else { throw .invalidArgument("A cursor is a document id, got \"\(cursor)\".") }
            start = after != nil ? .after(cursor) : before != nil ? .before(cursor) : .from(cursor)
        } else {
            start = .first
        }
        // One more than the page says whether another page follows in that direction.
        var docs = try svc.page(collection: collection, start: start, size: size + 1)
        let more = docs.count > size
        if more { if before != nil { docs.removeFirst() } else { docs.removeLast() } }
        // The other direction: is there a document just beyond the page's other end?
        func exists(_ start: DocumentPageStart) throws(FirestoreError) -> Bool { try !svc.page(collection: collection, start: start, size: 1).isEmpty }
        let firstID = docs.first?.path.lastSegment, lastID = docs.last?.path.lastSegment
        let hasPrevious = before != nil ? more : try firstID.map { i throws(FirestoreError) in try exists(.before(i)) } ?? (start != .first)
        let hasNext = before == nil ? more : try lastID.map { i throws(FirestoreError) in try exists(.after(i)) } ?? true
        var pairs: [(String, JSON)] = [
            ("documents", .array(docs.map { ConsoleJSON.document($0, database: id) })),
            ("hasPrevious", .bool(hasPrevious)),
            ("hasNext", .bool(hasNext)),
        ]
        if params.bool("count") {
            let (result, _) = try svc.runAggregation(StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment),
                                                      aggregations: [Aggregation(.count(upTo: nil), alias: "n")], consistency: .current)
            if case .integer(let n)? = result.values["n"] { pairs.append(("count", .int(n))) }
        }
        return .object(pairs)
    }

    private func document(_ params: QueryParameters) throws(FirestoreError) -> JSON {
        let id = try database(params)
        let path = try path(params, "path")
        guard path.isDocument else { throw .invalidArgument("path must be a document path, got \"\(path)\".") }
        let svc = try service(id)
        let doc: Document?
        do throws(FirestoreError) { doc = try svc.get(path, transaction: nil, readTime: nil) } catch where error.code == .notFound { doc = nil }
        let (subcollections, _) = try svc.listCollectionIds(parent: path, pageSize: 0, pageToken: nil, readTime: nil)
        return .object([
            ("document", doc.map { ConsoleJSON.document($0, database: id) } ?? .null),
            ("collections", .array(subcollections.map(JSON.string))),
        ])
    }

    /// `{"fields": {…}}` in the REST value encoding.
    private func fields(_ body: JSON) throws(FirestoreError) -> (MapValue, JSON?) {
        var o = try ProtoObject(body, context: "")
        let fields = try o.take("fields").map { f throws(FirestoreError) in try ProtoValue.decodeFields(f, context: "fields") } ?? MapValue()
        let mask = o.takeRaw("mask")
        try o.finish()
        return (fields, mask)
    }

    private func setDocument(_ params: QueryParameters, body: JSON) throws(FirestoreError) -> JSON {
        let id = try database(params)
        let path = try path(params, "path")
        guard path.isDocument else { throw .invalidArgument("path must be a document path, got \"\(path)\".") }
        let (fields, mask) = try self.fields(body)
        guard mask == nil else { throw .invalidArgument("PUT replaces the whole document; send a mask with PATCH.") }
        let doc = try service(id).update(path, fields: fields, updateMask: nil, precondition: nil)
        return .object([("document", ConsoleJSON.document(doc, database: id))])
    }

    /// Sets the masked fields present in `fields` and deletes the masked ones absent; the
    /// document must exist.
    private func updateDocument(_ params: QueryParameters, body: JSON) throws(FirestoreError) -> JSON {
        let id = try database(params)
        let path = try path(params, "path")
        let (fields, maskJSON) = try self.fields(body)
        guard case .array(let items)? = maskJSON, !items.isEmpty else {
            throw .invalidArgument("PATCH needs \"mask\": a list of field paths, each a list of segments.")
        }
        var mask: [FieldPath] = []
        for (i, item) in items.enumerated() {
            guard case .array(let segments) = item, !segments.isEmpty else { throw .invalidArgument("mask[\(i)] must be a non-empty list of segments.") }
            var parts: [String] = []
            for s in segments {
                guard case .string(let text) = s, !text.isEmpty else { throw .invalidArgument("mask[\(i)] must hold non-empty strings.") }
                parts.append(text)
            }
            mask.append(FieldPath(parts))
        }
        let doc = try service(id).update(path, fields: fields, updateMask: mask, precondition: .exists(true))
        return .object([("document", ConsoleJSON.document(doc, database: id))])
    }

    private func addDocument(_ params: QueryParameters, body: JSON) throws(FirestoreError) -> JSON {
        let id = try database(params)
        let collection = try path(params, "collection")
        guard collection.isCollection else { throw .invalidArgument("collection must be a collection path, got \"\(collection)\".") }
        let (fields, mask) = try self.fields(body)
        guard mask == nil else { throw .invalidArgument("A new document takes no mask.") }
        let doc = try service(id).create(collection: collection, id: params.first("id"), fields: fields)
        return .object([("document", ConsoleJSON.document(doc, database: id))])
    }

    private func deleteDocument(_ params: QueryParameters) throws(FirestoreError) -> JSON {
        let id = try database(params)
        let path = try path(params, "path")
        guard path.isDocument else { throw .invalidArgument("path must be a document path, got \"\(path)\".") }
        try service(id).delete(path, precondition: nil)
        return .object([])
    }

    // MARK: Queries

    /// Runs a REST `structuredQuery` under `parent` and says which composite indexes
    /// production would need (HearthCore's `IndexRequirements`, against the database's
    /// declared indexes), whatever the local index mode; a query the engine refuses still
    /// gets its analysis, with the error.
    private func query(_ params: QueryParameters, body: JSON) throws(FirestoreError) -> JSON {
        let id = try database(params)
        var o = try ProtoObject(body, context: "")
        let parent = try o.take("parent").map { p throws(FirestoreError) in try ResourcePath.parse(try ProtoJSON.string(p, context: "parent")) } ?? .root
        guard parent.isEmpty || parent.isDocument else { throw .invalidArgument("parent must be the database root or a document, got \"\(parent)\".") }
        guard let spec = o.take("structuredQuery") else { throw .invalidArgument("structuredQuery is required.") }
        try o.finish()
        let query = try ProtoQuery.decode(spec, parent: parent)
        let db = state.database(id)
        let configuration = db.indexConfiguration
        let missing = IndexRequirements.missingIndexes(for: try NormalizedQuery(query, database: id), configuration: configuration)
        var pairs: [(String, JSON)] = [
            ("query", .string(QuerySummary.text(query))),
            ("indexMode", .string(ConsoleJSON.modeName(db.indexMode))),
            ("missingIndexes", .array(missing.map { ConsoleJSON.missingIndex($0, database: id, configuration: configuration) })),
        ]
        if !missing.isEmpty {
            var file = IndexConfiguration()
            for m in missing { file.insert(m) }
            pairs.append(("indexesJSON", .string(String(decoding: file.json, as: UTF8.self))))
        }
        do throws(FirestoreError) {
            let (result, _) = try service(id).runQuery(query, consistency: .current)
            pairs.append(("documents", .array(result.documents.map { ConsoleJSON.document($0, database: id) })))
            pairs.append(("readTime", .string(result.readTime.rfc3339)))
        } catch {
            pairs.append(("error", ConsoleJSON.error(error)))
        }
        return .object(pairs)
    }

    // MARK: Requests

    private func requests(_ params: QueryParameters) -> JSON {
        let after = params.first("after").flatMap(Int.init) ?? 0
        return .object([("requests", .array(state.requestLog.recent(after: after).map(ConsoleJSON.entry)))])
    }
}
