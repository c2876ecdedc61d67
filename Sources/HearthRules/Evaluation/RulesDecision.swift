import HearthCore

/// What one applicable `allow` evaluated to.
public struct AllowOutcome: Sendable, CustomStringConvertible {
    public enum Result: Sendable, Equatable {
        case granted
        case notGranted
        case error(String)
    }

    public var location: SourceLocation
    /// The methods as written (`read`, `create, update`).
    public var methods: [String]
    public var result: Result

    public var description: String {
        switch result {
        case .granted: "true @ L\(location.line)"
        case .notGranted: "false @ L\(location.line)"
        case .error(let m): "\(m) @ L\(location.line)"
        }
    }
}

/// The verdict for one request, with what decided it.
public struct RulesDecision: Sendable, CustomStringConvertible {
    public var allowed: Bool
    public var method: RulesMethod
    /// The target: a document, or for a query its collection.
    public var resourcePath: ResourcePath
    public var database: String
    /// True for a collection-group query.
    public var isCollectionGroup = false
    /// `/databases/(default)/documents/…`
    public var path: String {
        "/databases/\(database)/documents/\(resourcePath)" + (isCollectionGroup ? " (collection group)" : "")
    }
    /// The first allow that granted, when allowed.
    public var decidingAllow: AllowOutcome?
    /// Every applicable allow that was evaluated, in source order (for a denial: all of them).
    public var outcomes: [AllowOutcome]
    /// What `debug()` printed during this request, in evaluation order.
    public var debugOutput: [String]
    /// The request as the rules saw it (`request.auth`, `request.time`, `request.resource`,
    /// the query of a list), for the Emulator UI's Requests feed. A copy of values the
    /// evaluation built anyway (the auth and data are shared, not copied).
    public var request: RulesRequest?

    /// The emulator-style explanation: `false for 'update' @ L7, Null value error. for 'update' @ L9`,
    /// or `No matching allow statements` when nothing applied.
    public var explanation: String {
        if allowed, let d = decidingAllow { return "allowed by '\(d.methods.joined(separator: ", "))' @ L\(d.location.line)" }
        if outcomes.isEmpty { return "No matching allow statements" }
        return outcomes.map { o -> String in
            switch o.result {
            case .granted, .notGranted: "false for '\(method.rawValue)' @ L\(o.location.line)"
            case .error(let m): "\(m) for '\(method.rawValue)' @ L\(o.location.line)"
            }
        }.joined(separator: ", ")
    }

    /// The PERMISSION_DENIED message an app sees, naming the request and the rules' outcome.
    public var denialMessage: String {
        var text = "Missing or insufficient permissions. \(method.rawValue) \(path): \(explanation)"
        if !debugOutput.isEmpty { text += "\ndebug():\n" + debugOutput.joined(separator: "\n") }
        return text
    }

    public var description: String { allowed ? "ALLOW (\(explanation))" : "DENY (\(explanation))" }
}

/// The verdict for a batch or transaction: denied as a whole if any write is denied.
public struct RulesBatchDecision: Sendable {
    public var decisions: [RulesDecision]
    public var allowed: Bool { decisions.allSatisfy(\.allowed) }
    public var firstDenial: RulesDecision? { decisions.first { !$0.allowed } }
}
