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
        guard parts.count == 7, parts[0].isEmpty, parts[1] == "v1", parts[2] == "projects",
              parts[4] == "databases", !parts[5].isEmpty else { return nil }
        if parts[3].isEmpty { _ = try ResourceName.parse(String(decoded.dropFirst(4)), as: .document) }
        // Forms are not JSON: the official emulator does not route such a POST at all.
        if request.method == "POST", let type = request.header("content-type")?.lowercased(),
           type.hasPrefix("application/x-www-form-urlencoded") || type.hasPrefix("multipart/form-data") {
            return nil
        }
        try ResourceName.validateProjectID(String(parts[3]))
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

        // Each method reads the path as the name it needs (HearthCore's parser: a wrong
        // shape, an empty, "." or ".." id or a trailing "/" is the official emulator's 400).
        func named(_ path: ResourcePath, _ kind: ResourceName.Kind) throws(FirestoreError) -> ResourcePath {
            try ResourceName.parse(database.resourceName(path), as: kind).path
        }
        guard let verb else {
            switch request.method {
            // An empty segment before the last makes the path a document name (the
            // official emulator's routing), whose parse names the missing id.
            case "GET" where path.isDocument || path.segments.dropLast().contains(""):
                return try api.get(try named(path, .document), params)
            case "GET" where !path.isEmpty:
                _ = try named(path.parent, .documentParent)
                return try api.list(collection: path, params)
            case "POST" where !path.isEmpty:
                // The last segment is the new document's collection: its parent must be a
                // document (or the root).
                _ = try named(path.parent, .documentParent)
                return try api.create(collection: path, body: try JSONRequestBody.parse(request), params)
            case "PATCH" where !path.isEmpty:
                return try api.patch(try named(path, .document), body: try JSONRequestBody.parse(request), params)
            case "DELETE" where !path.isEmpty:
                return try api.delete(try named(path, .document), params)
            default: return nil
            }
        }
        guard request.method == "POST" else { return nil }
        let atRoot = path.isEmpty
        if !atRoot && !path.isDocument {
            guard verb == "runQuery" || verb == "runAggregationQuery" || verb == "partitionQuery" || verb == "listCollectionIds" else { return nil }
        }
        if !atRoot { _ = try named(path, .documentParent) }
        switch verb {
        case "runQuery": return try api.runQuery(parent: path, body: try JSONRequestBody.parse(request))
        case "runAggregationQuery": return try api.runAggregationQuery(parent: path, body: try JSONRequestBody.parse(request))
        case "partitionQuery": return try api.partitionQuery(parent: path, body: try JSONRequestBody.parse(request))
        case "listCollectionIds": return try api.listCollectionIds(parent: path, body: try JSONRequestBody.parse(request))
        default: break
        }
        guard atRoot else { return nil }
        switch verb {
        case "batchGet": return try api.batchGet(body: try JSONRequestBody.parse(request))
        case "beginTransaction": return try api.beginTransaction(body: try JSONRequestBody.parse(request))
        case "commit": return try api.commit(body: try JSONRequestBody.parse(request))
        case "rollback": return try api.rollback(body: try JSONRequestBody.parse(request))
        case "batchWrite": return try api.batchWrite(body: try JSONRequestBody.parse(request))
        case "executePipeline": return try api.executePipeline(body: try JSONRequestBody.parse(request))
        case "listen", "write":
            // Bidirectional streams: gRPC and WebChannel only; not a REST route (as the
            // official emulator answers).
            return nil
        default:
            throw FirestoreError(.unimplemented, "\(verb) is not implemented by this emulator.")
        }
    }
}
