import HearthCore

/// One Cloud Functions trigger the Functions emulator registered (firebase-tools
/// src/emulator/functionsEmulator.ts): a key (`{region}-{name}-{generation}`), what it
/// fires on and which documents it watches. A class: every event of it holds one reference
/// (copying its strings into each event cost a reference count each).
final class Trigger: Sendable {
    enum Generation: Sendable, Equatable {
        /// 1st gen: a JSON `{data, context}` body (firebase-functions src/v1/providers/firestore.ts).
        case v1
        /// 2nd gen: a binary-mode CloudEvent (firebase-functions src/v2/providers/firestore.ts).
        case v2(authContext: Bool)
    }

    /// Which changes fire it.
    enum Change: Sendable, Equatable {
        case written, created, updated, deleted
    }

    let key: String
    let project: String
    let generation: Generation
    let change: Change
    /// The event type as registered (`providers/cloud.firestore/eventTypes/document.write`,
    /// `google.cloud.firestore.document.v1.written.withAuthContext`, …): events carry it.
    let eventType: String
    /// The database watched (nil: a registration whose resource names none, which the
    /// official emulator accepts and never fires).
    let database: DatabaseID?
    let pattern: TriggerPattern

    init(key: String, project: String, generation: Generation, change: Change, eventType: String,
         database: DatabaseID?, pattern: TriggerPattern) {
        self.key = key
        self.project = project
        self.generation = generation
        self.change = change
        self.eventType = eventType
        self.database = database
        self.pattern = pattern
    }

    /// Whether a commit's change to `entry` fires this trigger. The official emulator
    /// (recorded: Tests/Differential/cases/triggers.py) fires 1st-gen triggers only for a
    /// change of content (never for a write that leaves a document as it was, nor the delete
    /// of a missing one), and 2nd-gen triggers for every document a write names, classified
    /// by the version before alone first: no version before is a create — the delete of a
    /// missing document included —, then no version after a delete, else an update (an
    /// unchanged write included).
    func fires(on entry: CommittedDocuments.Entry, in database: DatabaseID) -> Bool {
        guard database == self.database else { return false }
        if case .v1 = generation, !entry.changed { return false }
        switch change {
        case .written: break
        case .created: guard entry.before == nil else { return false }
        case .updated: guard entry.before != nil, entry.after != nil else { return false }
        case .deleted: guard entry.before != nil, entry.after == nil else { return false }
        }
        return pattern.matches(entry.key.path)
    }
}

/// The documents a trigger watches: a path of literal segments, `{name}` (one segment) and
/// `{name=**}` (one or more, at the end); or, for a 2nd-gen `EXACT` match, one literal path
/// (braces included).
struct TriggerPattern: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case wildcard
        case rest
    }

    let segments: [Segment]

    /// A pattern that matches nothing (a resource that names no documents).
    static let none = TriggerPattern(segments: [])

    init(segments: [Segment]) { self.segments = segments }

    /// `users/{uid}/posts/{post}`; with `exact`, every segment is literal.
    init(_ text: String, exact: Bool = false) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, !parts.contains(where: \.isEmpty) else { self = .none; return }
        segments = parts.map { part in
            guard !exact, part.hasPrefix("{"), part.hasSuffix("}"), part.count >= 2 else { return .literal(part) }
            return part.hasSuffix("=**}") ? .rest : .wildcard
        }
    }

    func matches(_ path: ResourcePath) -> Bool {
        let doc = path.segments
        guard !segments.isEmpty else { return false }
        var i = 0
        for (n, s) in segments.enumerated() {
            switch s {
            case .rest:
                // `{x=**}` is last and takes what is left (at least one segment).
                return n == segments.count - 1 && doc.count > i
            case .wildcard:
                guard i < doc.count else { return false }
            case .literal(let text):
                guard i < doc.count, doc[i] == text else { return false }
            }
            i += 1
        }
        return i == doc.count
    }
}
