import Foundation
import HearthCore
import HearthGRPC

/// One `Listen` stream (over gRPC, or over WebChannel as JSON): the targets the client added, each
/// registered with `Database.listen` as a subscription to the engine's change sets, and
/// the work that turns requests and view snapshots into ListenResponses in order — run a
/// batch at a time on the worker pool when something arrives, so an open stream with
/// nothing to say holds no thread.
///
/// Requests, the end of input and every snapshot the engine hands over (under its commit
/// lock, so only queued here) go through one mailbox; the session sends, for a new
/// target, ADD (RESET when a resume cannot be answered exactly) → DocumentChanges (the
/// exact delta for a resume, then an ExistenceFilter when the client sent expected_count) →
/// CURRENT, for a commit DocumentChange / DocumentDelete / DocumentRemove, and after the
/// snapshots of one read time the global NO_CHANGE with that read time and a resume token.
/// A target that fails validation or the security rules is answered with REMOVE carrying
/// the error as its cause; a malformed request ends the stream with INVALID_ARGUMENT. The
/// stream ends OK when the client half-closes; a reset, deadline or server stop ends it
/// too. Whatever ends it, the session unregisters every target. Between batches the session
/// waits (holding no thread) while the client is behind on reading; a client that stops
/// reading while commits go on gets, past `maxQueuedEvents`, a RESET and its targets' full
/// results instead of an ever longer backlog.
final class ListenSession: StreamSession, @unchecked Sendable {
    enum Event: StreamSessionEvent {
        case request([UInt8])
        case inputEnded
        case cancelled
        case snapshot(target: Int32, generation: Int, ViewSnapshot)
        /// Stands for a run of a target's snapshots dropped from a long queue: the last of
        /// them, whose full result is sent after a RESET.
        case resync(target: Int32, generation: Int, ViewSnapshot)

        var isSnapshot: Bool {
            switch self {
            case .snapshot, .resync: true
            case .request, .inputEnded, .cancelled: false
            }
        }

        /// The read time of a snapshot.
        var readTime: Timestamp? {
            switch self {
            case .snapshot(_, _, let s), .resync(_, _, let s): s.readTime
            case .request, .inputEnded, .cancelled: nil
            }
        }

        /// Work that may take long (a request may run a query; a new target's result and a
        /// resync send whole results), done on a worker rather than the event loop.
        var needsWorker: Bool {
            switch self {
            case .request, .resync: true
            case .snapshot(_, _, let s): s.isInitial
            case .inputEnded, .cancelled: false
            }
        }
    }

    /// Queued events beyond which a target's pending changes are collapsed into one resync.
    static let maxQueuedEvents = 1_000

    /// A registered target (worker thread only).
    private struct ActiveTarget {
        let registration: ListenTargetID
        /// Distinguishes this registration's snapshots from an earlier one with the same id.
        let generation: Int
        let target: ListenTarget
        /// The client asked to resume (resume_token or read_time).
        let resumeRequested: Bool
        /// The read time to resume from, when the request carried one we can read.
        let resumeFrom: Timestamp?
        /// The client's document count for a resumed target: answered with an ExistenceFilter.
        let expectedCount: Int32?
        let once: Bool
        /// The initial result until it is sent (it waits in the queue behind what came
        /// before). A remove, or a second add with the same id, that overtakes it sends it
        /// first, as the official emulator answers each request whole before the next:
        /// ADD, the documents, CURRENT, NO_CHANGE, then REMOVE. Holds no copy — the
        /// queued event shares its storage — and is dropped once sent.
        var unsentInitial: ViewSnapshot?
    }

    /// Catches the initial snapshot `Database.listen` hands its sink before returning (under
    /// the commit lock, on the calling thread); later snapshots leave it alone.
    private final class InitialSnapshot: @unchecked Sendable {
        var snapshot: ViewSnapshot?
    }

    let state: EmulatorState
    /// The transport's call. Sends and flushes go through `faults` instead (a `dropAfter`
    /// fault counts them); everything else comes here directly, without a forwarding layer.
    let call: any FirestoreStreamCall
    private let faults: FaultStreamCall
    let codec: any ListenCodec
    /// This stream's entry in `state.streams`.
    private let streamID: Int

    /// Shared with the connection's event loop and the engine's sinks.
    private let events = GRPCMailbox<Event>()

