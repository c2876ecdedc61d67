import Foundation
import HearthCore
import HearthTransport
import HearthLock
import Synchronization

/// How trigger events are delivered: bounds and patience.
public struct TriggerDeliveryPolicy: Sendable, Equatable {
    /// Events waiting (or being sent) at most; past it new events are dropped and logged.
    public var capacity: Int
    /// Delivery threads. A document's events always go through the same one, in commit
    /// order; different documents' events go in parallel.
    public var lanes: Int
    /// Attempts per event when the Functions emulator cannot be reached (refused, reset) or
    /// answers 502/503/504. A timeout is not retried: the function may be running.
    public var maxAttempts: Int
    /// The wait before the second attempt; each later wait is four times the one before.
    public var initialBackoff: Duration
    /// How long connecting, and then sending or waiting for the answer, may take.
    public var timeout: Double

    public init(capacity: Int = 10_000, lanes: Int = 4, maxAttempts: Int = 4,
                initialBackoff: Duration = .milliseconds(100), timeout: Double = 60) {
        self.capacity = max(1, capacity)
        self.lanes = max(1, lanes)
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.timeout = timeout
    }
}

/// The delivery of trigger events to the Functions emulator, off the commit path: a commit
/// only appends its documents to the intake (under a short lock; never waits, never does
/// I/O, never matches); the dispatching thread matches them against the triggers and appends
/// the events to their document's lane, in commit order; each lane's thread sends them one by
/// one over a kept-alive connection. Bounded:
/// `capacity` events wait at most (overflow is dropped and logged); an unreachable Functions
/// emulator costs each event at most `maxAttempts` tries, and once a lane has given up on
/// one event the next get a single try until one succeeds, so a dead endpoint drains the
/// queue at the connect-refused rate instead of stalling it.
final class TriggerDelivery: @unchecked Sendable {
    // @unchecked: each Lane's mutable state is only touched under its NSCondition.
    let policy: TriggerDeliveryPolicy
    private let lanes: [Lane]
    /// Commits not yet matched, in commit order, for the dispatching thread.
    private let intake = Intake()
    private let registry: TriggerRegistry
    private let requestLog: RequestLog
    private let settings: HearthMutex<(address: String?, paused: Bool)>
    private let pending = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    let retried = Atomic<Int>(0)
    private let logged = Atomic<Int>(0)

    // @unchecked: touched only under `condition` (and `failing`, the connection: by its thread).
    private final class Lane: @unchecked Sendable {
        let condition = NSCondition()
        var queue: [TriggerEvent] = []
        var head = 0
        var started = false
        /// Its thread waits for work (only then does a commit signal it).
        var idle = false
        /// The last event given up on: the next get one try.
        var failing = false
        var connection: HTTPClientConnection?
        var connectionAddress: String?
    }

    // @unchecked: touched only under `condition`.
    private final class Intake: @unchecked Sendable {
        let condition = NSCondition()
        var commits: [CommittedDocuments] = []
        var started = false
        var idle = false
    }

    init(policy: TriggerDeliveryPolicy, requestLog: RequestLog, address: String?, paused: Bool, registry: TriggerRegistry) {
        self.policy = policy
        self.registry = registry
        self.requestLog = requestLog
        lanes = (0..<policy.lanes).map { _ in Lane() }
        settings = HearthMutex((address, paused))
    }

    var address: String? { settings.withLock { $0.address } }
    var paused: Bool { settings.withLock { $0.paused } }
    /// Events waiting or being sent.
    var queued: Int { pending.load(ordering: .relaxed) }

    func configure(address: String??, paused: Bool?) {
        settings.withLock { s in
            if let address { s.address = address }
            if let paused { s.paused = paused }
        }
        for lane in lanes {
            lane.condition.lock()
            lane.condition.broadcast()
            lane.condition.unlock()
        }
    }

