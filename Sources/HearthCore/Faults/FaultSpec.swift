/// The two written forms of a fault rule, one vocabulary: the compact spec of
/// `hearth serve --fault` and the config file (`method=Commit,error=UNAVAILABLE,times=2`)
/// and the JSON object of `/emulator/v1/projects/{p}/faults` (`{"method": "Commit",
/// "error": "UNAVAILABLE", "times": 2}`). Keys (docs/faults.md#the-rule):
///
/// - which requests: `project`, `database`, `method` (an RPC name), `path` (a prefix);
/// - what happens: `delay` (ms), `error` (a status name) with `message`, `dropAfter` (N
///   messages, Listen/Write), `reset`, `dropAnswer`;
/// - how often: `once`, `times` (N), `always` (the default), `probability` (0…1) with `seed`.
extension FaultRule {
    /// Reads the compact form: `key=value` pairs separated by commas; `reset`, `dropAnswer`,
    /// `once` and `always` stand alone. A message cannot hold a comma here (use the JSON form).
    public static func parse(spec: String) throws(FirestoreError) -> FaultRule {
        var pairs: [(String, String?)] = []
        for item in spec.split(separator: ",", omittingEmptySubsequences: true) {
            let text = item.trimmingSpaces
            guard !text.isEmpty else { continue }
            if let eq = text.firstIndex(of: "=") {
                pairs.append((String(text[..<eq]).trimmingSpaces, String(text[text.index(after: eq)...]).trimmingSpaces))
            } else {
                pairs.append((text, nil))
            }
        }
        return try parse(pairs: pairs, form: "fault spec '\(spec)'")
    }

    /// Reads the JSON form: an object with the same keys (numbers as numbers or strings,
    /// flags as `true`). `form` names it in errors (`fault 2 of 3` for one of a list).
    public static func parse(json: JSON, form: String = "fault") throws(FirestoreError) -> FaultRule {
        guard case .object(let members) = json else {
            throw .invalidArgument("In the \(form): a fault is a JSON object of keys such as method, error and times.")
        }
        var pairs: [(String, String?)] = []
        for (key, value) in members {
            switch value {
            case .string(let s): pairs.append((key, s))
            case .number(let n): pairs.append((key, n))
            case .bool(true): pairs.append((key, nil))
            case .bool(false), .null: continue
            case .array, .object: throw .invalidArgument("In the \(form): \(key) must be a string, a number or true.")
            }
        }
        return try parse(pairs: pairs, form: form)
    }

    private static func parse(pairs: [(String, String?)], form: String) throws(FirestoreError) -> FaultRule {
        var rule = FaultRule()
        var effects: [FaultEffect] = []
        var errorCode: FirestoreError.Code?
        var message: String?
        var schedule: FaultSchedule?
        var probability: Double?
        var seed: UInt64?
        func value(_ key: String, _ v: String?) throws(FirestoreError) -> String {
            guard let v, !v.isEmpty else { throw .invalidArgument("In the \(form): \(key) needs a value (\(key)=…).") }
            return v
        }
        func integer(_ key: String, _ v: String?) throws(FirestoreError) -> Int {
            let text = try value(key, v)
            guard let n = Int(text) else { throw .invalidArgument("In the \(form): \(key) must be an integer, got '\(text)'.") }
            return n
        }
        func setSchedule(_ s: FaultSchedule) throws(FirestoreError) {
            guard schedule == nil else { throw .invalidArgument("In the \(form): give one of once, times, always, probability.") }
            schedule = s
        }
        for (key, v) in pairs {
            switch key {
            case "project": rule.project = try value(key, v)
            case "database": rule.database = try value(key, v)
            case "method":
                let name = try value(key, v)
                guard let m = FaultMethod(name: name) else {
                    throw .invalidArgument("In the \(form): unknown method '\(name)'; one of \(FaultMethod.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                rule.method = m
            case "path":
                let p = try value(key, v)
                do { rule.pathPrefix = try ResourcePath.parse(p) } catch {
                    throw .invalidArgument("In the \(form): path '\(p)': \(error.message)")
                }
            case "delay", "delayMs": rule.delayMilliseconds = try integer(key, v)
            case "error":
                let name = try value(key, v).uppercased()
                guard let code = FirestoreError.Code.allCases.first(where: { $0.name == name }) else {
                    throw .invalidArgument("In the \(form): unknown status '\(name)'.")
                }
                errorCode = code
            case "message": message = try value(key, v)
            case "dropAfter": effects.append(.dropStream(afterMessages: try integer(key, v)))
            case "reset": effects.append(.resetConnection)
            case "dropAnswer": effects.append(.dropAnswer)
            case "once": try setSchedule(.once)
            case "always": try setSchedule(.always)
            case "times": try setSchedule(.times(try integer(key, v)))
            case "probability":
                let text = try value(key, v)
                guard let p = Double(text) else { throw .invalidArgument("In the \(form): probability must be a number, got '\(text)'.") }
                probability = p
            case "seed":
                let text = try value(key, v)
                guard let s = UInt64(text) else { throw .invalidArgument("In the \(form): seed must be a non-negative integer, got '\(text)'.") }
                seed = s
            case "id", "fired", "remaining": continue  // what GET lists: a listed rule can be posted back
            default:
                throw .invalidArgument("In the \(form): unknown key '\(key)' (project, database, method, path, delay, error, message, dropAfter, reset, dropAnswer, once, times, always, probability, seed).")
            }
        }
        if let errorCode { effects.append(.error(errorCode, message: message ?? "Injected fault: \(errorCode.name).")) }
        else if message != nil { throw .invalidArgument("In the \(form): message goes with error.") }
        guard effects.count <= 1 else { throw .invalidArgument("In the \(form): give at most one of error, dropAfter, reset, dropAnswer (a delay combines with any).") }
        rule.effect = effects.first
        if let probability {
            try setSchedule(.probability(probability, seed: seed ?? 0))
        } else if seed != nil {
            throw .invalidArgument("In the \(form): seed goes with probability.")
        }
        rule.schedule = schedule ?? .always
        do { try rule.validate() } catch { throw .invalidArgument("In the \(form): \(error.message)") }
        return rule
    }

    /// The JSON form (what GET lists, with the rule's id and counts added by the caller).
    public var json: [(String, JSON)] {
        var out: [(String, JSON)] = []
        if let project { out.append(("project", .string(project))) }
        if let database { out.append(("database", .string(database))) }
        if let method { out.append(("method", .string(method.rawValue))) }
        if let pathPrefix { out.append(("path", .string(pathPrefix.segments.joined(separator: "/")))) }
        if delayMilliseconds > 0 { out.append(("delay", .int(delayMilliseconds))) }
        switch effect {
        case .error(let code, let message): out += [("error", .string(code.name)), ("message", .string(message))]
        case .dropStream(let n): out.append(("dropAfter", .int(n)))
        case .resetConnection: out.append(("reset", .bool(true)))
        case .dropAnswer: out.append(("dropAnswer", .bool(true)))
        case nil: break
        }
        switch schedule {
        case .times(let n): out.append(("times", .int(n)))
        case .always: out.append(("always", .bool(true)))
        case .probability(let p, let seed): out += [("probability", .number(String(p))), ("seed", .number(String(seed)))]
        }
        return out
    }
}

extension FaultInjector.Active {
    /// `{"id", …the rule…, "fired", "remaining"?}`.
    public var json: JSON {
        var out: [(String, JSON)] = [("id", .int(id))] + rule.json + [("fired", .int(fired))]
        if let remaining { out.append(("remaining", .int(remaining))) }
        return .object(out)
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
