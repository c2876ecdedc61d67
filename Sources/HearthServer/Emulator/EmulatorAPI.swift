import Foundation
import HearthCore
import HearthTransport

/// The emulator-only endpoints under `/emulator/v1` (docs/protocol.md#emulator-endpoints, README):
///
/// - `DELETE /emulator/v1/projects/{p}/databases/{d}/documents[/path…]` — clear a database
///   or the subtree at a path.
/// - `POST /emulator/v1/projects/{p}/databases/{d}:snapshot` → `{"id"}`;
///   `POST …:restore` with `{"id"}`.
/// - `GET /emulator/v1/clock` → `{"now", "manual"}`; `PUT /emulator/v1/clock` with
///   `{"time": RFC 3339}` (stop the clock there), `{"advanceSeconds": n}` or
///   `{"system": true}` (back to the system clock).
/// - `GET /emulator/v1/indexes:learned` (optionally `?project=&database=`) — the learned
///   `firestore.indexes.json`.
/// - `POST /emulator/v1/projects/{p}:export` (or `…/databases/{d}:export`) with the official
///   body `{"database", "export_directory", "export_name"}` — write the database as an export
///   in the official layout; `POST …:import` with `{"database", "export_directory"}` naming
///   the `.overall_export_metadata` file (or, beyond the official emulator, an export folder,
///   a firebase-tools folder or a Hearth JSON file) — upsert its documents. Both answer `{}`.
/// - `PUT /emulator/v1/projects/{p}:securityRules` with `{"rules": {"files": [{"name",
///   "content"}]}}` (`GET` returns them), `GET …:ruleCoverage[.html]` — security rules and
///   their coverage (EmulatorAPI+Rules.swift).
/// - Cloud Functions triggers: `PUT /emulator/v1/projects/{p}/triggers/{key}`,
///   `POST …/eventarcTrigger?eventarcTriggerId=`, `GET|PUT /emulator/v1/triggers:config`
///   (Emulator/Triggers/TriggerEndpoints.swift).
/// - Injected faults: `POST|GET|DELETE /emulator/v1/projects/{p}/faults`,
///   `DELETE …/faults/{id}` (Emulator/Faults/FaultEndpoints.swift, docs/faults.md).
struct EmulatorAPI {
    let state: EmulatorState