    /// Takes a commit's documents (called under its commit lock: one short lock, and a
    /// wake-up only if the dispatching thread sleeps). A commit counts as one queued event
    /// until it is matched.
    func admit(_ commit: CommittedDocuments) {
        if pending.add(1, ordering: .relaxed).newValue > policy.capacity {
            pending.subtract(1, ordering: .relaxed)
            let n = dropped.add(1, ordering: .relaxed).newValue
            if n == 1 || n % 1000 == 0 {
                HearthLog.warning("Cloud Functions triggers: the delivery queue is full (\(policy.capacity) events); dropped \(n) event(s) or commit(s) so far.")
            }
            return
        }
        intake.condition.lock()
        intake.commits.append(commit)
        if !intake.started {
            intake.started = true
            let thread = Thread { [self] in dispatch() }
            thread.name = "hearth-triggers-dispatch"
            thread.start()
        }
        if intake.idle { intake.condition.signal() }
        intake.condition.unlock()
    }

    /// The dispatching thread: matches admitted commits in commit order, queues their events.
    /// While commits keep coming it looks for more every millisecond rather than being woken
    /// (a wake-up is a system call, as dear as a small commit); after 50 ms without one it
    /// sleeps until a commit signals it.
    private func dispatch() {
        while true {
            intake.condition.lock()
            var polls = 0
            while intake.commits.isEmpty {
                if polls < 50 {
                    polls += 1
                    _ = intake.condition.wait(until: Date(timeIntervalSinceNow: 0.001))
                } else {
                    intake.idle = true
                    intake.condition.wait()
                }
            }
            intake.idle = false
            let commits = intake.commits
            intake.commits.removeAll(keepingCapacity: true)
            intake.condition.unlock()
            for commit in commits {
                // The commit's unit of the bound passes to its first event (no moment where
                // it is counted twice, or not at all).
                enqueue(registry.events(for: commit), reserved: 1)
            }
        }
    }

    /// Queues events on their documents' lanes (each lane's lock taken once; its thread woken
    /// only if it sleeps). The first `reserved` events are already counted in the bound.
    func enqueue(_ events: [TriggerEvent], reserved: Int = 0) {
        var byLane: [[TriggerEvent]] = Array(repeating: [], count: lanes.count)
        var documentLane: (key: DocumentKey, lane: Int)?
        if events.count < reserved { pending.subtract(reserved - events.count, ordering: .relaxed) }
        for (n, event) in events.enumerated() {
            if n >= reserved, pending.add(1, ordering: .relaxed).newValue > policy.capacity {
                pending.subtract(1, ordering: .relaxed)
                let n = dropped.add(1, ordering: .relaxed).newValue
                if n == 1 || n % 1000 == 0 {
                    HearthLog.warning("Cloud Functions triggers: the delivery queue is full (\(policy.capacity) events); dropped \(n) event(s) so far, the latest for \(event.trigger.key) on \(event.entry.key.path).")
                }
                continue
            }
            // A document's events are consecutive: hash its path once.
            if documentLane?.key != event.entry.key {
                var hasher = Hasher()
                hasher.combine(event.database.project)
                hasher.combine(event.database.database)
                hasher.combine(event.entry.key.path.segments)
                documentLane = (event.entry.key, Int(UInt(bitPattern: hasher.finalize()) % UInt(lanes.count)))
            }
            byLane[documentLane!.lane].append(event)
        }
        for (i, batch) in byLane.enumerated() where !batch.isEmpty {
            let lane = lanes[i]
            lane.condition.lock()
            lane.queue.append(contentsOf: batch)
            if !lane.started {
                lane.started = true
                let thread = Thread { [self] in run(lane) }
                thread.name = "hearth-triggers"
                thread.start()
            }
            if lane.idle { lane.condition.signal() }
            lane.condition.unlock()
        }
    }

