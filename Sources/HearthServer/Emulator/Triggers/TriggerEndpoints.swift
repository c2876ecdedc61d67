import HearthCore
import HearthTransport

/// The trigger endpoints under `/emulator/v1`:
///
/// - `PUT /emulator/v1/projects/{p}/triggers/{key}` — a 1st-gen registration (answers `{}`);
/// - `POST /emulator/v1/projects/{p}/eventarcTrigger?eventarcTriggerId={key}` — a 2nd-gen one
///   (answers the registration as read); both as the official emulator answers them;
/// - Hearth's own: `GET /emulator/v1/triggers:config` → `{"functionsEmulator", "paused",
///   "registered", "queued", "delivered", "failed", "dropped", "retried"}`;
///   `PUT /emulator/v1/triggers:config` with `{"functionsEmulator": "host:port" | null,
///   "paused": bool}` (either or both) sets where events go and pauses or resumes delivery.
extension EmulatorAPI {
    func routeTriggers(_ request: HTTPRequest, rest: Substring, parts: [String], params: QueryParameters) throws(FirestoreError) -> HTTPResponse? {
        if rest == "triggers:config" {
            switch request.method {
            case "GET": return triggerConfig()
            case "PUT", "POST", "PATCH": return try setTriggerConfig(JSONRequestBody.parse(request))
            default: return nil
            }
        }
        guard parts.count >= 3, parts[0] == "projects", !parts[1].isEmpty else { return nil }
        let project = parts[1]
        if parts.count == 4, parts[2] == "triggers", !parts[3].isEmpty {
            guard request.method == "PUT" else { return nil }
            state.triggers.register(try TriggerRegistration.v1(project: project, key: parts[3], body: request.body))
            return .json(200, JSON.object([]).bytes)
        }
        if parts.count == 3, parts[2] == "eventarcTrigger" {
            guard request.method == "POST" else { return nil }
            let (trigger, echo) = try TriggerRegistration.v2(project: project, key: params.first("eventarcTriggerId") ?? "",
                                                             body: request.body)
            // The official emulator accepts a registration without an id; nothing can be called back for it.
            if !trigger.key.isEmpty { state.triggers.register(trigger) }
            return .json(200, echo.bytes)
        }
        return nil
    }

    private func triggerConfig() -> HTTPResponse {
        let c = state.triggers.configuration, s = state.triggers.statistics
        return .json(200, JSON.object([
            ("functionsEmulator", c.functionsEmulator.map(JSON.string) ?? .null), ("paused", .bool(c.paused)),
            ("registered", .int(s.registered)), ("queued", .int(s.queued)), ("delivered", .int(s.delivered)),
            ("failed", .int(s.failed)), ("dropped", .int(s.dropped)), ("retried", .int(s.retried)),
        ]).bytes)
    }

    private func setTriggerConfig(_ body: JSON) throws(FirestoreError) -> HTTPResponse {
        var o = try ProtoObject(body, context: "")
        let address = o.take("functionsEmulator")
        let paused = o.take("paused")
        try o.finish()
        var newAddress: String?? = nil
        if let address {
            if case .null = address {
                newAddress = .some(nil)
            } else {
                let text = try ProtoJSON.string(address, context: "functionsEmulator")
                guard HTTPClientConnection.parseAddress(text) != nil else {
                    throw .invalidArgument("functionsEmulator must be HOST:PORT (like the official emulator's --functions_emulator), got \"\(text)\".")
                }
                newAddress = .some(text)
            }
        }
        let pause = try paused.map { j throws(FirestoreError) in try ProtoJSON.bool(j, context: "paused") }
        state.triggers.configure(functionsEmulator: newAddress, paused: pause)
        return triggerConfig()
    }
}
