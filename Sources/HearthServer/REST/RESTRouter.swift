import HearthCore
import HearthTransport

/// The REST front end's route table: `/v1/projects/{p}/databases/{d}/documents…`
/// (docs/protocol.md#rest). The path is percent-decoded; an even number of segments after
/// `documents/` names a document, an odd number a collection; a trailing `:verb` selects the
/// custom methods. Each route holds its handler and the operation it performs, and the
/// operation alone decides where it runs (`FirestoreOperation.placement`), as for gRPC.
struct RESTRouter {
    static let verbs: Set<String> = [
        "batchGet", "beginTransaction", "commit", "rollback", "runQuery", "runAggregationQuery",
        "partitionQuery", "listCollectionIds", "batchWrite", "listen", "write", "executePipeline",
    ]
    /// Verbs addressed to a parent (the root or a document); the others only to the root.
    static let parentVerbs: Set<String> = ["runQuery", "runAggregationQuery", "partitionQuery", "listCollectionIds"]

    /// A request addressed to a database's documents, as every route reads it.
    struct Address {
        let database: DatabaseID
        /// The documents path after `documents/` (empty at the root).
        let path: ResourcePath
        let verb: String?

        /// The path read as the name a method needs (HearthCore's parser: a wrong shape, an
        /// empty, "." or ".." id or a trailing "/" is the official emulator's 400).
        func named(_ path: ResourcePath, _ kind: ResourceName.Kind) throws(FirestoreError) -> ResourcePath {
            try ResourceName.parse(database.resourceName(path), as: kind).path
        }
    }

    /// One entry: a method, a verb (nil for the plain document methods), which paths it
    /// takes, what it does and its handler.
    struct Route: Sendable {
        let method: String
        let verb: String?
        let takes: @Sendable (ResourcePath) -> Bool
        let operation: FirestoreOperation
        let handle: @Sendable (DocumentsAPI, Address, HTTPRequest, QueryParameters) throws(FirestoreError) -> HTTPResponse

        /// A `POST …:verb` addressed to a parent (the root or a document), with a JSON body.
        static func parentVerb(_ verb: String, _ operation: FirestoreOperation,
                               _ method: @escaping @Sendable (DocumentsAPI) -> (ResourcePath, JSON) throws(FirestoreError) -> HTTPResponse) -> Route {
            Route(method: "POST", verb: verb, takes: { _ in true }, operation: operation) { api, a, r, _ throws(FirestoreError) in
                try method(api)(a.path, try JSONRequestBody.parse(r))
            }
        }

        /// A `POST documents:verb` at the database's root, with a JSON body.
        static func rootVerb(_ verb: String, _ operation: FirestoreOperation,
                             _ method: @escaping @Sendable (DocumentsAPI) -> (JSON) throws(FirestoreError) -> HTTPResponse) -> Route {
            Route(method: "POST", verb: verb, takes: { $0.isEmpty }, operation: operation) { api, _, r, _ throws(FirestoreError) in
                try method(api)(try JSONRequestBody.parse(r))
            }
        }
    }

    static let routes: [Route] = {
        let notRoot: @Sendable (ResourcePath) -> Bool = { !$0.isEmpty }
        return [
            // An empty segment before the last makes the path a document name (the official
            // emulator's routing), whose parse names the missing id.
            Route(method: "GET", verb: nil, takes: { $0.isDocument || $0.segments.dropLast().contains("") }, operation: .getDocument) { api, a, r, q throws(FirestoreError) in
                try api.get(try a.named(a.path, .document), q)
            },
            Route(method: "GET", verb: nil, takes: notRoot, operation: .listDocuments) { api, a, r, q throws(FirestoreError) in
                _ = try a.named(a.path.parent, .documentParent)
                return try api.list(collection: a.path, q)
            },
            // The last segment is the new document's collection: its parent must be a
            // document (or the root).
            Route(method: "POST", verb: nil, takes: notRoot, operation: .createDocument) { api, a, r, q throws(FirestoreError) in
                _ = try a.named(a.path.parent, .documentParent)
                return try api.create(collection: a.path, body: try JSONRequestBody.parse(r), q)
            },
            Route(method: "PATCH", verb: nil, takes: notRoot, operation: .updateDocument) { api, a, r, q throws(FirestoreError) in
                try api.patch(try a.named(a.path, .document), body: try JSONRequestBody.parse(r), q)
            },
            Route(method: "DELETE", verb: nil, takes: notRoot, operation: .deleteDocument) { api, a, r, q throws(FirestoreError) in
                try api.delete(try a.named(a.path, .document), q)
            },
            .parentVerb("runQuery", .runQuery, DocumentsAPI.runQuery(parent:body:)),
            .parentVerb("runAggregationQuery", .runAggregationQuery, DocumentsAPI.runAggregationQuery(parent:body:)),
            .parentVerb("partitionQuery", .partitionQuery, DocumentsAPI.partitionQuery(parent:body:)),
            .parentVerb("listCollectionIds", .listCollectionIds, DocumentsAPI.listCollectionIds(parent:body:)),
            .rootVerb("batchGet", .batchGet, DocumentsAPI.batchGet(body:)),
            .rootVerb("beginTransaction", .beginTransaction, DocumentsAPI.beginTransaction(body:)),
            .rootVerb("commit", .commit, DocumentsAPI.commit(body:)),
            .rootVerb("rollback", .rollback, DocumentsAPI.rollback(body:)),
            .rootVerb("batchWrite", .batchWrite, DocumentsAPI.batchWrite(body:)),
            .rootVerb("executePipeline", .executePipeline, DocumentsAPI.executePipeline(body:)),
            // listen and write are bidirectional streams: gRPC and WebChannel only, no REST
            // route (as the official emulator answers).
        ]
    }()

