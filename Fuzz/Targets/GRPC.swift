@_spi(Fuzzing) import HearthGRPC

let grpcFramingTarget = FuzzTarget(name: "grpc-framing", summary: "gRPC length-prefixed messages, compressed flag, grpc-encoding",
                                   run: GRPCFuzzing.messages)
let gzipTarget = FuzzTarget(name: "gzip", summary: "gzip members (RFC 1952/1951) under an output limit",
                            run: GRPCFuzzing.gunzip)
