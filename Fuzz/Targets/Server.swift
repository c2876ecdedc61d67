import HearthCore
@_spi(Fuzzing) import HearthServer

/// Input: a selector byte (which request message) and the message's protobuf bytes.
let protobufTarget = FuzzTarget(name: "protobuf", summary: "every Firestore request message the gRPC service decodes") { data in
    guard let selector = data.first else { return 0 }
    return ServerFuzzing.protobufMessage(selector, Array(data.dropFirst()))
}

/// Input: up to 6 requests separated by NUL bytes, run in turn on one fresh emulator state;
/// each `METHOD target\n`, header lines, an empty line, the body (ServerFuzzing.restSequence).
let restTarget = FuzzTarget(name: "rest", summary: "REST requests through the request handler (proto3 JSON, queries, cursors, page tokens)") { data in
    ServerFuzzing.restSequence(data).reduce(0, +)
}

let webChannelTarget = FuzzTarget(name: "webchannel", summary: "WebChannel forward-channel bodies and their Listen/Write JSON messages",
                                  run: ServerFuzzing.webChannelForward)

let requestTextsTarget = FuzzTarget(name: "request-texts", summary: "page tokens, orderBy, query strings, Authorization (JWT), percent-encoding") { data in
    ServerFuzzing.requestTexts(String(decoding: data, as: UTF8.self))
}