    // The session's batches only (one at a time, whatever thread runs them).
    private var database: DatabaseID?
    private var rules: RulesEnforcer?
    private var targets: [Int32: ActiveTarget] = [:]
    private var nextGeneration = 1
    private var lastReadTime: Timestamp?
    private var finished = false

    private init(state: EmulatorState, call: any FirestoreStreamCall, codec: any ListenCodec) {
        self.state = state
        faults = FaultStreamCall(call)
        self.call = call
        self.codec = codec
        streamID = call.register(.listen, in: state)
    }

    /// Starts a session for `call`; its batches run on the server's worker pool.
    static func start(state: EmulatorState, call: any FirestoreStreamCall, codec: any ListenCodec = ListenProtobufCodec()) -> ListenSession {
        ListenSession(state: state, call: call, codec: codec).hearingItsEnd()
    }

    // MARK: Events from the call (the connection's event loop)

    func enqueue(_ event: Event) {
        if events.append(event) {
            if case .request = event { schedule() } else { scheduleOnLoop() }
        }
    }

    /// Runs the next batches where the stream's I/O is handled (`drain(onLoop:)`), as
    /// `schedule` does on the pool.
    private func scheduleOnLoop() {
        if !call.runNonBlocking({ [self] in drain(onLoop: true) }) {
            call.onEventLoop { [self] in
                finished = true
                stopAll()
            }
        }
    }

    /// Runs the next batches on the worker pool. A full pool ends the call
    /// (RESOURCE_EXHAUSTED); the targets are then released on the event loop, never on the
    /// engine's thread that may be handing over a snapshot under its lock.
    private func schedule(taken: [Event]? = nil) {
        if !call.runWorker({ [self] in drain(taken: taken) }) {
            call.onEventLoop { [self] in
                finished = true
                stopAll()
            }
        }
    }

    /// Queues a snapshot from the engine. While a client is behind on reading, the session
    /// waits and commits go on; past `maxQueuedEvents`, each target's queued non-initial
    /// snapshots collapse into one resync, so the backlog stays bounded by the number of
    /// targets rather than growing with every commit.
    private func enqueue(snapshot: ViewSnapshot, target id: Int32, generation: Int) {
        if events.append(.snapshot(target: id, generation: generation, snapshot), limit: Self.maxQueuedEvents, compact: Self.collapse) {
            // A commit's change is a few messages: sent from the stream's event loop, with
            // its connection's other streams' in one write, rather than a worker each.
            scheduleOnLoop()
        }
    }

    /// Keeps requests, ends and initial snapshots; replaces each target's later snapshots by
    /// a resync with the last of them, at that last one's place.
    static func collapse(_ queue: [Event]) -> [Event] {
        struct Key: Hashable { let target: Int32; let generation: Int }
        var last: [Key: Int] = [:]
        for (i, event) in queue.enumerated() {
            switch event {
            case .snapshot(let t, let g, let snap) where !snap.isInitial: last[Key(target: t, generation: g)] = i
            case .resync(let t, let g, _): last[Key(target: t, generation: g)] = i
            default: break
            }
        }
        var out: [Event] = []
        for (i, event) in queue.enumerated() {
            switch event {
            case .snapshot(let t, let g, let snap) where !snap.isInitial:
                if last[Key(target: t, generation: g)] == i { out.append(.resync(target: t, generation: g, snap)) }
            case .resync(let t, let g, _):
                if last[Key(target: t, generation: g)] == i { out.append(event) }
            default:
                out.append(event)
            }
        }
        return out
    }

    // MARK: Output

    /// What waits for the client to read, in order: encoded messages, and runs of a
    /// snapshot's documents, encoded only as the client makes room — a large initial result
    /// costs its stream's buffer budget, not its size in encoded messages (the documents
    /// themselves are the engine's, shared).
    private enum Pending {
        case message([UInt8])
        case documents([Document], next: Int, target: Int32, database: DatabaseID)
    }

    private var pending: [Pending] = []
    private var pendingHead = 0

    /// Sends `message` now, or after what is already pending — and keeps it pending while
    /// the client is behind, so the call holds at most one message past its budget however
    /// many changes one batch carries (a batch grows with the commits made while the last
    /// one ran).
    private func emit(_ message: [UInt8]) throws(FirestoreError) {
        if pendingHead == pending.count && writable() { try send(message) } else { pending.append(.message(message)) }
    }

