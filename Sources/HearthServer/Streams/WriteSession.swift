import Foundation
import HearthCore
import HearthGRPC

/// One `Write` stream (over gRPC, or over WebChannel as JSON): the handshake, then one atomic commit per
/// request, handled in order a batch at a time on the worker pool (an idle stream holds no
/// thread).
///
/// The first request names the database and carries no writes; it is answered with the
/// stream's id and a first stream token. Each later request's writes are committed
/// together through `DocumentService.commit` (the Commit RPC's path: rules, auth,
/// preconditions, transforms) and answered with a new token, one WriteResult per write and
/// the commit time. A later request without writes (the client's teardown) commits
/// nothing and is not answered. A failed commit or a malformed request ends the stream
/// with its status; the stream ends OK when the client half-closes, and a reset, deadline
/// or server stop ends it too. Stream tokens are opaque and unique; they are not checked
/// (clients pipeline batches with an older token) and do not resume anything.
final class WriteSession: StreamSession, @unchecked Sendable {
    enum Event: StreamSessionEvent {
        case request([UInt8])
        case inputEnded
        case cancelled
    }

    let state: EmulatorState
    /// The transport's call. Sends and flushes go through `faults` instead (a `dropAfter`
    /// fault counts them); everything else comes here directly, without a forwarding layer.
    let call: any FirestoreStreamCall
    private let faults: FaultStreamCall
    let codec: any WriteCodec

    /// Shared with the connection's event loop.
    private let events = GRPCMailbox<Event>()

    // The session's batches only (one at a time).
    private var service: DocumentService?
    private let streamID = UUID().uuidString.lowercased()
    /// This stream's entry in `state.streams`.
    private let openStreamID: Int
    private var tokenCounter: UInt64 = 0
    private var finished = false

    private init(state: EmulatorState, call: any FirestoreStreamCall, codec: any WriteCodec) {
        self.state = state
        faults = FaultStreamCall(call)
        self.call = call
        self.codec = codec
        openStreamID = call.register(.write, in: state)
    }

    /// Starts a session for `call`; its batches run on the server's worker pool.
    static func start(state: EmulatorState, call: any FirestoreStreamCall, codec: any WriteCodec = WriteProtobufCodec()) -> WriteSession {
        WriteSession(state: state, call: call, codec: codec).hearingItsEnd()
    }

    // MARK: Events from the call (the connection's event loop)

    func enqueue(_ event: Event) {
        // A full pool has ended the call (RESOURCE_EXHAUSTED); nothing is held to release.
        if events.append(event) { _ = call.runWorker { [self] in drain() } }
    }

    // MARK: Batches

    /// Handles what is queued until nothing is, or the client is behind on reading (then
    /// it resumes once the client has read). Once the stream has ended, its entry in
    /// `state.streams` is closed.
    private func drain() {
        while !finished {
            guard call.isWritable else {
                call.whenWritable { [self] in
                    if !call.runWorker({ [self] in drain() }) { finished = true }
                }
                return
            }
            guard let batch = events.take() else { return }
            do throws(FirestoreError) {
                for event in batch where !finished { try handle(event) }
                faults.flush()
            } catch {
                finished = true
                call.finish(error)
            }
        }
        state.streams.close(openStreamID)
    }

    private func handle(_ event: Event) throws(FirestoreError) {
        switch event {
        case .request(let bytes):
            state.streams.update(openStreamID) { $0.requests += 1 }
            try state.requestLog.serve(call.transport, method: "Write", path: "/google.firestore.v1.Firestore/Write",
                                       authorization: call.authorization) { () throws(FirestoreError) in
                try RequestSize.check(bytes.count)
                try handle(codec.decodeRequest(bytes))
            }
        case .inputEnded:
            finished = true
            call.finish(.ok, message: "")
        case .cancelled:
            finished = true
        }
    }

    private func nextToken() -> [UInt8] {
        tokenCounter += 1
        return Array("\(streamID)/\(tokenCounter)".utf8)
    }

    private func handle(_ request: WriteStreamMessages.Request) throws(FirestoreError) {
        guard let service else {
            // The handshake.
            // The official emulator's checks and texts.
            guard !request.database.isEmpty else { throw .invalidArgument("'database' must be set on an initial write request.") }
            let database = try ResourceNameFields.database(request.database)
            guard request.writes.isEmpty else { throw .invalidArgument("'writes' must not be set on an initial write request.") }
            guard request.streamID.isEmpty else { throw .invalidArgument("Resuming streams is not supported, do not set stream ID.") }
            if try faults.fault(state, database, .write, []) != nil { throw .injectedDroppedAnswer }
            let auth = try AuthContext.parse(call.authorization)
            service = try DocumentService(state: state, database: database, auth: auth)
            state.streams.update(openStreamID) { $0.database = database }
            try faults.send(codec.response(streamID: streamID, streamToken: nextToken(), result: nil))
            return
        }
        let database = service.database
        if !request.database.isEmpty {
            guard try ResourceNameFields.database(request.database) == database else {
                throw .invalidArgument("All requests of a Write stream must name the same database (\(database.name)), got \(request.database).")
            }
        }
        if !request.streamID.isEmpty && request.streamID != streamID {
            throw .invalidArgument("Unknown stream_id \"\(request.streamID)\" on this Write stream.")
        }
        // A request without writes is the SDKs' notice that the stream is closing: answered
        // with a token, then the call ends (as the official emulator does).
        guard !request.writes.isEmpty else {
            try faults.send(codec.response(streamID: "", streamToken: nextToken(), result: nil))
            finished = true
            call.finish(.ok, message: "")
            return
        }
        let writes = try WriteStreamMessages.decodeWrites(request.writes, database: database)
        let fault = try faults.fault(state, database, .write, writes.map(\.path))
        let result = try service.commit(writes, transaction: nil, faultMethod: nil)
        // A dropped answer: committed, and the stream is cut instead of answering.
        if fault != nil { throw .injectedDroppedAnswer }
        // The stream id goes with the handshake's answer only.
        try faults.send(codec.response(streamID: "", streamToken: nextToken(), result: result))
    }
}