    let state: EmulatorState

    /// The address of a documents path, or nil when the path is not one (the caller
    /// answers 404).
    static func address(of request: HTTPRequest) throws(FirestoreError) -> Address? {
        guard let decoded = PercentDecoding.decode(request.path) else {
            throw .invalidArgument("Invalid percent-encoding in the request path.")
        }
        var storage = decoded
        switch storage.withUTF8({ asciiAddress($0) }) {
        case .notASCII: break
        case .notDocuments: return nil
        case .emptyProject:
            _ = try ResourceName.parse(String(decoded.dropFirst(4)), as: .document)
        case .address(let project, let database, let verb, let segments):
            if request.method == "POST", isForm(request) { return nil }
            try ResourceName.validateProjectID(project)
            guard let segments else { return nil }
            return Address(database: DatabaseID(project: project, database: database), path: ResourcePath(segments: segments), verb: verb)
        }
        return try addressByCharacters(of: request, decoded)
    }

    /// The general reading of `address(of:)`, on Characters (a path with non-ASCII text;
    /// tests compare it with the ASCII reading).
    static func addressByCharacters(of request: HTTPRequest, _ decoded: String) throws(FirestoreError) -> Address? {
        let parts = slashSeparated(decoded[...], maxSplits: 6)
        guard parts.count == 7, parts[0].isEmpty, parts[1] == "v1", parts[2] == "projects",
              parts[4] == "databases", !parts[5].isEmpty else { return nil }
        if parts[3].isEmpty { _ = try ResourceName.parse(String(decoded.dropFirst(4)), as: .document) }
        // Forms are not JSON: the official emulator does not route such a POST at all.
        if request.method == "POST", isForm(request) { return nil }
        try ResourceName.validateProjectID(String(parts[3]))
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
            segments = slashSeparated(rest.dropFirst("documents/".count)).map(String.init)
        } else {
            return nil
        }
        return Address(database: DatabaseID(project: String(parts[3]), database: String(parts[5])),
                       path: ResourcePath(segments: segments), verb: verb)
    }

    /// Forms are not JSON: the official emulator does not route such a POST at all.
    private static func isForm(_ request: HTTPRequest) -> Bool {
        guard let type = request.header("content-type")?.lowercased() else { return false }
        return type.hasPrefix("application/x-www-form-urlencoded") || type.hasPrefix("multipart/form-data")
    }

    /// What `address(of:)` reads from a decoded path that is ASCII (as a request path nearly
    /// always is), read on its bytes: the same checks in the same order as the general
    /// reading below, which splits Substrings at Characters and compares them (~50,000
    /// instructions a REST request, where this costs a few thousand).
    private enum ASCIIAddress {
        case notASCII
        /// Not `/v1/projects/{p}/databases/{d}/{rest}`: a 404.
        case notDocuments
        /// `/v1/projects//…`: the document-name parser's error.
        case emptyProject
        /// The project (still to validate), database, verb and the documents path's segments
        /// (nil when the rest is not `documents[/…]`: a 404 once the project is checked).
        case address(project: String, database: String, verb: String?, segments: [String]?)
    }

    private static func asciiAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> ASCIIAddress {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return .notASCII }
        let slash = UInt8(ascii: "/")
        // The first six slashes cut `""/v1/projects/{p}/databases/{d}/{rest}`.
        var cuts: [Int] = []
        cuts.reserveCapacity(6)
        var i = 0
        while cuts.count < 6, i < bytes.count {
            if bytes[i] == slash { cuts.append(i) }
            i += 1
        }
        guard cuts.count == 6, cuts[0] == 0 else { return .notDocuments }
        func part(_ k: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[(cuts[k - 1] + 1)..<(k < 6 ? cuts[k] : bytes.count)])
        }
        func string(_ b: UnsafeBufferPointer<UInt8>) -> String { String(decoding: b, as: UTF8.self) }
        func equals(_ b: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
            b.count == text.utf8CodeUnitCount && b.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        guard equals(part(1), "v1"), equals(part(2), "projects"), equals(part(4), "databases"), !part(5).isEmpty else {
            return .notDocuments
        }
        if part(3).isEmpty { return .emptyProject }
        var rest = part(6)
        var verb: String?
        if let colon = rest.lastIndex(of: UInt8(ascii: ":")), !rest[colon...].contains(slash) {
            let candidate = string(UnsafeBufferPointer(rebasing: rest[(colon + 1)...]))
            if Self.verbs.contains(candidate) {
                verb = candidate
                rest = UnsafeBufferPointer(rebasing: rest[..<colon])
            }
        }
        var segments: [String]?
        if equals(rest, "documents") {
            segments = []
        } else if rest.count >= 10, equals(UnsafeBufferPointer(rebasing: rest[..<10]), "documents/") {
            var parts: [String] = []
            var start = 10
            for j in 10..<rest.count where rest[j] == slash {
                parts.append(string(UnsafeBufferPointer(rebasing: rest[start..<j])))
                start = j + 1
            }
            parts.append(string(UnsafeBufferPointer(rebasing: rest[start...])))
            segments = parts
        }
        return .address(project: string(part(3)), database: string(part(5)), verb: verb, segments: segments)
    }

    /// `text` split at every "/" (empty parts kept), at most `maxSplits` times: at "/" bytes
    /// when the text is ASCII (as a request path nearly always is), where splitting at the
    /// Character "/" walks grapheme clusters (~18,000 instructions a request); the same parts.
    private static func slashSeparated(_ text: Substring, maxSplits: Int = .max) -> [Substring] {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            return text.split(separator: "/", maxSplits: maxSplits, omittingEmptySubsequences: false)
        }
        return text.utf8.split(separator: UInt8(ascii: "/"), maxSplits: maxSplits, omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// The route that takes `request` at `address`, if any.
    static func route(_ request: HTTPRequest, at address: Address) -> Route? {
        routes.first { $0.method == request.method && $0.verb == address.verb && $0.takes(address.path) }
    }

    /// A request read once, when it arrives: its address (or why it has none) and the route
    /// that takes it. The transport asks where it runs before it runs, and the handler then
    /// reuses what was read.
    struct Resolution: Sendable {
        let address: Result<Address?, FirestoreError>
        let route: Route?

        /// Its route's operation decides; what matches no route (an error or a 404,
        /// answered at once) runs inline.
        func placement(commitsWaitForDisk: Bool, faultsArmed: Bool = false) -> HandlerPlacement {
            route?.operation.placement(commitsWaitForDisk: commitsWaitForDisk, faultsArmed: faultsArmed) ?? .inline
        }
    }

    static func resolve(_ request: HTTPRequest) -> Resolution {
        let address = Result { () throws(FirestoreError) -> Address? in try Self.address(of: request) }
        let route = (try? address.get()).flatMap { $0 }.flatMap { Self.route(request, at: $0) }
        return Resolution(address: address, route: route)
    }

    /// Answers `request` as `resolution` read it, or nil when no route takes it (the caller
    /// answers 404). The service is made before the route is chosen, as the official
    /// emulator answers every request of a project whose rules do not compile with that
    /// failure.
    func route(_ request: HTTPRequest, auth: AuthContext, _ resolution: Resolution) throws(FirestoreError) -> HTTPResponse? {
        guard let address = try resolution.address.get() else { return nil }
        let api = DocumentsAPI(service: try DocumentService(state: state, database: address.database, auth: auth))
        let params = try QueryParameters(request.query)
        try params.checkSingular(except: ["mask.fieldPaths", "updateMask.fieldPaths"])
        if let verb = address.verb {
            guard request.method == "POST" else { return nil }
            // A verb below the root needs a document parent (a collection only for the
            // parent verbs), checked before the route.
            if !address.path.isEmpty {
                guard address.path.isDocument || Self.parentVerbs.contains(verb) else { return nil }
                _ = try address.named(address.path, .documentParent)
            }
        }
        guard let route = resolution.route else { return nil }
        return try route.handle(api, address, request, params)
    }
}
