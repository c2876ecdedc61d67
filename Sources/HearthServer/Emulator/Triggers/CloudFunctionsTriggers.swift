import Foundation
import HearthCore
import Synchronization

/// Cloud Functions triggers, as the Functions emulator uses the Firestore emulator
/// (firebase-tools src/emulator/functionsEmulator.ts): it registers triggers
/// (`PUT /emulator/v1/projects/{p}/triggers/{key}`, `POST …/eventarcTrigger?eventarcTriggerId=`,
/// TriggerEndpoints.swift), and every committed write that matches one is POSTed to
/// `http://{functionsEmulator}/functions/projects/{p}/triggers/{key}` (TriggerEvent.swift),
/// asynchronously (TriggerDelivery.swift), the triggers kept by TriggerRegistry.swift.
///
/// It sees every commit of every database of the emulator (a `CommitObserver` the
/// `DatabaseRegistry` installs on each), whatever front end wrote: REST, gRPC, WebChannel,
/// batches, transactions, imports and clears. While no trigger is registered or no Functions
/// emulator address is set, a commit pays one atomic load for it.
public final class CloudFunctionsTriggers: CommitObserver, Sendable {
    /// Where events go and whether they go now.
    public struct Configuration: Sendable, Equatable {
        /// `host:port` of the Functions emulator; nil: events are not made.
        public var functionsEmulator: String?
        /// Events queue (up to the policy's capacity) until delivery resumes.
        public var paused: Bool
    }

    /// Counts since start.
    public struct Statistics: Sendable, Equatable {
        public var registered: Int
        public var queued: Int
        public var delivered: Int
        public var failed: Int
        public var dropped: Int
        public var retried: Int
    }

    let registry = TriggerRegistry()
    private let active = Atomic<Bool>(false)
    let delivery: TriggerDelivery

    public init(requestLog: RequestLog = RequestLog(), functionsEmulator: String? = nil, paused: Bool = false,
                policy: TriggerDeliveryPolicy = TriggerDeliveryPolicy()) {
        delivery = TriggerDelivery(policy: policy, requestLog: requestLog, address: functionsEmulator, paused: paused,
                                   registry: registry)
    }

    public var configuration: Configuration {
        Configuration(functionsEmulator: delivery.address, paused: delivery.paused)
    }

    /// Sets the Functions emulator's address (`.some(nil)` clears it) and/or pauses or
    /// resumes delivery; nil leaves a setting as it is.
    public func configure(functionsEmulator: String?? = nil, paused: Bool? = nil) {
        delivery.configure(address: functionsEmulator, paused: paused)
        updateActive()
    }

    public var statistics: Statistics {
        Statistics(registered: registry.count,
                   queued: delivery.queued, delivered: delivery.delivered.load(ordering: .relaxed),
                   failed: delivery.failed.load(ordering: .relaxed), dropped: delivery.dropped.load(ordering: .relaxed),
                   retried: delivery.retried.load(ordering: .relaxed))
    }

    /// Waits until every queued event has been sent (or given up on); false on timeout.
    /// While paused, only a timeout ends it.
    public func waitUntilIdle(timeout: Duration = .seconds(10)) -> Bool {
        delivery.waitUntilIdle(timeout: timeout)
    }

    /// The registered trigger keys of a project, in registration order.
    public func keys(project: String) -> [String] {
        registry.keys(project: project)
    }

    /// Registers a trigger as the Functions emulator would (for embedders, tests and
    /// benchmarks): `eventType` is a 1st-gen (`providers/cloud.firestore/eventTypes/document.write`)
    /// or 2nd-gen (`google.cloud.firestore.document.v1.written`) type; `document` a pattern
    /// (`users/{uid}`) of `database`'s documents.
    public func register(key: String, project: String, eventType: String, document: String,
                         database: String = DatabaseID.defaultDatabase) throws(FirestoreError) {
        if eventType.hasPrefix(TriggerRegistration.v2Prefix) {
            let body = JSON.object([("eventType", .string(eventType)), ("database", .string(database)), ("namespace", .string("(default)")),
                                    ("document", .object([("value", .string(document)), ("matchType", .string("PATH_PATTERN"))]))])
            register(try TriggerRegistration.v2(project: project, key: key, body: body.bytes).0)
        } else {
            let resource = "projects/\(project)/databases/\(database)/documents/\(document)"
            let body = JSON.object([("eventTrigger", .object([("eventType", .string(eventType)), ("resource", .string(resource)),
                                                              ("service", .string(TriggerRegistration.firestoreService))]))])
            register(try TriggerRegistration.v1(project: project, key: key, body: body.bytes))
        }
    }

    /// Registers (or replaces: the Functions emulator re-registers a key on reload) a trigger.
    func register(_ trigger: Trigger) {
        registry.register(trigger)
        updateActive()
    }

    private func updateActive() {
        active.store(!registry.isEmpty && delivery.address != nil, ordering: .relaxed)
    }

    // MARK: CommitObserver

    public var observesCommits: Bool { active.load(ordering: .relaxed) }

    /// Under the commit lock: hands the commit to the dispatching thread (one short lock, a
    /// wake-up only if it sleeps), which matches it against the triggers and queues its events.
    public func committed(_ commit: CommittedDocuments) {
        delivery.admit(commit)
    }
}
