import HearthCore

/// Shared between the writes of one batch: production's 20-call budget for the whole
/// batch or transaction, the document cache, and the post-batch state `getAfter()` reads.
/// The emulator serves a document fetched by an earlier write from the cache, and such a
/// hit counts against neither limit (observed: two writes with 8 + 11 lookups, 8 shared,
/// are allowed).
final class BatchState {
    var accessCount = 0
    let accessLimit: Int
    var accessCache: [EvaluationContext.AccessKey: MapValue?] = [:]
    /// Post-batch documents by path (nil value = deleted by the batch).
    let after: [ResourcePath: MapValue?]

    init(accessLimit: Int, after: [ResourcePath: MapValue?]) {
        self.accessLimit = accessLimit
        self.after = after
    }
}

/// The mutable state of one request's evaluation: bindings, the document-access cache and
/// budget, captured `debug()` output and optional coverage.
final class EvaluationContext {
    struct AccessKey: Hashable {
        let after: Bool
        let path: ResourcePath
    }

    let program: RulesProgram
    let data: any RulesDataSource
    let request: RulesRequest
    let batch: BatchState
    var wildcards: [String: RulesValue] = [:]
    /// Uncached document fetches made by this request (limit 10).
    var accessCount = 0
    static let accessLimit = 10
    var debugOutput: [String] = []
    /// Expressions evaluated so far for this request, across its `allow` statements.
    var evaluations = 0
    /// Production's budget (observed: a request may evaluate 1,000 expressions; the next
    /// one fails its `allow` with `RulesError.tooManyEvaluations`).
    static let maxEvaluations = 1_000
    let coverage: RulesCoverage?
    var callDepth = 0
    /// What `resource` is while proving a `list` (nil otherwise).
    enum ListResource {
        /// The symbolic resource of the current disjunct (its filters' constraints).
        case symbolic(RulesValue)
        /// A disjunct that names its document, in the first pass (wildcards bound from the
        /// name, document not read): reading `resource` fails the allow with
        /// `RulesError.unreadResource`, as it does on the official emulator.
        case unread
        /// The named document, read for the second pass (nil: it does not exist, and reading
        /// `resource` is the emulator's "Variable read error").
        case document(RulesValue?)
    }
    var listResource: ListResource?
    private var requestValue: RulesValue?
    private var resourceValue: RulesValue??

    init(program: RulesProgram, data: any RulesDataSource, request: RulesRequest, batch: BatchState, coverage: RulesCoverage?) {
        self.program = program
        self.data = data
        self.request = request
        self.batch = batch
        self.coverage = coverage
    }

    var fullPath: RulesPath { RulesPath.document(request.path, database: request.database) }

    /// One field of `request` without building the whole map (the common `request.auth`).
    func requestField(_ name: String) throws(RulesError) -> RulesValue {
        switch name {
        case "auth": return request.auth?.value ?? .null
        case "time": return .timestamp(request.time)
        case "method": return .string(request.method.rawValue)
        default:
            guard case .map(let m) = requestVariable(), let v = m[name] else { throw .undefinedProperty(name) }
            return v
        }
    }

    /// `request`, built on first use.
    func requestVariable() -> RulesValue {
        if let v = requestValue { return v }
        var m = RulesMap()
        m["auth"] = request.auth?.value ?? .null
        m["method"] = .string(request.method.rawValue)
        m["path"] = .path(fullPath)
        m["time"] = .timestamp(request.time)
        switch request.method {
        case .create, .update:
            m["resource"] = resourceObject(path: request.path, fields: request.newData ?? MapValue())
        case .delete:
            m["resource"] = .null
        case .list:
            var q = RulesMap()
            q["limit"] = request.query?.limit.map { .int(Int64($0)) } ?? .null
            q["offset"] = .int(Int64(request.query?.offset ?? 0))
            // The emulator exposes the order as a map: field path → "ASC" / "DESC".
            q["orderBy"] = .map(RulesMap((request.query?.orderBy ?? []).map { ($0.field.dotted, .string($0.descending ? "DESC" : "ASC")) }))
            m["query"] = .map(q)
        case .get:
            break
        }
        let v = RulesValue.map(m)
        requestValue = v
        return v
    }

