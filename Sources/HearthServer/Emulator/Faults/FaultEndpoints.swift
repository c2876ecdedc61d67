import HearthCore
import HearthTransport

/// `/emulator/v1/projects/{p}/faults` (docs/faults.md#the-endpoint): the project's injected
/// faults, in the JSON form of `FaultRule` (HearthCore/Faults/FaultSpec.swift).
///
/// - `POST …/faults` with one rule (or `{"faults": [rule, …]}`) adds it for project `p` →
///   `{"faults": [listed rule, …]}` (the rules added, with their ids);
/// - `GET …/faults` → `{"faults": [...]}`: the rules that can hit `p`, in matching order,
///   each with `id`, `fired` and (for `times`) `remaining`;
/// - `DELETE …/faults` removes the project's rules; `DELETE …/faults/{id}` one rule.
extension EmulatorAPI {
    func routeFaults(_ request: HTTPRequest, parts: [String]) throws(FirestoreError) -> HTTPResponse? {
        guard parts.count >= 3, parts[0] == "projects", parts[2] == "faults" else { return nil }
        let project = parts[1]
        let faults = state.faults
        switch (request.method, parts.count) {
        case ("GET", 3):
            return list(project)
        case ("POST", 3):
            let body = try JSONRequestBody.parse(request)
            let items = body["faults"]?.arrayValue ?? [body]
            var rules: [FaultRule] = []
            for (i, item) in items.enumerated() {
                var rule = try FaultRule.parse(json: item, form: items.count == 1 ? "fault" : "fault \(i + 1) of \(items.count)")
                if let p = rule.project, p != project {
                    throw .invalidArgument("The fault names project \(p), the URL project \(project).")
                }
                rule.project = project
                rules.append(rule)
            }
            var ids: Set<Int> = []
            for rule in rules { ids.insert(try faults.add(rule)) }
            return .json(200, JSON.object([("faults", .array(faults.list().filter { ids.contains($0.id) }.map(\.json)))]).bytes)
        case ("DELETE", 3):
            faults.clear(project: project)
            return list(project)
        case ("DELETE", 4):
            guard let id = Int(parts[3]), faults.list(project: project).contains(where: { $0.id == id && $0.rule.project == project }) else {
                throw FirestoreError(.notFound, "No fault \(parts[3]) in project \(project).")
            }
            faults.remove(id)
            return list(project)
        default:
            return nil
        }
    }

    private func list(_ project: String) -> HTTPResponse {
        .json(200, JSON.object([("faults", .array(state.faults.list(project: project).map(\.json)))]).bytes)
    }
}
