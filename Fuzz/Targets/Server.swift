import HearthCore
@_spi(Fuzzing) import HearthServer

/// Input: a selector byte (which request message) and the message's protobuf bytes.
let protobufTarget = FuzzTarget(name: "protobuf", summary: "every Firestore request message the gRPC service decodes") { data in
    guard let selector = data.first else { return 0 }
    return ServerFuzzing.protobufMessage(selector, Array(data.dropFirst()))
}

/// Input: up to 6 requests separated by NUL bytes, run in turn on one fresh emulator state
/// (so a write can be read, queried and listed by the next). Each request is
/// `METHOD target\n`, header lines `name: value\n`, an empty line, then the body.
let restTarget = FuzzTarget(name: "rest", summary: "REST requests through the request handler (proto3 JSON, queries, cursors, page tokens)") { data in
    var produced = 0
    let sequence = ServerFuzzing.RequestSequence()
    for part in splitParts(data, count: 6) {
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
        guard requestLine.count == 2 else { continue }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        produced += sequence.send(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Array(body.utf8))
    }
    return produced
}

let webChannelTarget = FuzzTarget(name: "webchannel", summary: "WebChannel forward-channel bodies and their Listen/Write JSON messages",
                                  run: ServerFuzzing.webChannelForward)

let requestTextsTarget = FuzzTarget(name: "request-texts", summary: "page tokens, orderBy, query strings, Authorization (JWT), percent-encoding") { data in
    ServerFuzzing.requestTexts(String(decoding: data, as: UTF8.self))
}
