import Foundation
import HearthCore
import HearthTransport

/// Entry points for the libFuzzer targets in `Fuzz/` (docs/reliability.md#fuzzing) into the
/// server's decoders and its request handler; see HearthTransport's `TransportFuzzing`.
/// Here (Server/, the top layer) because the handler it drives is the one EmulatorServer
/// uses. `@_spi(Fuzzing)`: not part of the module's API.
@_spi(Fuzzing) public enum ServerFuzzing {
    /// The request messages the gRPC service decodes, chosen by `selector` (taken modulo
    /// `protobufMessageCount`), each decoded as its RPC does, nested messages (writes, the
    /// Listen target's query) included. Returns 1 when it decoded, 0 when it was refused.
    public static let protobufMessageCount = 19

    public static func protobufMessage(_ selector: UInt8, _ bytes: [UInt8]) -> Int {
        let database = DatabaseID(project: "p", database: "(default)")
        do throws(FirestoreError) {
            switch Int(selector) % protobufMessageCount {
            case 0: _ = try DocumentRequestMessages.decodeGet(bytes)
            case 1: _ = try DocumentRequestMessages.decodeCreate(bytes)
            case 2: _ = try DocumentRequestMessages.decodeUpdate(bytes)
            case 3: _ = try DocumentRequestMessages.decodeDelete(bytes)
            case 4: _ = try DocumentRequestMessages.decodeList(bytes)
            case 5: _ = try DocumentRequestMessages.decodeListCollectionIds(bytes)
            case 6: _ = try BatchWriteMessages.decodeRequest(bytes)
            case 7:
                let request = try ListenMessages.decodeRequest(bytes)
                if case .add(let target) = request.change { _ = try ListenMessages.resolve(target.kind, database: database) }
            case 8: _ = try PipelineMessages.decodeRequest(bytes)
            case 9: _ = try ReadRequestMessages.decodeBatchGet(bytes)
            case 10: _ = try ReadRequestMessages.decodeQuery(bytes, aggregation: false)
            case 11: _ = try ReadRequestMessages.decodeQuery(bytes, aggregation: true)
            case 12: _ = try ReadRequestMessages.decodePartition(bytes)
            case 13: _ = try TransactionMessages.decodeBegin(bytes)
            case 14: _ = try TransactionMessages.decodeRollback(bytes)
            case 15: _ = try TransactionMessages.decodeCommit(bytes)
            case 16:
                let request = try WriteStreamMessages.decodeRequest(bytes)
                _ = try WriteStreamMessages.decodeWrites(request.writes, database: database)
            case 17: return ListenResumeToken.decode(bytes) == nil ? 0 : 1
            default: _ = try ValueMessage.decode(bytes)
            }
            return 1
        } catch {
            return 0
        }
    }

    /// HTTP requests through the emulator's request handler (CORS, auth, REST routing, the
    /// proto3 JSON codec, the document service, rules and the engine) on one fresh in-memory
    /// state per sequence, so every input reproduces on its own. REST (`/v1/…`), the plain
    /// endpoints, and of `/emulator/v1/…` only what touches no file and no other process
    /// (rules, clock, snapshots, clearing data): export and import name files, triggers name
    /// hosts. The WebChannel endpoints start sessions with threads; their bodies have their
    /// own target.
    public final class RequestSequence {
        let handler: RequestHandler

        public init() {
            let state = EmulatorState()
            handler = RequestHandler(state: state, webChannel: WebChannelService(state: state))
        }

        /// The response's status and body size (status 0: a request this target does not send).
        public func send(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8]) -> (status: Int, bodyCount: Int) {
            let request = HTTPRequest(method: method, target: target, headers: headers, body: body)
            guard WebChannelService.kind(of: request.path) == nil, request.path != "/shutdown" else { return (0, 0) }
            if request.path.hasPrefix("/emulator/") {
                guard let path = PercentDecoding.decode(request.path) else { return (0, 0) }
                let harmless = [":securityRules", ":ruleCoverage", ":snapshot", ":restore", "/clock"].contains { path.hasSuffix($0) }
                    || (method == "DELETE" && path.contains("/documents"))
                guard harmless else { return (0, 0) }
            }
            let response = handler.handle(request, rest: nil, stop: {})
            return (response.status, response.body.count)
        }
    }

    /// The `rest` target's input: up to 6 requests separated by NUL bytes, run in turn on
    /// one `RequestSequence` (so a write can be read, queried and listed by the next). Each
    /// request is `METHOD target\n`, header lines `name: value\n`, an empty line, the body.
    /// Returns each request's status (0: not sent).
    public static func restSequence(_ data: [UInt8]) -> [Int] {
        var parts: [ArraySlice<UInt8>] = []
        var rest = data[...]
        while parts.count < 5, let nul = rest.firstIndex(of: 0) {
            parts.append(rest[..<nul])
            rest = rest[(nul + 1)...]
        }
        parts.append(rest)
        let sequence = RequestSequence()
        return parts.map { part -> Int in
            let text = String(decoding: part, as: UTF8.self)
            let head: Substring, body: Substring
            if let blank = text.range(of: "\n\n") {
                head = text[..<blank.lowerBound]
                body = text[blank.upperBound...]
            } else {
                head = text[...]
                body = ""
            }
            let lines = head.split(separator: "\n", omittingEmptySubsequences: false)
            let requestLine = lines[0].split(separator: " ", maxSplits: 1)
            guard requestLine.count == 2 else { return 0 }
            let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), String(line[line.index(after: colon)...].drop { $0 == " " }))
            }
            return sequence.send(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Array(body.utf8)).status
        }
    }

    /// A WebChannel forward-channel body (the form, its numbered `req<i>___data__` messages
    /// and the handshake's `headers` field), each message decoded by the Listen and the Write
    /// streams' JSON codecs as a session would (a Listen target resolved, writes decoded).
    public static func webChannelForward(_ body: [UInt8]) -> Int {
        let database = DatabaseID(project: "p", database: "(default)")
        guard let form = WebChannelWire.form(String(decoding: body, as: UTF8.self)) else { return 0 }
        var produced = WebChannelWire.headers(form["headers"]).count
        guard let (offset, messages) = try? WebChannelWire.messages(form) else { return produced + 1 }
        produced += offset & 0xFF
        for message in messages {
            let bytes = Array(message.utf8)
            if let request = try? ListenJSONCodec().decodeRequest(bytes) {
                produced += 1
                if case .add(let target) = request.change { produced += (try? ListenMessages.resolve(target.kind, database: database)) == nil ? 0 : 1 }
            }
            if let request = try? WriteJSONCodec().decodeRequest(bytes) {
                produced += (try? WriteStreamMessages.decodeWrites(request.writes, database: database))?.count ?? 0
            }
        }
        return produced
    }

    /// The small texts requests carry: a page token, a REST `orderBy`, a query string, an
    /// `Authorization` header (a Bearer token's JWT claims), a percent-encoded path.
    public static func requestTexts(_ text: String) -> Int {
        var produced = 0
        if let start = try? DocumentService.pageStart(fromToken: text) { produced += start == .cursor(after: nil) ? 1 : 2 }
        produced += (try? DocumentService.parseOrderBy(text))?.count ?? 0
        produced += (try? QueryParameters(text[...])) == nil ? 0 : 1
        produced += (try? AuthContext.parse(text)) == nil ? 0 : 1
        produced += PercentDecoding.decode(text[...])?.count ?? 0
        return produced
    }
}