    /// Message bytes that may still be sent before asking the call again (negative: ask).
    /// Asking takes the call's and its connection's locks, so a batch asks once and counts
    /// down what it sends; at most `recheckBytes` are sent between asks, so the connection's
    /// budgets (shared with its other streams) are seen at least that often.
    private var room = -1
    static let recheckBytes = 16 << 10

    /// Whether the client keeps up: more may be sent now.
    private func writable() -> Bool {
        if room >= 0 { return true }
        let asked = call.writableRoom
        room = min(asked, Self.recheckBytes)
        return asked >= 0
    }

    private func send(_ message: [UInt8]) throws(FirestoreError) {
        try faults.send(message)
        room -= message.count
    }

    /// Sends a DocumentChange for each document, as far as the client keeps up.
    private func emitDocuments(_ documents: [Document], to id: Int32, database: DatabaseID) throws(FirestoreError) {
        guard !documents.isEmpty else { return }
        pending.append(.documents(documents, next: 0, target: id, database: database))
        _ = try pump()
    }

    /// Sends what is pending while the client keeps up; true when nothing is left.
    private func pump() throws(FirestoreError) -> Bool {
        while pendingHead < pending.count {
            guard writable() else { return false }
            switch pending[pendingHead] {
            case .message(let message):
                try send(message)
                pendingHead += 1
            case .documents(let documents, var next, let id, let database):
                // Some at a time, then look at the room again.
                let end = min(documents.count, next + 64)
                while next < end {
                    try send(codec.documentChange(documents[next], database: database, targetIDs: [id]))
                    next += 1
                }
                if next == documents.count {
                    pendingHead += 1
                } else {
                    pending[pendingHead] = .documents(documents, next: next, target: id, database: database)
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
        pendingHead = 0
        return true
    }

    // MARK: Batches

    /// Handles what is queued, batch by batch, until nothing is (the session goes idle) or
    /// the client is behind (it resumes when the client has read): first what is pending
    /// for the client, then the next events (`taken`: a batch already taken from the
    /// mailbox). On the event loop (`onLoop`) only the changes of commits are handled —
    /// they never wait; a batch with a request, a new target's result or a resync is
    /// handed to the worker pool, and so is the rest of the session's work from there.
    private func drain(onLoop: Bool = false, taken: [Event]? = nil) {
        var taken = taken
        while !finished {
            if taken == nil {
                do throws(FirestoreError) {
                    let backlog = pendingHead < pending.count
                    guard try pump() else {
                        faults.flush()
                        call.whenWritable { [self] in schedule() }
                        return
                    }
                    // What the backlog sent goes out now: with no event behind it, nothing
                    // else would flush it, and a client that caught up would wait for the
                    // next commit (a WebChannel back channel re-opened while this ran got
                    // only what was there before).
                    if backlog { faults.flush() }
                } catch {
                    finished = true
                    call.finish(error)
                    break
                }
                guard writable() else {
                    call.whenWritable { [self] in schedule() }
                    return
                }
            }
            guard var batch = taken ?? events.take() else { return }
            taken = nil
            if onLoop && batch.contains(where: \.needsWorker) {
                schedule(taken: batch)
                return
            }
            if let database, targets.count > 1, let latest = batch.last(where: \.isSnapshot)?.readTime {
                // The engine publishes a commit's snapshots under its lock, one target after
                // the other: with more than one target, the others' changes of that commit
                // go out before its one NO_CHANGE. Once the commit is published they are
                // all queued; before, taking the lock waits out the publication (on a
                // worker: the event loop hands the batch over rather than wait).
                let db = state.database(database)
                if !db.hasPublished(through: latest) {
                    if onLoop {
                        schedule(taken: batch)
                        return
                    }
                    _ = db.state()
                }
                batch += events.drain()
            }
            do throws(FirestoreError) {
                try process(batch)
                faults.flush()
            } catch {
                finished = true
                call.finish(error)
            }
        }
        stopAll()
    }

    private func stopAll() {
        state.streams.close(streamID)
        guard let database else { return }
        let db = state.database(database)
        for t in targets.values { db.stopListening(t.registration) }
        targets.removeAll()
    }

    /// Handles a batch in order, sending the NO_CHANGE owed for a read time once the
    /// snapshots at that read time are out.
    private func process(_ batch: [Event]) throws(FirestoreError) {
        var owed: Timestamp?
        for event in Self.inTargetOrder(batch) {
            if finished { return }
            switch event {
            case .snapshot(let id, let generation, let snapshot), .resync(let id, let generation, let snapshot):
                guard let target = targets[id], target.generation == generation else { continue }
                if let t = owed, t != snapshot.readTime { try sendNoChange(t); owed = nil }
                if case .resync = event { try resend(snapshot, to: id) } else { try deliver(snapshot, to: id, target) }
                if snapshot.isInitial {
                    // Each target's initial result is closed by its own NO_CHANGE, even when
                    // two targets added together share a read time, as the official emulator
                    // sends them (Tests/Differential/cases/listen_endings.py).
                    try sendNoChange(snapshot.readTime)
                } else {
                    owed = snapshot.readTime
                }
                continue
            default:
                break
            }
            if let t = owed { try sendNoChange(t); owed = nil }
            switch event {
            case .request(let bytes):
                try state.requestLog.serve(call.transport, method: "Listen", path: "/google.firestore.v1.Firestore/Listen",
                                           authorization: call.authorization) { () throws(FirestoreError) in
                    try handle(codec.decodeRequest(bytes))
                }
            case .inputEnded:
                finished = true
                call.finish(.ok, message: "")
            case .cancelled:
                finished = true
            case .snapshot, .resync: break
            }
        }
        if let t = owed, !finished { try sendNoChange(t) }
    }

    /// The batch with each run of changes at one read time (one commit's snapshots, a
    /// snapshot per target) in target-id order, as the official emulator sends a commit's
    /// deletes and changes (Tests/Differential/cases/listen_endings.py): the engine notifies
    /// a database's listeners in no fixed order. A sort of a few events per commit.
    static func inTargetOrder(_ batch: [Event]) -> [Event] {
        func change(_ e: Event) -> (id: Int32, readTime: Timestamp)? {
            if case .snapshot(let id, _, let s) = e, !s.isInitial { return (id, s.readTime) }
            return nil
        }
        var out = batch
        var start = 0
        while start < out.count {
            guard let first = change(out[start]) else { start += 1; continue }
            var end = start + 1
            while end < out.count, let c = change(out[end]), c.readTime == first.readTime { end += 1 }
            if end - start > 1 {
                let run = out[start..<end].enumerated().sorted {
                    let a = change($0.element)!.id, b = change($1.element)!.id
                    return a != b ? a < b : $0.offset < $1.offset
                }.map(\.element)
                out.replaceSubrange(start..<end, with: run)
            }
            start = end
        }
        return out
    }

    /// The read time a client is told. Before the first commit a database's read time is
    /// the minimum timestamp (year 1); SDKs take read times at or before the Unix epoch for
    /// "no version yet" and never raise the snapshot (a first `getDoc` on a fresh server
    /// waited forever), so such a time is reported as the first microsecond after it.
    static func reported(_ readTime: Timestamp) -> Timestamp {
        max(readTime, Timestamp(seconds: 0, nanos: 1000))
    }

    private func sendNoChange(_ readTime: Timestamp) throws(FirestoreError) {
        let t = max(Self.reported(readTime), lastReadTime ?? readTime)
        lastReadTime = t
        try emit(SharedListenEncodings.noChange(t, codec: codec))
    }

    // MARK: Requests

    private func handle(_ request: ListenMessages.Request) throws(FirestoreError) {
        let requested = try ResourceNameFields.database(request.database)
        if let database {
            guard requested == database else {
                throw .invalidArgument("All requests of a Listen stream must name the same database (\(database.name)), got \(request.database).")
            }
        } else {
            let auth = try AuthContext.parse(call.authorization)
            rules = try RulesEnforcer(state: state, database: requested, auth: auth, oneRequest: false)
            database = requested
            state.streams.update(streamID) { $0.database = requested }
        }
        state.streams.update(streamID) { $0.requests += 1 }
        // A dropped answer: the request is handled, then the stream is cut.
        let fault = try faults.fault(state, requested, .listen, faultPaths(of: request, in: requested))
        defer { if fault != nil { call.abortConnection() } }
        switch request.change {
        case nil:
            throw .invalidArgument("A ListenRequest needs add_target or remove_target.")
        case .remove(let id):
            // Removing a target that is not there is answered with nothing (as the official
            // emulator does).
            guard let target = targets[id] else { return }
            if try sendUnsentInitial(of: target, id: id) { return }  // a once-target: removed with its result
            targets[id] = nil
            state.database(requested).stopListening(target.registration)
            state.streams.update(streamID) { $0.targets[id] = nil }
            try emit(codec.targetChange(.remove, targetIDs: [id]))
        case .add(let spec):
            try add(spec, database: requested)
        }
    }

    /// What a fault's path prefix sees of a Listen request (only asked while a fault is set):
    /// an added target's documents, or its query's collection (as RunQuery's); a removed
    /// target's the same. A target that does not resolve names nothing (its error comes later).
    private func faultPaths(of request: ListenMessages.Request, in database: DatabaseID) -> [ResourcePath] {
        let target: ListenTarget?
        switch request.change {
        case .add(let spec): target = try? ListenMessages.resolve(spec.kind, database: database)
        case .remove(let id): target = targets[id]?.target
        case nil: target = nil
        }
        switch target {
        case .documents(let paths): return paths
        case .query(let query): return [query.collectionPath]
        case nil: return []
        }
    }

    private func add(_ spec: ListenMessages.TargetRequest, database: DatabaseID) throws(FirestoreError) {
        let id = spec.targetID != 0 ? spec.targetID : (targets.keys.max() ?? 0) + 1
        // A once-target whose result goes out whole here leaves with it, freeing the id.
        if let existing = targets[id], try !sendUnsentInitial(of: existing, id: id) {
            // As production answers a target id already in use (Firebase clients report it
            // as "already-exists: Target ID already exists: 2"): the id's target is removed
            // with that cause, and the stream goes on.
            targets[id] = nil
            state.database(database).stopListening(existing.registration)
            state.streams.update(streamID) { $0.targets[id] = nil }
            try emit(codec.targetChange(.remove, targetIDs: [id], cause: FirestoreError(.alreadyExists, "Target ID already exists: \(id)")))
            return
        }
        let db = state.database(database)
        let generation = nextGeneration
        nextGeneration += 1
        do throws(FirestoreError) {
            let target = try ListenMessages.resolve(spec.kind, database: database)
            if let trace = RequestTrace.current(ifObserving: state.requestLog) {
                switch target {
                case .documents(let paths): for p in paths { trace.named(p, in: database) }
                case .query(let q): trace.named(q.collectionPath, in: database)
                }
            }
            let current = db.state()
            switch target {
            case .documents(let paths): for p in paths { try p.validateSegments(); try rules?.checkGet(p, in: current) }
            case .query(let q): try rules?.checkQuery(q, in: current)
            }
            let initial = InitialSnapshot()
            let registration = try db.listen(target) { [weak self] snapshot in
                if snapshot.isInitial { initial.snapshot = snapshot }
                self?.enqueue(snapshot: snapshot, target: id, generation: generation)
            }
            let resumeFrom = spec.readTime ?? spec.resumeToken.flatMap(ListenResumeToken.decode)
            targets[id] = ActiveTarget(registration: registration, generation: generation, target: target,
                                       resumeRequested: spec.readTime != nil || !(spec.resumeToken ?? []).isEmpty,
                                       resumeFrom: resumeFrom, expectedCount: spec.expectedCount, once: spec.once,
                                       unsentInitial: initial.snapshot)
            initial.snapshot = nil
            state.streams.update(streamID) { $0.targets[id] = target }
        } catch {
            // The target is acknowledged, then removed with the reason (the official
            // emulator's order: ADD, then REMOVE carrying the cause).
            RequestTrace.current(ifObserving: state.requestLog)?.failed(error)
            try emit(codec.targetChange(.add, targetIDs: [id]))
            try emit(codec.targetChange(.remove, targetIDs: [id], cause: error))
        }
    }

    // MARK: Snapshots

    /// Sends `target`'s initial result now if it has not gone out yet (its queued event is
    /// then skipped: the target is removed or replaced next). True when that removed a
    /// once-target, which leaves nothing more to do for it.
    private func sendUnsentInitial(of target: ActiveTarget, id: Int32) throws(FirestoreError) -> Bool {
        guard let initial = target.unsentInitial else { return false }
        try deliver(initial, to: id, target)
        try sendNoChange(initial.readTime)
        return target.once
    }

    private func deliver(_ snapshot: ViewSnapshot, to id: Int32, _ target: ActiveTarget) throws(FirestoreError) {
        guard let database else { return }
        guard snapshot.isInitial else {
            for change in snapshot.changes {
                if change.kind == .removed {
                    try sendGone(change.document.path, from: id, readTime: snapshot.readTime, database: database)
                } else {
                    try emit(SharedListenEncodings.documentChange(change.document, database: database, targetIDs: [id], codec: codec))
                }
            }
            return
        }
        try emit(codec.targetChange(.add, targetIDs: [id]))
        targets[id]?.unsentInitial = nil
        var previous: [ResourcePath: Document]?
        if target.resumeRequested {
            if let from = target.resumeFrom, from <= snapshot.readTime {
                previous = try? documents(of: target.target, at: from, database: database)
            }
            if previous == nil { try emit(codec.targetChange(.reset, targetIDs: [id])) }
        }
        if let previous {
            // An exact delta since the resume time.
            var present = Set<ResourcePath>()
            var changed: [Document] = []
            for doc in snapshot.documents {
                present.insert(doc.path)
                if previous[doc.path]?.updateTime != doc.updateTime { changed.append(doc) }
            }
            try emitDocuments(changed, to: id, database: database)
            for path in previous.keys.sorted(by: { $0.description < $1.description }) where !present.contains(path) {
                try sendGone(path, from: id, readTime: snapshot.readTime, database: database)
            }
            if target.expectedCount != nil {
                // As production: the count after the delta, so a client whose cache went
                // wrong resets the target.
                try emit(codec.existenceFilter(targetID: id, count: snapshot.documents.count))
            }
        } else {
            try emitDocuments(Array(snapshot.documents), to: id, database: database)
        }
        try emit(codec.targetChange(.current, targetIDs: [id], resumeToken: ListenResumeToken.encode(Self.reported(snapshot.readTime)),
                                                        readTime: Self.reported(snapshot.readTime)))
        if target.once {
            state.database(database).stopListening(target.registration)
            targets[id] = nil
            state.streams.update(streamID) { $0.targets[id] = nil }
            try emit(codec.targetChange(.remove, targetIDs: [id]))
        }
    }

    /// A target's whole result after its changes were collapsed: RESET, every document,
    /// CURRENT (the client drops what it held and takes this).
    private func resend(_ snapshot: ViewSnapshot, to id: Int32) throws(FirestoreError) {
        guard let database else { return }
        try emit(codec.targetChange(.reset, targetIDs: [id]))
        try emitDocuments(Array(snapshot.documents), to: id, database: database)
        try emit(codec.targetChange(.current, targetIDs: [id], resumeToken: ListenResumeToken.encode(Self.reported(snapshot.readTime)),
                                                        readTime: Self.reported(snapshot.readTime)))
    }

    /// A document that left target `id`: DocumentDelete when it no longer exists at
    /// `readTime`, DocumentRemove when it exists but stopped matching.
    private func sendGone(_ path: ResourcePath, from id: Int32, readTime: Timestamp, database: DatabaseID) throws(FirestoreError) {
        if state.database(database).state().document(path, at: readTime) == nil {
            try emit(codec.documentDelete(path, database: database, removedTargetIDs: [id], readTime: readTime))
        } else {
            try emit(codec.documentRemove(path, database: database, removedTargetIDs: [id], readTime: readTime))
        }
    }

    /// A target's documents at an earlier, still retained read time (throws when it is not).
    private func documents(of target: ListenTarget, at time: Timestamp, database: DatabaseID) throws(FirestoreError) -> [ResourcePath: Document] {
        let db = state.database(database)
        var out: [ResourcePath: Document] = [:]
        switch target {
        case .documents(let paths):
            let s = try db.state(readTime: time)
            for p in paths { if let d = s.document(p, at: time) { out[p] = d } }
        case .query(let q):
            for d in try db.runQuery(q, readTime: time).documents { out[d.path] = d }
        }
        return out
    }
}