    /// `resource`: the stored document (null when missing); on create always null.
    func resourceVariable() throws(RulesError) -> RulesValue {
        switch listResource {
        case .symbolic(let v)?: return v
        case .unread?: throw .unreadResource
        case .document(let v)?:
            guard let v else { throw RulesError("Variable read error. Variable: [resource].") }
            return v
        case nil: break
        }
        if let v = resourceValue { return v ?? .null }
        var v: RulesValue = .null
        if request.method != .create, request.method != .list,
           let doc = data.document(at: request.path, database: request.database) {
            v = resourceObject(path: request.path, fields: doc.fields)
        }
        resourceValue = .some(v)
        return v
    }

    /// A resource object: `data`, `id` and `__name__` (docs/rules-language.md#resource).
    func resourceObject(path: ResourcePath, fields: MapValue) -> RulesValue {
        .map(RulesMap(sortedEntries: [
            ("__name__", .path(RulesPath.document(path, database: request.database))),
            ("data", RulesValue(fields, database: request.database)),
            ("id", .string(path.lastSegment)),
        ]))
    }

    /// `get`/`exists` (after: false) and `getAfter`/`existsAfter` (after: true), with
    /// production's limits: 10 distinct documents per request, 20 per batch; repeats cached.
    func access(_ function: String, _ argument: RulesValue, after: Bool) throws(RulesError) -> MapValue? {
        guard case .path(let p) = argument else {
            throw .unsupported("\(function)(\(argument.typeName))", expected: "\(function)(path)")
        }
        guard p.segments.count >= 3, p.segments[0] == "databases", p.segments[2] == "documents" else {
            throw RulesError("Service call error. Function: [\(function)], Argument: [\(p)]: not a document path.")
        }
        guard let docPath = p.documentPath(database: request.database), docPath.isDocument,
              !docPath.segments.contains(where: \.isEmpty) else {
            throw RulesError("Service call error. Function: [\(function)], Argument: [\(p)].")
        }
        let key = AccessKey(after: after, path: docPath)
        if let cached = batch.accessCache[key] { return cached }
        accessCount += 1
        batch.accessCount += 1
        if accessCount > Self.accessLimit || batch.accessCount > batch.accessLimit {
            throw RulesError("Service call error. Function: [\(function)], Argument: [\(p)]: the limit of document access calls was exceeded.")
        }
        var result: MapValue?
        if after, let pending = batch.after[docPath] {
            result = pending
        } else {
            result = data.document(at: docPath, database: request.database)?.fields
        }
        batch.accessCache[key] = .some(result)
        return result
    }
}

extension RulesValue {
    /// Converts a stored Firestore value (docs/rules-language.md#types, "Firestore → rules").
    public init(_ value: Value, database: String) {
        switch value {
        case .null: self = .null
        case .boolean(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .timestamp(let t): self = .timestamp(t)
        case .string(let s): self = .string(s)
        case .bytes(let d): self = .bytes(Array(d))
        case .reference(let name): self = .path(RulesPath(["databases", name.database.database, "documents"] + name.path.segments))
        case .geoPoint(let g): self = .latlng(latitude: g.latitude, longitude: g.longitude)
        case .array(let a): self = .list(a.map { RulesValue($0, database: database) })
        case .map(let m): self = RulesValue(m, database: database)
        case .vector(let v): self = RulesValue(Value.vectorFields(v), database: database)
        }
    }

    public init(_ map: MapValue, database: String) {
        // MapValue is already sorted by UTF-8 bytes, as RulesMap requires.
        self = .map(RulesMap(sortedEntries: map.entries.map { ($0.key, RulesValue($0.value, database: database)) }))
    }
}
