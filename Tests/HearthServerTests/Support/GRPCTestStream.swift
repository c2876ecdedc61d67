import HearthCore
@testable import HearthGRPC
@testable import HearthServer
@testable import HearthTransport

/// A bidirectional call on its own HTTP/2 connection (the raw client's frames and the
/// HPACK codec): send request messages whenever, read response messages as they arrive,
/// half-close or reset, and read the final status.
final class GRPCTestStream {
    let client: GRPCTestClient
    let id: UInt32
    private var reader = GRPCMessageReader()
    private var pending: [[UInt8]] = []
    private var headerBlocks = 0
    /// The trailers' `grpc-status`, once the call has ended.
    private(set) var status: Int?
    private(set) var statusMessage = ""

    init(port: Int, method: String, authorization: String? = "Bearer owner", initialWindow: UInt32 = 4_194_304) throws {
        client = try GRPCTestClient(port: port, initialWindow: initialWindow)
        id = client.open(client.requestHeaders(method, authorization: authorization))
    }

    /// Sends one request message (and half-closes with `endStream`).
    func send(_ message: [UInt8], endStream: Bool = false) {
        client.raw.send([HTTP2Frame(streamID: id, flags: endStream ? .endStream : [], payload: .data(GRPCMessageWriter.frame(message)))])
    }

    /// Sends raw body bytes.
    func sendRaw(_ bytes: [UInt8], endStream: Bool = false) {
        client.raw.send([HTTP2Frame(streamID: id, flags: endStream ? .endStream : [], payload: .data(bytes))])
    }

    /// Half-closes the request side.
    func halfClose() {
        client.raw.send([HTTP2Frame(streamID: id, flags: .endStream, payload: .data([]))])
    }

    /// Opens the connection's and this stream's flow-control windows as far as they go.
    func openWindows() {
        client.raw.send([HTTP2Frame(streamID: 0, flags: [], payload: .windowUpdate(0x7FFF_FFFF - 4_194_304)),
                         HTTP2Frame(streamID: id, flags: [], payload: .windowUpdate(0x7FFF_FFFF - 4_194_304))])
    }

    /// Resets the stream (what a client does to unsubscribe).
    func cancel() {
        client.raw.send([HTTP2Frame(streamID: id, flags: [], payload: .rstStream(.cancel))])
    }

    /// The next `count` response messages; fewer only when the call ended first. Throws
    /// when the connection closes or the read times out.
    func next(_ count: Int = 1) throws -> [[UInt8]] {
        while pending.count < count && status == nil {
            guard let frames = try client.raw.read(until: { _ in true }) else {
                throw FirestoreError(.deadlineExceeded, "no response (\(pending.count) of \(count) messages)")
            }
            for f in frames { try absorb(f) }
        }
        let out = Array(pending.prefix(count))
        pending.removeFirst(out.count)
        return out
    }

    /// Reads until the call ends; returns the status.
    func finalStatus() throws -> Int {
        while status == nil { _ = try next(Int.max) }
        return status!
    }

    private func absorb(_ f: HTTP2Frame) throws {
        switch f.payload {
        case .headers(let block, _):
            let decoded = try client.raw.decoder.decode(block)
            guard f.streamID == id else { return }
            headerBlocks += 1
            if let s = decoded.first(where: { $0.name == "grpc-status" }) {
                status = Int(s.value)
                statusMessage = decoded.first { $0.name == "grpc-message" }.map { GRPCStatus.percentDecode($0.value) } ?? ""
            }
        case .data(let d) where f.streamID == id:
            reader.append(d)
            while let m = try reader.next() { pending.append(m) }
        default: break
        }
    }
}