    /// Waits until nothing is queued or being sent (tests, benchmarks); false on timeout.
    func waitUntilIdle(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while pending.load(ordering: .relaxed) > 0 {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return true
    }

    private func run(_ lane: Lane) {
        while true {
            lane.condition.lock()
            while lane.head == lane.queue.count || paused {
                lane.idle = true
                lane.condition.wait()
            }
            lane.idle = false
            let event = lane.queue[lane.head]
            lane.head += 1
            if lane.head > 1024, lane.head * 2 > lane.queue.count {
                lane.queue.removeFirst(lane.head)
                lane.head = 0
            }
            lane.condition.unlock()
            deliver(event, on: lane)
            pending.subtract(1, ordering: .relaxed)
        }
    }

    private enum Outcome {
        case answered(Int)
        case failed(String)
    }

    private func deliver(_ event: TriggerEvent, on lane: Lane) {
        let started = ContinuousClock.now
        let wallStart = Date()
        let (headers, body) = event.request()
        let attempts = lane.failing ? 1 : policy.maxAttempts
        var backoff = policy.initialBackoff
        var outcome = Outcome.failed("no Functions emulator address is set")
        var attempt = 0
        while attempt < attempts {
            attempt += 1
            guard let address = self.address, let (host, port) = HTTPClientConnection.parseAddress(address) else {
                outcome = .failed("no Functions emulator address is set")
                break
            }
            if lane.connectionAddress != address {
                lane.connection?.close()
                lane.connection = HTTPClientConnection(host: host, port: port, timeout: policy.timeout)
                lane.connectionAddress = address
            }
            do throws(HTTPClientConnection.Failure) {
                let response = try lane.connection!.send(method: "POST", path: event.path, headers: headers, body: body)
                outcome = .answered(response.status)
                if [502, 503, 504].contains(response.status), attempt < attempts {
                    retried.add(1, ordering: .relaxed)
                    Thread.sleep(forTimeInterval: seconds(backoff))
                    backoff *= 4
                    continue
                }
                break
            } catch {
                outcome = .failed(error.description)
                guard error.retryable, attempt < attempts else { break }
                retried.add(1, ordering: .relaxed)
                Thread.sleep(forTimeInterval: seconds(backoff))
                backoff *= 4
            }
        }
        let duration = ContinuousClock.now - started
        var status: Int?
        var problem: String?
        switch outcome {
        case .answered(let s):
            status = s
            if (200..<300).contains(s) {
                delivered.add(1, ordering: .relaxed)
                lane.failing = false
            } else {
                // It answered: it is up (404: it no longer knows the key), unless it said it
                // is unavailable after every attempt.
                failed.add(1, ordering: .relaxed)
                lane.failing = [502, 503, 504].contains(s)
                problem = "the Functions emulator answered \(s)" + (attempt > 1 ? " (after \(attempt) attempts)" : "")
            }
        case .failed(let why):
            failed.add(1, ordering: .relaxed)
            lane.failing = true
            problem = why + (attempt > 1 ? " (after \(attempt) attempts)" : "")
        }
        if let problem {
            // Bounded: the first 20 failures, then one line in 500.
            let n = logged.add(1, ordering: .relaxed).newValue
            if n <= 20 || n % 500 == 0 {
                HearthLog.warning("Cloud Functions trigger \(event.trigger.key) for \(event.database.resourceName(event.entry.key.path)): \(problem)\(n == 20 ? "; further failures are logged once in 500" : "").")
            }
        }
        if requestLog.isObserved {
            var entry = RequestLogEntry(time: wallStart, transport: .trigger, method: "POST \(event.trigger.eventType)",
                                        path: event.path, caller: .owner)
            entry.database = event.database
            entry.resources = [event.entry.key.path]
            entry.duration = duration
            entry.httpStatus = status
            entry.code = problem == nil ? .ok : (status == nil ? .unavailable : .unknown)
            entry.message = problem.map { "trigger \(event.trigger.key): \($0)" }
            requestLog.record(entry)
        }
    }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
