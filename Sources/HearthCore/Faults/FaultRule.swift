/// Faults on demand: the one model every front end shares (docs/faults.md). A rule says
/// which requests it hits — a project and database (or all), a Firestore method (the RPC's
/// name: `Commit`, `RunQuery`, `Listen`, …; REST routes and WebChannel streams map onto the
/// same names), optionally a document-path prefix — what happens to them (a delay, an
/// error status, a stream dropped after N messages, a connection reset, or the request
/// carried out and its answer dropped) and how often (once, N times, always, or with a
/// probability drawn from a seed, so a run is repeatable). The model lives in HearthCore so
/// the embedded API (`Firestore.faults`) and the server (`EmulatorState.faults`) read the
/// same rules; each front end only translates an effect into its protocol.
///
/// A fault never corrupts state: an error or reset is raised before the request's work
/// (a commit that failed by injection did not happen); a dropped answer is raised after
/// it (the commit happened, exactly once).

/// The Firestore methods, by their RPC names (google.firestore.v1.Firestore).
public enum FaultMethod: String, Sendable, CaseIterable {
    case getDocument = "GetDocument", createDocument = "CreateDocument", updateDocument = "UpdateDocument"
    case deleteDocument = "DeleteDocument", listDocuments = "ListDocuments", listCollectionIds = "ListCollectionIds"
    case batchGetDocuments = "BatchGetDocuments", beginTransaction = "BeginTransaction", commit = "Commit"
    case rollback = "Rollback", batchWrite = "BatchWrite", runQuery = "RunQuery"
    case runAggregationQuery = "RunAggregationQuery", partitionQuery = "PartitionQuery"
    case executePipeline = "ExecutePipeline", listen = "Listen", write = "Write"

    /// The bidirectional streams: the only methods a dropped stream applies to.
    public var isStream: Bool { self == .listen || self == .write }

    /// Reads a method name, case-insensitively (`commit`, `Commit`, `COMMIT`).
    public init?(name: String) {
        let lower = name.lowercased()
        guard let m = Self.allCases.first(where: { $0.rawValue.lowercased() == lower }) else { return nil }
        self = m
    }
}

/// What an injected fault does to a request it hits.
public enum FaultEffect: Sendable, Equatable {
    /// Fails the request with this status before any of its work is done.
    case error(FirestoreError.Code, message: String)
    /// Ends a Listen or Write stream with UNAVAILABLE once it has sent this many more
    /// messages (0: at once).
    case dropStream(afterMessages: Int)
    /// Closes the connection before any of the request's work is done.
    case resetConnection
    /// Carries the request out, then closes the connection instead of answering.
    case dropAnswer

    /// The status codes an injected error may carry: the ones production's clients retry or
    /// report as transient, which are what a test wants to provoke.
    public static let errorCodes: [FirestoreError.Code] = [.unavailable, .aborted, .deadlineExceeded, .resourceExhausted, .internal, .cancelled, .unknown]
}

/// How often a rule fires.
public enum FaultSchedule: Sendable, Equatable {
    /// The first `n` requests it matches (`once` is 1), then the rule is gone.
    case times(Int)
    /// Every request it matches, until cleared.
    case always
    /// Each matching request with probability `p`, drawn from a generator seeded with
    /// `seed` (SplitMix64): the same seed and the same requests fire the same way.
    case probability(Double, seed: UInt64)

    public static let once = FaultSchedule.times(1)
}

/// One fault: which requests it hits, what it does, how often.
public struct FaultRule: Sendable, Equatable {
    /// nil: every project.
    public var project: String?
    /// nil: every database.
    public var database: String?
    /// nil: every method.
    public var method: FaultMethod?
    /// When set, only requests naming a document or collection at or under this path
    /// (segment by segment: `users` covers `users/alice`, not `usersX`).
    public var pathPrefix: ResourcePath?
    /// Milliseconds to wait before the request goes on (0: none); combines with `effect`.
    public var delayMilliseconds: Int
    /// nil: the delay alone.
    public var effect: FaultEffect?
    public var schedule: FaultSchedule

    public init(project: String? = nil, database: String? = nil, method: FaultMethod? = nil, pathPrefix: ResourcePath? = nil,
                delayMilliseconds: Int = 0, effect: FaultEffect? = nil, schedule: FaultSchedule = .always) {
        self.project = project
        self.database = database
        self.method = method
        self.pathPrefix = pathPrefix
        self.delayMilliseconds = delayMilliseconds
        self.effect = effect
        self.schedule = schedule
    }

    /// Whether the rule covers a request (its schedule aside). `paths` are the documents
    /// or collections the request names; a rule with a path prefix covers none without.
    func covers(project: String?, database: String?, method: FaultMethod, paths: [ResourcePath]) -> Bool {
        if let m = self.method, m != method { return false }
        if let p = self.project, let project, p != project { return false }
        if let d = self.database, let database, d != database { return false }
        if let prefix = pathPrefix {
            return paths.contains { $0.segments.count >= prefix.segments.count && $0.segments.starts(with: prefix.segments) }
        }
        return true
    }

    /// Checks what the front ends could not honour: a rule that would do nothing or
    /// something the method cannot do.
    public func validate() throws(FirestoreError) {
        guard delayMilliseconds >= 0, delayMilliseconds <= 600_000 else {
            throw .invalidArgument("A fault's delay must be between 0 and 600000 ms, got \(delayMilliseconds).")
        }
        guard delayMilliseconds > 0 || effect != nil else {
            throw .invalidArgument("A fault needs an effect: delay, error, dropAfter, reset or dropAnswer.")
        }
        switch effect {
        case .error(let code, _):
            guard FaultEffect.errorCodes.contains(code) else {
                throw .invalidArgument("A fault's error must be one of \(FaultEffect.errorCodes.map(\.name).joined(separator: ", ")), got \(code.name).")
            }
        case .dropStream(let n):
            guard n >= 0 else { throw .invalidArgument("dropAfter must be 0 or more messages, got \(n).") }
            guard let method, method.isStream else {
                throw .invalidArgument("dropAfter applies to the streams only: give method Listen or Write.")
            }
        case .resetConnection, .dropAnswer, nil:
            break
        }
        switch schedule {
        case .times(let n) where n < 1: throw .invalidArgument("times must be at least 1, got \(n).")
        case .probability(let p, _) where !(p >= 0 && p <= 1): throw .invalidArgument("probability must be between 0 and 1, got \(p).")
        default: break
        }
    }
}

extension FirestoreError {
    /// The error a reset raises where there is no connection to close (the embedded API),
    /// and that the server's front ends turn into closing the connection.
    public static let injectedReset = FirestoreError(.unavailable, "The connection was reset (injected fault).", closesConnection: true)
    /// Raised after the work of a request whose answer is dropped.
    public static let injectedDroppedAnswer = FirestoreError(.unavailable, "The connection was lost before the answer (injected fault; the request was carried out).", closesConnection: true)
    /// A stream ended by a `dropStream` fault.
    public static let injectedDroppedStream = FirestoreError(.unavailable, "The stream was dropped (injected fault).")
}
