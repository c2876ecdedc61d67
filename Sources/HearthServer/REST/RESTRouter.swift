import HearthCore
import HearthTransport

/// Routes `/v1/projects/{p}/databases/{d}/documents…` to the REST methods
/// (docs/protocol.md#rest): the path is percent-decoded, an even number of segments after
/// `documents/` names a document, an odd number a collection, and a trailing `:verb`
/// selects the custom methods.
struct RESTRouter {
    static let verbs: Set<String> = [
        "batchGet", "beginTransaction", "commit", "rollback", "runQuery", "runAggregationQuery",
        "partitionQuery", "listCollectionIds", "batchWrite", "listen", "write", "executePipeline",
    ]

    let state: EmulatorState

    /// nil when the path is not a REST documents path (the caller answers 404).
    func route(_ request: HTTPRequest, auth: AuthContext) throws(FirestoreError) -> HTTPResponse? {
        guard let decoded = PercentDecoding.decode(request.path) else {
            throw .invalidArgument("Invalid percent-encoding in the request path.")
        }
        let parts = decoded.split(separator: "/", maxSplits: 6, omittingEmptySubsequences: false)
        guard parts.count == 7, parts[0].isEmpty, parts[1] == "v1", parts[2] == "projects", !parts[3].isEmpty,
              parts[4] == "databases", !parts[5].isEmpty else { return nil }
        let database = DatabaseID(project: String(parts[3]), database: String(parts[5]))
        var rest = Substring(parts[6])
        var verb: String?
        if let colon = rest.lastIndex(of: ":"), !rest[colon...].utf8.contains(UInt8(ascii: "/")), Self.verbs.contains(String(rest[rest.index(after: colon)...])) {
            verb = String(rest[rest.index(after: colon)...])
            rest = rest[..<colon]
        }
        let segments: [String]
        if rest == "documents" {
            segments = []
        } else if rest.hasPrefix("documents/") {
            segments = rest.dropFirst("documents/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        } else {
            return nil
        }
        let path = ResourcePath(segments: segments)
        let api = DocumentsAPI(service: try DocumentService(state: state, database: database, auth: auth))
        let params = try QueryParameters(request.query)

        guard let verb else {
            switch request.method {
            case "GET" where path.isDocument: return try api.get(path, params)
            case "GET" where !path.isEmpty: return try api.list(collection: path, params)
            case "POST" where !path.isEmpty:
                guard path.isCollection else {
                    throw .invalidArgument("Invalid parent for createDocument: \"\(database.resourceName(path))\" is a document; POST to a collection.")
                }
                return try api.create(collection: path, body: try Self.body(request), params)
            case "PATCH" where path.isDocument: return try api.patch(path, body: try Self.body(request), params)
            case "DELETE" where path.isDocument: return try api.delete(path, params)
            default: return nil
            }
        }
        guard request.method == "POST" else { return nil }
        let atRoot = path.isEmpty
        guard atRoot || path.isDocument else { return nil }
        switch verb {
        case "runQuery": return try api.runQuery(parent: path, body: try Self.body(request))
        case "runAggregationQuery": return try api.runAggregationQuery(parent: path, body: try Self.body(request))
        case "partitionQuery": return try api.partitionQuery(parent: path, body: try Self.body(request))
        case "listCollectionIds": return try api.listCollectionIds(parent: path, body: try Self.body(request))
        default: break
        }
        guard atRoot else { return nil }
        switch verb {
        case "batchGet": return try api.batchGet(body: try Self.body(request))
        case "beginTransaction": return try api.beginTransaction(body: try Self.body(request))
        case "commit": return try api.commit(body: try Self.body(request))
        case "rollback": return try api.rollback(body: try Self.body(request))
        case "batchWrite": return try api.batchWrite(body: try Self.body(request))
        case "executePipeline": return try api.executePipeline(body: try Self.body(request))
        case "listen", "write":
            throw FirestoreError(.unimplemented, "\(verb == "listen" ? "Listen" : "Write") is a bidirectional stream: it is only available over gRPC or WebChannel, not REST.")
        default:
            throw FirestoreError(.unimplemented, "\(verb) is not implemented by this emulator.")
        }
    }

    /// The body as JSON whatever its content type (the web SDK posts `text/plain`);
    /// an empty body is `{}`.
    static func body(_ request: HTTPRequest) throws(FirestoreError) -> JSON {
        if request.body.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) { return .object([]) }
        do {
            return try JSON.parse(request.body)
        } catch {
            throw .invalidArgument("Invalid JSON payload received. \(error.message) (byte \(error.offset) of the body).")
        }
    }
}
