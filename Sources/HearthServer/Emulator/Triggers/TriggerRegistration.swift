import HearthCore

/// The two registration calls of the Functions emulator (firebase-tools
/// src/emulator/functionsEmulator.ts), parsed with the official emulator's answers (recorded:
/// Tests/Differential/cases/triggers.py): a body that is not JSON, has an unknown field or a
/// value of the wrong JSON type is `400 INVALID_ARGUMENT "Payload isn't valid for request."`;
/// a well-formed body the emulator cannot use (an unknown event type, another service, no
/// match type) is `500 UNKNOWN` with no message; a resource it cannot match (none, not a
/// document path) is accepted and never fires.
enum TriggerRegistration {
    static let v1Prefix = "providers/cloud.firestore/eventTypes/document."
    static let v2Prefix = "google.cloud.firestore.document.v1."
    static let firestoreService = "firestore.googleapis.com"

    static var malformed: FirestoreError { FirestoreError(.invalidArgument, "Payload isn't valid for request.") }
    static var unusable: FirestoreError { FirestoreError(.unknown, "") }

    /// `PUT /emulator/v1/projects/{p}/triggers/{key}` with `{"eventTrigger": {"eventType",
    /// "resource", "service"}}`.
    static func v1(project: String, key: String, body: [UInt8]) throws(FirestoreError) -> Trigger {
        var top = try fields(try parse(body), allowed: [["eventTrigger", "event_trigger"]])
        var eventTrigger: [String: JSON] = [:]
        if let t = top.removeValue(forKey: "eventTrigger") {
            eventTrigger = try fields(t, allowed: [["eventType", "event_type"], ["resource"], ["service"],
                                                   ["failurePolicy", "failure_policy"]])
        }
        let eventType = try string(eventTrigger["eventType"]) ?? ""
        let change: Trigger.Change
        switch eventType {
        case v1Prefix + "write": change = .written
        case v1Prefix + "create": change = .created
        case v1Prefix + "update": change = .updated
        case v1Prefix + "delete": change = .deleted
        default: throw unusable
        }
        guard try string(eventTrigger["service"]) == firestoreService else { throw unusable }
        if let policy = eventTrigger["failurePolicy"], case .object = policy {} else if eventTrigger["failurePolicy"] != nil { throw malformed }
        // projects/{p}/databases/{d}/documents/{pattern}
        var database: DatabaseID?
        var pattern = TriggerPattern.none
        let resource = try string(eventTrigger["resource"]) ?? ""
        let parts = resource.split(separator: "/", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
        if parts.count == 6, parts[0] == "projects", parts[2] == "databases", parts[4] == "documents", !parts[1].isEmpty, !parts[3].isEmpty {
            database = DatabaseID(project: parts[1], database: parts[3])
            pattern = TriggerPattern(parts[5])
        }
        return Trigger(key: key, project: project, generation: .v1, change: change, eventType: eventType,
                       database: database, pattern: pattern)
    }

    /// `POST /emulator/v1/projects/{p}/eventarcTrigger?eventarcTriggerId={key}` with
    /// `{"eventType", "database", "namespace", "document": {"value", "matchType"}}`. Returns the
    /// trigger and the answer: the registration as the emulator read it (its fields in the
    /// message's order, empty ones left out).
    static func v2(project: String, key: String, body: [UInt8]) throws(FirestoreError) -> (Trigger, JSON) {
        let top = try fields(try parse(body), allowed: [["eventType", "event_type"], ["database"], ["namespace"], ["document"]])
        let eventType = try string(top["eventType"]) ?? ""
        let databaseName = try string(top["database"]) ?? ""
        let namespace = try string(top["namespace"]) ?? ""
        var value = "", matchType = ""
        if let d = top["document"] {
            let doc = try fields(d, allowed: [["value"], ["matchType", "match_type"]])
            value = try string(doc["value"]) ?? ""
            matchType = try string(doc["matchType"]) ?? ""
            guard ["", "MATCH_TYPE_UNSPECIFIED", "EXACT", "PATH_PATTERN"].contains(matchType) else { throw malformed }
        }
        var authContext = false
        var kind = Substring(eventType)
        if kind.hasSuffix(".withAuthContext") {
            authContext = true
            kind = kind.dropLast(".withAuthContext".count)
        }
        let change: Trigger.Change
        switch String(kind) {
        case v2Prefix + "written": change = .written
        case v2Prefix + "created": change = .created
        case v2Prefix + "updated": change = .updated
        case v2Prefix + "deleted": change = .deleted
        default: throw unusable
        }
        if top["document"] != nil, matchType == "" || matchType == "MATCH_TYPE_UNSPECIFIED" { throw unusable }
        let pattern = top["document"] == nil ? TriggerPattern.none : TriggerPattern(value, exact: matchType == "EXACT")
        let trigger = Trigger(key: key, project: project, generation: .v2(authContext: authContext), change: change,
                              eventType: eventType,
                              database: DatabaseID(project: project, database: databaseName.isEmpty ? DatabaseID.defaultDatabase : databaseName),
                              pattern: pattern)
        var echo: [(String, JSON)] = [("eventType", .string(eventType))]
        if !databaseName.isEmpty { echo.append(("database", .string(databaseName))) }
        if !namespace.isEmpty { echo.append(("namespace", .string(namespace))) }
        if top["document"] != nil {
            var doc: [(String, JSON)] = []
            if !value.isEmpty { doc.append(("value", .string(value))) }
            doc.append(("matchType", .string(matchType)))
            echo.append(("document", .object(doc)))
        }
        return (trigger, .object(echo))
    }

    private static func parse(_ body: [UInt8]) throws(FirestoreError) -> JSON {
        guard let json = try? JSON.parse(body.isEmpty ? Array("{}".utf8) : body) else { throw malformed }
        return json
    }

    /// The object's fields by their first (lowerCamel) name; an unknown name, a field given
    /// twice or a non-object is malformed. A null field counts as absent (proto3 JSON).
    private static func fields(_ json: JSON, allowed: [[String]]) throws(FirestoreError) -> [String: JSON] {
        guard case .object(let pairs) = json else { throw malformed }
        var out: [String: JSON] = [:]
        for (name, value) in pairs {
            guard let names = allowed.first(where: { $0.contains(name) }) else { throw malformed }
            guard out[names[0]] == nil else { throw malformed }
            if case .null = value { continue }
            out[names[0]] = value
        }
        return out
    }

    private static func string(_ json: JSON?) throws(FirestoreError) -> String? {
        guard let json else { return nil }
        guard case .string(let s) = json else { throw malformed }
        return s
    }
}
