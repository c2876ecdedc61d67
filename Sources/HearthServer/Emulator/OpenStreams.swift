import Foundation
import HearthCore
import HearthLock
import Synchronization

/// The streams open right now — Listen and Write streams over gRPC (and WebChannel
/// sessions, which carry the same streams) — with the database they address, who opened
/// them and, for Listen, their active targets. The console's Listeners panel shows them.
/// Sessions update it when they open, add or remove a target, and close: a lock taken a few
/// times per stream, never per document or per commit.
public final class OpenStreams: Sendable {
    public struct Stream: Sendable {
        public enum Kind: String, Sendable {
            case listen = "Listen"
            case write = "Write"
        }

        public let id: Int
        public let kind: Kind
        public let transport: RequestLogEntry.Transport
        public let opened: Date
        public let caller: RequestLogEntry.Caller
        public var database: DatabaseID?
        /// A Listen stream's active targets, by target id.
        public var targets: [Int32: ListenTarget] = [:]
        /// Requests the client sent on the stream so far.
        public var requests = 0
    }

    private let streams = HearthMutex<[Int: Stream]>([:])
    private let counter = Atomic<Int>(0)
    private let changes = Atomic<Int>(0)

    public init() {}

    /// Registers a stream that just opened; returns its id.
    func open(_ kind: Stream.Kind, transport: RequestLogEntry.Transport, caller: RequestLogEntry.Caller) -> Int {
        let id = counter.add(1, ordering: .relaxed).newValue
        streams.withLock { $0[id] = Stream(id: id, kind: kind, transport: transport, opened: Date(), caller: caller) }
        changes.add(1, ordering: .releasing)
        return id
    }

    /// Changes what is known of stream `id` (nothing once it closed).
    func update(_ id: Int, _ body: (inout Stream) -> Void) {
        streams.withLock { s in
            guard var stream = s[id] else { return }
            body(&stream)
            s[id] = stream
        }
        changes.add(1, ordering: .releasing)
    }

    /// Forgets a stream that ended (idempotent).
    func close(_ id: Int) {
        if streams.withLock({ $0.removeValue(forKey: id) }) != nil { changes.add(1, ordering: .releasing) }
    }

    /// The open streams, oldest first.
    public var all: [Stream] { streams.withLock { $0.values.sorted { $0.id < $1.id } } }

    /// How many streams are open.
    public var count: Int { streams.withLock { $0.count } }

    /// Grows with every change: whoever shows the streams compares it to what it showed.
    public var version: Int { changes.load(ordering: .acquiring) }
}