    func route(_ request: HTTPRequest) throws(FirestoreError) -> HTTPResponse? {
        guard let decoded = PercentDecoding.decode(request.path) else {
            throw .invalidArgument("Invalid percent-encoding in the request path.")
        }
        guard decoded.hasPrefix("/emulator/v1/") else { return nil }
        let rest = decoded.dropFirst("/emulator/v1/".count)
        let params = try QueryParameters(request.query)

        if rest == "clock" {
            switch request.method {
            case "GET": return clockResponse()
            case "PUT", "POST": return try setClock(JSONRequestBody.parse(request))
            default: return nil
            }
        }
        if rest == "indexes:learned", request.method == "GET" {
            return learned(project: params.first("project"), database: params.first("database"))
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let r = try routeTriggers(request, rest: rest, parts: parts, params: params) { return r }
        if let r = try routeFaults(request, parts: parts) { return r }
        guard parts.count >= 2, parts[0] == "projects", !parts[1].isEmpty else { return nil }
        if parts.count == 2, let colon = parts[1].firstIndex(of: ":") {
            let verb = parts[1][parts[1].index(after: colon)...]
            let project = String(parts[1][..<colon])
            switch (request.method, verb) {
            case ("PUT", "securityRules"): return try putSecurityRules(project: project, body: JSONRequestBody.parse(request))
            case ("GET", "securityRules"): return getSecurityRules(project: project)
            case ("GET", "ruleCoverage"): return try ruleCoverage(project: project)
            case ("GET", "ruleCoverage.html"): return try ruleCoverageHTML(project: project)
            case ("POST", "export"): return try export(project: project, database: nil, body: JSONRequestBody.parse(request))
            case ("POST", "import"): return try importData(project: project, database: nil, body: JSONRequestBody.parse(request))
            default: return nil
            }
        }
        guard parts.count >= 4, parts[2] == "databases" else { return nil }
        let project = parts[1]
        if parts.count == 4, let colon = parts[3].firstIndex(of: ":") {
            let id = DatabaseID(project: project, database: String(parts[3][..<colon]))
            switch (request.method, parts[3][parts[3].index(after: colon)...]) {
            case ("POST", "snapshot"):
                return .json(200, JSON.object([("id", .string(state.takeSnapshot(id)))]).bytes)
            case ("POST", "restore"):
                var o = try ProtoObject(try JSONRequestBody.parse(request), context: "")
                guard let name = o.take("id") else { throw .invalidArgument("restore needs {\"id\": <snapshot id>}.") }
                try o.finish()
                try state.restoreSnapshot(try ProtoJSON.string(name, context: "id"), into: id)
                return .json(200, JSON.object([]).bytes)
            case ("GET", "indexes:learned"), ("GET", "learnedIndexes"):
                return learned(project: project, database: id.database)
            case ("POST", "export"):
                return try export(project: project, database: id.database, body: JSONRequestBody.parse(request))
            case ("POST", "import"):
                return try importData(project: project, database: id.database, body: JSONRequestBody.parse(request))
            default:
                return nil
            }
        }
        if parts.count >= 5, parts[4] == "documents", request.method == "DELETE" {
            let id = DatabaseID(project: project, database: parts[3])
            let path = ResourcePath(segments: Array(parts[5...]).filter { !$0.isEmpty })
            try state.clear(id, under: path)
            return .json(200, JSON.object([]).bytes)
        }
        if parts.count == 5, parts[4] == "indexes:learned", request.method == "GET" {
            return learned(project: project, database: parts[3])
        }
        return nil
    }

    private func clockResponse() -> HTTPResponse {
        .json(200, JSON.object([("now", .string(state.clock.now().rfc3339)), ("manual", .bool(state.clock.isManual))]).bytes)
    }

    private func setClock(_ body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let time = o.take("time")
        let advance = o.take("advanceSeconds")
        let system = o.take("system")
        try o.finish()
        guard [time, advance, system].compactMap({ $0 }).count == 1 else {
            throw .invalidArgument("Set the clock with exactly one of {\"time\": RFC 3339}, {\"advanceSeconds\": n} or {\"system\": true}.")
        }
        if let time { state.clock.set(try ProtoJSON.timestamp(time, context: "time")) }
        if let advance { state.clock.advance(by: try ProtoJSON.double(advance, context: "advanceSeconds")) }
        if let system {
            guard try ProtoJSON.bool(system, context: "system") else { throw .invalidArgument("\"system\" must be true.") }
            state.clock.resume()
        }
        return clockResponse()
    }

    /// The database a `:export`/`:import` body names (`projects/{p}/databases/{d}`), which
    /// must be of the URL's project (and database, in the per-database form).
    private func bodyDatabase(_ json: JSON?, project: String, database: String?) throws(FirestoreError) -> DatabaseID {
        let fromURL = DatabaseID(project: project, database: database ?? DatabaseID.defaultDatabase)
        guard let json else { return fromURL }
        let name = try ProtoJSON.string(json, context: "database")
        let id = try ResourceName.database(name)
        guard id.project == project, database == nil || id.database == database else {
            throw .invalidArgument("The body's database \(name) is not the one the URL names (\(fromURL.name)).")
        }
        return id
    }

    private func export(project: String, database: String?, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let db = o.take("database"), directory = o.take("exportDirectory"), name = o.take("exportName")
        try o.finish()
        let id = try bodyDatabase(db, project: project, database: database)
        guard let directory else { throw .invalidArgument("export_directory is required.") }
        let dir = try ProtoJSON.string(directory, context: "export_directory")
        let exportName = try name.map { j throws(FirestoreError) in try ProtoJSON.string(j, context: "export_name") }
            ?? "firestore_export_\(Int(Date().timeIntervalSince1970))"
        try state.exportDatabase(id, to: dir, name: exportName)
        return .json(200, JSON.object([]).bytes)
    }

    private func importData(project: String, database: String?, body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let db = o.take("database"), directory = o.take("exportDirectory")
        try o.finish()
        let id = try bodyDatabase(db, project: project, database: database)
        guard let directory else { throw .invalidArgument("export_directory is required (the .overall_export_metadata file to import).") }
        // Documents land in the database their keys name (the official emulator does the
        // same); Hearth JSON, which names none, in the request's database.
        try state.importData(try ProtoJSON.string(directory, context: "export_directory"), project: project, database: id.database)
        return .json(200, JSON.object([]).bytes)
    }

    private func learned(project: String?, database: String?) -> HTTPResponse {
        HTTPResponse.json(200, Array(state.learnedIndexes(project: project, database: database).json))
    }
}
