@_spi(Fuzzing) import HearthTransport

// The transport's parsers: each reads bytes straight from a socket. The first byte of an
// input chooses how it is cut into reads (TransportFuzzing.pieces).

let http1Target = FuzzTarget(name: "http1", summary: "HTTP/1.1 request heads, content-length and chunked bodies, pipelining",
                             run: TransportFuzzing.http1)
let http2FramesTarget = FuzzTarget(name: "http2-frames", summary: "HTTP/2 frame parser (every per-frame rule)",
                                   run: TransportFuzzing.http2Frames)
let http2ConnectionTarget = FuzzTarget(name: "http2-connection", summary: "HTTP/2 server connection state machine after the preface",
                                       run: TransportFuzzing.http2Connection)
let hpackTarget = FuzzTarget(name: "hpack", summary: "HPACK header blocks on one dynamic table, encoder round trip",
                             run: TransportFuzzing.hpack)
let webSocketTarget = FuzzTarget(name: "websocket", summary: "WebSocket client frames",
                                 run: TransportFuzzing.webSocketFrames)
